"""`trustaudit diff`: what moved between two runs (nightly drift); exit 1 only on --fail-on conditions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from trustaudit.cli._common import exit_code_if_stdout_closes, guarded, out_console
from trustaudit.diff import (
    FAIL_ON_DEFAULTS,
    check_fail_on,
    diff_runs,
    parse_fail_on,
    write_diff,
)
from trustaudit.errors import UsageError
from trustaudit.exit_codes import ExitCode
from trustaudit.gate.rules import load_run
from trustaudit.io.atomic import json_text
from trustaudit.report.escape import terminal


def print_diff(diff: dict[str, Any], console, top: int = 10) -> None:  # type: ignore[no-untyped-def]
    """Rich tables: the headline numbers, then the first rows of each change list."""
    o, n, d = diff["old"], diff["new"], diff["distribution"]
    t = Table(title="trustaudit diff", header_style="bold")
    t.add_column("what")
    t.add_column("old", justify="right")
    t.add_column("new", justify="right")
    t.add_row("pages", str(o["pages"]), str(n["pages"]))
    for band in ("quarantine", "medium", "trusted"):
        t.add_row(f"band: {band}", str(o["bands"][band]), str(n["bands"][band]))
    for k in ("mean", "p05", "p50", "p95"):
        t.add_row(f"trust {k}", str(d["old"][k]), str(d["new"][k]))
    console.print(t)
    inj = diff["new_injections"]
    c = Table(header_style="bold", title="changes")
    c.add_column("change")
    c.add_column("count", justify="right")
    c.add_row("pages added / removed", f"{diff['pages']['added']} / {diff['pages']['removed']}")
    c.add_row("new quarantines", str(diff["new_quarantines"]["count"]))
    c.add_row("resolved quarantines", str(diff["resolved_quarantines"]["count"]))
    c.add_row("band changes", str(diff["band_changes"]["count"]))
    c.add_row(
        f"domains moved > {diff['domain_shifts']['threshold']}", str(diff["domain_shifts"]["count"])
    )
    c.add_row("new injection findings", str(inj["count"]) if inj["available"] else "n/a")
    c.add_row("score shift: mean delta / PSI / KS", f"{d['mean_delta']} / {d['psi']} / {d['ks']}")
    console.print(c)
    for key, title in (("new_quarantines", "new quarantines"), ("band_changes", "band changes")):
        items = diff[key]["items"][:top]
        if not items:
            continue
        pt = Table(title=title, header_style="bold")
        for col in ("url", "band old", "band new", "trust old", "trust new"):
            pt.add_column(col, overflow="fold")
        for it in items:
            pt.add_row(
                terminal(it["url"]),
                terminal(it["band_old"]),
                terminal(it["band_new"]),
                str(it["trust_old"]),
                str(it["trust_new"]),
            )
        console.print(pt)
    if diff["domain_shifts"]["items"]:
        dt = Table(title="domains whose mean trust moved", header_style="bold")
        for col in ("domain", "old mean", "new mean", "delta"):
            dt.add_column(col)
        for it in diff["domain_shifts"]["items"][:top]:
            dt.add_row(
                terminal(it["registered_domain"]),
                str(it["old_mean"]),
                str(it["new_mean"]),
                f"{it['delta']:+.3f}",
            )
        console.print(dt)


def summary_line(diff: dict[str, Any], held: list[str]) -> str:
    d = diff["distribution"]
    verdict = f"FAILED ({', '.join(held)})" if held else "ok"
    return (
        f"trustaudit diff: {diff['new_quarantines']['count']} new quarantine(s), "
        f"{diff['resolved_quarantines']['count']} resolved, {diff['band_changes']['count']} band "
        f"change(s), {diff['domain_shifts']['count']} domain(s) moved, mean delta {d['mean_delta']}"
        f" -> {verdict}"
    )


@guarded
def diff_cmd(
    old_run: Annotated[Path, typer.Argument(help="The earlier run directory (e.g. last night).")],
    new_run: Annotated[Path, typer.Argument(help="The later run directory.")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Folder for diff.md and diff.json (default NEW_RUN/reports)."
        ),
    ] = None,
    fail_on: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when a condition holds: NAME or NAME>N, comma-separated or repeated. Names: "
            + ", ".join(f"{k} (default >{v:g})" for k, v in FAIL_ON_DEFAULTS.items())
            + ".",
        ),
    ] = None,
    domain_threshold: Annotated[
        float,
        typer.Option(
            "--domain-threshold", help="Report domains whose mean trust moved more than this."
        ),
    ] = 0.1,
    top: Annotated[
        int, typer.Option("--top", help="Rows kept per change list in diff.json/diff.md.")
    ] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="Print diff.json to stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary line.")] = False,
) -> None:
    """Compare two runs: new/resolved quarantines, band changes, domain moves, injections, score shift.

    Exit 0 whatever changed, unless a --fail-on condition holds (exit 1); 2 on usage or input errors.

    Example: trustaudit diff runs/2026-10-31 runs/2026-11-01 --fail-on 'new-quarantine,band-change>20'
    """
    conditions = parse_fail_on(fail_on or [])
    if not 0.0 <= domain_threshold <= 1.0:
        raise UsageError("--domain-threshold must be between 0 and 1")
    if top < 0:
        raise UsageError("--top must be >= 0")
    new_tables = load_run(new_run)
    diff = diff_runs(load_run(old_run), new_tables, domain_threshold=domain_threshold, top=top)
    verdict = check_fail_on(diff, conditions)
    diff["fail_on"] = verdict
    target = out if out is not None else new_tables.run.reports
    if out is None:
        # Writing into the new run: never while an audit is rewriting it.
        with new_tables.run.locked():
            md, js = write_diff(diff, target)
    else:
        md, js = write_diff(diff, target)
    exit_code_if_stdout_closes(ExitCode.GATE_FAILED if verdict["held"] else ExitCode.OK)
    if as_json:
        typer.echo(json_text(diff))
    elif quiet:
        typer.echo(summary_line(diff, verdict["held"]))
    else:
        print_diff(diff, out_console())
        typer.echo(f"diff.md: {md}  diff.json: {js}")
        typer.echo(summary_line(diff, verdict["held"]))
    raise typer.Exit(int(ExitCode.GATE_FAILED if verdict["held"] else ExitCode.OK))


def register(app: typer.Typer) -> None:
    app.command("diff")(diff_cmd)
