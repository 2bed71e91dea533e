"""Hostile records found by the session-15 red team: WARC headers warcio cannot parse, impossible
HTTP statuses, URLs with control characters or broken ports, non-string JSONL URLs, files of blank
lines. Each costs at most its own record, with a one-line reason that names the file's fault."""

from __future__ import annotations

import gzip
import io
import json
import logging
import zlib
from pathlib import Path

import pytest
from helpers import NoSeek, article_html, collect

from trustaudit.io import extract as ex
from trustaudit.io.readers import open_source
from trustaudit.io.records import RECORD_COLUMNS, http_status, records_table
from trustaudit.policy import Policy


def warc_record(uri: str, http: bytes, *, length: bytes | None = None) -> bytes:
    """One WARC response record with the HTTP message `http`, written by hand so that its
    headers can lie (warcio's writer would not let them)."""
    size = str(len(http)).encode() if length is None else length
    return (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + uri.encode() + b"\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: " + size + b"\r\n\r\n" + http + b"\r\n\r\n"
    )


def page(uri: str, *, status: bytes = b"200 OK") -> bytes:
    body = article_html("A page").encode()
    return warc_record(uri, b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html\r\n\r\n" + body)


# ---------------------------------------------------------------- WARC
def test_warc_header_cut_short_is_one_error_at_the_cut_record(tmp_path: Path) -> None:
    first, second = page("https://w.example/1"), page("https://w.example/2")
    p = tmp_path / "cut.warc"
    p.write_bytes(first + second + page("https://w.example/3")[:40])  # inside the third header
    rows, errors = collect(open_source(p))
    assert [r["url"] for r in rows] == ["https://w.example/1", "https://w.example/2"]
    assert [(e.code, e.offset) for e in errors] == [("WARC_CORRUPT", len(first) + len(second))]
    assert "damaged or cut short" in errors[0].message
    assert "NoneType" not in errors[0].message and "\n" not in errors[0].message


def test_warc_content_length_of_thirty_digits_is_a_clear_error(tmp_path: Path) -> None:
    good = gzip.compress(page("https://w.example/1"))
    bad = gzip.compress(
        warc_record("https://w.example/2", b"HTTP/1.1 200 OK\r\n\r\nx", length=b"9" * 30)
    )
    p = tmp_path / "len.warc.gz"
    p.write_bytes(good + bad)
    rows, errors = collect(open_source(p))
    assert [r["url"] for r in rows] == ["https://w.example/1"]
    # since session 21 the HTTP header is read under inputs.max_warc_header_bytes, not through
    # warcio's readline of 10^30 bytes (OverflowError), so the lie is told where it is
    assert [(e.code, e.offset) for e in errors] == [("WARC_TRUNCATED", len(good))]
    assert "index-sized" not in errors[0].message and "the rest of the file" in errors[0].message
    assert "bytes short of its Content-Length" in errors[0].message


def test_not_a_warc_names_its_first_bytes_in_ascii(tmp_path: Path) -> None:
    p = tmp_path / "junk.warc"
    p.write_bytes("\u00f8\u00e9 not a record\n".encode("latin-1") * 3)
    rows, errors = collect(open_source(p))
    assert rows == [] and [(e.code, e.offset) for e in errors] == [("WARC_CORRUPT", 0)]
    assert (
        errors[0].message.isascii() and "no WARC/ARC record header at byte 0" in errors[0].message
    )


@pytest.mark.parametrize(
    "status", [b"99999999999999999999999 OK", "\u00b2\u00b2\u00b2 OK".encode(), b"70000 OK"]
)
def test_warc_impossible_http_status_keeps_the_page(tmp_path: Path, status: bytes) -> None:
    p = tmp_path / "status.warc"
    p.write_bytes(page("https://w.example/1", status=status) + page("https://w.example/2"))
    rows, errors = collect(open_source(p))
    assert errors == []
    assert [(r["url"], r["status"]) for r in rows] == [
        ("https://w.example/1", None),
        ("https://w.example/2", 200),
    ]


def test_warcio_log_lines_never_reach_the_terminal(tmp_path: Path, capfd) -> None:  # type: ignore[no-untyped-def]
    uri = "https://w.example/a \x1b]0;PWNED\x07\x1b[31mred"  # warcio logs a URI with a space
    p = tmp_path / "ansi.warc"
    p.write_bytes(page(uri))
    root = logging.getLogger()
    handler = logging.StreamHandler()  # an application that logs to stderr must not get it either
    root.addHandler(handler)
    try:
        rows, errors = collect(open_source(p))
    finally:
        root.removeHandler(handler)
    err = capfd.readouterr().err
    assert "\x1b" not in err and "PWNED" not in err
    assert len(rows) == 1 and errors == []  # the record is read; extraction judges its URL


# ---------------------------------------------------------------- status
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (200, 200),
        ("404", 404),
        (" 301 ", 301),
        (599, 599),
        ("599", 599),
        (600, None),
        ("600", None),
        (1000, None),
        ("1000", None),
        (99, None),
        ("-404", None),
        (True, None),
        (10**30, None),
        ("9" * 25, None),
        ("\u00b2\u00b2\u00b2", None),
        (70000, None),
        (0, None),
        (200.0, None),
        ("abc", None),
        (None, None),
    ],
)
def test_http_status_is_a_plausible_int_or_none(value: object, expected: int | None) -> None:
    assert http_status(value) == expected


