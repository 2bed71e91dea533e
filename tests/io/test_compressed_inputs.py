"""Inputs compressed with bzip2, xz or zstd are read under the gzip limits; other compressions and
symbolic links that lead nowhere are one error row each, never a silent skip."""

from __future__ import annotations

import bz2
import functools
import io
import json
import lzma
import os
import random
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest
from helpers import article_html, write_warc

from trustaudit.io.compression import CorruptStream, codec_of, decompress_capped, open_decompressed
from trustaudit.io.readers import open_source, open_sources
from trustaudit.policy.inputs import InputsPolicy


def _zstd(data: bytes) -> bytes:
    return pa.compress(data, codec="zstd", asbytes=True)  # type: ignore[no-any-return]


CODECS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "bzip2": (".bz2", bz2.compress),
    # preset 0: any preset makes the same .xz container; the default (6) took 8 s of the suite to
    # compress the 3.7 MB of the truncation test below
    "xz": (".xz", functools.partial(lzma.compress, preset=0)),
    "zstd": (".zst", _zstd),
}
LINES = b"".join(
    json.dumps({"url": f"https://j{i}.example.com/", "html": article_html(f"J{i}")}).encode()
    + b"\n"
    for i in range(6)
)


def collect(sources):  # type: ignore[no-untyped-def]
    rows, errors = [], []
    for src in sources:
        for b in src.batches(64):
            rows += b.records.to_pylist()
            errors += b.errors
    return rows, errors


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_codec_streams_decompress_and_report_damage(codec: str) -> None:
    _, compress = CODECS[codec]
    blob = compress(LINES) + compress(b"tail\n")  # concatenated streams, as pbzip2 / xz -T write
    assert codec_of(blob) == codec
    assert open_decompressed(io.BytesIO(blob), codec).read() == LINES + b"tail\n"
    with pytest.raises(CorruptStream, match=codec):
        open_decompressed(io.BytesIO(blob[: len(blob) // 2]), codec).read()
    with pytest.raises(ValueError, match="exceeds 100 bytes"):
        decompress_capped(blob, codec, 100)


def test_damaged_gzip_body_is_a_corrupt_stream() -> None:
    """zlib.error (not an OSError) from a gzip body with flipped bytes is CorruptStream too."""
    import gzip

    blob = bytearray(gzip.compress(LINES))
    for i in range(20, 60):
        blob[i] ^= 0xFF
    with pytest.raises(CorruptStream, match="gzip"):
        open_decompressed(io.BytesIO(bytes(blob)), "gzip").read()


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_compressed_jsonl_html_and_warc_are_read(tmp_path: Path, codec: str) -> None:
    suffix, compress = CODECS[codec]
    (tmp_path / f"a.jsonl{suffix}").write_bytes(compress(LINES))
    (tmp_path / f"p.html{suffix}").write_bytes(compress(article_html("Page").encode()))
    warc = write_warc(tmp_path / "w.warc", [("https://w.example.com/", article_html("W"))])
    (tmp_path / f"w.warc{suffix}").write_bytes(compress(warc.read_bytes()))
    warc.unlink()
    rows, errors = collect(open_sources(tmp_path))
    assert errors == []
    urls = {r["url"] for r in rows}
    assert {f"https://j{i}.example.com/" for i in range(6)} <= urls
    assert "https://w.example.com/" in urls and len(rows) == 8


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_truncated_stream_keeps_the_records_before_it(tmp_path: Path, codec: str) -> None:
    suffix, compress = CODECS[codec]
    rng = random.Random(7)  # varied text: bzip2 works in 900 kB blocks, a cut must leave whole ones
    big = b"".join(
        json.dumps(
            {"url": f"https://r{i}.example.com/", "html": f"<p>{rng.randbytes(900).hex()}</p>"}
        ).encode()
        + b"\n"
        for i in range(2000)
    )
    blob = compress(big)
    p = tmp_path / f"a.jsonl{suffix}"
    p.write_bytes(blob[: len(blob) * 2 // 3])
    rows, errors = collect([open_source(p)])
    assert 0 < len(rows) < 2000
    assert [e.code for e in errors] == ["COMPRESSED_CORRUPT"]


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_decompression_limits_apply_as_for_gzip(tmp_path: Path, codec: str) -> None:
    suffix, compress = CODECS[codec]
    line = json.dumps({"url": "https://g.example.com/", "html": "<p>x</p>"}).encode() + b"\n"
    p = tmp_path / f"bomb.jsonl{suffix}"
    p.write_bytes(compress(line * 50 + b'{"html": "' + b"A" * 3_000_000 + b'"}\n'))
    limits = InputsPolicy(max_line_bytes=100_000, max_decompressed_bytes=len(line) * 10)
    rows, errors = collect([open_source(p, limits=limits)])
    assert len(rows) == 10 and errors[-1].code == "DECOMPRESSED_TOO_LARGE"
    rows, errors = collect([open_source(p, limits=InputsPolicy(max_line_bytes=100_000))])
    assert len(rows) == 50 and [e.code for e in errors] == ["LINE_TOO_LARGE"]
    w = write_warc(
        tmp_path / "w.warc", [(f"https://w{i}.example.com/", "<p>x</p>" * 5000) for i in range(9)]
    )
    (tmp_path / f"w.warc{suffix}").write_bytes(compress(w.read_bytes()))
    cap = InputsPolicy(max_decompressed_bytes=w.stat().st_size // 2)
    rows, errors = collect([open_source(tmp_path / f"w.warc{suffix}", limits=cap)])
    assert 0 < len(rows) < 9 and errors[-1].code == "DECOMPRESSED_TOO_LARGE"


def test_unsupported_compression_is_an_error_row(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl.lz4").write_bytes(b"\x04\x22\x4d\x18" + b"\x00" * 20)
    (tmp_path / "pages.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 20)
    (tmp_path / "b.html.br").write_bytes(b"\x8b\x02\x80hello")
    (tmp_path / "notes.txt").write_text("not an input", encoding="utf-8")
    rows, errors = collect(open_sources(tmp_path))
    assert rows == []
    assert sorted((e.code, e.message.split(":")[0]) for e in errors) == [
        ("UNSUPPORTED_COMPRESSION", "a.jsonl.lz4"),
        ("UNSUPPORTED_COMPRESSION", "b.html.br"),
        ("UNSUPPORTED_COMPRESSION", "pages.zip"),
    ]
    assert "gzip, bzip2, xz and zstd" in errors[0].message
    # named as an input of its own: sniffed, still one row with the reason
    (tmp_path / "data.bin").write_bytes(b"\x04\x22\x4d\x18" + b"\x00" * 20)
    _, errors = collect([open_source(tmp_path / "data.bin")])
    assert [(e.code, "lz4" in e.message) for e in errors] == [("UNSUPPORTED_COMPRESSION", True)]


def test_symbolic_links_that_lead_nowhere_are_error_rows(tmp_path: Path) -> None:
    root = tmp_path / "in"
    (root / "sub").mkdir(parents=True)
    (root / "a.html").write_text(article_html("A", url=None), encoding="utf-8")
    (root / "sub" / "b.html").write_text(article_html("B", url=None), encoding="utf-8")
    os.symlink("self", root / "self")  # a link to itself
    os.symlink("..", root / "sub" / "up")  # a folder loop
    os.symlink("sub", root / "again")  # a second path to a folder already read
    os.symlink("missing.html", root / "gone.html")
    os.symlink("missing", root / "gone-readme")  # not an input name: no row
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "c.html").write_text(article_html("C", url=None), encoding="utf-8")
    os.symlink(outside, root / "linked")  # a linked folder is read, once
    rows, errors = collect(open_sources(root))
    assert sorted(r["source_file"] for r in rows) == ["a.html", "linked/c.html", "sub/b.html"]
    assert sorted((e.code, e.message.split(" ")[0]) for e in errors) == [
        ("BROKEN_SYMLINK", "gone.html"),
        ("SYMLINK_LOOP", "again"),
        ("SYMLINK_LOOP", "self"),
        ("SYMLINK_LOOP", "sub/up"),
    ]


@pytest.mark.parametrize("codec", ["bzip2", "xz"])
def test_a_truncated_jsonl_keeps_every_whole_line_it_holds(tmp_path: Path, codec: str) -> None:
    """`BZ2File` and `LZMAFile` fill a buffer before giving a byte, and the cut raised there: a
    `.jsonl.xz` of 400 lines cut in half read 104 of the 199 whole lines it holds. Read by our
    raw stream (a read gives what the codec has given), every whole line is a record."""
    suffix, compress = CODECS[codec]
    rng = random.Random(1)
    lines = b"".join(
        json.dumps(
            {"url": f"https://j{i}.example/", "html": f"<p>{rng.randbytes(5000).hex()}</p>"}
        ).encode()
        + b"\n"
        for i in range(400)
    )
    blob = compress(lines)
    cut = blob[: len(blob) // 2]
    d = lzma.LZMADecompressor() if codec == "xz" else bz2.BZ2Decompressor()
    held = b"".join(d.decompress(cut[i : i + 1024]) for i in range(0, len(cut), 1024))
    assert not d.eof  # the stream is cut: all it holds is what the codec gave
    p = tmp_path / f"a.jsonl{suffix}"
    p.write_bytes(cut)
    rows, errors = collect([open_source(p)])
    assert len(rows) == held.count(b"\n") > 150
    assert [e.code for e in errors] == ["COMPRESSED_CORRUPT"]
