"""The decision reports summary.py plugs in: list suggestions, calibration, report.html.

`write_extra_reports` runs after quarantine.csv/domains.csv exist (summary.write_reports calls it), so
suggestions can append their evidence columns to domains.csv and the HTML can show everything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy


def policy_of_run(run: RunDir, policy_path: str | Path | None = None) -> Policy:
    """The policy a run was scored with, its lists read from the run (see `io.rundir.run_policy`,
    the one implementation: a policy file given replaces settings and adds lists)."""
    from trustaudit.io.rundir import run_policy

    policy: Policy = run_policy(run, policy_path)
    return policy


def write_extra_reports(
    run: RunDir,
    policy: Policy,
    manifest: dict[str, Any],
    *,
    labels: Path | None = None,
    target_recall: float | None = None,
    target_precision: float | None = None,
    eval_dir: str | Path | None = None,
) -> dict[str, Any]:
    """allowlist/blocklist.suggested.txt (+ evidence columns in domains.csv), calibration
    (threshold_curve.csv/.png, pr_curve.png, calibration.json/.md, recommended_policy.toml) and
    report.html. Without `labels`, the labels the run owns (`audit --labels`) are used, else the
    allow/blocklists serve as weak labels; without targets, the policy's report.target_recall /
    target_precision. `eval_dir` is a `trustaudit eval` folder for the
    report's planted-source section (default: RUN/eval when it holds one). Returns
    calibration.json's content."""
    from trustaudit.report.calibrate import calibrate_run, remembered_labels
    from trustaudit.report.html import write_html_report
    from trustaudit.report.suggest import write_suggestions

    run.reports.mkdir(parents=True, exist_ok=True)
    evidence = write_suggestions(run, policy, manifest)
    if labels is None:
        labels = remembered_labels(run)
    # the targets given (by `calibrate`), else the policy's: never an earlier call's (a derived
    # report must not depend on command history; calibration.json says which it used)
    calibration = calibrate_run(
        run,
        policy,
        labels=labels,
        target_recall=target_recall,
        target_precision=None if target_recall is not None else target_precision,
    )
    write_html_report(run, policy, manifest, evidence=evidence, labels=labels, eval_dir=eval_dir)
    return calibration
