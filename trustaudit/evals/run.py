"""`trustaudit eval`: run queries with planted sources through `fuse` and count what got through.

Input: a queries file (JSONL: `query`, optional `query_id`, `results`: [{`url` or `doc_id`,
`relevance`, `planted`: kind or null}]) and a run; optionally agent transcripts in the `citations`
format. Each result's outcome is what `fuse` (trustaudit/fusion.py, same policy) does with it:
`filtered` (left out of the context), `tagged_medium` (kept with the medium-trust tag) or
`in_context` (kept untagged). Transcripts say whether the agent cited it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.citations.schema import doc_key, read_turns
from trustaudit.errors import RunDirError, UsageError
from trustaudit.fusion import fuse_results
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy

OUTCOMES = ("in_context", "tagged_medium", "filtered")
CLEAN = "clean"
PLANTED = "planted"

ROWS_SCHEMA: dict[str, Any] = {
    "_i": pl.Int64,
    "query_id": pl.String,
    "query": pl.String,
    "ref": pl.String,
    "relevance": pl.Float64,
    "planted": pl.String,
}


@dataclass
class EvalQueries:
    """One row per result (ROWS_SCHEMA), and the input lines that were not usable."""

    rows: pl.DataFrame
    bad: list[str] = field(default_factory=list)
    queries: int = 0


@dataclass
class EvalResult:
    """eval.parquet rows, the per-kind summary, and warnings met on the way."""

    rows: pl.DataFrame
    summary: pl.DataFrame
    warnings: list[str] = field(default_factory=list)
    queries: int = 0
    run_id: str | None = None  # the run whose trust was used (report.html warns on another run's)


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def _parse_query(obj: Any, n: int, out: list[dict[str, Any]]) -> str | None:
    """Append one query's results to `out`; the reason when the line is not usable."""
    if not isinstance(obj, dict):
        return "not a JSON object"
    query = obj.get("query")
    if not isinstance(query, str) or not query.strip():
        return "needs a non-empty string `query`"
    qid = obj.get("query_id")
    qid = str(qid).strip() if isinstance(qid, str | int) and not isinstance(qid, bool) else ""
    qid = qid or f"q{n:05d}"  # fuse refuses an empty query_id: the row would lose its decision
    results = obj.get("results")
    if not isinstance(results, list) or not results:
        return "needs a non-empty list `results`"
    rows = []
    for i, r in enumerate(results):
        if not isinstance(r, dict):
            return f"result {i}: not an object"
        ref = r.get("url") if isinstance(r.get("url"), str) else r.get("doc_id")
        if not isinstance(ref, str) or not ref.strip():
            return f"result {i}: needs `url` or `doc_id`"
        rel = _number(r.get("relevance"))
        if rel is None:
            return f"result {i}: `relevance` must be a finite number"
        planted = r.get("planted")
        if planted is not None and (not isinstance(planted, str) or not planted.strip()):
            return f"result {i}: `planted` must be a kind (string) or null"
        if isinstance(planted, str) and planted.strip() in (CLEAN, PLANTED):
            # the summary's own rows: a kind of that name would be counted twice by the gate
            return f"result {i}: `planted` {planted.strip()!r} is reserved (null = a clean result)"
        rows.append(
            {
                "query_id": qid,
                "query": query,
                "ref": ref.strip(),
                "relevance": rel,
                "planted": planted.strip() if planted else None,
            }
        )
    out.extend(rows)
    return None


def read_queries(path: str | Path) -> EvalQueries:
    """The queries file -> one row per result; a bad line is reported and skipped."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise UsageError(f"queries file not found: {p}") from None
    except IsADirectoryError:
        raise UsageError(f"queries file is a directory: {p}") from None
    rows: list[dict[str, Any]] = []
    bad: list[str] = []
    queries = 0
    for n, line in enumerate(text.lstrip("\ufeff").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            bad.append(f"line {n}: not JSON ({exc.msg if hasattr(exc, 'msg') else exc})")
            continue
        why = _parse_query(obj, n, rows)
        if why:
            bad.append(f"line {n}: {why}")
        else:
            queries += 1
    frame = pl.DataFrame(
        [{"_i": i, **r} for i, r in enumerate(rows)], schema=ROWS_SCHEMA, orient="row"
    )
    return EvalQueries(frame, bad, queries)


def _fuse_input(rows: pl.DataFrame) -> str:
    """Fusion's input lines: the query id groups, the reference goes where fuse reads a URL."""
    lines = rows.select(
        pl.struct(
            query_id=pl.col("query_id"), url=pl.col("ref"), relevance=pl.col("relevance")
        ).struct.json_encode()
    ).to_series()
    return "\n".join(lines.to_list()) + "\n"


