"""`trustaudit score RUN`: re-run signals, scores and reports on an existing run with a new policy."""

from __future__ import annotations

from pathlib import Path

import typer

from trustaudit.cli._common import err_console, guarded, out_console
from trustaudit.cli.commands.audit import build_overrides, parse_now, print_summary
from trustaudit.cli.progress import RichProgress
from trustaudit.io.atomic import json_text
from trustaudit.pipeline import rescore
from trustaudit.policy import load_policy


@guarded
def score_cmd(
    run: Path = typer.Argument(..., help="Run directory written by `trustaudit audit`."),
    allowlist: list[Path] | None = typer.Option(
        None, "--allowlist", help="Allowlist file (repeatable)."
    ),
    blocklist: list[Path] | None = typer.Option(
        None, "--blocklist", help="Blocklist file (repeatable)."
    ),
    domain_info: Path | None = typer.Option(
        None, "--domain-info", help="CSV domain,created for domain age."
    ),
    policy: Path | None = typer.Option(
        None, "--policy", "-p", help="Policy TOML (default ./trustaudit.toml)."
    ),
    labels: Path | None = typer.Option(
        None, "--labels", help="CSV url|domain,label for calibration curves."
    ),
    now: str | None = typer.Option(None, "--now", help="ISO date (default: the run's own date)."),
    as_json: bool = typer.Option(False, "--json", help="Print summary.json to stdout."),
) -> None:
    """Recompute signals, scores and reports of RUN without re-reading or re-extracting its inputs.

    Use it to try a new threshold, weights or lists on a finished run in seconds.

    Example: trustaudit score runs/demo --policy strict.toml
    """
    pol = load_policy(policy, overrides=build_overrides(allowlist, blocklist, domain_info))
    with RichProgress(err_console(), quiet=as_json) as progress:
        summary = rescore(run, pol, now=parse_now(now), labels=labels, progress=progress)
    if as_json:
        typer.echo(json_text(summary))
    else:
        print_summary(summary, out_console())


def register(app: typer.Typer) -> None:
    app.command("score")(score_cmd)
