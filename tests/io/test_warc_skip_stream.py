"""Passing over WARC records and blank lines, in a stream that cannot seek and under a total per
file (docs/limits.md, "After this pass: passing over records in a stream that cannot seek, and a
total per file").

Before: a `.warc.gz` read from object storage had no skip budget, so an over-cap record was
decompressed to its end (a 17 MB member of 16 GiB: about 45 s), and the budget was per run of
blank lines (or per record), so a file of many runs each under it cost about 2 s a GiB, without
end. Now the stream is read forward to the next gzip member that starts a record (`io.forward`),
and one file passes over at most inputs.max_warc_skip_total_bytes (`SkipMeter`)."""

from __future__ import annotations

import gzip
import io
import lzma
from pathlib import Path

import pytest
from helpers import NoSeek, collect

from tests.io.test_warc_member_skip import CAP, bomb, inflated, page, record  # noqa: F401
from trustaudit.io import readers
from trustaudit.io.readers import open_source
from trustaudit.policy.inputs import InputsPolicy

RUN, TOTAL = 1_000_000, 3_000_000  # inputs.max_warc_skip_bytes and …_total_bytes here
LIMITS = InputsPolicy(max_warc_skip_bytes=RUN, max_warc_skip_total_bytes=TOTAL)
BLANKS = b"\r\n" * 450_000  # 900 KB: under the budget of one run


def read(
    p: Path, mp: pytest.MonkeyPatch | None = None, limits: InputsPolicy = LIMITS
) -> tuple[list[str], list]:  # type: ignore[type-arg]
    """The URLs of the pages and the error rows of `p`, read as a stream that cannot seek when
    `mp` is given."""
    if mp is not None:
        data = p.read_bytes()
        mp.setattr(readers.fs, "open_input", lambda _p: io.BufferedReader(NoSeek(data)))
    rows, errors = collect(open_source(p, max_bytes=CAP, limits=limits), cap=100)
    return [r["url"] for r in rows], errors


# ------------------------------------------------------------ a stream that cannot seek
def test_a_bomb_in_a_stream_that_cannot_seek_is_passed_over_in_the_raw_bytes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    inflated: list[int],  # noqa: F811
) -> None:
    """Before: decompressed to its end (64 MiB here), whatever the budget. Now one TOO_LARGE row
    as from a file on disk, and reading goes on at the next member, found reading forward."""
    first, big = gzip.compress(page("a.example")), bomb("bomb.example", 64 << 20)
    p = tmp_path / "b.warc.gz"
    p.write_bytes(first + big + gzip.compress(page("b.example")))
    urls, errors = read(p, monkeypatch)
    assert urls == ["https://a.example/a", "https://b.example/a"]
    assert [(e.code, e.url, e.offset) for e in errors] == [
        ("TOO_LARGE", "https://bomb.example/", len(first))
    ]
    assert "over inputs.max_warc_skip_bytes (1000000)" in errors[0].message
    assert errors[0].message.endswith(
        f"read on at the next gzip member that starts a record (byte {len(first) + len(big)})"
    )
    assert inflated[0] < 40 << 20  # the 64 MiB were not decompressed to their end


