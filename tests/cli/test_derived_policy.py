"""`report` and `score` start from the run's recorded policy, never from an earlier `calibrate`
call's target, and say which thresholds they used and whether a calibrated one is applied."""

from __future__ import annotations

import json
from pathlib import Path

from tests.report.fakerun import make_run, page
from trustaudit.io.atomic import write_json


def _run_with_labels(tmp_path: Path) -> Path:
    """A run that owns its labels (as `audit --labels` leaves it): bad pages 0.10-0.35, good 0.50-0.90."""
    pages = [page(f"https://bad{i}.example/", 0.1 + 0.05 * i) for i in range(6)]
    pages += [page(f"https://good{i}.example/", 0.5 + 0.08 * i) for i in range(6)]
    run = make_run(tmp_path / "run", pages)
    (run.root / "inputs").mkdir()
    rows = [f"https://bad{i}.example/,untrusted" for i in range(6)]
    rows += [f"https://good{i}.example/,trusted" for i in range(6)]
    (run.root / "inputs" / "labels.csv").write_text(
        "url,label\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    manifest = run.read_manifest()
    manifest["owned_inputs"] = [{"kind": "labels", "path": "inputs/labels.csv"}]
    write_json(run.manifest, manifest)
    return run.root


def _calibration(root: Path) -> dict:
    return json.loads((root / "reports" / "calibration.json").read_text(encoding="utf-8"))


def test_report_does_not_reuse_the_last_calibrate_target(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = _run_with_labels(tmp_path)
    res = runner.invoke(app, ["calibrate", str(root), "--target-recall", "0.5", "--json"])
    assert res.exit_code == 0, res.output
    assert _calibration(root)["recommended"]["target_value"] == 0.5
    res = runner.invoke(app, ["report", str(root), "--json"])
    assert res.exit_code == 0, res.output
    rec = _calibration(root)["recommended"]
    assert (rec["target"], rec["target_value"]) == ("recall", 0.9)  # the policy's, not 0.5
    cal = json.loads(res.stdout)["calibration"]
    assert cal["target_from"] == "policy report.target_recall"
    assert cal["applied"] is False and cal["threshold_in_use"] == 0.4


def test_report_and_score_say_what_they_used(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = _run_with_labels(tmp_path)
    res = runner.invoke(app, ["report", str(root)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "bands: quarantine < 0.4, trusted >= 0.7 (the policy recorded in the run)" in out
    assert "not applied" in out and "recall >= 0.90 (policy report.target_recall)" in out
    # a policy that adopts the recommendation: report says the calibrated threshold is in use
    rec = _calibration(root)["recommended"]["threshold"]
    strict = tmp_path / "strict.toml"
    strict.write_text(f"[bands]\nquarantine_below = {rec}\n", encoding="utf-8")
    res = runner.invoke(app, ["report", str(root), "--policy", str(strict), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["policy_used"]["from"] == "given"
    assert summary["calibration"]["applied"] is True
    res = runner.invoke(app, ["report", str(root), "--policy", str(strict)])
    out = " ".join(res.output.split())
    assert "the policy given to this command" in out and "calibrated threshold in use" in out


def test_score_does_not_reuse_the_last_calibrate_target(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "url,domain,label\nhttps://alpha.example.com/a,,trusted\n,example.net,untrusted\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    args = ["audit", str(html_folder), "--out", str(out), "-w", "1", "--now", "2026-11-01"]
    res = runner.invoke(app, [*args, "--labels", str(labels), "-q"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["calibrate", str(out), "--target-precision", "0.5", "--json"])
    assert res.exit_code == 0, res.output
    assert _calibration(out)["recommended"]["target"] == "precision"
    res = runner.invoke(app, ["score", str(out), "--json"])
    assert res.exit_code == 0, res.output
    rec = _calibration(out)["recommended"]
    assert (rec["target"], rec["target_value"]) == ("recall", 0.9)  # the recorded policy's
    cal = json.loads(res.stdout)["calibration"]
    assert cal["target_from"] == "policy report.target_recall" and cal["applied"] is False
    res = runner.invoke(app, ["score", str(out)])
    assert res.exit_code == 0, res.output
    assert "the policy recorded in the run" in " ".join(res.output.split())
