"""Parquet cells that compress to almost nothing: their size is known from Arrow before any cell
becomes a Python string, and row groups of huge rows are read a few rows at a time."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from helpers import collect

from trustaudit.io.parquet_cells import cell_bytes, open_parquet, parquet_batches
from trustaudit.io.readers import ParquetSource, open_source
from trustaudit.policy.inputs import InputsPolicy


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


def test_cell_bytes_reads_sizes_without_decoding_a_dictionary() -> None:
    plain = pa.array(["x" * 10, None, "é"])
    coded = pa.array(["y" * 1_000] * 5 + [None]).dictionary_encode()
    assert cell_bytes(plain) == [10, 0, 2]
    assert cell_bytes(coded) == [1_000] * 5 + [0]
    assert coded.dictionary.nbytes < 1_100  # the value is held once
    assert cell_bytes(pa.array([1, 2])) == [0, 0]


def _dictionary_file(path: Path, rows: int, value: str, **extra: list[str]) -> Path:
    """A Parquet file whose html column stores `value` once in a dictionary and `rows` indices
    to it, written without an Arrow schema (as Spark and most writers do)."""
    table = pa.table(
        {
            "url": [f"https://d.example/{i}" for i in range(rows)],
            "html": pa.array([value] * rows).dictionary_encode(),
            **{k: pa.array(v).dictionary_encode() for k, v in extra.items()},
        }
    )
    pq.write_table(table, path, compression="zstd", store_schema=False)
    return path


def test_a_repeated_dictionary_value_is_decoded_a_few_rows_at_a_time(tmp_path: Path) -> None:
    """Before: the footer counted the value once, so the 20 rows were decoded together (40 rows
    of one 40 MB value, a 4 KB file, took the reader to 8.4 GB); now at most batch_max_bytes of
    cells are decoded together."""
    value = "<p>" + "word " * 40_000 + "</p>"  # 200 KB, 20 times in a file of a few KB
    path = _dictionary_file(tmp_path / "d.parquet", 20, value)
    assert path.stat().st_size < 10_000
    src = ParquetSource(path, max_bytes=1_000_000, limits=InputsPolicy(batch_max_bytes=500_000))
    held = [b.records.num_rows for b in src.batches(64)]
    assert max(held) <= 2 and sum(held) == 20
    rows, errors = collect(src)
    assert not errors and {r["body"] for r in rows} == {value.encode()}
    assert [r["offset"] for r in rows] == list(range(20))


def test_over_cap_dictionary_cells_are_error_rows_in_order(tmp_path: Path) -> None:
    """Over-cap html and extra text cells stored in a dictionary are TOO_LARGE / FIELD_TOO_LARGE
    by their size in Arrow; the rows between them are kept, with their own offsets."""
    table = pa.table(
        {
            "url": [f"https://o.example/{i}" for i in range(4)],
            "html": pa.array(
                ["a" * 5_000, "<p>ok</p>", "<p>ok</p>", "<p>ok</p>"]
            ).dictionary_encode(),
            "note": pa.array(["n", "n", "b" * 3_000, "n"]).dictionary_encode(),
        }
    )
    path = tmp_path / "o.parquet"
    pq.write_table(table, path, store_schema=False)
    src = ParquetSource(path, max_bytes=4_000, limits=InputsPolicy(max_field_bytes=2_000))
    rows, errors = collect(src)
    assert [(r["offset"], r["note"]) for r in rows] == [(1, "n"), (3, "n")]
    assert [(e.offset, e.url, e.code) for e in errors] == [
        (0, "https://o.example/0", "TOO_LARGE"),
        (2, None, "FIELD_TOO_LARGE"),
    ]


def test_a_category_column_is_read_as_its_values(tmp_path: Path) -> None:
    """Before: an html column of pandas' category type (an Arrow dictionary in the stored schema)
    was one PARQUET_BAD_TYPES row for the file."""
    path = tmp_path / "c.parquet"
    pq.write_table(
        pa.table(
            {"url": ["https://c.example/"], "html": pa.array(["<p>hi</p>"]).dictionary_encode()}
        ),
        path,
    )
    rows, errors = collect(open_source(path))
    assert not errors and rows[0]["body"] == b"<p>hi</p>"


def test_row_groups_of_huge_rows_are_read_a_few_rows_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "h.parquet"
    rows = [f"<p>{i}{'a' * 400_000}</p>" for i in range(6)]
    table = pa.table({"url": [f"https://h.example/{i}" for i in range(6)], "html": rows})
    pq.write_table(table, path, compression="zstd", use_dictionary=False)
    pf = pq.ParquetFile(path)
    assert [b.num_rows for b in parquet_batches(pf, 64, 1_000_000)] == [2, 2, 2]
    small = tmp_path / "s.parquet"
    pq.write_table(pa.table({"url": ["u"] * 10, "html": ["<p>x</p>"] * 10}), small)
    assert [b.num_rows for b in parquet_batches(pq.ParquetFile(small), 4, 1_000_000)] == [4, 4, 2]


def test_a_dictionary_file_is_reopened_and_its_first_handle_closed(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    table = pa.table({"url": ["https://a.example/"] * 3, "html": ["<p>same</p>"] * 3})
    pq.write_table(table, path, use_dictionary=True)
    handles: list[pa.NativeFile] = []

    def opener() -> pa.NativeFile:
        handles.append(pa.OSFile(str(path)))
        return handles[-1]

    pf = open_parquet(opener)
    assert len(handles) == 2  # the footer named a dictionary column: opened again to read it so
    assert handles[0].closed and not handles[1].closed
    assert pa.types.is_dictionary(pf.schema_arrow.field("html").type)
    plain = tmp_path / "p.parquet"
    pq.write_table(table, plain, use_dictionary=False)
    handles.clear()
    path = plain
    open_parquet(opener)
    assert len(handles) == 1 and not handles[0].closed


def test_cell_bytes_sums_the_leaves_of_lists_maps_and_structs() -> None:
    coded = pa.array(["z" * 1_000] * 3).dictionary_encode()
    listed = pa.ListArray.from_arrays(pa.array([0, 2, 3, 3]), coded)
    assert cell_bytes(listed) == [2_002, 1_001, 0]  # one byte an element besides the text
    assert cell_bytes(listed.slice(1)) == [1_001, 0]
    assert cell_bytes(pa.array([{"a": "xyz", "b": 2}, None])) == [11, 8]
    assert cell_bytes(pa.array([[["a", "bb"]], [["ccc"]]])) == [6, 5]
    entries = [[("k", "vv")], [("a", "b"), ("c", "d")]]
    assert cell_bytes(pa.array(entries, type=pa.map_(pa.string(), pa.string()))) == [4, 6]
    assert cell_bytes(pa.array([[""] * 1_000])) == [1_000]  # empty strings weigh their count


def _nested_file(path: Path, rows: int, value: str, kind: str) -> Path:
    """`rows` rows whose extra column `tags` holds `value` in a list or a struct, stored once in
    the leaf's dictionary (written without an Arrow schema)."""
    if kind == "list":
        tags = pa.array([[value]] * rows, type=pa.list_(pa.string()))
    else:
        tags = pa.array([{"a": value}] * rows, type=pa.struct([("a", pa.string())]))
    table = pa.table(
        {"url": [f"https://n.example/{i}" for i in range(rows)], "html": ["<p>hi</p>"] * rows}
    ).append_column("tags", tags)
    pq.write_table(table, path, compression="zstd", store_schema=False)
    return path


