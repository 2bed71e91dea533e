"""report.html: self-contained, strict CSP, page strings never reach the markup unescaped."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from tests.report.hostile import JS_URL, hostile_run
from trustaudit.policy import Policy
from trustaudit.report.extra import write_extra_reports
from trustaudit.report.html import CSS, JS, content_security_policy, json_block


def _render(tmp_path: Path, policy: Policy | None = None) -> str:
    from trustaudit.report.summary import write_reports

    run = hostile_run(tmp_path / "run")
    write_reports(run, policy or Policy(), run.read_manifest())
    return run.report("report.html").read_text(encoding="utf-8")


def test_no_network_and_strict_csp(tmp_path: Path) -> None:
    html = _render(tmp_path)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp and csp.group(1) == content_security_policy()
    assert "default-src 'none'" in csp.group(1) and "unsafe-inline" not in csp.group(1)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html.split("<body>")[0])
    assert "<link" not in html and "@import" not in html
    # exactly our own executable script; everything else is a JSON data block
    scripts = re.findall(r"<script([^>]*)>", html)
    assert scripts.count("") == 1 and all(
        s == "" or 'type="application/json"' in s for s in scripts
    )
    assert f"<script>{JS}</script>" in html and f"<style>{CSS}</style>" in html


def test_hostile_strings_escaped(tmp_path: Path) -> None:
    html = _render(tmp_path)
    assert "data-pwned" in html  # the payloads are there...
    for m in re.finditer(r"data-pwned", html):  # ...but only as inert JSON text
        before = html[: m.start()]
        assert before.rfind('<script type="application/json"') > before.rfind("</script>")
    assert "javascript:" not in re.sub(
        r'<script type="application/json".*?</script>', "", html, flags=re.S
    )
    assert not re.search(r"<(img|svg)[^>]*on\w+=", html)
    for block in re.findall(
        r'<script type="application/json" id="[^"]+">(.*?)</script>', html, re.S
    ):
        assert "<" not in block
        json.loads(block)


def test_only_http_links(tmp_path: Path) -> None:
    html = _render(tmp_path)
    data = json.loads(re.search(r'id="data-quarantine">(.*?)</script>', html, re.S).group(1))
    urls = {row[1][0]: row[1][1] for row in data["rows"]}
    assert urls[JS_URL] is None
    assert all(h is None or h.startswith("https://") for h in urls.values())


def test_json_block_cannot_close_early() -> None:
    out = json_block("x", {"a": "</script><!-- & \u2028"})
    assert out.count("</script>") == 1 and "<!--" not in out
    assert json.loads(out[len('<script type="application/json" id="x">') : -len("</script>")]) == {
        "a": "</script><!-- & \u2028"
    }


def test_rows_capped_with_note(tmp_path: Path) -> None:
    p = Policy()
    p = dataclasses.replace(p, report=dataclasses.replace(p.report, html_max_rows=2))
    html = _render(tmp_path, p)
    assert "Showing the first 2 of 5 rows" in html
    data = json.loads(re.search(r'id="data-quarantine">(.*?)</script>', html, re.S).group(1))
    assert len(data["rows"]) == 2 and data["total"] == 5


def test_extra_reports_without_labels(tmp_path: Path) -> None:
    run = hostile_run(tmp_path / "r")
    res = write_extra_reports(run, Policy(), run.read_manifest())
    assert res["status"] == "no_labels"
    assert run.report("report.html").exists() and run.report("blocklist.suggested.txt").exists()
    assert "nothing to calibrate against" in run.report("report.html").read_text()
