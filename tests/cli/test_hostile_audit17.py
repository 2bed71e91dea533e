"""Session-17 red team through the CLI: WARC payloads stored with their Content-Encoding, and
JSONL files whose records bring a new field each."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from helpers import article_html
from helpers import audit_cli as audit
from helpers import balanced_run as balanced

brotli = pytest.importorskip("brotli")


def warc_response(uri: str, body: bytes, encoding: bytes) -> bytes:
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: " + encoding + b"\r\n\r\n"
    ) + body
    return (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + uri.encode() + b"\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: " + str(len(http)).encode() + b"\r\n\r\n" + http + b"\r\n\r\n"
    )


def test_warc_br_pages_are_read_and_a_br_bomb_is_too_large(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Before: every `Content-Encoding: br` record was WARC_RECORD_CORRUPT ("AttributeError: …
    'unused_data'"), and a gzip body damaged midway was a page cut short, zlib's error on stderr."""
    page = article_html("Brotli page").encode()
    c = brotli.Compressor(quality=4, lgwin=24)
    block = b"<p>aaaa</p>" * 100_000
    bomb = b"".join(c.process(block) for _ in range(60)) + c.finish()  # 66 MB in < 1 KB
    damaged = bytearray(gzip.compress(article_html(" ".join(map(str, range(50_000)))).encode()))
    damaged[len(damaged) // 2 : len(damaged) // 2 + 32] = bytes(32)
    warc = tmp_path / "enc.warc"
    warc.write_bytes(
        warc_response("https://b.example/page", brotli.compress(page), b"br")
        + warc_response("https://b.example/bomb", bomb, b"br")
        + warc_response("https://b.example/damaged", bytes(damaged), b"gzip")
        + warc_response("https://b.example/gz", gzip.compress(page), b"x-gzip")
    )
    run = tmp_path / "run"
    res = audit(runner, app, str(warc), "--out", str(run))
    assert res.exit_code == 0, res.output
    assert "Error -3" not in res.output
    pages, errors = balanced(run)
    assert sorted(pages["url"]) == ["https://b.example/gz", "https://b.example/page"]
    assert pages["title"].to_list() == ["Brotli page", "Brotli page"]
    got = dict(zip(errors["url"], errors["code"], strict=True))
    assert got == {
        "https://b.example/bomb": "TOO_LARGE",
        "https://b.example/damaged": "WARC_RECORD_CORRUPT",
    }


def test_jsonl_records_each_with_new_fields_stay_bounded(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Before: 2,000 records of 50 new names each (2.4 MB) took 100 s and 3.6 GB, then aborted."""
    src = tmp_path / "many.jsonl"
    with src.open("w", encoding="utf-8") as fh:
        for i in range(400):
            rec = {"url": f"https://k{i}.example/", "html": article_html(f"Page {i}")}
            rec.update({f"k{i}_{j}": j for j in range(50)})
            fh.write(json.dumps(rec) + "\n")
    run = tmp_path / "run"
    res = audit(runner, app, str(src), "--out", str(run))
    assert res.exit_code == 0, res.output
    pages, errors = balanced(run)
    assert pages.height == 5  # 5 x 50 names fit under inputs.max_extra_fields (256)
    assert pages.width < 300
    assert errors["code"].unique().to_list() == ["TOO_MANY_FIELDS"]
    res = runner.invoke(app, ["gate", str(run)])
    assert "unscanned" in res.output and res.exit_code == 1
