"""`trustaudit audit`: the main job — ingest, score and report a corpus in one command."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from trustaudit.cli._common import err_console, guarded, out_console
from trustaudit.cli.progress import RichProgress
from trustaudit.errors import UsageError
from trustaudit.pipeline import AuditOptions, audit
from trustaudit.policy import load_policy
from trustaudit.report.reason_text import label_for


def build_overrides(
    allowlist: list[Path] | None,
    blocklist: list[Path] | None,
    domain_info: Path | None,
    anchors: list[Path] | None = None,
) -> dict[str, object]:
    """Flags are the top layer of the policy (defaults < file < env < flags)."""
    out: dict[str, object] = {}
    if anchors:
        for p in anchors:
            if not p.is_file():
                raise UsageError(f"file not found: {p}")
        out["anchors"] = {"anchor_files": [str(p) for p in anchors]}
    domain: dict[str, object] = {}
    if allowlist:
        domain["allowlist_files"] = [str(p) for p in allowlist]
    if blocklist:
        domain["blocklist_files"] = [str(p) for p in blocklist]
    if domain_info:
        domain["domain_info_file"] = str(domain_info)
    for p in [*(allowlist or []), *(blocklist or []), *([domain_info] if domain_info else [])]:
        if not p.is_file():
            raise UsageError(f"file not found: {p}")
    if domain:
        out["domain"] = domain
    return out


def parse_now(now: str | None) -> date | None:
    if not now:
        return None
    try:
        return date.fromisoformat(now)
    except ValueError:
        raise UsageError(f"--now must be an ISO date (YYYY-MM-DD), got {now!r}") from None


def print_summary(summary: dict, console) -> None:  # type: ignore[no-untyped-def]
    bands = summary.get("bands", {})
    acc = summary.get("accounting", {})
    table = Table(title="trustaudit summary", show_header=True, header_style="bold")
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("inputs", str(acc.get("inputs", "-")))
    table.add_row("pages", str(acc.get("pages", "-")))
    table.add_row("errors", str(acc.get("errors", "-")))
    for band in ("trusted", "medium", "quarantine"):
        table.add_row(f"band: {band}", str(bands.get(band, 0)))
    table.add_row("mean trust", str(summary.get("mean_trust", "-")))
    console.print(table)
    if summary.get("top_reasons"):
        t = Table(title="top reasons", header_style="bold")
        t.add_column("reason")
        t.add_column("meaning")
        t.add_column("pages", justify="right")
        for code, n in list(summary["top_reasons"].items())[:10]:
            t.add_row(escape(code), escape(label_for(code)), str(n))
        console.print(t)
    if summary.get("top_quarantined_domains"):
        t = Table(title="top quarantined domains", header_style="bold")
        t.add_column("domain")
        t.add_column("pages", justify="right")
        for d, n in summary["top_quarantined_domains"].items():
            t.add_row(escape(str(d)), str(n))
        console.print(t)
    if summary.get("errors_by_code"):
        t = Table(title="errors by code", header_style="bold")
        t.add_column("code")
        t.add_column("records", justify="right")
        for code, n in summary["errors_by_code"].items():
            t.add_row(code, str(n))
        console.print(t)
    console.print(
        f"run directory: {summary.get('run_dir')}  (reports in {summary.get('run_dir')}/reports)"
    )


@guarded
def audit_cmd(
    inputs: list[str] = typer.Argument(
        ..., help="Folders of HTML, JSONL(.gz), WARC/ARC(.gz), Parquet files."
    ),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Run directory to write (resumed when it exists)."
    ),
    allowlist: list[Path] | None = typer.Option(
        None, "--allowlist", help="Allowlist file (repeatable)."
    ),
    blocklist: list[Path] | None = typer.Option(
        None, "--blocklist", help="Blocklist file (repeatable)."
    ),
    domain_info: Path | None = typer.Option(
        None, "--domain-info", help="CSV domain,created for domain age."
    ),
    anchors: list[Path] | None = typer.Option(
        None,
        "--anchors",
        help="Extra anchor domains (list file) whose links count as anchor presence.",
    ),
    policy: Path | None = typer.Option(
        None, "--policy", "-p", help="Policy TOML (default ./trustaudit.toml)."
    ),
    workers: int = typer.Option(
        0, "--workers", "-w", help="Extraction processes (0 = one per core)."
    ),
    labels: Path | None = typer.Option(
        None, "--labels", help="CSV url|domain,label for calibration curves."
    ),
    now: str | None = typer.Option(
        None, "--now", help="Evaluate dates as of this ISO date (default today)."
    ),
    fresh: bool = typer.Option(False, "--fresh", help="Start over instead of resuming."),
    cache: Path | None = typer.Option(
        None,
        "--cache",
        help="Extraction cache shared across runs: unchanged pages are not re-extracted.",
    ),
    since: Path | None = typer.Option(
        None,
        "--since",
        metavar="PREV_RUN",
        help="Reuse a finished run's extraction of every input whose bytes did not change.",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print summary.json to stdout instead of tables."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the summary line (cron)."),
    rdap: bool = typer.Option(
        False,
        "--rdap",
        help="Online: look up domain registration dates via RDAP (cached), then score again.",
    ),
) -> None:
    """Score every page of a corpus and write the run directory and reports.

    Exit 0 when it ran (whatever it found), 2 on usage errors or when nothing could be read.

    Example: trustaudit audit fixtures/corpus/pages --out runs/demo --blocklist block.txt
    """
    pol = load_policy(policy, overrides=build_overrides(allowlist, blocklist, domain_info, anchors))
    if labels is not None and not labels.is_file():
        raise UsageError(f"labels file not found: {labels}")
    n_workers = workers if workers > 0 else (os.cpu_count() or 1)
    options = AuditOptions(
        inputs=list(inputs),
        out=out,
        workers=n_workers,
        fresh=fresh,
        now=parse_now(now),
        labels=labels,
        cache=cache,
        since=since,
    )
    console = err_console()
    with RichProgress(console, quiet=quiet or as_json) as progress:
        summary = audit(options, pol, progress=progress)
        if rdap:
            from trustaudit.crawl.rdap import audit_with_rdap

            summary = audit_with_rdap(out, pol, now=options.now, labels=labels, progress=progress)
    if as_json:
        typer.echo(json.dumps(summary, indent=2, ensure_ascii=False, default=str))
    elif quiet:
        bands = summary.get("bands", {})
        typer.echo(
            f"trustaudit: {summary.get('pages', 0)} pages, {bands.get('quarantine', 0)} quarantined, "
            f"{summary.get('accounting', {}).get('errors', 0)} errors -> {summary.get('run_dir')}"
        )
    else:
        print_summary(summary, out_console())


def register(app: typer.Typer) -> None:
    app.command("audit")(audit_cmd)