def test_a_run_of_blank_lines_in_a_stream_that_cannot_seek_is_one_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: read through, no row, whatever its length."""
    member = gzip.compress(page("a.example") + b"\r\n" * 4_000_000)
    p = tmp_path / "r.warc.gz"
    p.write_bytes(member + gzip.compress(page("b.example")))
    urls, errors = read(p, monkeypatch)
    assert urls == ["https://a.example/a", "https://b.example/a"]
    assert [(e.code, e.offset) for e in errors] == [("TOO_LARGE", 0)]
    assert errors[0].message.startswith("after the record at byte 0: a run of blank lines")
    assert errors[0].message.endswith(f"(byte {len(member)})")


@pytest.mark.parametrize("layout", ["lying", "last", "magic_in_bomb"])
def test_a_stream_that_cannot_seek_reads_as_the_file_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    """The same rows, at the same offsets, as the file read from disk: a record that is no page
    whose Content-Length lies (64 MiB in a member of 200 bytes: the next member is already in
    what warcio read, found in the bytes kept), a bomb as the last record, a bomb whose zeros are
    followed by a stray magic number."""
    a, c = gzip.compress(page("a.example")), gzip.compress(page("c.example"))
    if layout == "lying":
        lying = record("https://lie.example/", b"<p>x</p>", length=64 << 20)
        lying = lying.replace(b"WARC-Type: response", b"WARC-Type: metadata")
        data = a + gzip.compress(lying) + c
    elif layout == "last":
        data = a + bomb("bomb.example", 8 << 20)
    else:
        data = a + bomb("bomb.example", 8 << 20) + b"\x1f\x8b\x08junk" + c
    p = tmp_path / f"{layout}.warc.gz"
    p.write_bytes(data)
    on_disk = read(p)
    urls, errors = read(p, monkeypatch)
    assert (urls, [(e.code, e.offset, e.url, e.message) for e in errors]) == (
        on_disk[0],
        [(e.code, e.offset, e.url, e.message) for e in on_disk[1]],
    )
    assert len(errors) == 1


def test_the_forward_reader_goes_back_only_as_far_as_it_keeps() -> None:
    from trustaudit.io.forward import ForwardReader

    data = bytes(range(256)) * 64  # 16 KiB
    f = ForwardReader(io.BufferedReader(NoSeek(data)), keep=1024)  # type: ignore[arg-type]
    assert f.read(100) == data[:100] and f.tell() == 100
    assert f.seek(10_000) == 10_000 and f.earliest == 10_000 - 1024
    assert f.read(4) == data[10_000:10_004]
    f.seek(9_000)  # back, into what is kept
    assert f.read(8) == data[9_000:9_008]
    with pytest.raises(OSError, match="cannot seek back"):
        f.seek(8_000)
    f.seek(20_000)  # past the end: at the end
    assert f.tell() == len(data) and f.read(10) == b""


# ------------------------------------------------------------ a total per file
def _runs(n: int) -> bytes:
    """`n` gzip members of a page and 900 KB of blank lines each, then a last page. Written with
    a fixed gzip mtime, so a test finds a member by compressing it again (the header holds the
    second it was written: the two calls fell in different seconds on a loaded machine)."""
    members = [gzip.compress(page(f"m{i}.example") + BLANKS, mtime=0) for i in range(n)]
    return b"".join(members) + gzip.compress(page("last.example"))


@pytest.mark.parametrize("stream", [False, True])
def test_runs_of_blank_lines_each_under_the_budget_are_bounded_in_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    """Before: every run read through (6 x 900 KB under a budget of 1 MB a run), all 7 pages.
    Now the fourth run takes the file past 3 MB: the pages up to it kept, one TOO_LARGE row
    that says the rest is not read."""
    data = _runs(6)
    p = tmp_path / "runs.warc.gz"
    p.write_bytes(data)
    urls, errors = read(p, monkeypatch if stream else None)
    assert urls == [f"https://m{i}.example/a" for i in range(4)]
    fourth = data.index(gzip.compress(page("m3.example") + BLANKS, mtime=0))
    assert [(e.code, e.offset) for e in errors] == [("TOO_LARGE", fourth)]
    msg = errors[0].message
    assert msg.startswith(f"after the record at byte {fourth}: a run of blank lines before")
    assert "past inputs.max_warc_skip_total_bytes (3000000)" in msg
    assert msg.endswith(
        "the records after it in this file are not read; raise"
        " inputs.max_warc_skip_total_bytes to read them"
    )
    # raised, the total reads the file whole
    urls, errors = read(p, None, InputsPolicy(max_warc_skip_bytes=RUN))
    assert len(urls) == 7 and errors == []


def test_records_passed_over_count_against_the_total(tmp_path: Path) -> None:
    """Over-cap records each with 900 KB left (under the budget of one run) are decompressed to
    their end to reach the next; before, any number of them. Now the fourth is past the total:
    its own row says so, and the file stops there."""
    big = [gzip.compress(record(f"https://big{i}.example/", b"x" * 1_000_000)) for i in range(6)]
    data = gzip.compress(page("a.example")) + b"".join(big) + gzip.compress(page("b.example"))
    p = tmp_path / "big.warc.gz"
    p.write_bytes(data)
    urls, errors = read(p)
    assert urls == ["https://a.example/a"]
    assert [e.code for e in errors] == ["TOO_LARGE"] * 4
    assert [e.url for e in errors] == [f"https://big{i}.example/" for i in range(4)]
    assert all("max_warc_skip" not in e.message for e in errors[:3])
    last = errors[3]
    assert last.offset == data.index(big[3])
    assert last.message.startswith(f"record at byte {last.offset}: payload over {CAP} bytes")
    assert "past inputs.max_warc_skip_total_bytes (3000000)" in last.message


def test_the_total_bounds_a_warc_compressed_whole_not_a_plain_one(tmp_path: Path) -> None:
    """A .warc.xz: the same runs, the same total (there is no member to resume at anyway). The
    same records in a plain .warc are read through: nothing is decompressed there."""
    plain = b"".join(page(f"m{i}.example") + BLANKS for i in range(6)) + page("last.example")
    p = tmp_path / "runs.warc.xz"
    p.write_bytes(lzma.compress(plain, preset=0))
    urls, errors = read(p)
    assert urls == [f"https://m{i}.example/a" for i in range(4)]
    assert [e.code for e in errors] == ["TOO_LARGE"]
    assert "past inputs.max_warc_skip_total_bytes (3000000)" in errors[0].message
    (tmp_path / "runs.warc").write_bytes(plain)
    urls, errors = read(tmp_path / "runs.warc")
    assert len(urls) == 7 and errors == []


def test_the_total_is_a_policy_key_that_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_warc_skip_total_bytes"):
        InputsPolicy(max_warc_skip_total_bytes=0)
