"""report.html shows what `citations` found on the run (counts, escaped), and nothing when it never ran."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "citations" / "data"


def test_agent_audit_counts_appear_in_the_html_report(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    res = runner.invoke(
        app, ["audit", str(html_folder), "--out", str(out), "--workers", "1", "--now", "2026-11-01"]
    )
    assert res.exit_code == 0, res.output
    html = (out / "reports" / "report.html").read_text(encoding="utf-8")
    assert 'id="agents"' not in html
    res = runner.invoke(app, ["citations", str(DATA / "transcripts.jsonl"), "--run", str(out)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    html = (out / "reports" / "report.html").read_text(encoding="utf-8")
    assert 'id="agents"' in html and "citations: fabricated citations" in html
