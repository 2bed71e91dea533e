"""The crawler against a fault-injecting server on 127.0.0.1: outcomes asserted row by row."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.crawl.conftest import FakeClock, make_policy, only
from tests.crawl.crawl_faultserver import FaultServer, gzip_bomb
from trustaudit.crawl import CrawlSource, crawl_urls
from trustaudit.crawl.fetch import FetchConfig, Fetcher
from trustaudit.crawl.journal import read_committed
from trustaudit.crawl.ssrf import Guard

pytestmark = pytest.mark.network

# path -> (expected error code or None for a page, expected charset rule for pages)
CATALOGUE: list[tuple[str, str | None]] = [
    ("/page/1", None),
    ("/latin1", None),
    ("/binary", "NOT_HTML"),
    ("/binary-as-html", "BINARY_CONTENT"),
    ("/empty", "EMPTY_BODY"),
    ("/status/404", "HTTP_404"),
    ("/status/500", "HTTP_500"),
    ("/flaky/a", None),  # 503 twice, then 200
    ("/ratelimit/b?wait=7", None),  # 429 + Retry-After: 7, then 200
    ("/ratelimit/c?wait=9999", "HTTP_429"),  # Retry-After beyond the cap: give up
    ("/drip", "FETCH_TIMEOUT"),
    ("/reset", "CONNECT_ERROR"),
    ("/huge", "TOO_LARGE"),
    ("/huge?nolength=1", "TOO_LARGE"),
    ("/bomb", "TOO_LARGE"),
    ("/loop/a", "TOO_MANY_REDIRECTS"),
    ("/chain/9", "TOO_MANY_REDIRECTS"),
    ("/chain/3", None),
    ("/private/x", "ROBOTS_DISALLOWED"),
    ("/redirect?to=/private/y", "ROBOTS_DISALLOWED"),  # robots re-checked on redirect hops
    ("/redirect?to=http://169.254.169.254/latest/meta-data/", "SSRF_BLOCKED"),
    ("/redirect?to=file:///etc/passwd", "BAD_REDIRECT"),
]


def _rows(run: Path) -> dict[int, dict]:
    out: dict[int, dict] = {}
    for t in read_committed(run / "crawl"):
        for r in t.to_pylist():
            assert r["offset"] not in out, "a URL line was committed twice"
            out[r["offset"]] = r
    return out


def test_fault_catalogue_row_by_row(server: FaultServer, tmp_path: Path) -> None:
    server.robots = (200, "User-agent: *\nDisallow: /private/\n")
    gzip_bomb()  # build it before the clock starts: on a loaded machine it takes seconds
    lines = [server.base + p for p, _ in CATALOGUE]
    lines += ["javascript:alert(1)", server.base + "/page/1", "http://localhost:1/"]
    urls = tmp_path / "urls.txt"
    urls.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clock = FakeClock()
    policy = make_policy(timeout_s=3.0, host_failure_budget=0)
    stats = crawl_urls(
        [str(urls)],
        tmp_path / "run",
        policy,
        clock=clock.now,
        sleeper=clock.sleep,
        allow=only(server),
    )
    # every wait (backoff, Retry-After) went through the injected sleeper, none past the caps: the
    # Retry-After of 9999 s was refused, not slept (checked by what was slept, not by the clock)
    assert clock.sleeps and max(clock.sleeps) <= max(
        policy.crawl.backoff_cap_s, policy.crawl.max_retry_after_s
    )
    rows = _rows(tmp_path / "run")
    assert sorted(rows) == list(range(1, len(lines) + 1))  # every line: exactly one row
    for i, (path, code) in enumerate(CATALOGUE, start=1):
        r = rows[i]
        assert r["error_code"] == code, (path, r["error_code"], r["error_message"])
        if code is None:
            assert r["body"] and r["status"] == 200
        else:
            assert r["body"] is None and r["error_message"]
            assert "Traceback" not in r["error_message"]
    n = len(CATALOGUE)
    assert rows[n + 1]["error_code"] == "BAD_URL"
    assert rows[n + 2]["error_code"] == "DUPLICATE_URL"
    assert rows[n + 3]["error_code"] == "SSRF_BLOCKED"  # localhost refused by name
    latin = rows[2]
    assert (latin["charset"], latin["charset_source"]) == ("cp1252", "detected")
    assert "página" in latin["body"].decode(latin["charset"])
    # retries: 503 twice then 200 = 3 hits; 429 then 200 = 2 hits; 500 = 1 + 3 retries
    assert server.hits["/flaky/a"] == 3
    assert server.hits["/ratelimit/b?wait=7"] == 2
    assert server.hits["/status/500"] == 4
    assert server.hits["/reset"] == 4
    assert 7.0 in clock.sleeps  # Retry-After honoured through the injected sleeper
    assert server.hits["/private/x"] == 0 and server.hits["/private/y"] == 0
    assert server.hits["/page/1"] == 1  # the duplicate line was not refetched
    assert stats.by_code["TOO_LARGE"] == 3
    assert stats.totals["pages"] == sum(1 for _, c in CATALOGUE if c is None)
    # the record source view: pages as records, the rest as error rows
    batches = list(CrawlSource(tmp_path / "run").batches(100))
    n_records = sum(b.records.num_rows for b in batches)
    n_errors = sum(len(b.errors) for b in batches)
    assert n_records + n_errors == len(lines)
    rec = next(b.records for b in batches if b.records.num_rows)
    assert {"crawl_final_url", "crawl_charset_source", "http_charset", "body"} <= set(
        rec.column_names
    )
    summary = (tmp_path / "run" / "crawl" / "summary.json").read_text()
    assert '"TOO_LARGE": 3' in summary


def test_redirect_to_unlisted_loopback_port_is_blocked(
    server: FaultServer, other_server: FaultServer, tmp_path: Path
) -> None:
    """Only the test server's exact address is exempt; a redirect to another loopback port is not."""
    urls = tmp_path / "u.txt"
    urls.write_text(
        f"{server.base}/redirect?to={other_server.base}/page/1\n"
        f"{server.base}/redirect?to=http://localhost:{other_server.port}/page/2\n"
        f"{server.base}/redirect?to=http://[::ffff:127.0.0.1]:{other_server.port}/page/3\n"
        f"{server.base}/redirect?to=http://2130706433:{other_server.port}/page/4\n",
        encoding="utf-8",
    )
    crawl_urls([str(urls)], tmp_path / "run", make_policy(), allow=only(server))
    rows = _rows(tmp_path / "run")
    assert [rows[i]["error_code"] for i in (1, 2, 3, 4)] == ["SSRF_BLOCKED"] * 4
    assert sum(other_server.hits.values()) == 0  # never connected


