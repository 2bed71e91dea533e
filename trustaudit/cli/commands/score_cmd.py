"""`trustaudit score RUN`: re-run signals, scores and reports on an existing run with a new policy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import polars as pl
import typer

from trustaudit.cli._common import JudgeUrls, check_accounting, err_console, guarded, out_console
from trustaudit.cli.commands.audit import (
    build_overrides,
    parse_now,
    print_summary,
    require_judge,
)
from trustaudit.cli.progress import RichProgress
from trustaudit.errors import UsageError
from trustaudit.io.atomic import json_text
from trustaudit.io.remote_run import StagedRun
from trustaudit.io.rundir import RunDir, run_policy
from trustaudit.pipeline import rescore


@guarded
def score_cmd(
    run: Annotated[
        str,
        typer.Argument(help="Run directory (or s3:// gs:// URI) written by `trustaudit audit`."),
    ],
    allowlist: Annotated[
        list[Path] | None,
        typer.Option("--allowlist", help="Allowlist file ADDED to the run's lists (repeatable)."),
    ] = None,
    blocklist: Annotated[
        list[Path] | None,
        typer.Option("--blocklist", help="Blocklist file ADDED to the run's lists (repeatable)."),
    ] = None,
    domain_info: Annotated[
        Path | None,
        typer.Option("--domain-info", help="CSV domain,created that REPLACES the run's one."),
    ] = None,
    replace_lists: Annotated[
        bool,
        typer.Option(
            "--replace-lists",
            help="Drop the run's allow/blocklists and anchors: use only those of --policy and flags.",
        ),
    ] = False,
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            "-p",
            help="Policy TOML whose settings REPLACE the run's recorded ones; its lists are ADDED "
            "(default: the run's recorded policy; ./trustaudit.toml is not read).",
        ),
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option(
            "--labels", help="CSV url|domain,label for calibration (default: the run's own)."
        ),
    ] = None,
    now: Annotated[
        str | None, typer.Option("--now", help="ISO date (default: the run's own date).")
    ] = None,
    judge_url: JudgeUrls = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print summary.json to stdout.")] = False,
) -> None:
    """Recompute signals, scores and reports of RUN without re-reading or re-extracting its inputs.

    Starts from the run's recorded policy and the list files the run owns (RUN/inputs/); --policy
    replaces settings, list flags add to the run's lists. New tables are written aside and swapped
    in at the end: a failed re-score leaves the run as it was.

    Example: trustaudit score runs/demo --policy strict.toml --blocklist more.txt
    """
    if labels is not None and not labels.is_file():
        raise UsageError(f"labels file not found: {labels}")
    staged = StagedRun.pull(run, must_exist=True)  # a URI run: a local copy, pushed back
    rd = RunDir.at(staged.local)
    rd.require("manifest.json", "pages.parquet")
    pol = run_policy(
        rd,
        policy,
        overrides=build_overrides(allowlist, blocklist, domain_info),
        replace_lists=replace_lists,
    )
    require_judge(pol, judge_url)
    pages = None if as_json else rd.scan("pages").select(pl.len()).collect().item()
    with RichProgress(err_console(), quiet=as_json, pages=pages) as progress:
        summary = rescore(
            rd.root, pol, now=parse_now(now), labels=labels, progress=progress, judge_urls=judge_url
        )
    summary = staged.publish(summary)
    if as_json:
        typer.echo(json_text(summary))
    else:
        from trustaudit.report.summary import decision_lines

        console = out_console()
        print_summary(summary, console)
        for line in decision_lines(summary):  # which bands and calibration (no history reused)
            console.print(line, markup=False, highlight=False)
    check_accounting(summary)


def register(app: typer.Typer) -> None:
    app.command("score")(score_cmd)
