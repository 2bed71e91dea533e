"""`trustaudit audit`: the main job — ingest, score and report a corpus in one command."""

from __future__ import annotations

import os
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from trustaudit.cli._common import (
    JudgeUrls,
    check_accounting,
    err_console,
    guarded,
    out_console,
    quiet_libraries,
)
from trustaudit.cli.progress import RichProgress, expected_records
from trustaudit.errors import UsageError
from trustaudit.io.atomic import json_text
from trustaudit.io.fs import normalize
from trustaudit.io.lists import check_regular_file
from trustaudit.io.remote_run import StagedRun
from trustaudit.pipeline import AuditOptions, audit
from trustaudit.policy import Policy, load_policy
from trustaudit.report.escape import terminal
from trustaudit.report.reason_text import label_for


class Engine(StrEnum):
    """Where `audit` runs its stages (docs/engines.md)."""

    local = "local"
    ray = "ray"


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
            check_regular_file(p, "anchors file")
        out["anchors"] = {"anchor_files": [str(p) for p in anchors]}
    domain: dict[str, object] = {}
    if allowlist:
        domain["allowlist_files"] = [str(p) for p in allowlist]
    if blocklist:
        domain["blocklist_files"] = [str(p) for p in blocklist]
    if domain_info:
        domain["domain_info_file"] = str(domain_info)
    for p in [*(allowlist or []), *(blocklist or []), *([domain_info] if domain_info else [])]:
        check_regular_file(p, "list file")  # a FIFO would hang, a device never end
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
            t.add_row(terminal(code), terminal(label_for(code)), str(n))
        console.print(t)
    if summary.get("top_quarantined_domains"):
        t = Table(title="top quarantined domains", header_style="bold")
        t.add_column("domain")
        t.add_column("pages", justify="right")
        for d, n in summary["top_quarantined_domains"].items():
            t.add_row(terminal(d), str(n))
        console.print(t)
    if summary.get("errors_by_code"):
        t = Table(title="errors by code", header_style="bold")
        t.add_column("code")
        t.add_column("records", justify="right")
        for code, n in summary["errors_by_code"].items():
            t.add_row(terminal(code), str(n))
        console.print(t)
    run_dir = terminal(summary.get("run_dir"))
    console.print(f"run directory: {run_dir}  (reports in {run_dir}/reports)")


