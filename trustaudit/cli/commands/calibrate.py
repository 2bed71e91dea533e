"""`trustaudit calibrate`: threshold curves on labels and a recommended threshold to paste."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from trustaudit.cli._common import err_console, guarded, out_console
from trustaudit.errors import UsageError
from trustaudit.io.atomic import json_text
from trustaudit.io.rundir import RunDir
from trustaudit.report.escape import terminal


def _fraction(name: str, value: float | None) -> None:
    if value is not None and not 0.0 < value <= 1.0:
        raise UsageError(f"{name} must be in (0, 1], got {value}")


def _f(x: object, digits: int = 3) -> str:
    try:
        return f"{float(x):.{digits}f}"  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "n/a"


@guarded
def calibrate_cmd(
    run_dir: Annotated[
        Path, typer.Argument(metavar="RUN", help="Run directory written by `trustaudit audit`.")
    ],
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels",
            "-l",
            help="CSV with `url` or `domain` and `label` (trusted|untrusted). Without it: the labels "
            "the run got at audit time (`audit --labels`, kept in RUN/inputs/), else the run's "
            "allow/blocklists as weak labels; never the labels of an earlier calibrate call.",
        ),
    ] = None,
    target_recall: Annotated[
        float | None,
        typer.Option(
            "--target-recall",
            help="Recommend the lowest threshold reaching this recall (default: the policy's "
            "report.target_recall, 0.90).",
        ),
    ] = None,
    target_precision: Annotated[
        float | None,
        typer.Option(
            "--target-precision", help="Recommend the threshold with most recall at this precision."
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
    as_json: Annotated[
        bool, typer.Option("--json", help="Print calibration.json to stdout.")
    ] = False,
) -> None:
    """Precision/recall/F1 per threshold (0.00-1.00), ROC/PR-AUC, per-signal AUC and a recommended
    threshold; writes reports/threshold_curve.csv/.png, pr_curve.png, calibration.json/.md,
    recommended_policy.toml and refreshes report.html.

    Example: trustaudit calibrate runs/demo --labels labels.csv --target-recall 0.95
    """
    from trustaudit.io.rundir import recorded_labels, run_policy
    from trustaudit.report.extra import write_extra_reports

    if target_recall is not None and target_precision is not None:
        raise UsageError("give --target-recall or --target-precision, not both")
    _fraction("--target-recall", target_recall)
    _fraction("--target-precision", target_precision)
    if labels is not None and not labels.is_file():
        raise UsageError(f"labels file not found: {labels}")
    run = RunDir.at(run_dir)
    run.require("manifest.json", "scores.parquet")
    pol = run_policy(run, policy)
    with run.locked():  # no target given: the policy's (calibrate_run), not an earlier call's
        result = write_extra_reports(
            run,
            pol,
            run.read_manifest(),
            labels=labels or recorded_labels(run),
            target_recall=target_recall,
            target_precision=target_precision,
        )
    if result.get("status") == "no_labels":
        raise UsageError(
            "nothing to calibrate against: no --labels file and no allow/blocklist entries",
            hint="trustaudit calibrate RUN --labels labels.csv  (columns url|domain,label)",
        )
    if result.get("status") == "one_class":
        examples = ", ".join(result.get("labels_unmatched_examples") or [])
        raise UsageError(
            result["note"],
            hint=f"label rows matching no page: {result['labels_unmatched']}"
            + (f" (e.g. {examples})" if examples else ""),
        )
    share = (result.get("recommended") or {}).get("quarantined_share_all")
    limit = pol.report.calibrate_warn_quarantined_share
    if isinstance(share, int | float) and share > limit:
        err_console().print(
            f"warning: the recommended threshold quarantines {share:.0%} of all pages (more than "
            f"report.calibrate_warn_quarantined_share = {limit:g}); check the labels before "
            "adopting it",
            markup=False,
        )
    if as_json:
        typer.echo(json_text(result))
        return
    print_calibration(result, run)


def print_calibration(result: dict, run: RunDir) -> None:  # type: ignore[type-arg]
    """Terminal view: label counts, AUCs, current vs recommended, top signals, the snippet."""
    console = out_console()
    if result.get("note"):
        console.print(f"[yellow]{terminal(result['note'])}[/yellow]")
    t = Table(title="calibration", header_style="bold")
    t.add_column("what")
    t.add_column("value", justify="right")
    t.add_row("labeled pages", str(result["pages_labeled"]))
    t.add_row("untrusted / trusted", f"{result['untrusted']} / {result['trusted']}")
    t.add_row("label rows matching no page", str(result["labels_unmatched"]))
    t.add_row("ROC-AUC", _f(result["roc_auc"]))
    t.add_row("PR-AUC", _f(result["pr_auc"]))
    console.print(t)
    c = Table(title="thresholds", header_style="bold")
    for col in ("", "threshold", "precision", "recall", "F1", "trusted lost", "all quarantined"):
        c.add_column(col, justify="right" if col else "left")
    for name, row in (
        ("current", result["current"]),
        ("recommended", result["recommended"]),
        ("best F1", result["best_f1"]),
    ):
        c.add_row(
            name,
            _f(row.get("threshold"), 2),
            _f(row.get("precision")),
            _f(row.get("recall")),
            _f(row.get("f1")),
            _f(row.get("trusted_lost")),
            _f(row.get("quarantined_share_all")),
        )
    console.print(c)
    s = Table(title="signals that separate the classes (AUC alone)", header_style="bold")
    s.add_column("signal")
    s.add_column("separation", justify="right")
    s.add_column("direction")
    for row in result["signal_auc"][:10]:
        s.add_row(terminal(row["signal"]), _f(row["separation"]), terminal(row["direction"]))
    console.print(s)
    console.print("paste into trustaudit.toml:")
    console.print(terminal(result["snippet"], multiline=True), highlight=False)
    console.print(
        f"reports: {terminal(run.reports)} (threshold_curve.csv/.png, pr_curve.png, report.html)"
    )


def register(app: typer.Typer) -> None:
    app.command("calibrate")(calibrate_cmd)
