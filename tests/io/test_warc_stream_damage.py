"""Damage in a `.warc.gz` read from a stream that cannot seek (object storage, a pipe), session 26:
before, the damaged record was one error row and the rest of the stream was skipped, where a file
on disk reads on at the next record; now the stream reads on too, at the next gzip member after
the damage that starts a record, found reading forward (`io.forward`), the same rows as from
disk."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from helpers import NoSeek, collect

from tests.io.test_warc_member_skip import page
from trustaudit.io import readers
from trustaudit.io.readers import open_source

A, B, C = (gzip.compress(page(h)) for h in ("a.example", "b.example", "c.example"))
DAMAGE = {
    # deflate data garbled inside the second member
    "garbled": A + B[:20] + bytes(x ^ 0x55 for x in B[20:60]) + B[60:] + C,
    # the second member cut in half, the third right after it
    "cut": A + B[: len(B) // 2] + C,
    # the second member's CRC wrong
    "crc": A + B[:-8] + b"\0\0\0\0" + B[-4:] + C,
}


def read(data: bytes, tmp_path: Path, mp: pytest.MonkeyPatch | None) -> tuple[list, list]:  # type: ignore[type-arg]
    """The (url, offset) rows and (code, offset, message) errors of `data` as a `.warc.gz`: from a
    stream that cannot seek when `mp` is given, else from disk (the stream undone on return, so
    that a disk reading after a stream one in a test is one)."""
    p = tmp_path / "d.warc.gz"
    p.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        if mp is not None:
            patch.setattr(readers.fs, "open_input", lambda _p: io.BufferedReader(NoSeek(data)))
        rows, errors = collect(open_source(p), cap=100)
    return [(r["url"], r["offset"]) for r in rows], [(e.code, e.offset, e.message) for e in errors]


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_stream_reads_on_after_damage_as_a_file_does(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = read(DAMAGE[damage], tmp_path, None)
    stream = read(DAMAGE[damage], tmp_path, monkeypatch)
    assert stream == disk
    rows, errors = stream
    assert [u for u, _ in rows] == ["https://a.example/a", "https://c.example/a"]
    ((code, at, msg),) = errors
    assert code.startswith("WARC_") and at == len(A)
    assert msg.endswith(f"read on at the next record (byte {len(DAMAGE[damage]) - len(C)})")


def test_damage_with_no_record_after_it_skips_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = read(A + B[: len(B) // 2], tmp_path, monkeypatch)
    assert stream == read(A + B[: len(B) // 2], tmp_path, None)
    rows, errors = stream
    assert [u for u, _ in rows] == ["https://a.example/a"]
    assert [(c, at) for c, at, _ in errors] == [("WARC_TRUNCATED", len(A))]
    assert errors[0][2].endswith("the rest of the file was skipped")


def test_a_last_member_cut_short_is_named_as_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A last gzip member of two records, cut inside its trailer: the stream said "several
    records share the gzip member" (WARC_CORRUPT) and lost its second record; since session 27
    the stream, still holding the member, reads it whole as a file on disk does: both records,
    then the row that says the file ends inside it."""
    tail = gzip.compress(page("c.example") + page("d.example"))
    data = A + tail[:-4]
    rows, errors = read(data, tmp_path, monkeypatch)
    assert [u for u, _ in rows] == [f"https://{h}.example/a" for h in "acd"]
    assert [(c, at) for c, at, _ in errors] == [("WARC_TRUNCATED", len(A))]
    assert errors[0][2].startswith(f"the file ends inside the gzip member at byte {len(A)}")
    assert read(data, tmp_path, None) == (rows, errors)  # the same rows from disk


@pytest.mark.parametrize("whole", [False, True])
def test_a_member_of_several_records_is_read_whole_from_a_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    """A gzip member of several records among per-record ones, and a WARC gzipped whole
    (`gzip crawl.warc`), from a stream: the records after the member's first were one
    WARC_CORRUPT row (a WARC gzipped whole read from S3 gave one page); since session 27 every
    record, at the offsets a file on disk gives them."""
    hosts = ["s", "t", "u"]
    shared = gzip.compress(b"".join(page(f"{h}.example") for h in hosts))
    data = (
        gzip.compress(b"".join(page(f"{h}.example") for h in "a" + "stu" + "c"))
        if whole
        else A + shared + C
    )
    stream = read(data, tmp_path, monkeypatch)
    rows, errors = stream
    assert errors == []
    assert [u for u, _ in rows] == [f"https://{h}.example/a" for h in ["a", *hosts, "c"]]
    assert len({o for _, o in rows}) == 5
    if not whole:  # the member's first record and the one after it at their raw starts
        assert rows[1][1] == len(A) and rows[4][1] == len(A) + len(shared)
    assert read(data, tmp_path, None) == stream


def test_a_member_whose_start_the_stream_dropped_is_one_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member of several records whose first record is over the 4 MiB the stream keeps,
    compressed: it cannot be read again whole, so the records after its first are one row that
    says why, and reading goes on at the next gzip member that starts a record."""
    import os

    from tests.io.test_warc_member_skip import record

    big = record("https://s.example/a", b"<p>" + os.urandom(5 << 20).hex().encode() + b"</p>")
    shared = gzip.compress(big + page("b.example"), compresslevel=1)
    data = A + shared + C
    rows, errors = read(data, tmp_path, monkeypatch)
    assert [u for u, _ in rows] == [f"https://{h}.example/a" for h in "asc"]
    assert [(c, at) for c, at, _ in errors] == [("WARC_CORRUPT", len(A))]
    msg = errors[0][2]
    assert "no longer holds" in msg and "4 MiB" in msg
    assert msg.endswith(f"read on at the next record (byte {len(A) + len(shared)})")
    disk = read(data, tmp_path, None)  # a file on disk reads the member again whole
    assert [u for u, _ in disk[0]] == [f"https://{h}.example/a" for h in "asbc"]
