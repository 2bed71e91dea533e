"""A gzip WARC member is decompressed at most inputs.max_warc_skip_bytes only to find where the next
record starts (session 23): a 17 MB member of 16 GiB cost 50 s before, whoever set its
Content-Length. Past the budget the next member that starts a record is found in the raw bytes."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from helpers import article_html, collect, zeros_member

from trustaudit.io import readers
from trustaudit.io.readers import open_source
from trustaudit.policy.inputs import InputsPolicy

CAP = 100_000  # the payload cap (extract.max_record_bytes) in these tests
BUDGET = InputsPolicy(max_warc_skip_bytes=1_000_000)


def record(uri: str, body: bytes, length: int | None = None) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + uri.encode() + b"\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(http) if length is None else length)
    )
    return head + http + b"\r\n\r\n"


def page(host: str) -> bytes:
    return record(f"https://{host}/a", article_html(url=f"https://{host}/a").encode())


def bomb_head(host: str, n: int) -> bytes:
    """The WARC and HTTP headers of a response record of `n` payload bytes (honest length)."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://" + host.encode() + b"/\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(http) + n)
    )
    return head + http


def bomb(host: str, n: int) -> bytes:
    """A response record of `n` zero bytes with an honest Content-Length, as one gzip member."""
    return zeros_member(bomb_head(host, n), n, b"\r\n\r\n")