# ---------------------------------------------------------------- JSONL
def test_jsonl_non_string_url_is_bad_url_not_a_page_without_identity(tmp_path: Path) -> None:
    p = tmp_path / "u.jsonl"
    lines = [
        {"url": 12345, "html": article_html()},
        {"url": ["https://l.example/"], "html": article_html()},
        {"url": None, "html": article_html()},  # null: no URL given, as if the key were missing
        {"url": "https://ok.example/", "html": article_html(), "status": 10**30, "rating": 10**30},
    ]
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    rows, errors = collect(open_source(p))
    assert [(e.code, e.offset) for e in errors] == [("BAD_URL", 1), ("BAD_URL", 2)]
    assert "'url' must be a string, got int" in errors[0].message
    assert [(r["url"], r["status"]) for r in rows] == [(None, None), ("https://ok.example/", None)]
    assert rows[1]["rating"] == str(10**30)  # an int over 64 bits becomes text, not a lost page


def test_jsonl_of_blank_lines_is_one_empty_file_row(tmp_path: Path) -> None:
    p = tmp_path / "blank.jsonl"
    p.write_bytes(b"\n  \r\n\t\n")
    rows, errors = collect(open_source(p))
    assert rows == [] and [(e.code, e.message) for e in errors] == [
        ("EMPTY_FILE", "file holds only 3 blank line(s)")
    ]


def test_corrupt_gzip_jsonl_is_one_error_not_also_empty(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl.gz"
    p.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage")
    rows, errors = collect(open_source(p))
    assert rows == [] and [e.code for e in errors] == ["GZIP_TRUNCATED"]


def test_jsonl_and_warc_status_follow_one_rule(tmp_path: Path) -> None:
    """ "404" was a page with no status and 1000 an HTTP_STATUS row; a numeric string is a status
    and one outside 100-599 is none, in a JSONL file as in a WARC."""
    p = tmp_path / "st.jsonl"
    lines = [
        {"url": f"https://s.example/{i}", "html": article_html(url=None), "status": st}
        for i, st in enumerate(["404", 1000, "1000", 200, " 503 "])
    ]
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    w = tmp_path / "st.warc"
    w.write_bytes(
        page("https://w.example/1", status=b"404 Not Found")
        + page("https://w.example/2", status=b"1000 X")
    )
    rows = collect(open_source(p))[0] + collect(open_source(w))[0]
    assert [r["status"] for r in rows] == [404, None, None, 200, 503, 404, None]
    extra = sorted({k for r in rows for k in r} - set(RECORD_COLUMNS))
    res = ex.extract_records(records_table(rows, extra), Policy())
    assert sorted(res.pages.column("url").to_pylist()) == [
        "https://s.example/1",
        "https://s.example/2",
        "https://s.example/3",
        "https://w.example/2",
    ]
    assert sorted(e.code for e in res.errors) == ["HTTP_STATUS"] * 3


# ---------------------------------------------------------------- page URLs
@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://x.example:99999/", "invalid port"),
        ("https://x.example:-1/", "invalid port"),
        ("https://x.example:8o/", "invalid port"),
        (" https://x.example/", "space or control"),
        ("https://x.example/a b", "space or control"),
        ("https://x.example/\x1b[31mred", "space or control"),
        ("https://x.example/\x00", "space or control"),
        ("https://x.example/\x85", "space or control"),
        ("https://\u202ex.example/", "invisible formatting"),
        ("https://x\u200d.example/", "invisible formatting"),
        ("javascript:alert(1)", "not an http(s) or file URL"),
        ("https://", "not an http(s) or file URL"),
    ],
)
def test_url_problem_names_what_is_wrong(url: str, why: str) -> None:
    problem = ex.url_problem(url)
    assert problem is not None and why in problem
    assert "\x1b" not in problem and "\u202e" not in problem  # quoted with repr: inert