@guarded
def audit_cmd(
    inputs: Annotated[
        list[str],
        typer.Argument(
            help="Folders of HTML, JSONL(.gz), WARC/ARC(.gz), Parquet files; paths or s3:// gs://"
            " URIs (docs/storage.md)."
        ),
    ],
    out: Annotated[
        str,
        typer.Option(
            "--out",
            "-o",
            help="Run directory to write (resumed when it exists); a path or an s3:// gs:// URI.",
        ),
    ],
    allowlist: Annotated[
        list[Path] | None, typer.Option("--allowlist", help="Allowlist file (repeatable).")
    ] = None,
    blocklist: Annotated[
        list[Path] | None, typer.Option("--blocklist", help="Blocklist file (repeatable).")
    ] = None,
    domain_info: Annotated[
        Path | None, typer.Option("--domain-info", help="CSV domain,created for domain age.")
    ] = None,
    anchors: Annotated[
        list[Path] | None,
        typer.Option(
            "--anchors",
            help="Extra anchor domains (list file) whose links count as anchor presence.",
        ),
    ] = None,
    policy: Annotated[
        Path | None, typer.Option("--policy", "-p", help="Policy TOML (default ./trustaudit.toml).")
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", "-w", help="Extraction processes (0 = one per core).")
    ] = 0,
    labels: Annotated[
        Path | None, typer.Option("--labels", help="CSV url|domain,label for calibration curves.")
    ] = None,
    now: Annotated[
        str | None,
        typer.Option("--now", help="Evaluate dates as of this ISO date (default today)."),
    ] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Start over instead of resuming.")] = False,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            help="Extraction cache shared across runs: unchanged pages are not re-extracted.",
        ),
    ] = None,
    since: Annotated[
        Path | None,
        typer.Option(
            "--since",
            metavar="PREV_RUN",
            help="Reuse a finished run's extraction of every input whose bytes did not change.",
        ),
    ] = None,
    judge_url: JudgeUrls = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print summary.json to stdout instead of tables.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Only the summary line (cron).")
    ] = False,
    url_map: Annotated[
        Path | None,
        typer.Option(
            "--url-map",
            help="CSV file -> URL for folder inputs (a saved-page corpus's own manifest); the mapped"
            " URL decides the page's identity and domain. Columns auto-detected (file/path/filename,"
            " url/uri/original_url) or named with the two flags below.",
        ),
    ] = None,
    url_map_file_column: Annotated[
        str | None,
        typer.Option("--url-map-file-column", help="Column of --url-map holding the file path."),
    ] = None,
    url_map_url_column: Annotated[
        str | None,
        typer.Option("--url-map-url-column", help="Column of --url-map holding the URL."),
    ] = None,
    rdap: Annotated[
        bool,
        typer.Option(
            "--rdap",
            help="Online: look up domain registration dates via RDAP (cached), then score again.",
        ),
    ] = False,
    engine: Annotated[
        Engine,
        typer.Option(
            "--engine",
            help="Where extraction runs: local (this machine's processes) or ray (Ray Data;"
            " needs the [ray] extra). The run directory is the same for both.",
        ),
    ] = Engine.local,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="With --engine ray: the cluster to join (host:port or ray://...); default starts"
            " a local Ray instance.",
        ),
    ] = None,
) -> None:
    """Score every page of a corpus and write the run directory and reports.

    Exit 0 when it ran (whatever it found), 2 on usage errors or when nothing could be read.

    Example: trustaudit audit fixtures/corpus/pages --out runs/demo --blocklist block.txt
    """
    if quiet:
        quiet_libraries()
    pol = load_policy(policy, overrides=build_overrides(allowlist, blocklist, domain_info, anchors))
    if labels is not None:
        check_regular_file(labels, "labels file")
    if ray_address and engine is not Engine.ray:
        raise UsageError("--ray-address needs --engine ray", hint="add --engine ray")
    n_workers = workers if workers > 0 else (os.cpu_count() or 1)
    inputs = [normalize(i) for i in inputs]  # file:// URIs become paths; s3:// gs:// stay URIs
    staged = StagedRun.pull(out, cache=cache)  # a URI --out: work in a local staging folder
    options = AuditOptions(
        inputs=list(inputs),
        out=staged.local,
        workers=n_workers,
        fresh=fresh,
        now=parse_now(now),
        labels=labels,
        cache=cache,
        since=since,
        judge_urls=list(judge_url or []),
        url_map=url_map,
        url_map_file_column=url_map_file_column,
        url_map_url_column=url_map_url_column,
        engine=engine.value,
        ray_address=ray_address,
    )
    require_judge(pol, judge_url)
    console = err_console()
    silent = quiet or as_json
    records = None if silent else expected_records(list(inputs))
    with RichProgress(console, quiet=silent, records=records) as progress:
        summary = audit(options, pol, progress=progress)
        if rdap:
            from trustaudit.crawl.rdap import audit_with_rdap

            summary = audit_with_rdap(
                staged.local, pol, now=options.now, labels=labels, progress=progress
            )
    summary = staged.publish(summary)  # only after success: manifest-last upload of a URI --out
    if as_json:
        typer.echo(json_text(summary))
    elif quiet:
        bands = summary.get("bands", {})
        typer.echo(
            f"trustaudit: {summary.get('pages', 0)} pages, {bands.get('quarantine', 0)} quarantined, "
            f"{summary.get('accounting', {}).get('errors', 0)} errors -> {summary.get('run_dir')}"
        )
    else:
        print_summary(summary, out_console())
    check_accounting(summary)


def register(app: typer.Typer) -> None:
    app.command("audit")(audit_cmd)


def require_judge(pol: Policy, judge_url: list[str] | None) -> None:
    """--judge-url without a configured judge is a usage error, not a silent no-op."""
    if judge_url and not pol.judge.configured:
        raise UsageError(
            "--judge-url needs a judge: set [judge] endpoint and model",
            hint="e.g. TRUSTAUDIT_JUDGE__ENDPOINT=http://127.0.0.1:8000/v1 TRUSTAUDIT_JUDGE__MODEL=m",
        )
