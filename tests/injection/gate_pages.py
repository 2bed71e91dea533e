"""The host page the gate's tests put a passage into, and what the gate then asks the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from typer.testing import CliRunner

from trustaudit.cli.main import app
from trustaudit.injection import scan_html_asks
from trustaudit.policy.injection import InjectionPolicy


def page(extra: str, body: str = "") -> str:
    """A short real-looking page with `body` and then `extra` between its two paragraphs."""
    return (
        "<html><head><title>Harbour tours</title></head><body><h1>Harbour tours</h1>"
        "<p>Boat tours of the harbour resume on Saturday after the storm repairs, weather "
        f"permitting.</p>{body}{extra}<p>Tickets at the pier.</p></body></html>"
    )


def asked(extra: str, policy: InjectionPolicy | None = None, body: str = "") -> list[str]:
    """The hiding techniques of the passages the gate sends to the model for `page(extra, body)`,
    in order (`asks_of` gives their texts); the lexicon alone must find nothing there (every
    payload these tests use is one it misses)."""
    found, asks = scan_html_asks(page(extra, body), policy)
    assert found.findings == []
    return [t for _, _, t in asks]


def asks_of(html: str, policy: InjectionPolicy | None = None, kind: str = "") -> list[str]:
    """The passages the gate sends to the model for the whole page `html` (lexical findings or
    not), only those of hiding technique `kind` when given ("visible": in plain sight)."""
    _, asks = scan_html_asks(html, policy)
    return [text for text, _, tech in asks if not kind or tech == kind]


def audit_pages(
    tmp_path: Path, pages: dict[str, str], *options: str
) -> dict[str, tuple[list[dict[str, Any]], str]]:
    """`trustaudit audit` through the CLI over a folder of `pages` (file name -> HTML), one worker:
    file name -> (its injection findings, its band)."""
    folder = tmp_path / "pages"
    folder.mkdir()
    for name, html in pages.items():
        (folder / name).write_text(html, encoding="utf-8")
    out = tmp_path / "out"
    args = ["audit", str(folder), "--out", str(out), "--workers", "1", *options]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return pages_of(out)


def pages_of(run: Path) -> dict[str, tuple[list[dict[str, Any]], str]]:
    """A run directory's pages: file name -> (its injection findings, its band)."""
    found = pl.read_parquet(run / "pages.parquet")
    band = dict(pl.read_parquet(run / "scores.parquet").select("url", "band").iter_rows())
    return {
        Path(u).name: (f or [], band[u])
        for u, f in zip(found["url"], found["injection_findings"].to_list(), strict=True)
    }


# The lexical detector alone (no model): what a test asserts does not depend on a classifier.
LEXICAL_POLICY = """profile = "default"

[injection]
enabled = true
quarantine = true
scan_visible = true
semantic = "off"
"""


def audit_run(root: Path, pages: dict[str, str], policy: str = LEXICAL_POLICY) -> Path:
    """`trustaudit audit` through the CLI over `pages` (file name -> HTML) written under `root`,
    with `policy` as its trustaudit.toml and one worker: the run directory."""
    folder = root / "pages"
    folder.mkdir()
    for name, html in pages.items():
        (folder / name).write_text(html, encoding="utf-8")
    toml = root / "trustaudit.toml"
    toml.write_text(policy, encoding="utf-8")
    out = root / "run"
    args = ["audit", str(folder), "--out", str(out), "--policy", str(toml), "--workers", "1"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    return out


def site_page(site: str, slug: str, hidden: str, *, lang: str = "en", lead: str = "") -> str:
    """An article of `site` with `lead` in plain sight and `hidden` in a display:none block, its
    canonical URL `site`/`slug` (the CLI tests audit a few of these and read one page's row)."""
    return (
        f'<!doctype html><html lang="{lang}"><head><title>{slug}</title>'
        f'<link rel="canonical" href="{site}/{slug}"></head><body><main><article>'
        f'<h1>{slug}</h1><p>{lead}</p><div style="display:none">{hidden}</div>'
        "</article></main></body></html>"
    )


def signals_of(run: Path, url: str) -> dict[str, Any]:
    """The `signals.parquet` row of the page at `url` in the run directory `run`."""
    scores = pl.read_parquet(run / "scores.parquet")
    doc = scores.filter(pl.col("url") == url)["doc_id"][0]
    return pl.read_parquet(run / "signals.parquet").filter(pl.col("doc_id") == doc).to_dicts()[0]


HARBOUR_SITE = "https://harbour.example.com"


def harbour_page(slug: str, body: str) -> str:
    """A German harbour site's article around `body`, its canonical URL under HARBOUR_SITE (the
    CLI tests of the rule rounds audit a few of these and read their reasons)."""
    return (
        f'<!doctype html><html lang="de"><head><title>Harbour chat</title>'
        f'<link rel="canonical" href="{HARBOUR_SITE}/{slug}"></head><body><main><article>'
        "<h1>Harbour chat</h1><p>Boat tours of the harbour resume on Saturday after the storm "
        f"repairs, weather permitting.</p>{body}<p>Tickets at the pier.</p></article></main>"
        "</body></html>"
    )