@pytest.mark.parametrize(
    "url",
    [
        "https://x.example/a",
        "https://x.example:8080/a?q=1#f",
        "http://[::1]/",
        "https://b\u00fccher.example/stra\u00dfe",
        "https://x.example/%1b%5b31m",
        "file:///srv/pages/a%20b.html",
    ],
)
def test_url_problem_accepts_real_urls(url: str) -> None:
    assert ex.url_problem(url) is None


def test_two_broken_ports_are_two_bad_urls_not_a_duplicate() -> None:
    rows = [
        {"url": u, "body": article_html().encode(), "source": "t", "offset": i}
        for i, u in enumerate(["https://x.example:99999/", "https://x.example:-1/"])
    ]
    extra = sorted({k for r in rows for k in r} - set(RECORD_COLUMNS))
    res = ex.extract_records(records_table(rows, extra), Policy())
    assert res.pages.num_rows == 0
    assert [(e.code, e.offset) for e in res.errors] == [("BAD_URL", 0), ("BAD_URL", 1)]


def test_canonical_with_surrounding_space_still_names_a_file_page() -> None:
    html = article_html(url=None).replace(
        "<head>", "<head><link rel='canonical' href='  https://c.example/page  '>"
    )
    rows = [{"url": "file:///in/a.html", "url_origin": "file", "body": html.encode()}]
    for r in rows:
        r.update(source="t", offset=0)
    extra = sorted({k for r in rows for k in r} - set(RECORD_COLUMNS))
    res = ex.extract_records(records_table(rows, extra), Policy())
    assert res.errors == [] and res.pages.column("url").to_pylist() == ["https://c.example/page"]


def _extract_one(url: str, html: str, origin: str = "input"):  # type: ignore[no-untyped-def]
    rows = [{"url": url, "url_origin": origin, "body": html.encode(), "source": "t", "offset": 0}]
    extra = sorted({k for r in rows for k in r} - set(RECORD_COLUMNS))
    return ex.extract_records(records_table(rows, extra), Policy())


@pytest.mark.parametrize(
    ("href", "read_as"),
    [
        ("https://c.example/my page", "https://c.example/my%20page"),
        ("https://c.example/long-\npath", "https://c.example/long-path"),
        ("https://c.example/a\tb", "https://c.example/ab"),
        ("\n  https://c.example/x\r\n", "https://c.example/x"),
    ],
)
def test_canonical_with_a_space_or_line_break_is_read_as_a_browser_reads_it(
    href: str, read_as: str
) -> None:
    """After the URL check refused spaces and controls, such a canonical link was ignored."""
    html = article_html(url=None).replace("<head>", f"<head><link rel='canonical' href='{href}'>")
    res = _extract_one("file:///in/a.html", html, origin="file")
    assert res.errors == [] and res.pages.column("url").to_pylist() == [read_as]