def test_a_dictionary_text_leaf_of_a_list_or_struct_is_sized_before_decoding(
    tmp_path: Path,
) -> None:
    """Before: a list or struct column's leaf was decoded as the footer sized it (the value once),
    and its size was checked only on the Python values: 40 rows of one 40 MB value in a 2 KB
    file took the reader to 5.0 GB and 44 s. Now the leaf is read as a dictionary, each cell's
    size summed from Arrow: over-cap rows are FIELD_TOO_LARGE before any is decoded."""
    for kind in ("list", "struct"):
        path = _nested_file(tmp_path / f"{kind}.parquet", 6, "v" * 300_000, kind)
        assert path.stat().st_size < 10_000
        src = ParquetSource(path, limits=InputsPolicy(max_field_bytes=200_000))
        pf = open_parquet(lambda p=path: p)
        leaf = pf.schema_arrow.field("tags").type
        child = leaf.value_type if kind == "list" else leaf.field(0).type
        assert pa.types.is_dictionary(child)
        rows, errors = collect(src)
        assert not rows and [e.code for e in errors] == ["FIELD_TOO_LARGE"] * 6
        assert errors[0].message == "row 0: column 'tags' is over inputs.max_field_bytes"
        # under the cap, the rows are read, a few at a time by their nested bytes
        src = ParquetSource(path, limits=InputsPolicy(batch_max_bytes=700_000))
        held = [b.records.num_rows for b in src.batches(64)]
        assert max(held) <= 2 and sum(held) == 6
        rows, errors = collect(src)
        assert not errors and len(rows) == 6