def _cited(
    rows: pl.DataFrame, transcripts: Path | None, policy: Policy
) -> tuple[pl.Series, list[str]]:
    """Per row: True/False when a transcript turn answers its query, else null."""
    if transcripts is None:
        return pl.Series("cited", [None] * rows.height, dtype=pl.Boolean), []
    if not transcripts.is_file():
        raise UsageError(f"transcripts file not found: {transcripts}")
    turns, errors = read_turns(transcripts, policy.citations)
    by_query: dict[str, set[str]] = {}
    for t in turns:
        keys = {c.key for c in t.citations} | {c.doc_id for c in t.citations}
        for name in (t.turn_id, (t.question or "").strip()):
            if name:
                by_query.setdefault(name, set()).update(keys)
    warn = (
        [f"{len(errors)} transcript warning(s)/error(s) (see `trustaudit citations`)"]
        if errors
        else []
    )
    out: list[bool | None] = []
    for r in rows.select("query_id", "query", "ref", "url", "run_doc_id").iter_rows(named=True):
        cited_keys = by_query.get(r["query_id"])
        if cited_keys is None:
            cited_keys = by_query.get(r["query"].strip())
        if cited_keys is None:
            out.append(None)
            continue
        mine = {x for x in (r["ref"], r["url"], r["run_doc_id"]) if x}
        mine |= {doc_key(x) for x in list(mine)}
        out.append(bool(mine & cited_keys))
    return pl.Series("cited", out, dtype=pl.Boolean), warn


def summarize(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per planted kind, then `planted` (all kinds) and `clean`: counts and rates."""
    role = pl.col("planted").fill_null(CLEAN)

    def agg(frame: pl.DataFrame, key: pl.Expr) -> pl.DataFrame:
        return frame.group_by(key.alias("kind")).agg(
            results=pl.len().cast(pl.Int64),
            in_context=(pl.col("outcome") == "in_context").sum().cast(pl.Int64),
            tagged_medium=(pl.col("outcome") == "tagged_medium").sum().cast(pl.Int64),
            filtered=(pl.col("outcome") == "filtered").sum().cast(pl.Int64),
            in_top_k=pl.col("in_top_k").sum().cast(pl.Int64),
            with_transcript=pl.col("cited").is_not_null().sum().cast(pl.Int64),
            cited=pl.col("cited").fill_null(False).sum().cast(pl.Int64),
        )

    planted = rows.filter(pl.col("planted").is_not_null())
    kinds = agg(planted, role).sort("kind")
    parts = [
        kinds,
        agg(planted, pl.lit(PLANTED)),
        agg(rows.filter(pl.col("planted").is_null()), pl.lit(CLEAN)),
    ]
    out = pl.concat([p for p in parts if p.height], how="vertical")
    n = pl.col("results")
    return out.with_columns(
        in_context_rate=(pl.col("in_context") / n).round(4),
        tagged_medium_rate=(pl.col("tagged_medium") / n).round(4),
        filtered_rate=(pl.col("filtered") / n).round(4),
        cited_rate=pl.when(pl.col("with_transcript") > 0)
        .then((pl.col("cited") / pl.col("with_transcript")).round(4))
        .otherwise(None),
    )


def evaluate(
    queries: str | Path,
    run_dir: str | Path,
    policy: Policy,
    *,
    transcripts: str | Path | None = None,
) -> EvalResult:
    """The whole eval: outcomes per result (fuse's decisions) and the per-kind summary."""
    run = RunDir.at(run_dir)
    run.require("scores.parquet")
    q = read_queries(queries)
    if q.rows.height == 0:
        detail = f"; first problem: {q.bad[0]}" if q.bad else ""
        raise UsageError(f"no usable query in {queries}{detail}",
                         hint="each line: {query, results: [{url|doc_id, relevance, planted}]}")  # fmt: skip
    warnings = [f"skipped {b}" for b in q.bad[:20]]
    outcome = fuse_results(
        _fuse_input(q.rows), run.scan("scores"), policy.fusion, medium_tag=policy.bands.medium_tag
    )
    if outcome.parsed.bad:  # every row is one line fuse must accept; a refusal is a bug here
        raise RuntimeError(f"fuse refused eval rows: {outcome.parsed.bad[:3]}")
    fused = outcome.fused.select(
        (pl.col("_line") - 1).alias("_row"), "run_doc_id", "trust_score", "band", "in_context", "in_top_k", "drop_reason",
        "rank", "tag",
    )  # fmt: skip
    urls = run.scan("scores").select(
        run_doc_id=pl.col("doc_id").cast(pl.String), run_url=pl.col("url")
    )
    rows = (
        q.rows.join(fused, left_on="_i", right_on="_row", how="left")
        .join(urls.collect(), on="run_doc_id", how="left")
        .with_columns(
            url=pl.when(pl.col("ref").str.contains("://"))
            .then(pl.col("ref"))
            .otherwise(pl.coalesce("run_url", "ref")),
            outcome=pl.when(~pl.col("in_context"))
            .then(pl.lit("filtered"))
            .when(pl.col("band") == "medium")
            .then(pl.lit("tagged_medium"))
            .otherwise(pl.lit("in_context")),
        )
    )
    unscored = int(rows["run_doc_id"].is_null().sum())
    if unscored:
        warnings.append(f"{unscored} result(s) name a page the run never scored (fuse: UNSCORED)")
    cited, warn = _cited(rows, Path(transcripts) if transcripts else None, policy)
    warnings += warn
    rows = rows.with_columns(cited).sort("_i")
    rows = rows.select(
        "query", "query_id", "url", "planted", "outcome", "cited", "relevance",
        pl.col("run_doc_id").alias("doc_id"), "trust_score", "band", "drop_reason", "rank",
        "in_top_k", "tag",
    )  # fmt: skip
    try:
        run_id = run.read_manifest().get("run_id")
    except RunDirError:
        run_id = None
    return EvalResult(rows, summarize(rows), warnings, q.queries, str(run_id) if run_id else None)
