"""Parquet cells that compress to almost nothing: their size is known from Arrow before any cell
becomes a Python string, and row groups of huge rows are read a few rows at a time."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from helpers import collect

from trustaudit.io.readers import _parquet_batches, _sized, open_source


def test_over_cap_cells_are_too_large_rows_by_their_bytes(tmp_path: Path) -> None:
    path = tmp_path / "p.parquet"
    table = pa.table(
        {
            "url": ["https://p.example/big", "https://p.example/wide", "https://p.example/ok"],
            "text": ["a" * 5_000, "é" * 3_000, "fine"],  # 6,000 bytes in 3,000 characters
        }
    )
    pq.write_table(table, path, compression="zstd")
    rows, errors = collect(open_source(path, max_bytes=4_000))
    assert [r["url"] for r in rows] == ["https://p.example/ok"]
    assert [(e.url, e.code) for e in errors] == [
        ("https://p.example/big", "TOO_LARGE"),
        ("https://p.example/wide", "TOO_LARGE"),
    ]
    assert "is 6000 bytes, over 4000" in errors[1].message


def test_sized_nulls_over_cap_cells_before_any_python_copy() -> None:
    batch = pa.record_batch({"html": ["x" * 10, None, "y"], "text": [None, "z" * 20, None]})
    sizes, out = _sized(batch, 15)
    assert sizes == [10, 20, 1]
    assert out.column("html").to_pylist() == ["x" * 10, None, "y"]
    assert out.column("text").to_pylist() == [None, None, None]


def test_row_groups_of_huge_rows_are_read_a_few_rows_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "h.parquet"
    rows = [f"<p>{i}{'a' * 400_000}</p>" for i in range(6)]
    table = pa.table({"url": [f"https://h.example/{i}" for i in range(6)], "html": rows})
    pq.write_table(table, path, compression="zstd", use_dictionary=False)
    pf = pq.ParquetFile(path)
    assert [b.num_rows for b in _parquet_batches(pf, 64, 1_000_000)] == [2, 2, 2]
    small = tmp_path / "s.parquet"
    pq.write_table(pa.table({"url": ["u"] * 10, "html": ["<p>x</p>"] * 10}), small)
    assert [b.num_rows for b in _parquet_batches(pq.ParquetFile(small), 4, 1_000_000)] == [4, 4, 2]
