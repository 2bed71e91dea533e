"""Write an eval: eval.parquet, eval_summary.parquet, eval.json (with the gate rules), eval.md and
eval.html (a self-contained section report.html can include)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.evals.run import EvalResult
from trustaudit.gate.model import RuleResult
from trustaudit.io.atomic import write_json, write_parquet, write_text
from trustaudit.report.escape import html_text, md

COLUMNS = (
    ("kind", "kind"),
    ("results", "results"),
    ("in_context", "in context (untagged)"),
    ("tagged_medium", "tagged medium"),
    ("filtered", "filtered"),
    ("in_context_rate", "in-context rate"),
    ("cited", "cited"),
    ("with_transcript", "with transcript"),
)


def _cell(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.1%}"
    return str(v)


def markdown(result: EvalResult, rules: list[RuleResult]) -> str:
    """The eval as a Markdown section: per-kind table, then the gate rules."""
    lines = [
        "## Planted-source eval",
        "",
        f"{result.queries} queries, {result.rows.height} results. Outcome = what `fuse` does: "
        "filtered out of the context, kept with the medium-trust tag, or kept untagged.",
        "",
        "| " + " | ".join(label for _, label in COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for r in result.summary.to_dicts():
        lines.append("| " + " | ".join(md(_cell(r[c])) for c, _ in COLUMNS) + " |")
    lines += ["", "| rule | status | measured | limit |", "|---|---|---|---|"]
    for rule in rules:
        m = "–" if rule.measured is None else f"{rule.measured:.3f}"
        lim = "–" if rule.limit is None else f"{rule.limit:.3f}"
        lines.append(f"| `{rule.name}` | {rule.status} | {m} | {lim} |")
    for w in result.warnings:
        lines.append(f"\n> {md(w)}")
    return "\n".join(lines) + "\n"


def html_section(result: EvalResult, rules: list[RuleResult]) -> str:
    """The same content as an HTML <section> (all text escaped)."""
    head = "".join(f"<th>{html_text(label)}</th>" for _, label in COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{html_text(_cell(r[c]))}</td>" for c, _ in COLUMNS) + "</tr>"
        for r in result.summary.to_dicts()
    )
    gate = "".join(
        f'<tr class="{html_text(r.status)}"><td><code>{html_text(r.name)}</code></td>'
        f"<td>{html_text(r.status)}</td><td>{html_text(r.message)}</td></tr>"
        for r in rules
    )
    return (
        '<section id="planted-eval"><h2>Planted-source eval</h2>'
        f"<p>{result.queries} queries, {result.rows.height} results.</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        f"<table><thead><tr><th>rule</th><th>status</th><th>message</th></tr></thead>"
        f"<tbody>{gate}</tbody></table></section>"
    )


def write_eval(result: EvalResult, rules: list[RuleResult], out: Path) -> list[Path]:
    """Write the five files under `out` (created); returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [
        out / n
        for n in ("eval.parquet", "eval_summary.parquet", "eval.json", "eval.md", "eval.html")
    ]
    write_parquet(paths[0], result.rows)
    write_parquet(paths[1], result.summary)
    write_json(
        paths[2],
        {
            "run_id": result.run_id,
            "queries": result.queries,
            "results": result.rows.height,
            "summary": result.summary.to_dicts(),
            "gate": [r.to_dict() for r in rules],
            "failed": [r.name for r in rules if r.status == "fail"],
            "warnings": result.warnings,
        },
    )
    write_text(paths[3], markdown(result, rules))
    page = (
        '<!doctype html><html><head><meta charset="utf-8"><title>trustaudit eval</title>'
        "<style>body{font-family:sans-serif}td,th{padding:2px 8px;text-align:right}"
        "tr.fail{background:#fdd}</style></head><body>"
        f"{html_section(result, rules)}</body></html>\n"
    )
    write_text(paths[4], page)
    return paths


def read_summary(out: Path) -> pl.DataFrame:
    """eval_summary.parquet of an eval folder (for `gate` given an eval)."""
    return pl.read_parquet(out / "eval_summary.parquet", glob=False)
