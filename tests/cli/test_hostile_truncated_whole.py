"""WARCs compressed whole and cut short, through the CLI (docs/limits.md, "After this pass: WARCs
compressed whole and cut short"): each one's whole records are pages and its cut one error row,
beside a good page, the run balanced."""

from __future__ import annotations

import lzma
import random
from pathlib import Path

from helpers import article_html, balanced_run, compressed_whole
from helpers import audit_cli as audit


def _record(url: str, filler: str) -> bytes:
    body = article_html(url=url, body_extra=f"<p>{filler}</p>").encode()
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n"
        b"Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
        % (url.encode(), len(http))
    )
    return head + http + b"\r\n\r\n"


def test_warcs_compressed_whole_and_cut_in_half_keep_their_whole_records(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """300 KB of records compressed whole with xz, bzip2 and zstd, each file cut in half, beside
    a good page. Before: three NO_PAGE_RECORDS rows "no WARC/ARC records found", no page of
    theirs. Now the records whole before each cut are pages (for xz: exactly those in what
    `lzma` decompresses from the half file), and each file has one COMPRESSED_CORRUPT row."""
    rng = random.Random(5)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.html").write_text(article_html(url="https://good.example.org/a"))
    urls, halves = {}, {}
    for codec, suffix in (("bzip2", "bz2"), ("xz", "xz"), ("zstd", "zst")):
        urls[suffix] = [f"https://{suffix}{i}.example.org/a" for i in range(12)]
        records = [_record(u, rng.randbytes(10_000).hex()) for u in urls[suffix]]
        blob = compressed_whole(b"".join(records), codec)
        halves[suffix] = blob[: len(blob) // 2]
        (folder / f"half.warc.{suffix}").write_bytes(halves[suffix])
        if codec == "xz":
            held = lzma.LZMADecompressor().decompress(halves[suffix])  # what the half holds
            ends = [sum(map(len, records[: i + 1])) - 4 for i in range(len(records))]
            whole_xz = [u for u, end in zip(urls[suffix], ends, strict=True) if end <= len(held)]
    run = tmp_path / "run"
    res = audit(runner, app, str(folder), "--out", str(run))
    assert res.exit_code == 0, res.output
    got, errors = balanced_run(run)
    by_source = {
        suffix: [r["url"] for r in got.to_dicts() if r["source"].endswith(f".warc.{suffix}")]
        for suffix in halves
    }
    assert by_source["xz"] == whole_xz and len(whole_xz) >= 3
    for suffix, read in by_source.items():
        assert read and read == urls[suffix][: len(read)] and len(read) < 12, suffix
    assert "https://good.example.org/a" in got["url"].to_list()
    rows = sorted(zip(errors["source"], errors["code"], errors["message"], strict=True))
    assert [(Path(s).name, c) for s, c, _ in rows] == [
        ("half.warc.bz2", "COMPRESSED_CORRUPT"),
        ("half.warc.xz", "COMPRESSED_CORRUPT"),
        ("half.warc.zst", "COMPRESSED_CORRUPT"),
    ]
    for (_, _, msg), codec in zip(rows, ("bzip2", "xz", "zstd"), strict=True):
        assert msg.startswith(f"{codec} stream cut short: the file ends before its end-of-stream")
    assert f"{len(held)} bytes into what it decompresses to" in rows[1][2]