def test_a_list_html_column_is_one_clear_error_row(tmp_path: Path) -> None:
    path = tmp_path / "l.parquet"
    table = pa.table({"url": ["https://l.example/"], "html": pa.array([["<p>a</p>", "<p>b</p>"]])})
    pq.write_table(table, path)
    rows, errors = collect(open_source(path))
    assert not rows and [e.code for e in errors] == ["PARQUET_BAD_TYPES"]
    assert errors[0].message == (
        "unusable column type(s): html is list<element: string> (url must be text, html text or"
        " binary)"
    )


def _groups_file(path: Path, groups: list[dict[str, list[str]]]) -> Path:
    """A Parquet file of one row group per dict, text stored with dictionaries (no size limit)."""
    schema = pa.schema([(k, pa.string()) for k in groups[0]])
    with pq.ParquetWriter(
        path, schema, compression="zstd", dictionary_pagesize_limit=(1 << 31) - 1
    ) as w:
        for g in groups:
            w.write_table(pa.table(g, schema=schema))
    return path


def test_a_row_group_with_a_huge_dictionary_page_is_one_error_row(tmp_path: Path) -> None:
    """Before (session 19's "Still open"): a dictionary page was decoded whole before any row of
    its row group, so 20 distinct 60 MB html values in one 1.2 GB page (a 49 KB file) took the
    reader to 6.0 GB. Now the page's size is read from its header first: over
    inputs.max_parquet_page_bytes, its row group is one TOO_LARGE row naming the rows and the
    column, and the row groups before and after it are read."""
    big = [chr(65 + i) * 300_000 for i in range(4)]  # a 1.2 MB dictionary page
    path = _groups_file(
        tmp_path / "d.parquet",
        [
            {
                "url": ["https://g.example/a", "https://g.example/b"],
                "html": ["<p>a</p>", "<p>b</p>"],
            },
            {"url": [f"https://g.example/big{i}" for i in range(4)], "html": big},
            {"url": ["https://g.example/c"], "html": ["<p>c</p>"]},
        ],
    )
    limits = InputsPolicy(max_parquet_page_bytes=1_000_000)
    rows, errors = collect(open_source(path, limits=limits))
    assert [r["url"] for r in rows] == [
        "https://g.example/a",
        "https://g.example/b",
        "https://g.example/c",
    ]
    assert [r["offset"] for r in rows] == [0, 1, 6]
    # a row for each record of the group, with its URL (one for the group before session 23)
    assert [(e.offset, e.code, e.url) for e in errors] == [
        (i, "TOO_LARGE", f"https://g.example/big{i - 2}") for i in range(2, 6)
    ]
    assert errors[0].message.startswith(
        "row 2 (rows 2-5, 4 in row group 1) not read: column 'html'"
    )
    assert all("over inputs.max_parquet_page_bytes (1000000)" in e.message for e in errors)
    # under the cap (the default), every row is read as before
    rows, errors = collect(open_source(path, max_bytes=10_000_000))
    assert len(rows) == 7 and not errors


def test_a_huge_dictionary_page_of_an_extra_column_is_field_too_large(tmp_path: Path) -> None:
    path = _groups_file(
        tmp_path / "d.parquet",
        [
            {"url": ["https://g.example/a"], "html": ["<p>a</p>"], "tag": ["x"]},
            {"url": ["https://g.example/b"], "html": ["<p>b</p>"], "tag": ["t" * 2_000_000]},
        ],
    )
    rows, errors = collect(open_source(path, limits=InputsPolicy(max_parquet_page_bytes=1_000_000)))
    assert [r["url"] for r in rows] == ["https://g.example/a"]
    assert [(e.offset, e.code, e.url) for e in errors] == [
        (1, "FIELD_TOO_LARGE", "https://g.example/b")
    ]
    assert errors[0].message.startswith("row 1 (row 1, 1 in row group 1) not read")
    assert "column 'tag' has a dictionary page of 2000004 bytes" in errors[0].message


