"""Stage memo: digests change with any input row, entries come back, damage and pruning are safe."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from trustaudit.io.memo import StageMemo, frame_digest


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "doc_id": ["a", "b"],
            "paragraphs": [["one", "two"], ["three"]],
            "findings": [[{"rule": "r", "score": 0.5}], []],
        }
    )


def test_digest_sees_every_row_nested_values_order_and_salt() -> None:
    base = _frame()
    d = frame_digest(base)
    assert d == frame_digest(_frame())
    nested = base.with_columns(paragraphs=pl.Series([["one", "TWO"], ["three"]]))
    assert frame_digest(nested) != d
    assert frame_digest(base.reverse()) != d
    assert frame_digest(base, salt="policy-2") != d
    assert frame_digest(base.head(1)) != d


def test_memo_computes_once_then_reads_back(tmp_path: Path) -> None:
    memo = StageMemo(tmp_path)
    calls: list[int] = []

    def compute() -> pl.DataFrame:
        calls.append(1)
        return pl.DataFrame({"doc_id": ["a"], "v": [1.5]})

    first = memo.get_or_compute("corpus", "k1", compute)
    again = StageMemo(tmp_path).get_or_compute("corpus", "k1", compute)
    assert len(calls) == 1 and again.equals(first)
    assert memo.summary() == {"hits": [], "misses": ["corpus"]}


def test_damaged_entry_is_recomputed_and_old_entries_pruned(tmp_path: Path) -> None:
    memo = StageMemo(tmp_path, keep=2)
    for key in ("k1", "k2", "k3"):
        memo.get_or_compute("page", key, lambda: pl.DataFrame({"x": [1]}))
    assert len(list((tmp_path / "memo").glob("page-*.parquet"))) == 2
    (tmp_path / "memo" / "page-k3.parquet").write_bytes(b"not parquet")
    out = memo.get_or_compute("page", "k3", lambda: pl.DataFrame({"x": [2]}))
    assert out["x"].to_list() == [2]
