"""robots.txt against RFC 9309: 536 transcribed cases, bounded matching, BOMs, and a crawl end to end.

The cases (tests/crawl/data/robots_cases.json) come from Google's robots_test.cc, Protego's test
suite and RFC 9309's own examples; the file says where each came from and where RFC 9309 overrides
a suite's expectation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.crawl.crawl_faultserver import FaultServer
from trustaudit.crawl.robots import (
    RobotsCache,
    compile_pattern,
    decode_robots,
    normalize_path,
    parse_robots,
    path_of,
)

CASES_FILE = Path(__file__).parent / "data" / "robots_cases.json"
DOC: dict[str, Any] = json.loads(CASES_FILE.read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = DOC["cases"]


def _case_id(i: int, case: dict[str, Any]) -> str:
    return f"{i}-{case['source'].split(' ')[0]}"


def test_case_file_is_whole() -> None:
    """The file holds what its header counts, every source is present and every case is complete."""
    assert DOC["counts"]["cases"] == len(CASES) >= 500
    sources = " ".join(c["source"] for c in CASES)
    assert all(s in sources for s in ("google", "protego", "rfc9309"))
    for c in CASES:
        assert isinstance(c["allowed"], bool) and isinstance(c["body"], str), c
        assert "source_expected" not in c or c["note"], c  # every override says why


@pytest.mark.parametrize("case", CASES, ids=[_case_id(i, c) for i, c in enumerate(CASES)])
def test_rfc9309_case(case: dict[str, Any]) -> None:
    rules = parse_robots(case["body"], case["user_agent"])
    assert rules.allowed(case["url"]) is case["allowed"], case.get("note", case["source"])


class CountingStr(str):
    """A path that counts the string searches made on it: the matcher's steps."""

    calls = 0

    def startswith(self, *a: Any) -> bool:  # type: ignore[override]
        CountingStr.calls += 1
        return super().startswith(*a)

    def endswith(self, *a: Any) -> bool:  # type: ignore[override]
        CountingStr.calls += 1
        return super().endswith(*a)

    def find(self, *a: Any) -> int:  # type: ignore[override]
        CountingStr.calls += 1
        return super().find(*a)


@pytest.mark.parametrize("stars", [8, 10, 20, 200])
def test_many_stars_take_one_search_per_segment(stars: int) -> None:
    """A backtracking regex needed ~n^stars steps here; the matcher makes one search per segment."""
    pattern = compile_pattern("/" + "*a" * stars + "b")
    for path, hit in (("/" + "a" * 20_000, False), ("/" + "a" * 20_000 + "b", True)):
        CountingStr.calls = 0
        assert pattern.matches(CountingStr(path)) is hit
        assert CountingStr.calls <= stars + 2  # head check + one find per segment
    anchored = compile_pattern("/" + "*a" * stars + "b$")
    CountingStr.calls = 0
    assert not anchored.matches(CountingStr("/" + "a" * 20_000 + "bc"))
    assert CountingStr.calls <= stars + 2


def test_many_star_rule_through_the_parser() -> None:
    rules = parse_robots("User-agent: *\nDisallow: /" + "*a" * 20 + "b\n", "trustaudit")
    assert rules.allowed("https://x.example/" + "a" * 50_000)
    assert not rules.allowed("https://x.example/" + "a" * 50_000 + "b")


@pytest.mark.parametrize(
    ("prefix", "kept"),
    [
        (b"\xef\xbb\xbf", True),
        (b"\xef\xbb", True),
        (b"\xef", True),
        (b"", True),
        (b"\xef\x11\xbf", False),
    ],
)
def test_bom_whole_or_partial_is_skipped(prefix: bytes, kept: bool) -> None:
    """Google's ID_UTF8ByteOrderMarkIsSkipped: a BOM, even cut short, does not hide the first line."""
    text = decode_robots(prefix + b"User-agent: *\nDisallow: /private\n")
    assert parse_robots(text, "trustaudit").allowed("/private") is not kept


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("/%7ejoe/%62", "/~joe/b"),  # unreserved escapes decoded
        ("/a%2fb%3A", "/a%2Fb%3A"),  # reserved escapes kept, hex upper-cased
        ("/caf\u00e9 x", "/caf%C3%A9%20x"),  # non-ASCII and space encoded
        ("/a*b$", "/a%2Ab%24"),  # literal operators take their escaped spelling
        ("/50%", "/50%25"),  # a lone % is a literal percent sign
        ("/a\ud800", "/a%ED%A0%80"),  # a lone surrogate is encoded, never an exception
        ("/q?x=http://h/?y", "/q?x=http://h/?y"),  # reserved delimiters stay
    ],
)
def test_normalize_path(raw: str, normal: str) -> None:
    assert normalize_path(raw) == normal


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("", "/"),
        ("http://www.example.com", "/"),
        ("http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"),
        ("http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
        ("example.com?a", "/?a"),
        ("example.com/a;b#c", "/a;b"),
        ("//a/b/c", "/b/c"),
        ("http://[::1:80/x", "/x"),  # not a valid URL: still a path, never an exception
    ],
)
def test_path_of_follows_google_get_path_params_query(url: str, path: str) -> None:
    assert path_of(url) == path


class _OneBody:
    """A Fetcher stand-in that serves one robots.txt body."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    def fetch(self, url: str, **_: Any) -> Any:
        from datetime import UTC, datetime

        from trustaudit.crawl.fetch import FetchResult

        return FetchResult(url, url, datetime.now(UTC), status=200, body=self.body)


def test_cache_decodes_a_bom_file_without_failing_open() -> None:
    cache = RobotsCache(
        _OneBody(b"\xef\xbb\xbfUser-agent: *\nDisallow: /private\n"), "trustaudit/1"
    )  # type: ignore[arg-type]
    entry = cache.entry("https://x.example")
    assert entry.status == "fetched"
    assert not entry.rules.allowed("https://x.example/private/a")
    assert entry.rules.allowed("https://x.example/public")


@pytest.mark.network
def test_cli_crawl_obeys_bom_escapes_and_many_stars(
    server: FaultServer,
    tmp_path: Path,
    runner,
    app,  # type: ignore[no-untyped-def]
) -> None:
    """End to end: a BOM file, a rule written with an escape and a 10-star rule, through `crawl`."""
    server.robots = (
        200,
        "\ufeffUser-agent: *\nDisallow: /private/\nDisallow: /p%61ge/secret\n"
        "Disallow: /page/" + "*a" * 10 + "b\n",
    )
    paths = {
        "/page/1": None,
        "/private/x": "ROBOTS_DISALLOWED",  # first group behind the BOM
        "/page/secret": "ROBOTS_DISALLOWED",  # %61 is `a`: the rule covers it
        "/page/" + "a" * 30: None,  # the 10-star rule does not match (a regex took 0.4 s here)
        "/page/" + "a" * 12 + "b": "ROBOTS_DISALLOWED",
    }
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(server.base + p + "\n" for p in paths), encoding="utf-8")
    out = tmp_path / "run"
    args = ["crawl", str(urls), "--out", str(out), "--allow-private", "--delay", "0",
            "--timeout", "5", "-w", "1", "-q"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    errors = pl.read_parquet(out / "errors.parquet")
    got = dict(zip(errors["url"].to_list(), errors["code"].to_list(), strict=True))
    assert got == {server.base + p: c for p, c in paths.items() if c}
    assert server.hits["/private/x"] == 0 and server.hits["/page/secret"] == 0
    assert pl.read_parquet(out / "pages.parquet").height == 2
