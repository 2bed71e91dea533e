"""WARC header blocks read under inputs.max_warc_header_bytes (`io.warc_headers`): session 21's
red team (docs/limits.md, "Red-team pass, session 21")."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from helpers import article_html, collect

from trustaudit.io.readers import open_source
from trustaudit.policy.inputs import InputsPolicy

CAP = InputsPolicy(max_warc_header_bytes=20_000)


def record(uri: bytes | None, http: bytes, head_extra: bytes = b"") -> bytes:
    head = b"WARC/1.0\r\nWARC-Type: response\r\n"
    if uri is not None:
        head += b"WARC-Target-URI: " + uri + b"\r\n"
    head += head_extra + b"Content-Type: application/http; msgtype=response\r\n"
    return head + b"Content-Length: %d\r\n\r\n" % len(http) + http + b"\r\n\r\n"


def page(host: str) -> bytes:
    body = article_html(url=f"https://{host}/a").encode()
    return record(f"https://{host}/a".encode(), b"HTTP/1.1 200 OK\r\n\r\n" + body)


@pytest.mark.parametrize("gz", [False, True])
def test_a_junk_line_over_the_cap_between_records(tmp_path: Path, gz: bool) -> None:
    """warcio read a line between records whole, by concatenation: a 300 MB junk line in a
    plain WARC was still being read after 714 s (451 MB). Now it is junk from its first
    cap + 1 bytes: one WARC_CORRUPT row, the next record read."""
    parts = [page("a.example"), b"x" * 60_000 + b"\r\n", page("b.example")]
    p = tmp_path / ("j.warc.gz" if gz else "j.warc")
    p.write_bytes(b"".join(gzip.compress(x) for x in parts) if gz else b"".join(parts))
    rows, errors = collect(open_source(p, limits=CAP))
    assert [r["url"] for r in rows] == ["https://a.example/a", "https://b.example/a"]
    assert [e.code for e in errors] == ["WARC_CORRUPT"]
    assert "the WARC record header is over 20000 bytes (inputs.max_warc_header_bytes)" in (
        errors[0].message
    )


def test_a_long_header_line_under_the_cap_is_read_whole(tmp_path: Path) -> None:
    """warcio's reader, asked for a line of at most N bytes, returns part of one that spans many
    of its 16 KB buffers: the budget asks again until the newline, so a 300 KB URI stays one."""
    uri = b"https://x.example/" + b"a" * 300_000
    p = tmp_path / "u.warc"
    p.write_bytes(record(uri, b"HTTP/1.1 200 OK\r\n" + b"X-Long: " + b"b" * 200_000 + b"\r\n\r\nx"))
    rows, errors = collect(open_source(p))
    assert errors == [] and [r["url"] for r in rows] == [uri.decode()]


def test_many_http_header_lines_are_one_error(tmp_path: Path) -> None:
    http = b"HTTP/1.1 200 OK\r\n" + b"X-Pad: 1234\r\n" * 5_000  # never ends
    p = tmp_path / "h.warc"
    p.write_bytes(page("a.example") + record(b"https://h.example/a", http) + page("b.example"))
    rows, errors = collect(open_source(p, limits=CAP))
    assert [r["url"] for r in rows] == ["https://a.example/a", "https://b.example/a"]
    assert [e.code for e in errors] == ["WARC_CORRUPT"]
    assert "the HTTP header block of the record is over 20000 bytes" in errors[0].message


def test_a_header_without_uri_nor_length_is_a_damaged_header(tmp_path: Path) -> None:
    """The AttributeError warcio raised for a record without WARC-Target-URI told nothing; a
    header with neither it nor Content-Length (cut short) says so."""
    p = tmp_path / "c.warc"
    p.write_bytes(
        page("a.example") + b"WARC/1.0\r\nWARC-Type: response\r\n\r\n" + page("b.example")
    )
    rows, errors = collect(open_source(p))
    assert [r["url"] for r in rows] == ["https://a.example/a", "https://b.example/a"]
    assert [e.code for e in errors] == ["WARC_CORRUPT"]
    assert "(no WARC-Target-URI and no Content-Length)" in errors[0].message
