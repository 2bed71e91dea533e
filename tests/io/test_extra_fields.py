"""Extra input fields become columns of every page, so their number is capped per file
(`inputs.max_extra_fields`): records that each bring new names once built a table of 100,000
columns (a 2.4 MB JSONL took 100 s and 3.6 GB, then the process aborted)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from helpers import collect

from trustaudit.io.readers import open_source
from trustaudit.io.records import UNSCANNED_CODES
from trustaudit.policy.inputs import InputsPolicy


def _jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_records_past_the_field_cap_are_error_rows(tmp_path: Path) -> None:
    recs = [
        {"url": f"https://k.example/{i}", "html": "<p>x</p>", **{f"k{i}_{j}": j for j in range(3)}}
        for i in range(5)
    ]
    recs.append({"url": "https://k.example/old", "html": "<p>x</p>", "k0_0": 7, "k1_2": 8})
    src = open_source(_jsonl(tmp_path / "f.jsonl", recs), limits=InputsPolicy(max_extra_fields=7))
    rows, errors = collect(src, batch_size=2)
    assert [r["url"] for r in rows] == [
        "https://k.example/0",
        "https://k.example/1",
        "https://k.example/old",  # names already columns of the file: kept
    ]
    assert [(e.offset, e.code, e.url) for e in errors] == [
        (3, "TOO_MANY_FIELDS", "https://k.example/2"),
        (4, "TOO_MANY_FIELDS", "https://k.example/3"),
        (5, "TOO_MANY_FIELDS", "https://k.example/4"),
    ]
    assert "3 new field name(s) ('k2_0', …)" in errors[0].message
    assert "inputs.max_extra_fields (7)" in errors[0].message
    assert "TOO_MANY_FIELDS" in UNSCANNED_CODES  # its page was never scanned: the gate says so


def test_one_record_with_many_fields_is_an_error_row(tmp_path: Path) -> None:
    wide = {"url": "https://k.example/wide", "html": "<p>x</p>", **{f"f{j}": j for j in range(300)}}
    ok = {"url": "https://k.example/ok", "html": "<p>x</p>", "lang": "en"}
    rows, errors = collect(open_source(_jsonl(tmp_path / "w.jsonl", [wide, ok])))
    assert [r["url"] for r in rows] == ["https://k.example/ok"]
    assert [(e.code, e.url) for e in errors] == [("TOO_MANY_FIELDS", "https://k.example/wide")]


def test_each_file_has_its_own_count(tmp_path: Path) -> None:
    limits = InputsPolicy(max_extra_fields=2)
    for name in ("a", "b"):
        recs = [{"url": f"https://{name}.example/", "html": "<p>x</p>", "x": 1, "y": 2}]
        rows, errors = collect(open_source(_jsonl(tmp_path / f"{name}.jsonl", recs), limits=limits))
        assert (len(rows), errors) == (1, [])


def test_parquet_with_too_many_columns_is_one_error_row(tmp_path: Path) -> None:
    cols: dict[str, list[object]] = {"url": ["https://p.example/"], "html": ["<p>x</p>"]}
    cols.update({f"c{j}": [j] for j in range(5)})
    path = tmp_path / "wide.parquet"
    pq.write_table(pa.table(cols), path)
    rows, errors = collect(open_source(path, limits=InputsPolicy(max_extra_fields=4)))
    assert rows == []
    assert [(e.code, e.offset) for e in errors] == [("TOO_MANY_FIELDS", None)]
    assert "5 extra columns" in errors[0].message
    rows, errors = collect(open_source(path, limits=InputsPolicy(max_extra_fields=5)))
    assert (len(rows), errors) == (1, [])


def test_a_field_name_over_1024_characters_is_an_error_row(tmp_path: Path) -> None:
    """Before: a record whose extra field was named by 5 MB of text was a page, and the name a
    column of pages.parquet (256 such names per file: over a gigabyte in its footer). Now the
    record is FIELD_TOO_LARGE and the lines around it are read; 1,024 characters are a name."""
    recs = [
        {"url": "https://n.example/a", "html": "<p>x</p>", "k" * 1024: 1},
        {"url": "https://n.example/b", "html": "<p>x</p>", "n" * 200_000: 1},
        {"url": "https://n.example/c", "html": "<p>x</p>"},
    ]
    rows, errors = collect(open_source(_jsonl(tmp_path / "n.jsonl", recs)))
    assert [r["url"] for r in rows] == ["https://n.example/a", "https://n.example/c"]
    assert [(e.offset, e.code, e.url) for e in errors] == [
        (2, "FIELD_TOO_LARGE", "https://n.example/b")
    ]
    assert errors[0].message.startswith("line 2: a field name of 200000 characters ('nnnn")
    assert "FIELD_TOO_LARGE" in UNSCANNED_CODES
