"""Render report.html with hostile pages in headless Chromium and check on the live DOM that nothing
executed: every payload would set `data-pwned` on <body>, change the title or add an element.

Chromium comes from Debian's package (scripts/ensure-chromium.sh, called by `make test`)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.report.test_html import hostile_run_with_evidence
from trustaudit.policy import Policy

CHROMIUM = next(
    (p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if Path(p).exists()), None
) or (shutil.which("chromium"))
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium not installed (run scripts/ensure-chromium.sh; apt-get install chromium)",
)


def dump_dom(html: Path, profile: Path, fragment: str = "") -> str:
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=3000",
        "--dump-dom",
        html.resolve().as_uri() + fragment,
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_nothing_executes_in_chromium(tmp_path: Path) -> None:
    from trustaudit.report.summary import write_reports

    run = hostile_run_with_evidence(tmp_path / "run")
    write_reports(run, Policy(), run.read_manifest())
    dom = dump_dom(run.report("report.html"), tmp_path / "profile")
    body = re.search(r"<body[^>]*>", dom)
    assert body, dom[:500]
    # our script ran (so the tables with the hostile strings were really rendered)...
    assert 'data-ready="1"' in body.group(0)
    assert re.search(r'data-src="data-pages" data-rendered="5"', dom)  # the quarantine facet
    # the per-page panels are in the DOM (closed), hostile evidence in them as text
    assert len(re.findall(r'<tr class="detail" hidden="">', dom)) == 5
    assert (
        "&lt;script&gt;document.body.setAttribute('data-pwned','paragraph')&lt;/script&gt;" in dom
    )
    assert "&lt;img src=x onerror=\"document.body.setAttribute('data-pwned','anchor')\"&gt;" in dom
    assert 'title="show the pages of this domain">evil0.example</button>' in dom
    assert "&lt;script&gt;document.body.setAttribute('data-pwned','title')&lt;/script&gt;" in dom
    # ...and none of the payloads did
    assert "data-pwned" not in body.group(0)
    assert re.search(r"<title>([^<]*)</title>", dom).group(1).startswith("trustaudit report")
    assert "PWNED" not in re.search(r"<title>([^<]*)</title>", dom).group(1)
    live = re.sub(r'<script type="application/json".*?</script>', "", dom, flags=re.S)
    assert not re.search(r"<img\b", live) and not re.search(r"<[a-z]+[^>]*\son[a-z]+=", live)
    hrefs = re.findall(r'href="([^"]*)"', live)
    assert hrefs and all(h.startswith(("http://", "https://")) for h in hrefs)
    assert not any(h.lower().lstrip().startswith("javascript:") for h in hrefs)
    # every band at once: the medium page whose URL holds a quote is a link too
    dom = dump_dom(run.report("report.html"), tmp_path / "profile", "#band=all")
    assert re.search(r'data-src="data-pages" data-rendered="7"', dom)
    assert "data-pwned" not in re.search(r"<body[^>]*>", dom).group(0)
    hrefs = re.findall(
        r'href="([^"]*)"',
        re.sub(r'<script type="application/json".*?</script>', "", dom, flags=re.S),
    )
    assert all(h.startswith(("http://", "https://")) for h in hrefs)
    # the URL with a quote stayed one attribute value (the quote is data, not markup)
    assert any(h.startswith("https://ok.example/a&quot;onmouseover=") for h in hrefs)


def test_fragment_drills_down_to_a_domain_and_a_page(tmp_path: Path) -> None:
    from trustaudit.report.summary import write_reports

    run = hostile_run_with_evidence(tmp_path / "run")
    write_reports(run, Policy(), run.read_manifest())
    report = run.report("report.html")
    dom = dump_dom(report, tmp_path / "p1", "#domain=fine.example")
    assert re.search(r'data-src="data-pages" data-rendered="1"', dom)  # a trusted page, all bands
    assert (
        "https://fine.example/" in dom
        and "evil0.example/p" not in dom.split('id="pages"')[1].split("data-domains")[0]
    )
    doc = run.read("scores").filter(run.read("scores")["url"] == "https://evil1.example/p")[
        "doc_id"
    ][0]
    dom = dump_dom(report, tmp_path / "p2", f"#doc={doc}")
    assert re.search(r'data-src="data-pages" data-rendered="1"', dom)
    assert '<tr class="detail">' in dom  # its panel is open
    assert "Incoherent text" in dom and "data-pwned" not in re.search(r"<body[^>]*>", dom).group(0)
    live = re.sub(r'<script type="application/json".*?</script>', "", dom, flags=re.S)
    assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=", live)
