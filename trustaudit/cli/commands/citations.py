"""`trustaudit citations` and `trustaudit cards`: audit what agents did with the sources."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer

from trustaudit.cli._common import err_console, guarded, out_console
from trustaudit.errors import UsageError
from trustaudit.io.atomic import json_text
from trustaudit.policy import Policy, load_policy
from trustaudit.report.escape import terminal

SHOW_DEFAULT = 20


def make_embedder(policy: Policy) -> Any:
    """The fast static embedder; None (cards then skip similarity, say so) when unavailable.

    A module-level seam so tests can inject a deterministic embedder.
    """
    try:
        from trustaudit.embed import get_embedder
    except ImportError:
        return None
    return get_embedder(policy.embeddings, accurate=False)


def _print_flagged(df: pl.DataFrame, id_col: str, limit: int) -> None:
    console = out_console()
    flagged = df.filter(pl.col("reason_details").list.len() > 0) if df.height else df
    for row in flagged.head(limit).iter_rows(named=True):
        for detail in row["reason_details"]:
            console.print(f"{terminal(row[id_col])}\t{terminal(detail)}")
    if flagged.height > limit:
        console.print(f"… {flagged.height - limit} more (see the Parquet output)", markup=False)


def _counts_line(summary: dict[str, Any], keys: tuple[str, ...]) -> str:
    return ", ".join(f"{k.replace('_', ' ')}: {summary.get(k)}" for k in keys)


def citations_cmd(
    transcripts: Annotated[
        Path, typer.Argument(help="JSONL, one agent turn a line (schema in the README).")
    ],
    run: Annotated[
        Path | None, typer.Option("--run", "-r", help="Run folder: trust, band, license, URL.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output folder (default: the --run folder).")
    ] = None,
    policy: Annotated[
        Path | None, typer.Option("--policy", "-p", help="Policy TOML (default ./trustaudit.toml).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary counts as JSON.")
    ] = False,
    show: Annotated[
        int, typer.Option("--show", help="Flagged rows to print (0: none).")
    ] = SHOW_DEFAULT,
) -> None:
    """Provenance audit of agent answers: retrieved, cited and consulted sources per turn.

    Flags fabricated citations (with the retrieved ID they most likely meant), listing-only citations,
    concrete questions answered without a consulted source, and citations of quarantined or medium
    pages. Writes citations.parquet, citation_turns.parquet and citations_errors.parquet.

    Example: trustaudit citations agent_turns.jsonl --run runs/nightly
    """
    from trustaudit.citations import audit_citations, write_citations

    if run is None and out is None:
        raise UsageError(
            "give --run RUN or --out DIR", hint="without a run, citations get no trust fields"
        )
    p = load_policy(policy)
    result = audit_citations(transcripts, p.citations, run_dir=run)
    target = out if out is not None else run
    assert target is not None
    is_run = run is not None and target.resolve() == run.resolve()
    paths = write_citations(result, target, is_run=is_run)
    s = result.summary
    if as_json:
        typer.echo(json_text(s))
    else:
        if show:
            _print_flagged(result.citations, "turn_id", show)
            _print_flagged(result.turns.filter(pl.col("doc_gap")), "turn_id", show)
        keys = ("turns", "citations", "fabricated_citations", "listing_only_citations",
                "turns_without_sources", "quarantined_sources_cited", "medium_sources_cited")  # fmt: skip
        typer.echo(_counts_line(s, keys))
    err = err_console()
    if s["input_errors"] or s["warnings"]:
        err.print(
            f"{s['input_errors']} line(s) skipped, {s['warnings']} warning(s): see {paths[2]}",
            markup=False,
        )
    for w in s.get("run_warnings") or []:
        err.print(f"warning: {terminal(w)}")
    err.print(f"wrote {', '.join(str(x) for x in paths)}", markup=False)


def cards_cmd(
    cards: Annotated[
        Path, typer.Argument(help="JSONL, one card a line: card_id, text, source_url.")
    ],
    run: Annotated[
        Path, typer.Option("--run", "-r", help="Run folder holding the sources' text and trust.")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output folder (default: the --run folder).")
    ] = None,
    policy: Annotated[
        Path | None, typer.Option("--policy", "-p", help="Policy TOML (default ./trustaudit.toml).")
    ] = None,
    min_similarity: Annotated[
        float | None, typer.Option("--min-similarity", help="Override the policy threshold.")
    ] = None,
    judge_endpoint: Annotated[
        str | None,
        typer.Option(
            "--judge-endpoint",
            help="OpenAI-compatible base URL; enables the judge for borderline cards.",
        ),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Model name for the judge.")
    ] = None,
    judge_budget: Annotated[
        int | None, typer.Option("--judge-budget", help="Most judge requests (cache hits free).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary counts as JSON.")
    ] = False,
    show: Annotated[
        int, typer.Option("--show", help="Failing cards to print (0: none).")
    ] = SHOW_DEFAULT,
) -> None:
    """Check KB cards against their sources in the run.

    A card fails when its source is missing from the run or quarantined, when a number, amount, date,
    percentage or ID in it does not appear in the source (in any format), or when it is not similar
    enough to the source's best paragraphs. Writes cards.parquet and cards_errors.parquet.

    Example: trustaudit cards kb_cards.jsonl --run runs/nightly

    With a judge: add --judge-endpoint http://127.0.0.1:8000/v1 --judge-model NAME
    """
    from trustaudit.citations import Judge, audit_cards, write_cards

    overrides: dict[str, Any] = {}
    if min_similarity is not None:
        overrides["card_min_similarity"] = min_similarity
    if judge_endpoint:
        overrides.update(judge_enabled=True, judge_endpoint=judge_endpoint)
    if judge_model:
        overrides["judge_model"] = judge_model
    if judge_budget is not None:
        overrides["judge_max_calls"] = judge_budget
    p = load_policy(policy, overrides={"citations": overrides} if overrides else None)
    c = p.citations
    if c.judge_enabled and not (c.judge_endpoint and c.judge_model):
        raise UsageError(
            "the judge needs both an endpoint and a model",
            hint="pass --judge-endpoint and --judge-model",
        )
    embedder = make_embedder(p)
    err = err_console()
    if embedder is None:
        err.print(
            "warning: no embedder available (trustaudit.embed); similarity not checked",
            markup=False,
        )
    judge = Judge.from_policy(c)
    result = audit_cards(cards, run, c, embedder=embedder, judge=judge)
    target = out if out is not None else run
    paths = write_cards(result, target, is_run=target.resolve() == run.resolve())
    s = result.summary
    if as_json:
        typer.echo(json_text(s))
    else:
        if show:
            _print_flagged(result.cards.filter(~pl.col("passed")), "card_id", show)
        typer.echo(_counts_line(s, ("cards", "passed", "failing", "borderline", "judged")))
    if result.errors:
        err.print(f"{len(result.errors)} card line(s) with errors: see {paths[1]}", markup=False)
    for w in result.warnings:
        err.print(f"warning: {terminal(w)}")
    err.print(f"wrote {', '.join(str(x) for x in paths)}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("citations")(guarded(citations_cmd))
    app.command("cards")(guarded(cards_cmd))
