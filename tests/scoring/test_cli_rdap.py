"""`trustaudit audit --rdap`: registration dates from a local RDAP server feed the domain score."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import polars as pl
import pytest
from helpers import article_html
from typer.testing import CliRunner

from trustaudit.cli.main import app
from trustaudit.crawl.rdap import registered_domain
from trustaudit.scoring.domain import registered_domain_of


class _Rdap(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        name = self.path.rsplit("/", 1)[-1]
        created = {"oldpaper.com": "1998-05-01T00:00:00Z", "fresh-news.com": "2026-10-20T00:00:00Z"}
        if name in created:
            doc = {"events": [{"eventAction": "registration", "eventDate": created[name]}]}
            body, status = json.dumps(doc).encode(), 200
        else:
            body, status = b'{"errorCode": 404}', 404
        self.send_response(status)
        self.send_header("Content-Type", "application/rdap+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def rdap_server() -> Iterator[int]:
    _Rdap.hits = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Rdap)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield int(srv.server_address[1])
    srv.shutdown()
    srv.server_close()


def test_one_registered_domain_function_for_pages_and_rdap() -> None:
    # pages: a private-suffix site is its own publisher; RDAP: the domain a registry knows
    assert registered_domain_of("user.github.io") == "user.github.io"
    assert registered_domain("user.github.io") == "github.io"
    assert registered_domain("News.Example.co.uk") == registered_domain_of("news.example.co.uk")
    assert (
        registered_domain("127.0.0.1") is None and registered_domain_of("127.0.0.1") == "127.0.0.1"
    )


def test_audit_rdap_feeds_domain_age(rdap_server: int, tmp_path: Path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    for name, url in (("old", "https://www.oldpaper.com/a"), ("new", "https://fresh-news.com/b")):
        (pages / f"{name}.html").write_text(article_html(f"Story {name}", url=url), "utf-8")
    boot = tmp_path / "boot.json"
    boot.write_text(
        json.dumps({"services": [[["com"], [f"http://127.0.0.1:{rdap_server}/rdap/"]]]}), "utf-8"
    )
    policy = tmp_path / "trustaudit.toml"
    policy.write_text(
        '[embeddings]\nstatic_model = "hashing-256"\n'
        f'[crawl]\nallow_networks = ["127.0.0.1/32"]\nrdap_bootstrap_file = "{boot}"\n'
        f'rdap_cache_dir = "{tmp_path / "cache"}"\nrdap_min_interval_s = 0.0\n',
        "utf-8",
    )
    out = tmp_path / "run"
    args = ["audit", str(pages), "--out", str(out), "--policy", str(policy), "--workers", "1"]
    res = CliRunner().invoke(app, [*args, "--now", "2026-11-01", "--rdap"])
    assert res.exit_code == 0, res.output
    assert sorted(_Rdap.hits) == ["/rdap/domain/fresh-news.com", "/rdap/domain/oldpaper.com"]
    ages = (out / "crawl" / "domain_ages.csv").read_text("utf-8")
    assert "oldpaper.com,1998-05-01,ok" in ages
    sig = {r["registered_domain"]: r for r in pl.read_parquet(out / "signals.parquet").to_dicts()}
    assert sig["oldpaper.com"]["age_score"] == 1.0  # 28 years, capped at 5
    assert sig["fresh-news.com"]["domain_age_days"] == 12
    reasons = {
        r["registered_domain"]: r["reasons"]
        for r in pl.read_parquet(out / "scores.parquet").to_dicts()
    }
    assert (
        "DOMAIN_YOUNG" in reasons["fresh-news.com"]
        and "DOMAIN_AGE_MISSING" not in reasons["oldpaper.com"]
    )
