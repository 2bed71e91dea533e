"""Memory that does not grow with the corpus: ingest batches cut by bytes as well as records
(`inputs.batch_max_bytes`), coherence in batches of pages (`engine.corpus_batch_pages`), and
neither changes a score."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from unittest import mock

import polars as pl
import pytest
from helpers import article_html
from polars.testing import assert_frame_equal

from trustaudit.io.records import ErrorRow, RecordBatch, records_table
from trustaudit.policy import Policy
from trustaudit.run.ingest import record_bytes, split_by_bytes

REPO = Path(__file__).resolve().parents[2]
DEMO = [
    "fixtures/corpus/pages",
    "fixtures/corpus/extra.jsonl",
    "--allowlist",
    "fixtures/corpus/allowlist.txt",
    "--blocklist",
    "fixtures/corpus/blocklist.txt",
    "--domain-info",
    "fixtures/corpus/domain_info.csv",
]


def _batch(sizes: list[int]) -> RecordBatch:
    rows = [
        {"source": "mem", "offset": i, "url": f"https://a.example/{i}", "body": b"x" * n}
        for i, n in enumerate(sizes)
    ]
    error = ErrorRow("mem", 99, None, "read", "LINE_TOO_LARGE", "skipped")
    return RecordBatch(records_table(rows), [error])


def test_a_batch_over_the_byte_budget_is_cut_in_order() -> None:
    batch = _batch([10, 10, 10, 40, 5])
    cut = list(split_by_bytes(batch, 25))
    assert [b.records.column("offset").to_pylist() for b in cut] == [[0, 1], [2], [3], [4]]
    assert [len(b.errors) for b in cut] == [1, 0, 0, 0]  # the reader's errors counted once
    assert [sum(record_bytes(b.records)) for b in cut] == [20, 10, 40, 5]
    # a copy per cut, not a view of the whole batch (a pickled view carries every record)
    assert all(b.records.nbytes < batch.records.nbytes for b in cut)


def test_a_batch_within_the_budget_is_left_whole() -> None:
    batch = _batch([10, 10])
    assert list(split_by_bytes(batch, 20)) == [batch]


def test_the_budget_is_a_validated_policy_key() -> None:
    assert Policy().inputs.batch_max_bytes == 64_000_000
    with pytest.raises(ValueError, match="batch_max_bytes"):
        Policy().with_overrides({"inputs": {"batch_max_bytes": 0}})


def _audit(out: Path, *inputs: str, **env: str) -> dict:  # type: ignore[type-arg]
    """`trustaudit audit` in this process (the policy's environment overrides set around it), one
    extraction process: the batches and scores are what is checked here, not the process pool
    (tests/cli/test_audit.py::test_process_pool_gives_the_same_result checks that)."""
    from typer.testing import CliRunner

    from trustaudit.cli.main import app

    args = ["audit", *inputs, "--out", str(out), "--now", "2026-11-01", "--quiet", "--fresh"]
    with mock.patch.dict(os.environ, env), contextlib.chdir(REPO):
        res = CliRunner().invoke(app, [*args, "--workers", "1"])
    assert res.exit_code == 0, res.output[-2000:]
    return json.loads((out / "manifest.json").read_text())


def test_audit_cuts_large_records_into_batches_of_their_own(tmp_path: Path) -> None:
    lines = [
        json.dumps({"url": f"https://big{i}.example.com/a", "html": article_html(f"Big {i}")})
        for i in range(4)
    ]
    (tmp_path / "big.jsonl").write_text("\n".join(lines) + "\n")
    size = len(article_html("Big 0").encode())
    small = _audit(
        tmp_path / "cut",
        str(tmp_path / "big.jsonl"),
        TRUSTAUDIT_INPUTS__BATCH_MAX_BYTES=str(size + 10),
    )
    whole = _audit(tmp_path / "whole", str(tmp_path / "big.jsonl"))
    assert small["stages"]["ingest"]["batches"] == 4
    assert whole["stages"]["ingest"]["batches"] == 1
    assert small["stages"]["ingest"]["accounting"]["balanced"]
    assert_frame_equal(
        pl.read_parquet(tmp_path / "cut" / "scores.parquet"),
        pl.read_parquet(tmp_path / "whole" / "scores.parquet"),
    )


def test_audit_scores_do_not_depend_on_the_corpus_batches(tmp_path: Path) -> None:
    """The demo corpus (52 pages) in corpus batches of 5 pages (coherence; syndication and claims
    spilled batch by batch) and in one call: the same scores.parquet and signals.parquet."""
    one = tmp_path / "one"
    many = tmp_path / "many"
    first = _audit(one, *DEMO)
    batched = _audit(
        many,
        *DEMO,
        TRUSTAUDIT_ENGINE__CORPUS_BATCH_PAGES="5",
        TRUSTAUDIT_ENGINE__LOCAL_CORPUS_MIN_PAGES="1",
    )
    # syndication and claims ran as spilled batches too (run_local), coherence in 11 batches
    assert first["stages"]["signals"]["families"]["corpus"] == "computed"
    assert batched["stages"]["signals"]["families"]["corpus"].startswith("distributed")
    assert not (many / ".work" / "corpus").exists()  # the spill is gone with the run's end
    # the merge's unflagged links are gone once links.parquet is written with the flags
    assert not (many / ".work" / "links.merged.parquet").exists()
    for table in ("scores", "signals", "domains", "links"):
        assert_frame_equal(
            pl.read_parquet(many / f"{table}.parquet"), pl.read_parquet(one / f"{table}.parquet")
        )
