"""A WARC compressed whole with bzip2, xz or zstd has no gzip member to leap to: a record over
the payload cap with more than inputs.max_warc_skip_bytes left by its Content-Length ends the
file there with one TOO_LARGE row, instead of being decompressed through (a 2.5 MB .warc.xz
holding a 16 GiB record cost 73-82 s before the record after it was reached; bzip2 59 s, zstd
10 s). Under the budget nothing changes; a plain WARC reads on past such a record as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import article_html, collect, compressed_whole

from trustaudit.io import readers
from trustaudit.io.readers import open_source
from trustaudit.policy.inputs import InputsPolicy

CAP = 100_000  # the payload cap (extract.max_record_bytes) in these tests
BUDGET = InputsPolicy(max_warc_skip_bytes=1_000_000)
BOMB = 16 << 20  # zeros of the record passed over: 16 times the budget
CODECS = ("bzip2", "xz", "zstd")
SUFFIX = {"bzip2": "bz2", "xz": "xz", "zstd": "zst"}


def record(uri: str, body: bytes, *, kind: str = "response", length: int | None = None) -> bytes:
    """A WARC record of `kind` whose payload is an HTTP response of `body` (its Content-Length
    true unless `length` says otherwise)."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    head = (
        b"WARC/1.0\r\nWARC-Type: "
        + kind.encode()
        + b"\r\nWARC-Target-URI: "
        + uri.encode()
        + b"\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(http) if length is None else length)
    )
    return head + http + b"\r\n\r\n"


def page(host: str) -> bytes:
    return record(f"https://{host}/a", article_html(url=f"https://{host}/a").encode())


def write(tmp_path: Path, codec: str | None, *records: bytes) -> Path:
    """The records as one file compressed whole with `codec` (None: a plain WARC)."""
    data = b"".join(records)
    p = tmp_path / ("w.warc" + (f".{SUFFIX[codec]}" if codec else ""))
    p.write_bytes(compressed_whole(data, codec) if codec else data)
    return p


def read(p: Path, limits: InputsPolicy = BUDGET) -> tuple[list[str], list]:  # type: ignore[type-arg]
    rows, errors = collect(open_source(p, max_bytes=CAP, limits=limits))
    return [r["url"] for r in rows], errors