def test_connects_to_validated_address_with_the_name_in_host(
    server: FaultServer, tmp_path: Path
) -> None:
    """A resolver maps a public-looking name to the server; no second resolution, Host keeps the name."""
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["127.0.0.1"]

    fetcher = Fetcher(
        FetchConfig(user_agent="t/1 (+test)"), Guard(resolver=resolver, allow=only(server))
    )
    res = fetcher.fetch(f"http://www.example.test:{server.port}/page/7")
    assert res.ok, res.error_message
    assert calls == ["www.example.test"]
    assert server.host_headers[-1] == f"www.example.test:{server.port}"
    assert server.user_agents[-1] == "t/1 (+test)"
    # without the exemption the same name is refused before any connection is made
    hits = sum(server.hits.values())
    strict = Fetcher(FetchConfig(user_agent="t"), Guard(resolver=resolver))
    assert (
        strict.fetch(f"http://www.example.test:{server.port}/page/8").error_code == "SSRF_BLOCKED"
    )
    assert sum(server.hits.values()) == hits


def test_robots_unreachable_disallows_and_4xx_allows(server: FaultServer, tmp_path: Path) -> None:
    urls = tmp_path / "u.txt"
    urls.write_text(f"{server.base}/page/1\n{server.base}/page/2\n", encoding="utf-8")
    server.robots = (503, "down")
    crawl_urls([str(urls)], tmp_path / "r1", make_policy(), allow=only(server))
    rows = _rows(tmp_path / "r1")
    assert [r["error_code"] for r in rows.values()] == ["ROBOTS_UNAVAILABLE"] * 2
    assert server.hits["/robots.txt"] == 1  # cached: one fetch for the origin
    assert server.hits["/page/1"] == 0
    server.robots = (403, "forbidden")
    crawl_urls([str(urls)], tmp_path / "r2", make_policy(), allow=only(server))
    assert [r["error_code"] for r in _rows(tmp_path / "r2").values()] == [None, None]
    server.robots = (503, "down")
    crawl_urls([str(urls)], tmp_path / "r3", make_policy(ignore_robots=True), allow=only(server))
    assert [r["error_code"] for r in _rows(tmp_path / "r3").values()] == [None, None]


