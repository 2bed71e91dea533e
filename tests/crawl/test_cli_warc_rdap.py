"""`trustaudit crawl` end to end, WARC read-back through the WARC reader, and RDAP on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import polars as pl
import pytest

from tests.crawl.conftest import FakeClock, make_policy, only
from tests.crawl.crawl_faultserver import FaultServer
from trustaudit.crawl import crawl_urls
from trustaudit.crawl.fetch import FetchConfig, Fetcher
from trustaudit.crawl.rdap import RdapClient, load_bootstrap, lookup_run_domains, registered_domain
from trustaudit.crawl.ssrf import Guard

pytestmark = pytest.mark.network


def test_cli_crawl_writes_pages_and_errors_and_resumes(
    server: FaultServer,
    tmp_path: Path,
    runner,
    app,  # type: ignore[no-untyped-def]
) -> None:
    urls = tmp_path / "urls.csv"
    urls.write_text(
        f"url,note\n{server.base}/page/1,a\n{server.base}/status/404,b\n{server.base}/latin1,c\nmailto:x@y,d\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    warc = tmp_path / "crawl.warc.gz"
    args = ["crawl", str(urls), "--out", str(out), "--allow-private", "--delay", "0", "--timeout", "5",
            "--warc", str(warc), "-w", "1", "--user-agent", "trustaudit-test/1 (+ops@example.org)", "-q"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    pages = pl.read_parquet(out / "pages.parquet")
    errors = pl.read_parquet(out / "errors.parquet")
    assert {"url", "text"} <= set(pages.columns) and {"url", "code"} <= set(errors.columns)
    assert sorted(pages["url"].to_list()) == sorted(
        [f"{server.base}/page/1", f"{server.base}/latin1"]
    )
    assert "página" in pages.filter(pl.col("url").str.ends_with("latin1"))["text"][0]
    assert sorted(errors["code"].to_list()) == ["BAD_URL", "HTTP_404"]
    assert server.user_agents[-1].startswith("trustaudit-test/1")
    hits = sum(server.hits.values())
    again = runner.invoke(app, args)  # same command: resumes, no refetch, no duplicates
    assert again.exit_code == 0, again.output
    assert sum(server.hits.values()) == hits
    assert pl.read_parquet(out / "pages.parquet").height == 2
    assert pl.read_parquet(out / "errors.parquet").height == 2
    summary = json.loads((out / "crawl" / "summary.json").read_text())
    assert summary["totals"]["by_code"] == {"BAD_URL": 1, "HTTP_404": 1}
    assert summary["totals"]["by_status"]["200"] == 2
    # the WARC holds request+response pairs the project's WARC reader reads back offline
    from trustaudit.io.readers import WarcSource

    recs = [b for b in WarcSource(warc).batches(100)]
    urls_back = sorted(u for b in recs for u in b.records.column("url").to_pylist())
    assert f"{server.base}/page/1" in urls_back and f"{server.base}/latin1" in urls_back


def test_cli_usage_errors(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(
        app, ["crawl", str(tmp_path / "missing.txt"), "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 2
    assert "URL list not found" in result.output


class _Rdap(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        name = self.path.rsplit("/", 1)[-1]
        if name in ("old.test", "oldsite.com"):
            doc = {"objectClassName": "domain", "ldhName": "old.test",
                   "events": [{"eventAction": "registration", "eventDate": "1999-03-04T05:00:00Z"},
                              {"eventAction": "expiration", "eventDate": "2030-03-04T05:00:00Z"}]}  # fmt: skip
            body, status = json.dumps(doc).encode(), 200
        elif name == "noevents.test":
            body, status = b'{"objectClassName": "domain"}', 200
        else:
            body, status = b'{"errorCode": 404}', 404
        self.send_response(status)
        self.send_header("Content-Type", "application/rdap+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def rdap_server() -> Iterator[ThreadingHTTPServer]:
    _Rdap.hits = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Rdap)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _client(srv: ThreadingHTTPServer, cache: Path, clock: FakeClock) -> RdapClient:
    port = srv.server_address[1]
    guard = Guard(allow=lambda ip, p: str(ip) == "127.0.0.1" and p == port)
    fetcher = Fetcher(FetchConfig(user_agent="t", accept_types=("application/rdap+json",)), guard)
    boot = {
        "test": [f"http://127.0.0.1:{port}/rdap/"],
        "com": [f"http://127.0.0.1:{port}/rdap/"],
        "meta": ["http://169.254.169.254/rdap/"],
    }
    return RdapClient(
        fetcher, cache, bootstrap=boot, min_interval_s=2.0, clock=clock.now, sleeper=clock.sleep
    )


def test_rdap_lookup_cache_rate_limit_and_guard(
    rdap_server: ThreadingHTTPServer, tmp_path: Path
) -> None:
    clock = FakeClock()
    client = _client(rdap_server, tmp_path / "cache", clock)
    res = client.lookup_many(
        ["old.test", "missing.test", "noevents.test", "x.meta", "x.unknowntld"]
    )
    assert res["old.test"].created == date(1999, 3, 4) and res["old.test"].status == "ok"
    assert res["missing.test"].status == "not_found"
    assert res["noevents.test"].status == "error"
    assert res["x.meta"].status == "error" and "SSRF_BLOCKED" in res["x.meta"].detail
    assert res["x.unknowntld"].status == "no_server"
    assert clock.sleeps and all(s <= 2.0 for s in clock.sleeps)  # spaced per server
    assert len(_Rdap.hits) == 3
    # a second client shares the on-disk cache: no new requests until the TTL passes
    again = _client(rdap_server, tmp_path / "cache", clock).lookup("old.test")
    assert again.cached and again.created == date(1999, 3, 4) and len(_Rdap.hits) == 3
    clock.t += 31 * 86400
    assert not _client(rdap_server, tmp_path / "cache", clock).lookup("old.test").cached


def test_rdap_over_a_crawl_writes_domain_ages(
    rdap_server: ThreadingHTTPServer, server: FaultServer, tmp_path: Path
) -> None:
    def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]  # the page host "resolves" to the loopback test server only

    urls = tmp_path / "u.txt"
    urls.write_text(f"http://www.oldsite.com:{server.port}/page/1\n", encoding="utf-8")
    crawl_urls([str(urls)], tmp_path / "run", make_policy(), resolver=resolver, allow=only(server))
    info = lookup_run_domains(tmp_path / "run", _client(rdap_server, tmp_path / "c", FakeClock()))
    assert info["domains"] == 1 and info["by_status"] == {"ok": 1}
    text = (tmp_path / "run" / "crawl" / "domain_ages.csv").read_text()
    assert text.splitlines()[1].startswith("oldsite.com,1999-03-04,ok")
    from trustaudit.io.lists import read_domain_info

    assert read_domain_info(tmp_path / "run" / "crawl" / "domain_ages.csv") == {
        "oldsite.com": date(1999, 3, 4)
    }


def test_bundled_bootstrap_and_registered_domain() -> None:
    boot = load_bootstrap()
    assert boot["com"][0].startswith("https://") and "br" in boot and "org" in boot
    assert registered_domain("news.example.co.uk") == "example.co.uk"
    assert registered_domain("127.0.0.1") is None


def test_bodies_over_the_cap_stay_unread_when_the_warc_is_audited(
    server: FaultServer,
    tmp_path: Path,
    runner,
    app,  # type: ignore[no-untyped-def]
) -> None:
    """Before: the crawl's WARC held a too-large body as `200 OK` with an empty, untruncated
    payload, so auditing the WARC called the page EMPTY_BODY (which the gate passes) instead of
    TOO_LARGE (never scanned, which the gate fails)."""
    urls = tmp_path / "urls.txt"
    urls.write_text(f"{server.base}/huge\n{server.base}/bomb\n{server.base}/page/1\n")
    warc = tmp_path / "crawl.warc.gz"
    args = ["crawl", str(urls), "--out", str(tmp_path / "crawl"), "--allow-private", "--delay",
            "0", "--timeout", "10", "--warc", str(warc), "-w", "1", "-q"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    crawled = pl.read_parquet(tmp_path / "crawl" / "errors.parquet")
    assert sorted(crawled["code"]) == ["TOO_LARGE", "TOO_LARGE"]
    run = tmp_path / "run"
    result = runner.invoke(app, ["audit", str(warc), "--out", str(run), "-w", "1", "-q"])
    assert result.exit_code == 0, result.output
    errors = pl.read_parquet(run / "errors.parquet").sort("url")
    assert errors.select("url", "code").rows() == [
        (f"{server.base}/bomb", "TOO_LARGE"),
        (f"{server.base}/huge", "TOO_LARGE"),
    ]
    assert "WARC-Truncated: length" in errors["message"][0]
    assert pl.read_parquet(run / "pages.parquet")["url"].to_list() == [f"{server.base}/page/1"]


def _crawl_two_lists(server: FaultServer, tmp_path: Path, runner, app, bad: str) -> Path:  # type: ignore[no-untyped-def]
    """Crawl a .csv list (page 1, then `bad` quoted) and a .txt list (`bad`, then page 2); the
    crawl must succeed. Returns the run folder."""
    lists = tmp_path / "u.csv", tmp_path / "u.txt"
    lists[0].write_text(f'url\n{server.base}/page/1\n"{bad}"\n', encoding="utf-8")
    lists[1].write_text(f"{bad}8\n{server.base}/page/2\n", encoding="utf-8")
    out = tmp_path / "run"
    args = ["crawl", *map(str, lists), "--out", str(out), "--allow-private", "--delay", "0",
            "-w", "1", "-q"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def test_crawl_of_a_list_with_an_absurdly_long_url_reads_the_others(
    server: FaultServer,
    tmp_path: Path,
    runner,
    app,  # type: ignore[no-untyped-def]
) -> None:
    """Before: a CSV cell over 128 KiB was an internal error (exit 3, nothing crawled), and a
    60 MB line of a .txt list was fetched for minutes; now each is one BAD_URL row."""
    long = f"{server.base}/page/" + "9" * 200_000
    out = _crawl_two_lists(server, tmp_path, runner, app, long)
    pages = pl.read_parquet(out / "pages.parquet")
    errors = pl.read_parquet(out / "errors.parquet")
    assert sorted(pages["url"]) == [f"{server.base}/page/1", f"{server.base}/page/2"]
    assert errors["code"].to_list() == ["BAD_URL", "BAD_URL"]
    assert errors["message"].str.contains("characters, over 32768").all()
    assert not any(len(path) > 1000 for path in server.hits)


def test_crawl_of_a_list_with_a_line_over_the_cap_costs_that_line(
    server: FaultServer,
    tmp_path: Path,
    runner,
    app,  # type: ignore[no-untyped-def]
) -> None:
    """Before: a .txt or .csv list was read whole into memory (a 60 MB line peaked at 1.4 GB)
    and the line became a 60 MB URL for the guard to refuse; now a line over the list's line cap
    is one BAD_URL row saying so, never held, and the other lines are fetched."""
    from trustaudit.crawl.source import MAX_LIST_LINE_BYTES

    huge = f"{server.base}/page/" + "9" * (3 * MAX_LIST_LINE_BYTES)
    out = _crawl_two_lists(server, tmp_path, runner, app, huge)
    pages = pl.read_parquet(out / "pages.parquet")
    errors = pl.read_parquet(out / "errors.parquet").sort("source")
    assert sorted(pages["url"]) == [f"{server.base}/page/1", f"{server.base}/page/2"]
    assert errors.select("offset", "code").rows() == [(2, "BAD_URL"), (1, "BAD_URL")]
    assert errors["message"].str.contains(f"over {MAX_LIST_LINE_BYTES}; skipped").all()
    assert not any(len(path) > 1000 for path in server.hits)
