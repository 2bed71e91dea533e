"""Blank lines between WARC records (`io.warc_gaps`): warcio read them one line at a time, about
1 µs a line in every layout and after any record, under no budget (2 Mi `\\r\\n` in a 6.7 KB gzip
member: 2.4 s; 16 GiB of them, a few MB of gzip, hours). They are now read in blocks, and a run of
them in a compressed WARC counts against inputs.max_warc_skip_bytes: past it, one TOO_LARGE row,
the records before it kept. Blank lines before a record header (at the start of the file or of a
gzip member) were read as an empty header whose payload swallowed the records after them."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from helpers import article_html, collect, compressed_whole
from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import BufferedReader

from trustaudit.io.readers import open_source
from trustaudit.io.warc_gaps import bound_gaps
from trustaudit.policy.inputs import InputsPolicy

BUDGET = InputsPolicy(max_warc_skip_bytes=1_000_000)
UNDER = b"\r\n" * 200_000  # 400 KB of blank lines: under the budget
OVER = b"\r\n" * (1 << 20)  # 2 MiB: over it
WHOLE = ("bzip2", "xz", "zstd")
SUFFIX = {"plain": "", "gzip": ".gz", "gzip-whole": ".gz", "bzip2": ".bz2", "xz": ".xz"}


def page(host: str) -> bytes:
    """A WARC response record of an article at https://{host}/a, ended by its two CRLFs."""
    body = article_html(url=f"https://{host}/a").encode()
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://%s/a\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
        % (host.encode(), len(http))
    )
    return head + http + b"\r\n\r\n"


def write(tmp_path: Path, layout: str, *parts: bytes) -> Path:
    """`parts` as a WARC file of `layout`: `plain`; `gzip`, a gzip member for each part (blank
    lines written with a record go in its member); `gzip-whole`, one member; or compressed whole
    with bzip2, xz or zstd."""
    data = b"".join(parts)
    if layout == "gzip":
        data = b"".join(gzip.compress(p, mtime=0) for p in parts)
    elif layout == "gzip-whole":
        data = gzip.compress(data, mtime=0)
    elif layout != "plain":
        data = compressed_whole(data, layout)
    p = tmp_path / f"w.warc{SUFFIX.get(layout, '.zst')}"
    p.write_bytes(data)
    return p


def read(p: Path, limits: InputsPolicy = BUDGET) -> tuple[list[str], list]:  # type: ignore[type-arg]
    rows, errors = collect(open_source(p, limits=limits))
    return [r["url"] for r in rows], errors


URLS = ["https://a.example/a", "https://b.example/a", "https://c.example/a"]


