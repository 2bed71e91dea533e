"""A WARC compressed whole with bzip2, xz or zstd and cut short: every record whole in what the
stream decompresses to before the cut is read, and the cut is one COMPRESSED_CORRUPT row that
says where the stream ends (docs/limits.md, "After this pass: WARCs compressed whole and cut
short"). Before, the decompressing reader raised at the cut and lost what it had decompressed
since its last full buffer (1 MiB): a file under 1 MiB gave NO_PAGE_RECORDS "no WARC/ARC records
found", pages and damage unsaid; one cut inside its magic number was read as a plain WARC or,
its name not saying, was UNKNOWN_FORMAT."""

from __future__ import annotations

import bz2
import io
import lzma
import random
from pathlib import Path

import pyarrow as pa
import pytest
from helpers import collect, compressed_whole

from trustaudit.io.compression import open_decompressed
from trustaudit.io.readers import open_source
from trustaudit.policy.inputs import InputsPolicy

CODECS = ("bzip2", "xz", "zstd")
SUFFIX = {"bzip2": "bz2", "xz": "xz", "zstd": "zst"}
MAGIC = {"bzip2": b"BZh", "xz": b"\xfd7zXZ\x00", "zstd": b"\x28\xb5\x2f\xfd"}


def record(uri: str, body: bytes, *, kind: str = "response") -> bytes:
    """A WARC record of `kind` whose payload is an HTTP response of `body`."""
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    head = (
        b"WARC/1.0\r\nWARC-Type: %s\r\nWARC-Target-URI: %s\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
        % (kind.encode(), uri.encode(), len(http))
    )
    return head + http + b"\r\n\r\n"


def pages(n: int, size: int, seed: int = 7) -> list[tuple[str, bytes]]:
    """`n` (URL, record) pairs of about `size` bytes each, of varied text: a cut lands inside
    the stream, not in one run of repeated bytes."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        url = f"https://p{i}.example.org/a"
        text = rng.randbytes(size // 2).hex()
        out.append((url, record(url, f"<html><body><p>{text}</p></body></html>".encode())))
    return out


def readable(cut: bytes, codec: str, step: int = 1024) -> bytes:
    """What the codec decompresses from `cut`, by another road than the reader's: the standard
    library's incremental decompressors fed `step` bytes at a time (on damage, what the failing
    step gave is lost: 1 for exact); for zstd pyarrow read a byte at a time (a larger read that
    fails gives none of what it decompressed)."""
    out = bytearray()
    if codec == "zstd":
        stream = pa.CompressedInputStream(pa.BufferReader(cut), "zstd")
        try:
            while byte := stream.read(1):
                out += byte
        except OSError:
            pass
        return bytes(out)
    d = lzma.LZMADecompressor() if codec == "xz" else bz2.BZ2Decompressor()
    try:
        for i in range(0, len(cut), step):
            out += d.decompress(cut[i : i + step])
    except (EOFError, OSError, lzma.LZMAError):
        pass
    return bytes(out)


def whole_in(records: list[tuple[str, bytes]], n: int) -> list[str]:
    """The URLs of the records whose header and payload end within the first `n` bytes."""
    urls, at = [], 0
    for url, rec in records:
        if at + len(rec) - 4 <= n:  # the 4 bytes of blank lines after it are not the record
            urls.append(url)
        at += len(rec)
    return urls


def read(p: Path, limits: InputsPolicy | None = None) -> tuple[list[str], list]:  # type: ignore[type-arg]
    rows, errors = collect(open_source(p, max_bytes=10_000_000, limits=limits))
    return [r["url"] for r in rows], errors


def cut_file(tmp_path: Path, records: list[tuple[str, bytes]], codec: str, keep: float) -> Path:
    blob = compressed_whole(b"".join(r for _, r in records), codec)
    p = tmp_path / f"w.warc.{SUFFIX[codec]}"
    p.write_bytes(blob[: int(len(blob) * keep)])
    return p


def assert_cut(p: Path, records: list[tuple[str, bytes]], codec: str) -> list[str]:
    """The reading of `p` gives as pages exactly the records whole in what its stream holds, and
    one COMPRESSED_CORRUPT row that names the codec and where the stream ends. Its URLs."""
    good = readable(p.read_bytes(), codec)
    urls, errors = read(p)
    assert urls == whole_in(records, len(good))
    assert [e.code for e in errors] == ["COMPRESSED_CORRUPT"]
    msg = errors[0].message
    assert msg.startswith(f"{codec} stream cut short: the file ends before its end-of-stream")
    assert (f"{len(good)} bytes into what it decompresses to" if good else "nothing") in msg
    assert "\n" not in msg
    return urls


@pytest.mark.parametrize("codec", CODECS)
def test_a_file_under_1_mib_cut_in_half_reads_its_whole_records(tmp_path: Path, codec: str) -> None:
    """300 KB cut in half: NO_PAGE_RECORDS before, now its whole records and one row."""
    records = pages(12, 25_000)
    urls = assert_cut(cut_file(tmp_path, records, codec, 0.5), records, codec)
    assert 3 <= len(urls) < 12


@pytest.mark.parametrize("codec", CODECS)
def test_a_file_over_1_mib_keeps_the_records_after_its_last_whole_mib(
    tmp_path: Path, codec: str
) -> None:
    """2.5 MB cut at 90 %: the records decompressed after its last whole MiB were lost before."""
    records = pages(50, 50_000)
    urls = assert_cut(cut_file(tmp_path, records, codec, 0.9), records, codec)
    assert len(urls) > 40


@pytest.mark.parametrize("codec", CODECS)
def test_any_cut_point_reads_the_records_before_it(tmp_path: Path, codec: str) -> None:
    """Cut every 1/40th of the file: each time the whole records before the cut, one row."""
    records = pages(8, 4_000, seed=3)
    blob = compressed_whole(b"".join(r for _, r in records), codec)
    p = tmp_path / f"w.warc.{SUFFIX[codec]}"
    for i in range(1, 40):
        p.write_bytes(blob[: len(blob) * i // 40])
        assert_cut(p, records, codec)


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("named", [True, False])
def test_a_cut_inside_the_magic_number_or_header_says_so(
    tmp_path: Path, codec: str, named: bool
) -> None:
    """A file of the first bytes of the stream: its magic number cut (before: a plain WARC with
    no record header, or UNKNOWN_FORMAT without the suffix) or its header (before:
    NO_PAGE_RECORDS, or UNKNOWN_FORMAT). Now one row that it is that codec's stream cut short."""
    blob = compressed_whole(b"".join(r for _, r in pages(2, 2_000)), codec)
    name = f"w.warc.{SUFFIX[codec]}" if named else "w.bin"
    for n in range(2 if not named else 1, len(MAGIC[codec]) + 6):
        p = tmp_path / name
        p.write_bytes(blob[:n])
        urls, errors = read(p)
        assert urls == []
        assert [e.code for e in errors] == ["COMPRESSED_CORRUPT"], (n, errors)
        inside = n < len(MAGIC[codec])
        assert errors[0].message.startswith(
            f"{codec} stream cut short inside its magic number: the file is its first {n} byte"
            if inside
            else f"{codec} stream cut short: the file ends before its end-of-stream marker, with"
            " nothing decompressed"
        ), (n, errors[0].message)


