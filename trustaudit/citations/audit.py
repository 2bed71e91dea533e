"""The two library entry points the CLI calls: audit transcripts, check cards; and their writers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.citations.cards import (
    Embedder,
    cards_frame,
    cards_summary,
    check_cards,
    read_cards,
)
from trustaudit.citations.enrich import enrich_rows
from trustaudit.citations.judge import Judge
from trustaudit.citations.provenance import audit_turns
from trustaudit.citations.run import RunIndex, check_run_dir, merge_summary, table_files
from trustaudit.citations.schema import read_turns
from trustaudit.errors import NothingReadError, UsageError
from trustaudit.io.atomic import write_json, write_parquet
from trustaudit.io.records import ErrorRow, errors_table
from trustaudit.policy.citations import CitationsPolicy

DROPPED = frozenset({"JSON_DECODE", "NOT_AN_OBJECT", "EMPTY_TURN"})

CITATION_SCHEMA: dict[str, Any] = {
    "turn_id": pl.String,
    "line": pl.Int64,
    "doc_id": pl.String,
    "cited_as": pl.List(pl.String),
    "retrieved": pl.Boolean,
    "cited": pl.Boolean,
    "consulted": pl.Boolean,
    "kinds": pl.List(pl.String),
    "tools": pl.List(pl.String),
    "span": pl.String,
    "fabricated": pl.Boolean,
    "likely_meant": pl.String,
    "likely_meant_distance": pl.Int32,
    "reasons": pl.List(pl.String),
    "reason_details": pl.List(pl.String),
    "run_doc_id": pl.String,
    "source_url": pl.String,
    "source_license": pl.String,
    "trust_score": pl.Float64,
    "band": pl.String,
    "relevance": pl.Float64,
    "score_scale": pl.String,
}
TURN_SCHEMA: dict[str, Any] = {
    "turn_id": pl.String,
    "line": pl.Int64,
    "question": pl.String,
    "answer_chars": pl.Int64,
    "retrieved": pl.List(pl.String),
    "cited": pl.List(pl.String),
    "consulted": pl.List(pl.String),
    "fabricated": pl.List(pl.String),
    "n_retrieved": pl.Int64,
    "n_cited": pl.Int64,
    "n_consulted": pl.Int64,
    "concrete": pl.Boolean,
    "doc_gap": pl.Boolean,
    "reasons": pl.List(pl.String),
    "reason_details": pl.List(pl.String),
}


def _frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
    if not rows:
        return pl.DataFrame(schema=schema)
    return pl.DataFrame([{k: r.get(k) for k in schema} for r in rows], schema=schema, orient="row")


@dataclass
class CitationAudit:
    """citations (one row per turn x document), turns (one row per turn), errors, summary counts."""

    citations: pl.DataFrame
    turns: pl.DataFrame
    errors: list[ErrorRow]
    summary: dict[str, Any]


@dataclass
class CardAudit:
    cards: pl.DataFrame
    errors: list[ErrorRow]
    summary: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def _count(df: pl.DataFrame, code: str) -> int:
    if df.is_empty():
        return 0
    return int(df.select(pl.col("reasons").list.contains(code).sum()).item())


def audit_citations(
    transcripts: str | Path, policy: CitationsPolicy, *, run_dir: str | Path | None = None
) -> CitationAudit:
    """Parse transcripts, compute provenance sets and flags, enrich from the run when given.

    Raises UsageError when the file cannot be read, NothingReadError when no line is a usable turn;
    bad lines otherwise become error rows.
    """
    path = Path(transcripts)
    if not path.is_file():
        raise UsageError(
            f"transcripts file not found: {path}", hint="pass a JSONL file, one turn a line"
        )
    run = check_run_dir(run_dir) if run_dir is not None else None
    turns, errors = read_turns(path, policy)
    if not turns:
        raise NothingReadError(
            f"no usable turn in {path} ({len(errors)} error(s))",
            hint="see the README section 'Auditing what agents did with the sources' for the accepted shapes",
        )
    rows, turn_rows = audit_turns(turns, policy)
    index = None
    if run is not None:
        refs = [(str(r["doc_id"]), r.get("_tool_url")) for r in rows]
        refs += [(c, None) for r in rows for c in r.get("cited_as") or []]
        index = RunIndex.load(run, refs)
    rows, info = enrich_rows(rows, index)
    cdf = _frame(rows, CITATION_SCHEMA)
    tdf = _frame(turn_rows, TURN_SCHEMA)
    cited = cdf.filter(pl.col("cited")) if not cdf.is_empty() else cdf
    summary = {
        "turns": tdf.height,
        "input_errors": sum(1 for e in errors if e.code in DROPPED),
        "warnings": sum(1 for e in errors if e.code not in DROPPED),
        "citations": cited.height,
        "fabricated_citations": _count(cdf, "FABRICATED_CITATION"),
        "fabricated_with_likely_id": int(cdf["likely_meant"].is_not_null().sum())
        if cdf.height
        else 0,
        "listing_only_citations": _count(cdf, "LISTING_ONLY_CITED"),
        "consulted_not_cited": _count(cdf, "CONSULTED_NOT_CITED"),
        "turns_without_sources": int(tdf["doc_gap"].sum()),
        "turns_no_consulted": int((tdf["n_consulted"] == 0).sum()),
        "quarantined_sources_cited": _count(cdf, "CITED_QUARANTINED"),
        "medium_sources_cited": _count(cdf, "CITED_MEDIUM"),
        "quarantined_sources_consulted": _count(cdf, "CONSULTED_QUARANTINED"),
        "run": str(run) if run is not None else None,
        "matched_in_run": int(cdf["run_doc_id"].is_not_null().sum()) if cdf.height else 0,
        "relevance_scale": info["relevance_scale"],
        "relevance_note": info["relevance_note"],
        "enrich_errors": info["enrich_errors"],
        "run_warnings": index.warnings if index is not None else [],
    }
    return CitationAudit(cdf, tdf, errors, summary)


def write_citations(result: CitationAudit, out_dir: str | Path, *, is_run: bool) -> list[Path]:
    """citations.parquet, citation_turns.parquet, citations_errors.parquet; summary into the run.

    In a run folder the counts go to reports/summary.json["citations"]; elsewhere to
    citations_summary.json, so a plain --out folder never grows a half run layout.
    """
    out = Path(out_dir)
    paths = [
        out / "citations.parquet",
        out / "citation_turns.parquet",
        out / "citations_errors.parquet",
    ]
    write_parquet(paths[0], result.citations)
    write_parquet(paths[1], result.turns)
    write_parquet(paths[2], errors_table(result.errors))
    if is_run:
        paths.append(merge_summary(out, "citations", result.summary))
    else:
        paths.append(out / "citations_summary.json")
        write_json(paths[-1], result.summary)
    return paths


def audit_cards(
    cards_path: str | Path,
    run_dir: str | Path,
    policy: CitationsPolicy,
    *,
    embedder: Embedder | None,
    judge: Judge | None = None,
) -> CardAudit:
    """Check every card of a JSONL file against the run; see `cards.check_cards` for the rules."""
    path = Path(cards_path)
    if not path.is_file():
        raise UsageError(f"cards file not found: {path}", hint="pass a JSONL file, one card a line")
    run = check_run_dir(run_dir)
    cards, errors = read_cards(path)
    if not cards:
        raise NothingReadError(f"no usable card in {path} ({len(errors)} error(s))")
    index = RunIndex.load(
        run, [(c.source_ref, None) for c in cards if c.source_ref], with_text=True
    )
    rows = check_cards(cards, index, policy, embedder=embedder, judge=judge)
    summary = cards_summary(rows, len(errors))
    if judge is not None:
        summary["judge_calls"], summary["judge_cache_hits"] = judge.calls, judge.cache_hits
    return CardAudit(cards_frame(rows), errors, summary, index.warnings)


def write_cards(result: CardAudit, out_dir: str | Path, *, is_run: bool) -> list[Path]:
    """cards.parquet, cards_errors.parquet; counts into reports/summary.json["cards"] in a run."""
    out = Path(out_dir)
    paths = [out / "cards.parquet", out / "cards_errors.parquet"]
    write_parquet(paths[0], result.cards)
    write_parquet(paths[1], errors_table(result.errors))
    if is_run:
        paths.append(merge_summary(out, "cards", result.summary))
    else:
        paths.append(out / "cards_summary.json")
        write_json(paths[-1], result.summary)
    return paths


def citation_results_summary(run_dir: str | Path) -> dict[str, Any]:
    """Citation counts of a run for the gate, recomputed from RUN/citations.parquet; never raises."""
    keys = ("fabricated_citations", "listing_only_citations", "quarantined_sources_cited",
            "medium_sources_cited", "turns_without_sources")  # fmt: skip
    out: dict[str, Any] = {"present": False, "citations": 0, **dict.fromkeys(keys, 0)}
    run = Path(run_dir)
    files = table_files(run, "citations")
    if not files:
        return out
    try:
        cdf = pl.read_parquet([str(f) for f in files], glob=False)
        out.update(
            present=True,
            citations=int(cdf["cited"].sum()),
            fabricated_citations=_count(cdf, "FABRICATED_CITATION"),
            listing_only_citations=_count(cdf, "LISTING_ONLY_CITED"),
            quarantined_sources_cited=_count(cdf, "CITED_QUARANTINED"),
            medium_sources_cited=_count(cdf, "CITED_MEDIUM"),
        )
        tfiles = table_files(run, "citation_turns")
        if tfiles:
            out["turns_without_sources"] = int(
                pl.read_parquet([str(f) for f in tfiles], glob=False)["doc_gap"].sum()
            )
    except Exception as exc:
        out.update(present=False, error=f"citations.parquet unreadable: {type(exc).__name__}")
    return out


__all__: Sequence[str] = (
    "CardAudit",
    "CitationAudit",
    "audit_cards",
    "audit_citations",
    "citation_results_summary",
    "write_cards",
    "write_citations",
)
