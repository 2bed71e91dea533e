"""`io.lines`: the one capped line reader (JSONL, crawl URL lists, `urls.csv` sidecars) and the
CSV records on top of it: a bad line or record costs that record, never the file."""

from __future__ import annotations

import io

from trustaudit.io.lines import bounded_lines, csv_rows, text_lines


def test_bounded_lines_drains_a_long_line_and_reads_on() -> None:
    data = b"ab\n" + b"x" * 5000 + b"\ncd"
    assert list(bounded_lines(io.BytesIO(data), 100)) == [(b"ab\n", 3), (None, 5001), (b"cd", 2)]


def test_text_lines_decode_boms_lone_crs_and_bad_bytes() -> None:
    got = list(text_lines(io.BytesIO(b"\xef\xbb\xbfa\rb\r\nc\xff\n" + b"y" * 50 + b"\nz"), 20))
    assert [(t.number, t.text, t.undecodable, bool(t.too_long)) for t in got] == [
        (1, "a\r", False, False),  # a CR alone ends a line (old Mac, Excel "CSV (Macintosh)")
        (2, "b\r\n", False, False),
        (3, "c\ufffd\n", True, False),
        (4, "", False, True),
        (5, "z", False, False),
    ]
    assert got[3].too_long == "line 4 is 51 bytes, over 20; skipped without reading it"
    wide = list(text_lines(io.BytesIO("é\nf".encode("utf-16"))))
    assert [t.text for t in wide] == ["é\n", "f"]


def test_csv_rows_cost_a_record_for_a_long_line_or_cell_and_read_on() -> None:
    big = b"z" * 600  # each line under the cap, the cell over it
    data = (
        b"file,url\n\na,1\n"
        + b'b,"' + big + b"\n" + big + b'"\n'  # a quoted cell spanning lines, over the cell cap
        + b"c," + b"y" * 2000 + b"\n"  # a line over the line cap
        + b"d,\xff\n"
    )  # fmt: skip
    rows = list(csv_rows(io.BytesIO(data), 1000))
    assert [(r.number, r.cells, r.undecodable) for r in rows] == [
        (0, ["file", "url"], False),
        (1, ["a", "1"], False),  # the blank line is no record
        (2, [], False),
        (3, [], False),
        (4, ["d", "\ufffd"], True),
    ]
    assert rows[2].problem == "a cell is 1201 characters, over 1000"
    assert rows[3].problem == "line 6 is 2003 bytes, over 1000; skipped without reading it"


def test_csv_rows_go_on_after_a_record_the_csv_module_rejects() -> None:
    import csv

    limit = csv.field_size_limit()
    try:
        csv.field_size_limit(2000)  # process-wide: csv_rows raises it to the cap + 1 per record
        big = b"z" * 900
        data = b'h\n"' + big + b"\n" + big + b"\n" + big + b'"\nok\n'  # fails on its last line
        rows = list(csv_rows(io.BytesIO(data), 1000))
    finally:
        csv.field_size_limit(limit)
    assert [(r.number, r.cells) for r in rows] == [(0, ["h"]), (1, []), (2, ["ok"])]
    assert rows[1].problem is not None and "field larger than field limit" in rows[1].problem


def test_csv_rows_leave_the_process_wide_cell_cap_as_they_found_it() -> None:
    # before: raised for the whole process, so a later csv.reader elsewhere read 1 MiB cells
    import csv

    limit = csv.field_size_limit()
    cell = b"y" * (limit + 10)
    rows = csv_rows(io.BytesIO(b"h\n" + cell + b"\nz\n"), limit * 4)
    assert next(rows).cells == ["h"]
    assert csv.field_size_limit() == limit  # also while the generator is suspended
    assert next(rows).cells == [cell.decode()]
    assert [r.cells for r in rows] == [["z"]]
    assert csv.field_size_limit() == limit
