"""A Parquet data page that mixes one huge cell with many small ones (session 23's "Still open"):
read a value at a time, the huge cell passed over unread, never handed to Arrow whole."""

from __future__ import annotations

import itertools
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import arrow_decoded, collect, mixed_page_parquet, spy_arrow_reads

from trustaudit.io.parquet_cells import open_parquet
from trustaudit.io.parquet_pages import Over, column_cells
from trustaudit.io.parquet_thrift import DATA_PAGE_V2, chunk_pages
from trustaudit.io.readers import open_source
from trustaudit.policy.inputs import InputsPolicy

# pages over 1 MB are looked into; html cells over 300 KB are error rows
LIMITS = InputsPolicy(max_parquet_page_bytes=1_000_000)
CAP = 300_000
GOOD = ["<p>good a</p>", "<p>good b</p>"]


def _read(path: Path, limits: InputsPolicy = LIMITS) -> tuple[list, list]:  # type: ignore[type-arg]
    return collect(open_source(path, limits=limits, max_bytes=CAP))


@pytest.mark.parametrize(
    ("codec", "version"),
    list(itertools.product(["zstd", "gzip", "brotli", "snappy", "lz4", "none"], ["1.0", "2.0"])),
)
def test_a_huge_cell_among_small_ones_is_an_error_row_and_the_others_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, codec: str, version: str
) -> None:
    """Before: the page (2.5 MB here; its average cell, 8 KB, under the cap) was handed to Arrow,
    which decodes a page whole: one 1.8 GB cell among 2,000 small ones took the reader to 3.7 GB.
    Now its values' lengths are read first, then the column is decoded a value at a time: the
    huge cell is a TOO_LARGE row as any over-cap cell, the others pages, in order, and Arrow is
    never asked for that column of that row group (zstd, gzip, brotli as a stream; snappy and
    LZ4 decompressed once, whole; V1 and V2 pages)."""
    path = mixed_page_parquet(tmp_path / "m.parquet", GOOD, codec=codec, version=version)
    calls = spy_arrow_reads(monkeypatch)
    rows, errors = _read(path)
    small = [f"https://m.example.org/{i}" for i in range(301) if i != 150]
    want = ["https://g.example.org/0", "https://g.example.org/1", *small]
    assert [r["url"] for r in rows] == [*want, "https://g.example.org/2", "https://g.example.org/3"]
    assert [r["offset"] for r in rows] == [o for o in range(305) if o != 152]
    assert rows[2]["body"] == b"<p>small page 0</p>"
    assert rows[301]["body"] == b"<p>small page 300</p>"
    assert [(e.offset, e.url, e.code) for e in errors] == [
        (152, "https://m.example.org/150", "TOO_LARGE")
    ]
    assert errors[0].message == "row 152: html/text is 2500003 bytes, over 300000"
    assert not arrow_decoded(calls, 305, 1, "html")
    assert arrow_decoded(calls, 305, 0, "html") and arrow_decoded(calls, 305, 1, "url")


def test_the_huge_cell_of_an_extra_column_is_field_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for an extra text column (cap inputs.max_field_bytes, here 100 KB): FIELD_TOO_LARGE
    for its record, its neighbours' extra values kept."""
    notes = [f"n{i}" for i in range(200)]
    notes[7] = "z" * 2_000_000
    table = pa.table(
        {
            "url": [f"https://x.example.org/{i}" for i in range(200)],
            "html": [f"<p>{i}</p>" for i in range(200)],
            "note": notes,
        }
    )
    path = tmp_path / "x.parquet"
    pq.write_table(table, path, use_dictionary=False, data_page_size=1 << 30)
    calls = spy_arrow_reads(monkeypatch)
    limits = InputsPolicy(max_parquet_page_bytes=1_000_000, max_field_bytes=100_000)
    rows, errors = _read(path, limits)
    assert [(e.offset, e.code) for e in errors] == [(7, "FIELD_TOO_LARGE")]
    assert errors[0].message == "row 7: column 'note' is over inputs.max_field_bytes"
    assert [r["note"] for r in rows] == [n for i, n in enumerate(notes) if i != 7]
    assert not arrow_decoded(calls, 200, 0, "note")