def test_record_url_with_an_inner_space_is_percent_encoded_not_bad(tmp_path: Path) -> None:
    """Before the session-15 URL check such a URL was a page (raw space in its identity), after it
    a BAD_URL row; now the page, under the URL a crawler would have written."""
    p = tmp_path / "sp.jsonl"
    lines = [
        {"url": "http://example.com/a b", "html": article_html(url=None)},
        {"url": " http://example.com/c ", "html": article_html(url=None)},
        {"url": "http://example.com/d\te", "html": article_html(url=None)},  # a tab: still bad
    ]
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    rows, errors = collect(open_source(p))
    assert errors == []
    extra = sorted({k for r in rows for k in r} - set(RECORD_COLUMNS))
    res = ex.extract_records(records_table(rows, extra), Policy())
    assert res.pages.column("url").to_pylist() == [
        "http://example.com/a%20b",
        "http://example.com/c",
    ]
    assert [(e.code, e.offset) for e in res.errors] == [("BAD_URL", 3)]


# ---------------------------------------------------------------- UTF-16 line files
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_jsonl_with_a_bom_is_read_record_by_record(tmp_path: Path, encoding: str) -> None:
    """Windows PowerShell 5.1 writes `>` as UTF-16LE with a BOM: split on the byte 0x0A, one
    record used to become two JSON_DECODE rows and no page."""
    lines = [
        json.dumps({"url": f"https://u{i}.example/", "html": "<p>caf\u00e9 \U0001f600</p>"})
        for i in range(3)
    ]
    text = "\r\n".join(lines) + "\r\n"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    p = tmp_path / "ps.jsonl"
    p.write_bytes(data)
    rows, errors = collect(open_source(p), batch_size=2)
    assert errors == []
    assert [(r["url"], r["offset"]) for r in rows] == [
        (f"https://u{i}.example/", i + 1) for i in range(3)
    ]
    assert rows[0]["body"].decode() == "<p>caf\u00e9 \U0001f600</p>"


def test_utf16_lines_keep_the_line_cap() -> None:
    from trustaudit.io.decode import Utf8Lines

    stream = io.BufferedReader(io.BytesIO(("a" * 100 + "\nb\n").encode("utf-16")))
    lines = Utf8Lines(stream, "utf-16-le")
    assert lines.readline(10) == b"a" * 10
    assert lines.readline() == b"a" * 90 + b"\n"
    assert [lines.readline(), lines.readline()] == [b"b\n", b""]


def test_utf16_url_list_gives_its_urls(tmp_path: Path) -> None:
    from trustaudit.crawl.source import read_url_list

    p = tmp_path / "urls.txt"
    p.write_bytes("https://a.example/\r\n# note\r\nhttps://b.example/x\r\n".encode("utf-16"))
    assert list(read_url_list(p)) == [(1, "https://a.example/"), (3, "https://b.example/x")]


# ---------------------------------------------------------------- gzip WARC layouts
def test_warc_gzipped_whole_is_read_to_its_last_record(tmp_path: Path) -> None:
    """`gzip crawl.warc` makes one member of every record: warcio stopped after the first
    ("non-chunked gzip"), and the rest was one WARC_CORRUPT row at a negative offset."""
    p = tmp_path / "whole.warc.gz"
    p.write_bytes(gzip.compress(b"".join(page(f"https://w.example/{i}") for i in range(5))))
    rows, errors = collect(open_source(p), batch_size=1)  # known before the first batch is out
    assert errors == []
    assert [r["url"] for r in rows] == [f"https://w.example/{i}" for i in range(5)]
    assert len({r["offset"] for r in rows}) == 5 and min(r["offset"] for r in rows) == 0