def test_failure_budget_fails_a_dead_host_fast(tmp_path: Path) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens: connection refused
    urls = tmp_path / "u.txt"
    urls.write_text("".join(f"http://127.0.0.1:{port}/p{i}\n" for i in range(10)), encoding="utf-8")
    clock = FakeClock()
    stats = crawl_urls(
        [str(urls)],
        tmp_path / "run",
        make_policy(host_failure_budget=3, ignore_robots=True, allow_private=True),
        clock=clock.now,
        sleeper=clock.sleep,
    )
    codes = [r["error_code"] for r in _rows(tmp_path / "run").values()]
    assert codes.count("CONNECT_ERROR") == 1  # 1 URL x 3 attempts spends the budget
    assert codes.count("HOST_FAILED") == 9
    assert stats.requests == 3


def test_per_host_delay_is_respected(server: FaultServer, tmp_path: Path) -> None:
    urls = tmp_path / "u.txt"
    urls.write_text("".join(f"{server.base}/page/{i}\n" for i in range(4)), encoding="utf-8")
    clock = FakeClock()
    crawl_urls(
        [str(urls)],
        tmp_path / "run",
        make_policy(delay_s=5.0, concurrency=4),
        clock=clock.now,
        sleeper=clock.sleep,
        allow=only(server),
    )
    assert server.max_active == 1
    assert sum(clock.sleeps) >= 3 * 5.0 - 1e-6  # three gaps of the per-host delay


def test_unknown_content_encoding_is_a_decode_error_not_a_page(
    server: FaultServer, tmp_path: Path
) -> None:
    """Before: a body in an encoding urllib3 does not decode (`zstd` without the zstandard
    module, `compress`) was kept as the page, its compressed bytes read as text."""
    urls = tmp_path / "urls.txt"
    paths = ["/encoded/zstd", "/encoded/compress", "/encoded/x-gzip"]
    urls.write_text("".join(server.base + p + "\n" for p in paths))
    crawl_urls([str(urls)], tmp_path / "run", make_policy(), allow=only(server))
    rows = _rows(tmp_path / "run")
    got = [(rows[i]["error_code"], rows[i]["error_message"]) for i in range(1, 4)]
    assert got[:2] == [
        ("DECODE_ERROR", "content-encoding 'zstd' is not supported"),
        ("DECODE_ERROR", "content-encoding 'compress' is not supported"),
    ]
    assert got[2] == (None, None)
    assert b"x-gzip" in rows[3]["body"]


def test_resumed_crawl_still_marks_a_later_copy_of_a_done_url_duplicate(
    server: FaultServer, tmp_path: Path
) -> None:
    """Line 1 committed before the stop, lines 2 and 3 left: line 3 repeats line 1 and must be the
    DUPLICATE_URL row the uninterrupted crawl gives, not a second fetch and a second page."""
    urls = tmp_path / "urls.txt"
    a, b = f"{server.base}/page/a", f"{server.base}/page/b"
    urls.write_text(a + "\n", encoding="utf-8")
    policy = make_policy(ignore_robots=True)
    crawl_urls([str(urls)], tmp_path / "run", policy, allow=only(server))
    urls.write_text(f"{a}\n{b}\n{a}\n", encoding="utf-8")  # the rest of the list, as if killed
    stats = crawl_urls([str(urls)], tmp_path / "run", policy, allow=only(server))
    assert stats.resumed == 1
    rows = _rows(tmp_path / "run")
    assert [rows[i]["error_code"] for i in (1, 2, 3)] == [None, None, "DUPLICATE_URL"]
    assert server.hits["/page/a"] == 1
