"""`trustaudit explain`: why one page got its score."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from trustaudit.cli._common import guarded, out_console
from trustaudit.io.atomic import json_text
from trustaudit.io.remote_run import staged_run
from trustaudit.io.rundir import RunDir
from trustaudit.report.escape import cut_text, terminal

SNIPPET_CHARS = 300


def _v(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return terminal(x)


@guarded
def explain_cmd(
    run_dir: Annotated[
        str,
        typer.Argument(metavar="RUN", help="Run directory (or s3:// gs:// URI) written by audit."),
    ],
    url: Annotated[
        str,
        typer.Argument(
            metavar="URL", help="The page: its URL (exact or normalized) or its doc_id."
        ),
    ],
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy",
            "-p",
            help="Policy TOML whose settings replace the run's recorded ones; its lists are added "
            "(default: the policy recorded in the run).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the explanation as JSON.")] = False,
) -> None:
    """Print a page's score, band, each sub-score with its weight and contribution, every raw
    signal and the reasons.

    Example: trustaudit explain runs/demo https://example.org/article --json
    """
    from trustaudit.io.rundir import run_policy
    from trustaudit.report.explain import explain_page

    with staged_run(run_dir, upload=False, must_exist=True) as local:  # a URI: a temp copy
        run = RunDir.at(local)
        run.require("scores.parquet")
        data = explain_page(run, url, run_policy(run, policy))
    if as_json:
        typer.echo(json_text(data))
        return
    print_explanation(data)


def print_explanation(data: dict[str, Any]) -> None:
    """Rich tables: headline, sub-scores, adjustments, reasons, raw signals."""
    console = out_console()
    band = str(data.get("band"))
    color = {"quarantine": "red", "medium": "yellow", "trusted": "green"}.get(band, "white")
    page = data.get("page") or {}
    console.print(f"[bold]{_v(data['url'])}[/bold]  (doc_id {_v(data['doc_id'])})")
    if page.get("title"):
        console.print(f"title: {_v(page['title'])}")
    hard = (
        f"  hard rule: {terminal(', '.join(data['hard_rules']))}" if data["hard_quarantine"] else ""
    )
    console.print(
        f"trust [bold]{_v(data['trust_score'])}[/bold]  band [{color}]{terminal(band)}[/{color}]"
        f"  (quarantine < {data['bands']['quarantine_below']}, trusted >= "
        f"{data['bands']['trusted_from']}){hard}"
    )
    t = Table(title="score", header_style="bold")
    for col in ("part", "value", "weight", "contribution"):
        t.add_column(col, justify="left" if col == "part" else "right")
    for s in data["sub_scores"]:
        note = "" if s["computed"] else " (neutral)"
        t.add_row(
            terminal(s["name"]) + note, _v(s["value"]), _v(s["weight"]), _v(s["contribution"])
        )
    t.add_row("= base (rounded)", _v(data["trust_score_base"]), "", "")
    for a in data["adjustments"]:
        t.add_row(terminal(a["name"]), "", "", _v(a["value"]))
    if data.get("capped"):
        t.add_row("= reference", _v(data["reference_score"]), "", "")
        t.add_row(f"capped: hard rule (cap {data['hard_rule_cap']})", "", "", "")
    t.add_row("[bold]= trust[/bold]", _v(data["trust_score"]), "", "")
    console.print(t)
    if data["reasons"]:
        r = Table(title="reasons", header_style="bold")
        r.add_column("code")
        r.add_column("why")
        for reason in data["reasons"]:
            r.add_row(terminal(reason["code"]), terminal(reason["text"]))
        console.print(r)
    findings = page.get("injection_findings") or []
    if findings:
        f = Table(title="injection findings", header_style="bold")
        # obfuscation/decoded/quoted/intent/lang: absent from runs made before the scanner recorded them
        cols = ["technique", "location", "rule", "snippet"]
        cols += [
            k
            for k in ("intent", "lang", "obfuscation", "decoded", "quoted")
            if any(x.get(k) for x in findings)
        ]
        for col in cols:
            f.add_column(col)
        for x in findings[:10]:
            # page text cut on a word, no dangling `</` (escape.cut_text), then made inert
            f.add_row(
                *(
                    terminal(cut_text(x.get(k), SNIPPET_CHARS))
                    if k in ("snippet", "decoded") and x.get(k)
                    else _v(x.get(k))
                    for k in cols
                )
            )
        console.print(f)
    s = Table(title="raw signals", header_style="bold")
    s.add_column("signal")
    s.add_column("value", justify="right")
    for k, v in data["signals"].items():
        s.add_row(terminal(k), _v(v))
    console.print(s)


def register(app: typer.Typer) -> None:
    app.command("explain")(explain_cmd)