@pytest.fixture
def readlines(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many lines warcio's buffered reader was asked for."""
    calls = [0]
    real = BufferedReader.readline

    def counted(self, length=None):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(self, length)

    monkeypatch.setattr(BufferedReader, "readline", counted)
    return calls


@pytest.mark.parametrize("layout", ["plain", "gzip", "gzip-whole", *WHOLE])
def test_a_run_of_blank_lines_is_read_in_blocks(
    tmp_path: Path, readlines: list[int], layout: str
) -> None:
    """200,000 blank lines after a record, under the budget: the same records as without them,
    read with a few hundred readline calls (warcio made one a blank line)."""
    p = write(tmp_path, layout, page("a.example") + UNDER, page("b.example"), page("c.example"))
    urls, errors = read(p)
    assert (urls, errors) == (URLS, [])
    assert readlines[0] < 1_000


def test_a_run_over_the_budget_in_a_gzip_warc_is_one_row_and_reading_goes_on(
    tmp_path: Path,
) -> None:
    """2 MiB of blank lines in the gzip member of the record before them, over a budget of 1 MB:
    the record is a page, the run one TOO_LARGE row, and reading goes on at the next member that
    starts a record, found in the raw bytes. A plain WARC has no budget: nothing is decompressed,
    and its blank lines cost what reading them costs."""
    first = page("a.example") + OVER
    p = write(tmp_path, "gzip", first, page("b.example"), page("c.example"))
    urls, errors = read(p)
    assert urls == URLS
    assert [(e.code, e.offset, e.url) for e in errors] == [("TOO_LARGE", 0, None)]
    assert errors[0].message == (
        "after the record at byte 0: a run of blank lines before the next record header, over"
        " inputs.max_warc_skip_bytes (1000000): its gzip member is not decompressed to its end,"
        " so a record that shares it is not read; read on at the next gzip member that starts a"
        f" record (byte {len(gzip.compress(first, mtime=0))})"
    )
    plain = write(tmp_path, "plain", first, page("b.example"), page("c.example"))
    assert read(plain) == (URLS, [])


@pytest.mark.parametrize("layout", ["gzip-whole", *WHOLE])
def test_in_a_file_compressed_whole_a_run_over_the_budget_ends_the_file(
    tmp_path: Path, layout: str
) -> None:
    """A file compressed whole has no member to resume at after the run: the records before it
    are pages, one row says that the rest is not read (as for a record over the budget)."""
    p = write(tmp_path, layout, page("a.example") + OVER, page("b.example"), page("c.example"))
    urls, errors = read(p)
    assert urls == URLS[:1]
    assert [(e.code, e.offset, e.url) for e in errors] == [("TOO_LARGE", 0, None)]
    msg = errors[0].message
    assert msg.startswith("after the record at byte 0: a run of blank lines before the next")
    if layout == "gzip-whole":
        assert msg.endswith(
            "no later gzip member starts a record: the rest of the file was skipped"
        )
    else:
        assert f"the file is compressed whole ({layout}), with no gzip member to resume at" in msg
        assert msg.endswith("raise inputs.max_warc_skip_bytes to read them")
    assert "\n" not in msg


@pytest.mark.parametrize("layout", ["plain", "gzip", "xz"])
def test_blank_lines_before_a_record_header_are_passed_over(tmp_path: Path, layout: str) -> None:
    """warcio read the first of them as an empty record header with no Content-Length, whose
    payload ran to the end of the stream or gzip member: a plain WARC that starts with a CRLF
    gave `NO_PAGE_RECORDS` and no page, a gzip member that starts with one lost its record,
    without a word. Now the record is read, its offset where its header starts (in a gzip WARC,
    where its member does, as for any record)."""
    a, b, c = page("a.example"), page("b.example"), page("c.example")
    p = write(tmp_path, layout, b"\r\n" * 3 + a, b"\r\n\r\n" + b, c)
    rows, errors = collect(open_source(p, limits=BUDGET))
    assert ([r["url"] for r in rows], errors) == (URLS, [])
    if layout == "plain":
        assert [r["offset"] for r in rows] == [6, 6 + len(a) + 4, 10 + len(a) + len(b)]


def test_a_gzip_member_of_blank_lines_over_the_budget_is_one_row(tmp_path: Path) -> None:
    """A member of 2 MiB of blank lines between two records, over a budget of 1 MB: one row at
    the member, reading on at the next one (warcio read it as an empty record, one line at a
    time and under no budget)."""
    first, blanks = gzip.compress(page("a.example"), mtime=0), gzip.compress(OVER, mtime=0)
    p = write(tmp_path, "gzip", page("a.example"), OVER, page("b.example"))
    urls, errors = read(p)
    assert urls == URLS[:2]
    assert [(e.code, e.offset) for e in errors] == [("TOO_LARGE", len(first))]
    assert errors[0].message.startswith(
        f"at byte {len(first)}: a run of blank lines before a record header, over"
        " inputs.max_warc_skip_bytes (1000000): its gzip member is not decompressed"
    )
    assert errors[0].message.endswith(f"(byte {len(first) + len(blanks)})")


# what may come between two records: the usual two CRLFs, many, a blank line longer than any
# buffer, every kind of ASCII blank, CRs alone, spaces then the next header, a first line that is
# not blank (a wrong Content-Length), no blank line at all
GAPS = [
    b"\r\n\r\n",
    b"\r\n" * 1_000,
    b"\r\n" + b" \t" * 10_000 + b"\r\n",
    b"\r\n\n\r\n\x0b\x0c \r\n",
    b"\r\r\r\n",
    b"\r\n" * 5 + b"   ",
    b"junk\r\n" + b"\r\n" * 50,
    b"",
]


def _records(data: bytes, block_size: int, *, bounded: bool) -> list[object]:
    """What warcio's iterator gives for `data`: each record's type, URI, offset and length, the
    line it read after it, its error count, and the exception it ended on (if any)."""
    it = ArchiveIterator(io.BytesIO(data), block_size=block_size)
    it.INC_RECORD = ""
    if bounded:
        bound_gaps(it, None)
    got: list[object] = []
    try:
        for record in it:
            uri = record.rec_headers.get_header("WARC-Target-URI")
            offset, length = it.get_record_offset(), it.get_record_length()
            got.append((record.rec_type, uri, offset, length, it.next_line, it.err_count))
    except Exception as exc:  # compared too: the same damage must end both readings
        got.append(type(exc).__name__)
    return got


@pytest.mark.parametrize("block_size", [7, 16_384])
@pytest.mark.parametrize("gap", GAPS, ids=range(len(GAPS)))
def test_blank_lines_read_in_blocks_give_warcio_s_own_records(gap: bytes, block_size: int) -> None:
    """After a record, the block reading stops where warcio's line reading did, whatever the
    blank lines and wherever warcio's buffers end (7 bytes: everywhere)."""
    a, b, c = (page(f"{h}.example")[:-4] for h in "abc")  # the records without their CRLFs
    for data in (a + gap + b + gap + c, gzip.compress(a + gap, mtime=0) + gzip.compress(b)):
        assert _records(data, block_size, bounded=True) == _records(data, block_size, bounded=False)
