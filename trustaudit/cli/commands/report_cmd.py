"""`trustaudit report`: re-render every report of an existing run (no re-scoring)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trustaudit.cli._common import check_accounting, guarded
from trustaudit.errors import UsageError
from trustaudit.io.atomic import json_text
from trustaudit.io.remote_run import StagedRun
from trustaudit.io.rundir import RunDir


@guarded
def report_cmd(
    run_dir: Annotated[
        str,
        typer.Argument(metavar="RUN", help="Run directory (or s3:// gs:// URI) written by audit."),
    ],
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels",
            "-l",
            help="Labels CSV for the calibration (default: the labels the run got at audit time).",
        ),
    ] = None,
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            "-p",
            help="Policy TOML whose settings replace the run's recorded ones; its lists are added "
            "(default: the policy recorded in the run).",
        ),
    ] = None,
    eval_dir: Annotated[
        Path | None,
        typer.Option(
            "--eval",
            help="Folder written by `trustaudit eval --out` to show in report.html's planted-source "
            "section (default: RUN/eval when it holds one).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print summary.json to stdout.")] = False,
) -> None:
    """Re-render summary.json, quarantine.csv/.md, domains.csv, list suggestions, calibration
    and report.html from the run's tables (after an upgrade, or to change report settings).

    Example: trustaudit report runs/demo && xdg-open runs/demo/reports/report.html
    """
    from trustaudit.io.rundir import recorded_labels, run_policy
    from trustaudit.report.summary import decision_lines, write_reports

    if labels is not None and not labels.is_file():
        raise UsageError(f"labels file not found: {labels}")
    if eval_dir is not None and not (eval_dir / "eval.json").is_file():
        raise UsageError(
            f"--eval {eval_dir}: no eval.json there",
            hint="trustaudit eval QUERIES --run RUN --out DIR writes one",
        )
    staged = StagedRun.pull(run_dir, must_exist=True)  # a URI run: a local copy, pushed back
    run = RunDir.at(staged.local)
    run.require("manifest.json", "scores.parquet")
    pol = run_policy(run, policy)
    with run.locked():
        summary = write_reports(
            run,
            pol,
            run.read_manifest(),
            labels=labels or recorded_labels(run),
            eval_dir=eval_dir,
        )
    summary = staged.publish(summary)
    if as_json:
        typer.echo(json_text(summary))
    else:
        where = f"{run_dir}/reports" if staged.remote else run.reports
        typer.echo(f"reports written to {where} (open report.html in a browser)")
        for line in decision_lines(summary):  # which bands and calibration (no history reused)
            typer.echo(line)
    check_accounting(summary)


def register(app: typer.Typer) -> None:
    app.command("report")(report_cmd)