@pytest.fixture
def decompressed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Bytes the reader took from the decompressed stream of a file compressed whole, so that a
    test can tell a record passed over from one decompressed to its end."""
    seen = [0]
    real = readers._Capped._count

    def counted(self, data):  # type: ignore[no-untyped-def]
        seen[0] += len(data)
        return real(self, data)

    monkeypatch.setattr(readers._Capped, "_count", counted)
    return seen


@pytest.mark.parametrize("codec", CODECS)
def test_a_record_over_the_budget_ends_a_file_compressed_whole_with_one_row(
    tmp_path: Path, decompressed: list[int], codec: str
) -> None:
    first = page("a.example")
    p = write(
        tmp_path, codec, first, record("https://bomb.example/", b"\0" * BOMB), page("b.example")
    )
    urls, errors = read(p)
    assert urls == ["https://a.example/a"]
    assert [(e.code, e.url, e.offset) for e in errors] == [
        ("TOO_LARGE", "https://bomb.example/", len(first))
    ]
    msg = errors[0].message
    assert msg.startswith(f"record at byte {len(first)}: payload over {CAP} bytes, with ")
    assert "over inputs.max_warc_skip_bytes (1000000)" in msg
    assert f"the file is compressed whole ({codec}), with no gzip member to resume at" in msg
    assert msg.endswith(
        "so the records after it in this file are not read; raise inputs.max_warc_skip_bytes"
        " to read them"
    )
    assert "\n" not in msg
    assert decompressed[0] < 2 << 20  # the 16 MiB of zeros were not decompressed


def test_the_budget_trades_both_ways_and_a_plain_warc_reads_on(tmp_path: Path) -> None:
    """A record of 2 MB over the cap: past a budget of 1 MB the records after it in an xz file
    are lost (said in the row); a budget of 10 MB reads them, with the same rows as before the
    budget applied to files compressed whole; a plain WARC reads them at any budget (passing a
    record over there costs no more than reading the file)."""
    big = record("https://big.example/", b"<p>" + b"x" * 2_000_000 + b"</p>")
    records = (page("a.example"), big, page("b.example"))
    urls, errors = read(write(tmp_path, "xz", *records))
    assert urls == ["https://a.example/a"]
    assert "compressed whole (xz)" in errors[0].message
    wide = InputsPolicy(max_warc_skip_bytes=10_000_000)
    for p, limits in (
        (write(tmp_path, "xz", *records), wide),
        (write(tmp_path, None, *records), BUDGET),
    ):
        urls, errors = read(p, limits)
        assert urls == ["https://a.example/a", "https://b.example/a"]
        assert [(e.code, e.message) for e in errors] == [("TOO_LARGE", f"payload over {CAP} bytes")]


def test_a_record_that_is_no_page_is_passed_over_under_the_same_budget(
    tmp_path: Path, decompressed: list[int]
) -> None:
    """A metadata record is never read, only passed over: 16 MiB of it were decompressed to
    reach the next record, with no row at all."""
    meta = record("https://meta.example/", b"\0" * BOMB, kind="metadata")
    p = write(tmp_path, "zstd", page("a.example"), meta, page("c.example"))
    urls, errors = read(p)
    assert urls == ["https://a.example/a"]
    assert [(e.code, e.url) for e in errors] == [("TOO_LARGE", "https://meta.example/")]
    assert ": not a page record (response, resource or conversion), with " in errors[0].message
    assert "compressed whole (zstd)" in errors[0].message
    assert decompressed[0] < 2 << 20


def test_a_content_length_that_swallows_the_records_after_it_says_so(tmp_path: Path) -> None:
    """A Content-Length of 64 MiB over a 200 KB payload: the records after it were read as its
    payload, and its row said only "payload over N bytes": two pages lost without a word."""
    liar = record("https://liar.example/", b"<p>" + b"x" * 200_000, length=64 << 20)
    p = write(tmp_path, "bzip2", page("a.example"), liar, page("c.example"), page("d.example"))
    urls, errors = read(p)
    assert urls == ["https://a.example/a"]
    assert [(e.code, e.url) for e in errors] == [("TOO_LARGE", "https://liar.example/")]
    assert "the records after it in this file are not read" in errors[0].message


@pytest.mark.parametrize(
    ("cut", "code"), [("cap", "DECOMPRESSED_TOO_LARGE"), ("truncated", "COMPRESSED_CORRUPT")]
)
def test_the_stream_ending_while_a_record_is_passed_over_is_one_row(
    tmp_path: Path, cut: str, code: str
) -> None:
    """Under the budget the record is still decompressed to its end; meeting the decompression
    cap or the end of a truncated file there escaped the reader (`SOURCE_FAILED` in an audit),
    and the page read before it was lost with the batch. Now the record is one row saying
    where the stream ended (a file cut short: in its TOO_LARGE row, `io.cut_streams`)."""
    big = record("https://big.example/", bytes(range(256)) * 16_000)  # 4 MB, 4 times the cap
    p = write(tmp_path, "xz", page("a.example"), big, page("b.example"))
    limits = InputsPolicy(max_warc_skip_bytes=10_000_000)
    if cut == "cap":
        limits = InputsPolicy(max_warc_skip_bytes=10_000_000, max_decompressed_bytes=3_000_000)
    else:  # inside the big record (the last 200 bytes, as before, now cut the page after it)
        p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    urls, errors = read(p, limits)
    assert urls == ["https://a.example/a"]
    assert [(e.code, e.url) for e in errors] == [(code, "https://big.example/")]
    if cut == "cap":
        assert errors[0].message.startswith("record after byte ")
    else:
        assert errors[0].message.startswith("xz stream cut short: the file ends before its")
        assert f"inside the record at byte {len(page('a.example'))} (payload over " in (
            errors[0].message
        )
