"""`trustaudit audit` over a folder of bzip2 / xz / zstd inputs, an lz4 file and symbolic links
that lead nowhere: every input ends as pages or as one error row with its reason."""

from __future__ import annotations

import bz2
import json
import lzma
import os
from pathlib import Path

import polars as pl
import pyarrow as pa
from helpers import article_html, write_warc


def test_every_input_is_a_page_or_an_error_row(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "in"
    folder.mkdir()
    lines = b"".join(
        json.dumps({"url": f"https://{name}.example.com/", "html": article_html(name)}).encode()
        + b"\n"
        for name in ("alpha", "beta")
    )
    (folder / "a.jsonl.bz2").write_bytes(bz2.compress(lines))
    (folder / "b.jsonl.xz").write_bytes(lzma.compress(lines.replace(b".example", b".example2")))
    (folder / "c.jsonl.zst").write_bytes(
        pa.compress(lines.replace(b".example", b".example3"), codec="zstd", asbytes=True)
    )
    warc = write_warc(tmp_path / "w.warc", [("https://warc.example.com/", article_html("W"))])
    (folder / "w.warc.bz2").write_bytes(bz2.compress(warc.read_bytes()))
    (folder / "d.jsonl.lz4").write_bytes(b"\x04\x22\x4d\x18" + b"\x00" * 16)
    os.symlink("loop", folder / "loop")
    os.symlink(".", folder / "here")
    out = tmp_path / "run"
    res = runner.invoke(
        app, ["audit", str(folder), "--out", str(out), "-w", "1", "--now", "2026-11-01", "-q"]
    )
    assert res.exit_code == 0, res.output
    pages = pl.read_parquet(out / "pages.parquet")
    assert pages.height == 7
    assert {"https://warc.example.com/", "https://beta.example3.com/"} <= set(pages["url"])
    errors = pl.read_parquet(out / "errors.parquet")
    assert sorted(errors["code"]) == ["SYMLINK_LOOP", "SYMLINK_LOOP", "UNSUPPORTED_COMPRESSION"]
    for msg in errors["message"]:
        assert "\n" not in msg and len(msg) < 200 and "not" in msg
    acc = json.loads((out / "manifest.json").read_text())["stages"]["ingest"]["accounting"]
    assert acc == {"inputs": 10, "pages": 7, "errors": 3, "balanced": True}


def test_a_symbolic_link_loop_as_the_input_is_exit_2(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    os.symlink("loop", tmp_path / "loop")
    res = runner.invoke(app, ["audit", str(tmp_path / "loop"), "--out", str(tmp_path / "run")])
    assert res.exit_code == 2
    assert "symbolic link loop" in " ".join(res.output.split())