@pytest.fixture
def inflated(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Bytes decompressed by warcio's reader and by the readers' own member scans, so a test can
    tell a bomb passed over from one decompressed to its end."""
    from warcio.bufferedreaders import DecompressingBufferedReader

    seen = [0]
    real = DecompressingBufferedReader._process_read

    def counted(self, data):  # type: ignore[no-untyped-def]
        real(self, data)
        seen[0] += self.buff_size if self.buff is not None else 0

    monkeypatch.setattr(DecompressingBufferedReader, "_process_read", counted)
    return seen


def read(p: Path, limits: InputsPolicy = BUDGET) -> tuple[list[str], list]:  # type: ignore[type-arg]
    rows, errors = collect(open_source(p, max_bytes=CAP, limits=limits))
    return [r["url"] for r in rows], errors


def test_a_bomb_between_records_is_passed_over_in_the_raw_bytes(
    tmp_path: Path, inflated: list[int]
) -> None:
    first, big = gzip.compress(page("a.example")), bomb("bomb.example", 64 << 20)
    p = tmp_path / "b.warc.gz"
    p.write_bytes(first + big + gzip.compress(page("b.example")))
    urls, errors = read(p)
    assert urls == ["https://a.example/a", "https://b.example/a"]
    assert [(e.code, e.url, e.offset) for e in errors] == [
        ("TOO_LARGE", "https://bomb.example/", len(first))
    ]
    msg = errors[0].message
    assert msg.startswith(f"record at byte {len(first)}: payload over {CAP} bytes")
    assert "over inputs.max_warc_skip_bytes (1000000)" in msg
    assert msg.endswith(
        f"read on at the next gzip member that starts a record (byte {len(first) + len(big)})"
    )
    assert inflated[0] < 40 << 20  # the 64 MiB were not decompressed to their end


def test_a_bomb_as_the_last_record_ends_the_file_with_one_row(
    tmp_path: Path, inflated: list[int]
) -> None:
    p = tmp_path / "l.warc.gz"
    p.write_bytes(gzip.compress(page("a.example")) + bomb("bomb.example", 64 << 20))
    urls, errors = read(p)
    assert urls == ["https://a.example/a"]
    assert [e.code for e in errors] == ["TOO_LARGE"]
    assert "no later gzip member starts a record" in errors[0].message
    assert inflated[0] < 40 << 20


def test_under_the_budget_the_record_is_read_to_its_end_as_before(tmp_path: Path) -> None:
    """A WARC gzipped whole (one member): an over-cap record under the budget is decompressed to
    its end and the records after it in the same member are read."""
    p = tmp_path / "w.warc.gz"
    big = record("https://big.example/", b"<p>" + b"x" * 300_000 + b"</p>")
    p.write_bytes(gzip.compress(page("a.example") + big + page("b.example")))
    urls, errors = read(p)
    assert urls == ["https://a.example/a", "https://b.example/a"]
    assert [e.code for e in errors] == ["TOO_LARGE"]
    assert "max_warc_skip_bytes" not in errors[0].message


def test_raising_the_budget_reads_a_whole_gzip_warc_past_a_large_record(tmp_path: Path) -> None:
    """The trade the budget makes, both ways: a WARC gzipped whole holding a record longer than
    the budget loses the records after it (said in the row), and a larger budget reads them."""
    p = tmp_path / "w.warc.gz"
    big = record("https://big.example/", b"<p>" + b"x" * 2_000_000 + b"</p>")
    p.write_bytes(gzip.compress(page("a.example") + big + page("b.example")))
    urls, errors = read(p)
    assert urls == ["https://a.example/a"]
    assert "a record that shares it is not read" in errors[0].message
    urls, errors = read(p, InputsPolicy(max_warc_skip_bytes=10_000_000))
    assert urls == ["https://a.example/a", "https://b.example/a"]
    assert [e.code for e in errors] == ["TOO_LARGE"]


def test_a_bomb_after_a_record_in_the_same_member_is_passed_over(
    tmp_path: Path, inflated: list[int]
) -> None:
    """The member read whole (it holds several records): its small first record is read, the
    bomb after it costs one row and reading goes on at the next member in the raw bytes."""
    z = zeros_member(page("a.example") + bomb_head("bomb.example", 64 << 20), 64 << 20, b"\r\n\r\n")
    p = tmp_path / "m.warc.gz"
    p.write_bytes(z + gzip.compress(page("c.example")))
    urls, errors = read(p)
    assert urls == ["https://a.example/a", "https://c.example/a"]
    assert [(e.code, e.url) for e in errors] == [("TOO_LARGE", "https://bomb.example/")]
    assert "read on at the next gzip member that starts a record" in errors[0].message
    assert inflated[0] < 40 << 20


def test_a_member_that_goes_on_past_its_record_is_not_decompressed_to_its_end(
    tmp_path: Path, inflated: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A good page whose gzip member goes on with 64 MiB of zeros after it: the page is read, the
    zeros cost one WARC_CORRUPT row, and finding the next record does not decompress them."""
    scanned = [0]
    real = readers._next_gzip_member

    def spy(fh, at, budget=None):  # type: ignore[no-untyped-def]
        scanned[0] += 1
        assert budget == BUDGET.max_warc_skip_bytes
        return real(fh, at, budget)

    monkeypatch.setattr(readers, "_next_gzip_member", spy)
    p = tmp_path / "g.warc.gz"
    p.write_bytes(gzip.compress(page("a.example")) + zeros_member(page("lying.example"), 64 << 20)
                  + gzip.compress(page("c.example")))  # fmt: skip
    urls, errors = read(p)
    assert urls == ["https://a.example/a", "https://lying.example/a", "https://c.example/a"]
    assert [e.code for e in errors] == ["WARC_CORRUPT"]
    assert scanned[0] >= 1


def test_a_record_that_is_no_page_is_passed_over_under_the_same_budget(
    tmp_path: Path, inflated: list[int]
) -> None:
    """A metadata record is never read, only passed over: its 64 MiB member was decompressed to
    its end to reach the next record, with no row at all. Now it is leapt over like an over-cap
    page, with one row."""
    head = bomb_head("meta.example", 64 << 20).replace(
        b"WARC-Type: response", b"WARC-Type: metadata"
    )
    first, meta = gzip.compress(page("a.example")), zeros_member(head, 64 << 20, b"\r\n\r\n")
    p = tmp_path / "n.warc.gz"
    p.write_bytes(first + meta + gzip.compress(page("c.example")))
    urls, errors = read(p)
    assert urls == ["https://a.example/a", "https://c.example/a"]
    assert [(e.code, e.url, e.offset) for e in errors] == [
        ("TOO_LARGE", "https://meta.example/", len(first))
    ]
    assert errors[0].message.startswith(
        f"record at byte {len(first)}: not a page record (response, resource or conversion), with"
    )
    assert errors[0].message.endswith(
        f"read on at the next gzip member that starts a record (byte {len(first) + len(meta)})"
    )
    assert inflated[0] < 40 << 20


def test_the_raw_scan_skips_a_gzip_member_that_does_not_start_a_record(tmp_path: Path) -> None:
    """A member that continues a record, and a stray magic number in the raw bytes, are not
    taken for the next record."""
    stray = b"junk \x1f\x8b\x08 junk"
    member = gzip.compress(page("b.example"))  # found as written (its header holds a time)
    data = gzip.compress(b"not a record header") + stray + member
    p = tmp_path / "r.bin"
    p.write_bytes(data)
    with open(p, "rb") as fh:
        assert readers._record_member_after(fh, 0) == data.index(member)
        assert readers._record_member_after(fh, len(data) - 5) is None


def test_the_budget_is_a_policy_key_that_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_warc_skip_bytes"):
        InputsPolicy(max_warc_skip_bytes=0)


class _CountingRaw(io.FileIO):
    """A file that counts the bytes read from it."""

    got = 0

    def readinto(self, b):  # type: ignore[no-untyped-def, override]
        n = super().readinto(b)
        type(self).got += n or 0
        return n


def test_a_flood_of_gzip_magic_numbers_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking for the next record after damage used to read a 1 MB block from each gzip magic
    number on (1f 8b 08), so junk of nothing but magic numbers cost a megabyte a candidate
    (300 KB of them: 75,000 candidates, 75 GB read). The raw bytes are now read once."""
    flood = b"\x1f\x8b\x08\x00" * 75_000
    data = gzip.compress(page("a.example")) + b"junk" + flood + gzip.compress(page("b.example"))
    p = tmp_path / "f.warc.gz"
    p.write_bytes(data)
    _CountingRaw.got = 0
    monkeypatch.setattr(
        readers.fs, "open_input", lambda path: io.BufferedReader(_CountingRaw(str(path)))
    )
    urls, errors = read(p)
    assert urls == ["https://a.example/a", "https://b.example/a"]
    assert [e.code for e in errors] == ["WARC_CORRUPT"]
    assert "read on at the next record" in errors[0].message
    assert _CountingRaw.got < 20 * len(data)
