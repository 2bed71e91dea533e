"""`trustaudit report RUN` re-renders every report; end to end after a real `audit`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.report.fakerun import make_run, page

REPORTS = (
    "summary.json",
    "quarantine.csv",
    "quarantine.md",
    "domains.csv",
    "allowlist.suggested.txt",
    "blocklist.suggested.txt",
    "report.html",
)


def test_report_rerenders(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = make_run(
        tmp_path / "run", [page("https://a.example/", 0.2), page("https://b.example/", 0.9)]
    )
    res = runner.invoke(app, ["report", str(run.root), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["bands"] == {"quarantine": 1, "medium": 0, "trusted": 1}
    for name in REPORTS:
        assert run.report(name).exists(), name


def test_report_needs_a_run(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["report", str(tmp_path / "nothing")])
    assert res.exit_code == 2 and "run directory not found" in res.output


def test_audit_with_labels_then_report(runner, app, html_folder: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "url,domain,label\nhttps://alpha.example.com/a,,trusted\n,example.net,untrusted\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    res = runner.invoke(
        app,
        [
            "audit",
            str(html_folder),
            "--out",
            str(out),
            "-w",
            "1",
            "--now",
            "2026-11-01",
            "--labels",
            str(labels),
            "-q",
        ],
    )
    assert res.exit_code == 0, res.output
    cal = json.loads((out / "reports" / "calibration.json").read_text())
    assert cal["label_source"] == "labels" and cal["pages_labeled"] == 2
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    for name in (*REPORTS, "threshold_curve.csv", "threshold_curve.png", "pr_curve.png"):
        assert (out / "reports" / name).exists(), name
