"""Session-15 red team through the CLI: a hostile WARC's header never reaches the terminal, damaged
WARC headers and impossible statuses cost only their own record with a clear reason, and JSONL
records with unusable URLs are error rows instead of pages under a made-up or colliding identity."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
from helpers import article_html

NOW = ["--now", "2026-11-01"]
ROOT = Path(__file__).resolve().parents[2]


def audit(runner, app, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["audit", *args, "--workers", "1", "-q", *NOW])


def warc_page(uri: str, *, status: bytes = b"200 OK") -> bytes:
    http = b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html\r\n\r\n" + article_html().encode()
    return (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + uri.encode() + b"\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: " + str(len(http)).encode() + b"\r\n\r\n" + http + b"\r\n\r\n"
    )


def balanced(run: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    acc = json.loads((run / "manifest.json").read_text())["stages"]["ingest"]["accounting"]
    assert acc["balanced"], acc
    return pl.read_parquet(run / "pages.parquet"), pl.read_parquet(run / "errors.parquet")


def test_hostile_warc_uri_never_reaches_the_terminal(tmp_path: Path) -> None:
    """A real process: warcio logged a WARC-Target-URI holding a space whole, escape sequences
    included, through logging's last-resort handler onto stderr (CliRunner does not see that)."""
    warc = tmp_path / "in.warc"
    warc.write_bytes(
        warc_page("https://w.example/a \x1b]0;PWNED\x07\x1b[2J\x1b[31mred")
        + warc_page("https://w.example/ok")
    )
    res = subprocess.run(
        [sys.executable, "-m", "trustaudit", "audit", str(warc), "--out", str(tmp_path / "run"),
         "--quiet", "--workers", "1", *NOW],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
        check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "\x1b" not in res.stderr + res.stdout and "PWNED" not in res.stderr + res.stdout
    pages, errors = balanced(tmp_path / "run")
    assert pages["url"].to_list() == ["https://w.example/ok"]
    assert errors["code"].to_list() == ["BAD_URL"]
    assert "space or control character" in errors["message"][0]


def test_damaged_warc_costs_only_its_own_records(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    first = warc_page("https://w.example/1", status=b"99999999999999999999999 OK")
    second = warc_page("https://w.example/2")
    warc = tmp_path / "cut.warc"
    warc.write_bytes(first + second + warc_page("https://w.example/3")[:40])
    res = audit(runner, app, str(warc), "--out", str(tmp_path / "run"))
    assert res.exit_code == 0, res.output
    pages, errors = balanced(tmp_path / "run")
    assert pages["url"].to_list() == ["https://w.example/1", "https://w.example/2"]
    assert errors.select("code", "offset").rows() == [("WARC_CORRUPT", len(first) + len(second))]
    assert "cut short" in errors["message"][0] and "NoneType" not in errors["message"][0]


def test_jsonl_unusable_urls_are_error_rows(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    html = article_html(url=None)
    lines = [
        {"url": "https://x.example:99999/", "html": html},
        {"url": "https://x.example:-1/", "html": html},  # used to be a DUPLICATE_URL of the above
        {"url": 42, "html": html},  # used to be a page with no URL at all
        {"url": "https://x.example/\u202e\x1b[31m", "html": html},
        {"url": "https://ok.example/", "html": html, "status": 10**30},  # used to be RECORD_INVALID
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines) + "\n\n")
    (tmp_path / "blank.jsonl").write_text("\n \n")
    res = audit(
        runner, app, str(src), str(tmp_path / "blank.jsonl"), "--out", str(tmp_path / "run")
    )
    assert res.exit_code == 0, res.output
    pages, errors = balanced(tmp_path / "run")
    assert pages["url"].to_list() == ["https://ok.example/"]
    assert sorted(errors["code"].to_list()) == ["BAD_URL"] * 4 + ["EMPTY_FILE"]
    assert "DUPLICATE_URL" not in errors["code"].to_list()


def test_powershell_utf16_jsonl_is_audited(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = [
        json.dumps({"url": f"https://u{i}.example/", "html": article_html(url=None)})
        for i in range(2)
    ]
    src = tmp_path / "ps.jsonl"
    src.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-16"))  # BOM + UTF-16LE, CRLF
    res = audit(runner, app, str(src), "--out", str(tmp_path / "run"))
    assert res.exit_code == 0, res.output
    pages, errors = balanced(tmp_path / "run")
    assert sorted(pages["url"].to_list()) == ["https://u0.example/", "https://u1.example/"]
    assert errors.height == 0


def test_gzipped_whole_and_damaged_member_warcs_lose_no_good_record(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import gzip

    whole = tmp_path / "whole.warc.gz"  # `gzip crawl.warc`: one member, every record in it
    whole.write_bytes(
        gzip.compress(b"".join(warc_page(f"https://a.example/{i}") for i in range(3)))
    )
    members = [gzip.compress(warc_page(f"https://b.example/{i}")) for i in range(3)]
    mid = tmp_path / "mid.warc.gz"  # junk where the second member should be
    mid.write_bytes(members[0] + b"\x1f\x8b\x08junk" * 5 + members[2])
    res = audit(runner, app, str(whole), str(mid), "--out", str(tmp_path / "run"))
    assert res.exit_code == 0, res.output
    pages, errors = balanced(tmp_path / "run")
    assert sorted(pages["url"].to_list()) == [
        *(f"https://a.example/{i}" for i in range(3)),
        "https://b.example/0",
        "https://b.example/2",
    ]
    assert errors.select("code", "offset").rows() == [("WARC_CORRUPT", len(members[0]))]


def _gzip_warc_layouts(tmp_path: Path) -> tuple[list[Path], int]:
    """Gzip WARCs whose members hold two or more records (legal, if unusual) and one cut inside
    its last member; and the byte where that cut member starts."""
    import gzip

    pg = [warc_page(f"https://g.example/{i}") for i in range(6)]
    pairs = tmp_path / "pairs.warc.gz"  # warcio's offset went below 0: an endless loop
    pairs.write_bytes(
        gzip.compress(pg[0]) + b"".join(gzip.compress(pg[i] + pg[i + 1]) for i in (1, 3))
        + gzip.compress(pg[5])
    )  # fmt: skip
    ph = [warc_page(f"https://h.example/{i}") for i in range(6)]
    whole = tmp_path / "info_then_whole.warc.gz"  # a seek to a negative byte: SOURCE_FAILED
    whole.write_bytes(gzip.compress(ph[0]) + gzip.compress(b"".join(ph[1:])))
    members = [gzip.compress(warc_page(f"https://t.example/{i}")) for i in range(3)]
    cut = tmp_path / "cut.warc.gz"  # the last record vanished without a row
    cut.write_bytes(members[0] + members[1] + members[2][:60])
    return [pairs, whole, cut], len(members[0]) + len(members[1])


def test_gzip_members_of_several_records_and_a_cut_last_member_through_audit(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    paths, cut_at = _gzip_warc_layouts(tmp_path)
    res = audit(runner, app, *map(str, paths), "--out", str(tmp_path / "run"))
    assert res.exit_code == 0, res.output
    pages, errors = balanced(tmp_path / "run")
    assert sorted(pages["url"].to_list()) == sorted(
        [f"https://{h}.example/{i}" for h in "gh" for i in range(6)]
        + ["https://t.example/0", "https://t.example/1"]
    )
    assert errors.select("code", "offset").rows() == [("WARC_TRUNCATED", cut_at)]
    assert str(paths[2]) in errors["source"][0] or errors["source"][0].endswith("cut.warc.gz")