def _values(n: int) -> list[str | None]:
    """Text with nulls, an empty string, a value over a 1,000-byte cap, then one sharing its
    first 300 bytes (what DELTA_BYTE_ARRAY stores as a prefix of the value before)."""
    out: list[str | None] = [f"<p>{i}</p>" * (i % 7) if i % 5 else None for i in range(n)]
    out[100] = "x" * 5_000 + "tail"
    out[101] = "x" * 300 + "after"
    out[102] = ""
    return out


@pytest.mark.parametrize("codec", ["zstd", "gzip", "brotli", "snappy", "lz4", "none"])
def test_cells_read_a_value_at_a_time_are_arrows_in_every_encoding(
    tmp_path: Path, codec: str
) -> None:
    """`column_cells` gives what Arrow decodes, in V1 and V2 pages, PLAIN, DELTA_LENGTH_BYTE_ARRAY,
    DELTA_BYTE_ARRAY and a dictionary that falls back to PLAIN, nullable or not, several pages
    to the chunk: the value over the cap as Over(its size), never read."""
    values = _values(500)
    encodings = ["PLAIN", "DICTIONARY", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"]
    for version, encoding, nullable in itertools.product(["1.0", "2.0"], encodings, [True, False]):
        cells = values if nullable else [v if v is not None else "n" for v in values]
        schema = pa.schema([pa.field("html", pa.string(), nullable=nullable)])
        kw: dict = {"compression": codec, "data_page_version": version, "max_rows_per_page": 128}  # type: ignore[type-arg]
        if encoding == "DICTIONARY":  # a small dictionary page limit: later pages fall back
            kw.update(use_dictionary=True, dictionary_pagesize_limit=2_000)
        else:
            kw.update(use_dictionary=False, column_encoding={"html": encoding})
        path = tmp_path / f"{version}-{encoding}-{nullable}.parquet"
        pq.write_table(pa.table({"html": cells}, schema=schema), path, **kw)
        pf = open_parquet(lambda p=path: p)
        col = pf.metadata.row_group(0).column(0)
        if encoding == "DICTIONARY":
            assert {"PLAIN", "RLE_DICTIONARY"} <= set(col.encodings)
        max_def = pf.metadata.schema.column(0).max_definition_level
        with path.open("rb") as handle:
            got = list(column_cells(handle, col, max_def, 1_000, 1 << 30))
        arrow = pq.read_table(path).column("html").to_pylist()
        want = [
            None if v is None else Over(len(v)) if len(v.encode()) > 1_000 else v.encode()
            for v in arrow
        ]
        assert got == want, (version, encoding, nullable)


def test_a_v2_page_header_says_where_its_levels_end(tmp_path: Path) -> None:
    path = tmp_path / "v2.parquet"
    table = pa.table({"html": ["a", None, "bcd"] * 10})
    pq.write_table(table, path, data_page_version="2.0", use_dictionary=False, compression="zstd")
    col = pq.ParquetFile(path).metadata.row_group(0).column(0)
    with path.open("rb") as handle:
        pages = [p for _, p in chunk_pages(handle, col)]
    assert len(pages) == 1 and pages[0] is not None
    page = pages[0]
    assert (page.kind, page.values, page.encoding) == (DATA_PAGE_V2, 30, 0)
    assert page.level_bytes[1] == 0 and page.level_bytes[0] > 0  # definition levels only


def test_a_nested_column_with_a_huge_value_among_small_ones_is_not_read(tmp_path: Path) -> None:
    """A list column is not decoded here: a page of it over the page cap holding a value over
    the cap (among small ones, so its average is under it) costs its row group, one error row a
    record saying why, as a page over the cap of over-cap cells does (before: Arrow decoded
    it whole); the other row groups are read."""
    schema = pa.schema(
        [("url", pa.string()), ("html", pa.string()), ("tags", pa.list_(pa.string()))]
    )
    tags = [[f"t{i}"] for i in range(100)]
    tags[3] = ["t" * 2_000_000]
    path = tmp_path / "n.parquet"
    with pq.ParquetWriter(
        path, schema, use_dictionary=False, data_page_size=1 << 30, compression="zstd"
    ) as w:
        w.write_table(pa.table({"url": ["https://a.example.org/"], "html": GOOD[:1], "tags": [["a"]]}, schema=schema))  # fmt: skip
        urls = [f"https://n.example.org/{i}" for i in range(100)]
        w.write_table(pa.table({"url": urls, "html": ["<p>n</p>"] * 100, "tags": tags}, schema=schema))  # fmt: skip
        w.write_table(pa.table({"url": ["https://c.example.org/"], "html": GOOD[:1], "tags": [["c"]]}, schema=schema))  # fmt: skip
    limits = InputsPolicy(max_parquet_page_bytes=1_000_000, max_field_bytes=100_000)
    rows, errors = _read(path, limits)
    assert [r["url"] for r in rows] == ["https://a.example.org/", "https://c.example.org/"]
    assert [(e.offset, e.code, e.url) for e in errors] == [
        (i, "FIELD_TOO_LARGE", f"https://n.example.org/{i - 1}") for i in range(1, 101)
    ]
    assert errors[0].message.startswith("row 1 (rows 1-100, 100 in row group 1) not read: column")
    assert errors[0].message.endswith(
        ", whose value 3 is 2000000 bytes, over 100000, in a nested column"
    )


def _page_data(path: Path, group: int, column: int, page: int) -> tuple[int, int]:
    """(offset, size) of the stored bytes of page `page` of a column chunk."""
    col = pq.ParquetFile(path).metadata.row_group(group).column(column)
    with path.open("rb") as handle:
        at, header = list(chunk_pages(handle, col))[page]
    assert header is not None
    return at + header.length, header.csize


def test_a_big_page_that_cannot_be_read_as_a_stream_is_not_read(tmp_path: Path) -> None:
    """A page over the cap whose values' lengths cannot be read (its zstd frame damaged) is not
    handed to Arrow either: its row group is an error row a record saying why (before: Arrow
    failed on it, one PARQUET_CORRUPT row, and the rest of the file was not read)."""
    path = mixed_page_parquet(tmp_path / "m.parquet", GOOD)
    at, _ = _page_data(path, 1, 1, 0)
    data = bytearray(path.read_bytes())
    data[at : at + 4] = b"\0\0\0\0"  # not a zstd frame
    path.write_bytes(bytes(data))
    rows, errors = _read(path)
    assert [r["offset"] for r in rows] == [0, 1, 303, 304]
    assert [e.offset for e in errors] == list(range(2, 303))
    assert {e.code for e in errors} == {"TOO_LARGE"}
    assert "which cannot be read a value at a time (cannot decompress" in errors[0].message


def test_a_page_found_damaged_while_decoded_costs_the_records_not_yet_given(
    tmp_path: Path,
) -> None:
    """A snappy chunk is decoded without a first reading: a later page of it found damaged on the
    way makes each record of the row group not yet given a PARQUET_CORRUPT row, and the next
    row groups are read (before: one PARQUET_CORRUPT row, the rest of the file not read)."""
    schema = pa.schema([("url", pa.string()), ("html", pa.string())])
    html = [f"<p>small page {i}</p>" for i in range(300)]
    html[150] = "<p>" + "A" * 2_500_000
    path = tmp_path / "s.parquet"
    with pq.ParquetWriter(
        path, schema, compression="snappy", use_dictionary=False, data_page_size=1 << 30,
        max_rows_per_page=200,
    ) as w:  # fmt: skip
        w.write_table(pa.table({"url": ["https://a.example.org/"], "html": GOOD[:1]}, schema=schema))  # fmt: skip
        urls = [f"https://s.example.org/{i}" for i in range(300)]
        w.write_table(pa.table({"url": urls, "html": html}, schema=schema))
        w.write_table(pa.table({"url": ["https://c.example.org/"], "html": GOOD[:1]}, schema=schema))  # fmt: skip
    at, size = _page_data(path, 1, 1, 1)  # the second page: rows 200-299
    data = bytearray(path.read_bytes())
    data[at : at + size] = b"\xff" * size
    path.write_bytes(bytes(data))
    rows, errors = collect(open_source(path, limits=LIMITS, max_bytes=CAP), batch_size=64)
    offsets = [r["offset"] for r in rows]
    assert offsets[0] == 0 and offsets[-1] == 301
    assert sorted(offsets + [e.offset for e in errors]) == list(range(302))  # each record once
    assert (151, "TOO_LARGE") in [(e.offset, e.code) for e in errors]
    damaged = [e for e in errors if e.code == "PARQUET_CORRUPT"]
    assert [e.offset for e in damaged] == list(range(damaged[0].offset, 301))
    assert damaged[0].offset <= 201  # the rows of the damaged page, and at most a batch before
    assert damaged[0].message.startswith(
        f"row {damaged[0].offset}: column 'html' of row group 1: a page cannot be read ("
    )