def test_a_warc_named_without_its_suffix_is_still_read_when_cut(tmp_path: Path) -> None:
    """`crawl.xz` (no `.warc` in the name) cut in half: its kind is sniffed from what it
    decompresses to. Before, the sniff raised at the cut: UNKNOWN_FORMAT."""
    records = pages(12, 25_000)
    blob = compressed_whole(b"".join(r for _, r in records), "xz")
    p = tmp_path / "crawl.xz"
    p.write_bytes(blob[: len(blob) // 2])
    assert assert_cut(p, records, "xz")


@pytest.mark.parametrize("codec", ("bzip2", "xz"))
def test_a_cut_between_two_records_says_after_which(tmp_path: Path, codec: str) -> None:
    """Two streams one after the other (pbzip2, `xz -T`), the second cut inside its header: the
    stream ends exactly after the second record. Both are read; the row says where."""
    records = pages(3, 20_000)
    first = compressed_whole(records[0][1] + records[1][1], codec)
    second = compressed_whole(records[2][1], codec)
    p = tmp_path / f"w.warc.{SUFFIX[codec]}"
    p.write_bytes(first + second[:8])
    urls, errors = read(p)
    assert urls == [records[0][0], records[1][0]]
    assert [(e.code, e.offset) for e in errors] == [
        ("COMPRESSED_CORRUPT", len(records[0][1]) + len(records[1][1]))
    ]
    assert errors[0].message.endswith(
        f"after the record at byte {len(records[0][1])}; the records up to it were read"
    )


@pytest.mark.parametrize("codec", CODECS)
def test_a_cut_inside_a_record_passed_over_is_its_one_row(tmp_path: Path, codec: str) -> None:
    """A record over the payload cap, or one that is no page, cut short: it was passed over to
    its end, so warcio saw no damage. Its one row (URL kept) says it is cut: for the record
    over the cap, the TOO_LARGE row becomes that row."""
    for kind, cap in (("response", 100_000), ("metadata", 10_000_000)):
        head = pages(1, 5_000)
        big = record(
            "https://big.example.org/",
            random.Random(1).randbytes(400_000).hex().encode(),
            kind=kind,
        )
        blob = compressed_whole(head[0][1] + big, codec)
        p = tmp_path / f"w.warc.{SUFFIX[codec]}"
        p.write_bytes(blob[: len(blob) * 3 // 4])
        rows, errors = collect(open_source(p, max_bytes=cap))
        assert [r["url"] for r in rows] == [head[0][0]]
        assert [(e.code, e.url, e.offset) for e in errors] == [
            ("COMPRESSED_CORRUPT", "https://big.example.org/", len(head[0][1]))
        ]
        what = "payload over 100000 bytes" if kind == "response" else "a metadata record"
        assert f"inside the record at byte {len(head[0][1])} ({what}, " in errors[0].message
        assert "bytes short of its Content-Length); the records before it were read" in (
            errors[0].message
        )


@pytest.mark.parametrize("codec", ("bzip2", "xz"))
def test_damage_in_the_middle_is_one_row_after_the_records_before_it(
    tmp_path: Path, codec: str
) -> None:
    """Bytes overwritten in the middle of the stream (not cut): the records decompressed before
    them are read (the block of compressed bytes the codec failed on read again a byte at a
    time), and one row says the stream is damaged there. (pyarrow writes zstd with no checksum:
    zeros there decompress to other bytes, with no error to tell.)"""
    records = pages(12, 25_000)
    blob = bytearray(compressed_whole(b"".join(r for _, r in records), codec))
    mid = len(blob) * 3 // 4
    blob[mid : mid + 64] = bytes(64)
    p = tmp_path / f"w.warc.{SUFFIX[codec]}"
    p.write_bytes(bytes(blob))
    good = readable(bytes(blob), codec, step=1)
    data = b"".join(r for _, r in records)
    # the codec may give some bytes of garbage before it tells the damage: not part of a record
    intact = next(
        (i for i, (a, b) in enumerate(zip(good, data, strict=False)) if a != b), len(good)
    )
    urls, errors = read(p)
    assert urls == whole_in(records, intact) and len(urls) >= 3
    assert [e.code for e in errors] == ["COMPRESSED_CORRUPT"]
    assert errors[0].message.startswith(f"{codec} stream damaged (")
    assert f"{len(good)} bytes into what it decompresses to" in errors[0].message


@pytest.mark.parametrize("codec", CODECS)
def test_the_budgets_still_apply_before_the_cut(tmp_path: Path, codec: str) -> None:
    """inputs.max_decompressed_bytes met before the cut: the pages up to it and its row, no row
    for a cut never reached; inputs.max_warc_skip_bytes: a record over it ends the file with
    its TOO_LARGE row, as in a file that is not cut."""
    records = pages(12, 25_000)
    p = cut_file(tmp_path, records, codec, 0.9)
    urls, errors = read(p, InputsPolicy(max_decompressed_bytes=60_000))
    assert urls and urls == whole_in(records, 60_000)[: len(urls)]
    assert [e.code for e in errors] == ["DECOMPRESSED_TOO_LARGE"]
    bomb = record("https://bomb.example.org/", bytes(4_000_000))
    blob = compressed_whole(records[0][1] + bomb + records[1][1], codec)
    p.write_bytes(blob[:-20])
    rows, errors = collect(
        open_source(p, max_bytes=100_000, limits=InputsPolicy(max_warc_skip_bytes=1_000_000))
    )
    assert [r["url"] for r in rows] == [records[0][0]]
    assert [(e.code, e.url) for e in errors] == [("TOO_LARGE", "https://bomb.example.org/")]


@pytest.mark.parametrize("codec", CODECS)
def test_the_stream_gives_every_byte_before_the_damage(codec: str) -> None:
    """`open_decompressed(up_to_damage=True)` gives what the codec decompresses before the cut,
    all of it (zstd: what pyarrow dropped is read again), then ends, saying why."""
    data = b"".join(r for _, r in pages(40, 30_000))
    blob = compressed_whole(data, codec)
    for keep in (0.3, 0.77):
        cut = blob[: int(len(blob) * keep)]
        fh = open_decompressed(io.BytesIO(cut), codec, up_to_damage=True)
        got = fh.read()
        assert got == readable(cut, codec) and got and data.startswith(got)
        assert fh.damage is not None and fh.damage.cut and fh.good == len(got)
        assert fh.read(10) == b""
