"""Session-18 red team through the CLI: an unreadable --url-map, and what the session's own pass
found (docs/limits.md, "Red-team pass, session 18")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import article_html
from helpers import audit_cli as audit


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "file not found (or not a regular file)"),
        (b"", "has no header row"),
        (b"file,url\na.html,https://a.example/\n\xff\xfe,x\n", "line 3: not UTF-8 text"),
        (b"file,url\n" + b"a" * 200_000 + b",x\n", "after line 1: a cell over 131072 characters"),
        (b"foo,bar\n1,2\n", "cannot tell which column holds the file"),
    ],
)
def test_an_unreadable_url_map_stops_the_audit_with_one_clear_line(
    runner, app, tmp_path: Path, content: bytes | None, says: str
) -> None:  # type: ignore[no-untyped-def]
    """--url-map is the operator's file and decides every page's identity: it stops the audit
    before any work (exit 2) rather than give some pages file: URLs. Before: a map that was not
    UTF-8 said "'utf-8' codec can't decode byte 0xff in position 35", an empty one "cannot tell
    which column holds the file (has: )", a long cell "field larger than field limit (131072)"."""
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.html").write_text(article_html(url=None))
    m = tmp_path / "map.csv"
    if content is not None:
        m.write_bytes(content)
    res = audit(runner, app, str(pages), "--out", str(tmp_path / "run"), "--url-map", str(m))
    assert res.exit_code == 2
    first = res.output.splitlines()[0]
    assert first.startswith("trustaudit: error:") and str(m) in first and says in first, res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "run" / "manifest.json").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_or_a_folder_as_url_map_is_refused_without_reading(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.html").write_text(article_html(url=None))
    fifo = tmp_path / "map.csv"
    os.mkfifo(fifo)
    for m in (fifo, pages):
        res = audit(runner, app, str(pages), "--out", str(tmp_path / "run"), "--url-map", str(m))
        assert res.exit_code == 2 and "not a regular file" in res.output


def test_an_international_host_is_one_domain_whatever_its_spelling(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Before: `https://аpple.com/` (a Cyrillic `а`) had the registered domain `аpple.com`, so the
    blocklist entry `||xn--pple-43d.com^` (how lists write that host) did not reach it, a Unicode
    entry reached nothing, and its A-label twin was another domain and another doc_id. Now hosts
    are IDNA A-labels everywhere: the page is blocklisted, the twin a DUPLICATE_URL of it."""
    import json

    import polars as pl
    from helpers import balanced_run

    from trustaudit.hostname import ascii_host
    from trustaudit.io.lists import parse_list_line

    assert (
        ascii_host("АPPLE.com.") == "xn--pple-43d.com" and ascii_host("faß.de") == "xn--fa-hia.de"
    )
    assert ascii_host("example.com") == "example.com"
    assert (
        parse_list_line("||аpple.com^") == parse_list_line("xn--pple-43d.com") == "xn--pple-43d.com"
    )
    src = tmp_path / "in.jsonl"
    recs = [
        {"url": "https://аpple.com/login", "html": article_html("Sign in")},
        {"url": "https://xn--pple-43d.com/login", "html": article_html("Sign in again")},
        {"url": "https://good.example/a", "html": article_html("Good")},
        {"url": "https://good.example/b\u202egnp.exe", "html": article_html("Reversed")},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    block = tmp_path / "block.txt"
    block.write_text("||xn--pple-43d.com^\n", encoding="utf-8")
    run = tmp_path / "run"
    res = audit(runner, app, str(src), "--out", str(run), "--blocklist", str(block))
    assert res.exit_code == 0, res.output
    pages, errors = balanced_run(run)
    first = pages.filter(pl.col("url") == "https://аpple.com/login")
    assert first["registered_domain"].to_list() == ["xn--pple-43d.com"]
    # a bidi override in the path (it reordered the URL in report.html) is refused as in the host
    assert sorted(errors["code"].to_list()) == ["BAD_URL", "DUPLICATE_URL"]
    scores = pl.read_parquet(run / "scores.parquet")
    hit = scores.filter(pl.col("url") == "https://аpple.com/login")["reasons"].to_list()[0]
    assert "DOMAIN_BLOCKLISTED" in hit
