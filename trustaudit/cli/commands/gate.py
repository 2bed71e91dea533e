"""`trustaudit gate`: the CI gate — rules from the policy's [gate] table decide exit 0 (pass) or 1 (fail)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from trustaudit.cli._common import (
    err_console,
    exit_code_if_stdout_closes,
    guarded,
    out_console,
    quiet_libraries,
)
from trustaudit.errors import UsageError
from trustaudit.gate import (
    GateResult,
    evaluate_gate,
    github_annotations,
    in_github_actions,
    write_gate_json,
    write_junit,
)
from trustaudit.io.atomic import json_text
from trustaudit.io.fs import is_uri
from trustaudit.io.fs import size as fs_size
from trustaudit.io.remote_run import StagedRun
from trustaudit.io.rundir import RunDir, run_policy
from trustaudit.policy import Policy, load_policy
from trustaudit.report.escape import terminal

STATUS_STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def is_run_dir(path: str) -> bool:
    """A run directory is a folder with manifest.json; anything else is an input to audit first."""
    if is_uri(path):  # s3://bucket/runs/x: a finished run has its manifest in the store
        return fs_size(f"{path.rstrip('/')}/manifest.json") is not None
    p = Path(path)
    return p.is_dir() and (p / "manifest.json").is_file()


def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def print_gate(result: GateResult, console) -> None:  # type: ignore[no-untyped-def]
    """Human summary: each rule with status, measured value, limit and its worst offenders."""
    table = Table(title="trustaudit gate", header_style="bold", show_lines=True)
    table.add_column("rule")
    table.add_column("status")
    table.add_column("measured", justify="right")
    table.add_column("limit", justify="right")
    table.add_column("detail / worst offenders", overflow="fold")
    for r in result.rules:
        lines = [terminal(r.message)]
        if r.status in ("fail", "warn"):  # passing rules: the number is enough
            lines += [f"- {terminal(o['text'])}" for o in r.offenders[:3]]
            if r.offender_count > 3 and r.offenders:
                lines.append(f"  … {r.offender_count - 3} more in gate.json")
        limit = _fmt(r.limit)
        if r.comparison and r.limit is not None:
            limit = f"{r.comparison} {limit}"
        table.add_row(
            terminal(r.name),
            f"[{STATUS_STYLE[r.status]}]{r.status.upper()}[/]",
            _fmt(r.measured),
            limit,
            "\n".join(lines),
        )
    console.print(table)
    for note in result.notes:
        console.print(f"note: {terminal(note)}")


def _audit_first(
    inputs: list[str],
    out: Path,
    pol: Policy,
    *,
    workers: int,
    now: str | None,
    fresh: bool,
    labels: Path | None,
    cache: Path | None,
    quiet: bool,
) -> None:
    from trustaudit.cli.commands.audit import parse_now
    from trustaudit.cli.progress import RichProgress
    from trustaudit.pipeline import AuditOptions, audit

    options = AuditOptions(
        inputs=list(inputs),
        out=out,
        workers=workers if workers > 0 else (os.cpu_count() or 1),
        fresh=fresh,
        now=parse_now(now),
        labels=labels,
        cache=cache,
    )
    if quiet:
        quiet_libraries()
    with RichProgress(err_console(), quiet=quiet) as progress:
        audit(options, pol, progress=progress)


@guarded
def gate_cmd(
    target: Annotated[
        list[str],
        typer.Argument(help="A run directory, or inputs to audit first (then --out is required)."),
    ],
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            "-p",
            help="Policy TOML with a [gate] table (default: a run's recorded policy; when auditing "
            "first, ./trustaudit.toml).",
        ),
    ] = None,
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="CSV url|doc_id|domain,label: adds precision/recall rules."),
    ] = None,
    eval_dir: Annotated[
        Path | None,
        typer.Option(
            "--eval", help="A `trustaudit eval` output folder: adds its planted-source rules."
        ),
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option("--junit", help="Write a JUnit XML report here (one test case per rule)."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail the gate too.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print gate.json to stdout.")] = False,
    gate_json: Annotated[
        Path | None,
        typer.Option(
            "--gate-json", help="Where to write gate.json (default RUN/reports/gate.json)."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the verdict line.")] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Audit the inputs into this run directory first."),
    ] = None,
    allowlist: Annotated[
        list[Path] | None,
        typer.Option("--allowlist", help="When auditing: allowlist file (repeatable)."),
    ] = None,
    blocklist: Annotated[
        list[Path] | None,
        typer.Option("--blocklist", help="When auditing: blocklist file (repeatable)."),
    ] = None,
    domain_info: Annotated[
        Path | None,
        typer.Option("--domain-info", help="When auditing: CSV domain,created for domain age."),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", "-w", help="When auditing: extraction processes (0 = one per core)."
        ),
    ] = 0,
    now: Annotated[
        str | None, typer.Option("--now", help="When auditing: evaluate dates as of this ISO date.")
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="When auditing: start over, no resume.")
    ] = False,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache", help="When auditing: extraction cache shared across runs (incremental)."
        ),
    ] = None,
) -> None:
    """Check a run against the policy's [gate] rules; exit 0 pass, 1 failed, 2 usage/input, 3 internal.

    Rules: quarantined_share, medium_share, mean_trust, injection, blocklisted_domain,
    label_precision/label_recall (with --labels), cards (when RUN/cards.parquet exists).
    Writes RUN/reports/gate.json; prints GitHub annotations when GITHUB_ACTIONS=true.

    Example: trustaudit gate runs/nightly --policy trustaudit.toml --junit gate.xml --strict
    """
    from trustaudit.cli.commands.audit import build_overrides

    if out is not None:
        if any(is_run_dir(t) for t in target):
            raise UsageError(
                f"{next(t for t in target if is_run_dir(t))} is already a run directory",
                hint="drop --out to gate it, or pass the corpus inputs to audit",
            )
        pol = load_policy(policy, overrides=build_overrides(allowlist, blocklist, domain_info))
        if labels is not None and not labels.is_file():
            raise UsageError(f"labels file not found: {labels}")
        _audit_first(
            target,
            out,
            pol,
            workers=workers,
            now=now,
            fresh=fresh,
            labels=labels,
            cache=cache,
            quiet=quiet or as_json,
        )
        run_path = out
    else:
        if len(target) != 1 or not is_run_dir(target[0]):
            bad = next((t for t in target if not is_run_dir(t)), target[0])
            raise UsageError(
                f"{bad} is not a run directory (no manifest.json)",
                hint="gate a run: `trustaudit gate RUN`, or audit inputs first: "
                "`trustaudit gate INPUT... --out RUN`",
            )
        if allowlist or blocklist or domain_info or cache:
            raise UsageError("--allowlist/--blocklist/--domain-info/--cache only apply with --out")
        staged = StagedRun.pull(target[0])  # a URI run: a local copy; gate.json is pushed back
        run_path = staged.local
        pol = run_policy(RunDir.at(run_path), policy)

    run = RunDir.at(run_path)
    # The lock keeps the gate from reading a run that a (cron) audit is rewriting.
    with run.locked():
        result = evaluate_gate(run.root, pol, labels=labels, strict=strict, eval_dir=eval_dir)
        if out is None and staged.remote:
            result.run_dir = staged.location  # name the store's run, not its local copy
        json_path = write_gate_json(result, gate_json or run.report("gate.json"))
    if out is None and staged.remote:
        staged.publish()
        json_path = gate_json or f"{staged.location}/reports/gate.json"  # type: ignore[assignment]
    if junit is not None:
        write_junit(result, junit)

    exit_code_if_stdout_closes(int(result.exit_code))
    if in_github_actions(os.environ):
        lines = github_annotations(result)
        for line in lines:
            # Workflow commands are read from stdout and stderr; keep stdout pure JSON with --json.
            typer.echo(line, err=as_json)
    if as_json:
        typer.echo(json_text(result.to_dict()))
    elif quiet:
        typer.echo(result.summary_line())
    else:
        print_gate(result, out_console())
        typer.echo(f"gate.json: {json_path}" + (f"  junit: {junit}" if junit else ""))
        typer.echo(result.summary_line())
    raise typer.Exit(int(result.exit_code))


def register(app: typer.Typer) -> None:
    app.command("gate")(gate_cmd)