def test_the_page_size_is_read_from_a_thrift_page_header() -> None:
    import io

    from trustaudit.io.parquet_thrift import page_header

    # type DICTIONARY_PAGE (2), uncompressed 1,200,000,140, compressed 37,000: zigzag varints,
    # then dictionary_page_header (field 7, a struct) with num_values 20 and encoding 0
    def varint(n: int) -> bytes:
        z, out = n << 1, b""
        while True:
            b = z & 0x7F
            z >>= 7
            out += bytes([b | (0x80 if z else 0)])
            if not z:
                return out

    head = b"\x15" + varint(2) + b"\x15" + varint(1_200_000_140) + b"\x15" + varint(37_000)
    dictionary = b"\x4c" + b"\x15" + varint(20) + b"\x15" + varint(0) + b"\x00"
    whole = head + dictionary + b"\x00"
    assert page_header(io.BytesIO(whole), 0) == (2, 1_200_000_140, 37_000, 20, len(whole))
    assert page_header(io.BytesIO(b"\x19\x00"), 0) is None  # not a page header
    assert page_header(io.BytesIO(head), 0) is None  # cut short


def _one_data_page(path: Path, html: list[str]) -> Path:
    """Two good rows in row group 0, then `html` in row group 1 as one plain data page (no
    dictionary, the page size and write batch over the file's size)."""
    good = pa.table(
        {"url": ["https://g.example/a", "https://g.example/b"], "html": ["<p>a</p>"] * 2}
    )
    urls = [f"https://g.example/big{i}" for i in range(len(html))]
    with pq.ParquetWriter(
        path,
        good.schema,
        compression="zstd",
        use_dictionary=False,
        data_page_size=1 << 30,
        write_batch_size=1 << 20,
    ) as w:
        w.write_table(good)
        w.write_table(pa.table({"url": urls, "html": html}, schema=good.schema))
    return path


def test_a_data_page_of_cells_over_the_cap_is_one_error_row(tmp_path: Path) -> None:
    """Before: a data page was decoded whole whatever its size (30 cells of 60 MB in one 1.8 GB
    page of an 80 KB file: 2.6 GB). Now a data page over inputs.max_parquet_page_bytes whose
    size says it holds a cell over the record cap is one error row for its row group."""
    path = _one_data_page(tmp_path / "p.parquet", [f"<p>{i}" + "x" * 400_000 for i in range(6)])
    limits = InputsPolicy(max_parquet_page_bytes=1_000_000)
    rows, errors = collect(open_source(path, limits=limits, max_bytes=300_000))
    assert [r["url"] for r in rows] == ["https://g.example/a", "https://g.example/b"]
    assert [(e.offset, e.code) for e in errors] == [(i, "TOO_LARGE") for i in range(2, 8)]
    assert errors[0].message.startswith(
        "row 2 (rows 2-7, 6 in row group 1) not read: column 'html'"
    )
    assert "has a data page of" in errors[0].message
    assert errors[5].message.endswith("of cells over 300000 bytes")


def test_a_large_data_page_of_cells_under_the_cap_is_read(tmp_path: Path) -> None:
    """pyarrow's default writer puts 1,024 cells in a data page (300 MB for cells of 300 KB):
    a page over inputs.max_parquet_page_bytes of cells under the record cap is read."""
    path = _one_data_page(tmp_path / "p.parquet", [f"<p>{i}" + "x" * 200_000 for i in range(10)])
    limits = InputsPolicy(max_parquet_page_bytes=1_000_000)
    rows, errors = collect(open_source(path, limits=limits, max_bytes=300_000))
    assert len(rows) == 12 and errors == []


def test_the_urls_of_a_group_not_read_are_left_out_when_url_is_the_huge_column(
    tmp_path: Path,
) -> None:
    """The url column itself over the page cap: the records' rows have no URL (reading it is
    what the cap prevents), one row a record all the same."""
    path = _groups_file(
        tmp_path / "u.parquet",
        [
            {"url": ["https://g.example/a"], "html": ["<p>a</p>"]},
            {"url": [f"https://g.example/{chr(65 + i) * 400_000}" for i in range(3)],
             "html": ["<p>b</p>"] * 3},
        ],
    )  # fmt: skip
    limits = InputsPolicy(max_parquet_page_bytes=1_000_000)
    rows, errors = collect(open_source(path, limits=limits))
    assert [r["url"] for r in rows] == ["https://g.example/a"]
    assert [(e.offset, e.code, e.url) for e in errors] == [
        (i, "FIELD_TOO_LARGE", None) for i in (1, 2, 3)
    ]
    assert "column 'url' has a dictionary page" in errors[0].message