def test_damaged_gzip_member_costs_only_its_record(tmp_path: Path) -> None:
    members = [gzip.compress(page(f"https://w.example/{i}")) for i in range(4)]
    bad = bytearray(members[1])
    bad[30:60] = bytes(30)  # deflate data destroyed
    lying = gzip.compress(
        warc_record("https://w.example/x", b"HTTP/1.1 200 OK\r\n\r\nx", length=b"9" * 30)
    )
    p = tmp_path / "mid.warc.gz"
    p.write_bytes(members[0] + bytes(bad) + members[2] + b"JUNK" * 10 + lying + members[3])
    rows, errors = collect(open_source(p))
    assert [r["url"] for r in rows] == [
        "https://w.example/0",
        "https://w.example/2",
        "https://w.example/3",
    ]
    junk = len(members[0]) + len(bad) + len(members[2])
    assert [e.offset for e in errors] == [len(members[0]), junk, junk + 40]
    assert errors[0].code in ("WARC_TRUNCATED", "WARC_CORRUPT")  # what survives of the member
    # the lying Content-Length: WARC_TRUNCATED since session 21 (its payload is short)
    assert [e.code for e in errors[1:]] == ["WARC_CORRUPT", "WARC_TRUNCATED"]
    assert all("read on at the next record" in e.message for e in errors)


def test_reading_on_passes_members_that_continue_a_record(tmp_path: Path) -> None:
    """A record split over two members (the second holds payload, not a header) is one error
    row, not one more for the payload member read as a header."""
    whole = page("https://w.example/1")
    cut = len(whole) - 200  # the first member claims more payload than it holds
    p = tmp_path / "split.warc.gz"
    p.write_bytes(
        gzip.compress(whole[:cut])
        + gzip.compress(whole[cut:])
        + gzip.compress(page("https://w.example/2"))
    )
    rows, errors = collect(open_source(p))
    assert [r["url"] for r in rows] == ["https://w.example/2"]
    assert [(e.code, e.offset) for e in errors] == [("WARC_TRUNCATED", 0)]


@pytest.mark.parametrize("length", [b"99999", b"10", b"-5", b"abc"])
def test_plain_warc_reads_on_after_a_lying_content_length(tmp_path: Path, length: bytes) -> None:
    first, last = page("https://w.example/1"), page("https://w.example/3")
    liar = warc_record("https://w.example/2", b"HTTP/1.1 200 OK\r\n\r\n<p>x</p>", length=length)
    p = tmp_path / "liar.warc"
    p.write_bytes(first + liar + last)
    rows, errors = collect(open_source(p))
    assert [r["url"] for r in rows] == ["https://w.example/1", "https://w.example/3"]
    assert [(e.code, e.offset, e.url) for e in errors] == [
        ("WARC_TRUNCATED", len(first), "https://w.example/2")
    ]
    assert f"read on at the next record (byte {len(first) + len(liar)})" in errors[0].message


# ---------------------------------------------------------------- gzip members of several records
def warcinfo() -> bytes:
    fields = b"software: test\r\n"
    return (
        b"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Type: application/warc-fields\r\n"
        b"Content-Length: " + str(len(fields)).encode() + b"\r\n\r\n" + fields + b"\r\n\r\n"
    )


def _layout(name: str, recs: list[bytes]) -> tuple[bytes, list[int | None]]:
    """A gzip WARC of warcinfo + `recs` in the layout `name`, and where each of `recs` starts
    as a gzip member of its own (None: inside a member of several records)."""
    info = gzip.compress(warcinfo())
    if name == "pairs":  # every record shares its member with the next
        groups = [[0], [1, 2], [3, 4], [5]]
    elif name == "mid_pair":
        groups = [[0], [1], [2, 3], [4], [5]]
    elif name == "first_pair":  # warcinfo and the first page in one member
        groups = [[0], [1], [2], [3], [4], [5]]
        info = gzip.compress(warcinfo() + recs[0])
        groups = groups[1:]
    else:  # "info_then_whole": warcinfo, then every page in one member
        groups = [[0, 1, 2, 3, 4, 5]]
    data, starts = info, [None] * len(recs)
    for g in groups:
        starts[g[0]] = len(data)
        data += gzip.compress(b"".join(recs[i] for i in g))
    return data, starts


@pytest.mark.parametrize("batch_size", [1, 64])
@pytest.mark.parametrize("layout", ["pairs", "mid_pair", "first_pair", "info_then_whole"])
def test_gzip_members_of_several_records_are_read_whole_once(
    tmp_path: Path, layout: str, batch_size: int
) -> None:
    """warcio's offset drifts backwards (below 0) after a member that holds two records: reading
    on from it went round for ever (pairs), read a record twice (a page and a DUPLICATE_URL row)
    or seeked to a negative byte (SOURCE_FAILED, no page at all)."""
    recs = [page(f"https://m.example/{i}") for i in range(6)]
    data, starts = _layout(layout, recs)
    p = tmp_path / f"{layout}.warc.gz"
    p.write_bytes(data)
    rows, errors = collect(open_source(p), batch_size, cap=100)
    assert errors == []
    assert [r["url"] for r in rows] == [f"https://m.example/{i}" for i in range(6)]
    offsets = [r["offset"] for r in rows]
    assert len(set(offsets)) == 6 and min(offsets) >= 0
    assert all(o == s for o, s in zip(offsets, starts, strict=True) if s is not None)


@pytest.mark.parametrize("keep", [30, 60])  # inside the gzip header / the record header
def test_gzip_warc_cut_inside_its_last_member_is_one_truncated_row(
    tmp_path: Path, keep: int
) -> None:
    """warcio takes a gzip member that ends before a whole record header for the end of the
    file: the last record vanished without a row."""
    members = [gzip.compress(page(f"https://t.example/{i}")) for i in range(3)]
    p = tmp_path / "cut.warc.gz"
    p.write_bytes(members[0] + members[1] + members[2][:keep])
    rows, errors = collect(open_source(p), 64, cap=100)
    assert [r["url"] for r in rows] == ["https://t.example/0", "https://t.example/1"]
    assert [(e.code, e.offset) for e in errors] == [
        ("WARC_TRUNCATED", len(members[0]) + len(members[1]))
    ]


def _cut_after(member: bytes, size: int) -> bytes:
    """The shortest start of gzip `member` that decompresses to more than `size` bytes."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = 0
    for n in range(1, len(member)):
        out += len(d.decompress(member[n - 1 : n]))
        if out > size:
            return member[:n]
    raise AssertionError("member too short")


def test_gzip_member_of_several_records_cut_short_is_one_truncated_row(tmp_path: Path) -> None:
    first = gzip.compress(page("https://t.example/0"))
    second = page("https://t.example/1")
    pair = gzip.compress(second + page("https://t.example/2"))
    p = tmp_path / "cutpair.warc.gz"
    p.write_bytes(first + _cut_after(pair, len(second) + 60))  # inside the next record header
    rows, errors = collect(open_source(p), 64, cap=100)
    assert [r["url"] for r in rows] == ["https://t.example/0", "https://t.example/1"]
    assert [(e.code, e.offset) for e in errors] == [("WARC_TRUNCATED", len(first))]


@pytest.mark.parametrize("layout", ["pairs", "mid_pair", "first_pair", "info_then_whole"])
def test_unseekable_gzip_member_of_several_records_is_read_as_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """From object storage the member is read whole while the stream still holds its start
    (session 27): the rows a file on disk gives, never records at drifting offsets. Before, the
    records before it, then one WARC_CORRUPT row ("…the input cannot seek back"): "pairs" read
    records 0, 1, 3 and 5 (0 and 1 before session 26), "info_then_whole" record 0 alone. A member
    whose start the stream dropped: `test_warc_stream_damage.py`."""
    from trustaudit.io import readers

    data, starts = _layout(layout, [page(f"https://m.example/{i}") for i in range(6)])
    p = tmp_path / f"{layout}.warc.gz"
    p.write_bytes(data)
    disk = collect(open_source(p), 64, cap=100)
    monkeypatch.setattr(readers.fs, "open_input", lambda _p: io.BufferedReader(NoSeek(data)))
    rows, errors = collect(open_source(p), 64, cap=100)
    assert errors == []
    assert [r["url"] for r in rows] == [f"https://m.example/{i}" for i in range(6)]
    assert [(r["url"], r["offset"]) for r in rows] == [(r["url"], r["offset"]) for r in disk[0]]
    assert all(r["offset"] == s for r, s in zip(rows, starts, strict=True) if s is not None)
