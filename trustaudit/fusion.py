"""Fusion with a reranker: attach a run's trust to retrieval results and re-rank them (DESIGN §4).

`final = alpha*relevance + beta*trust` per result; quarantined pages leave the context whatever
their relevance; medium pages carry the medium tag; a re-search is advised when the mean trust of a
query's top-k kept results is below `research_below`. Every input result stays in the output: fusion
marks (`in_context`, `drop_reason`), it never deletes.

Stages: `parse_results` (text -> one row per result plus one error per bad line; the only per-line
Python, because one bad line must be one error, not a failed batch), `trust_of` (join to the run by
URL with the run's own matcher), `fuse` and `summarize` (Polars expressions, no I/O), `fused_jsonl`
(each input object with the fusion fields appended, the input's own bytes untouched).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from trustaudit.io.urlmatch import match_doc_ids
from trustaudit.policy.fusion import FusionPolicy

QUERY_FIELDS = ("query_id", "query")  # the first present one groups results
SCORE_FIELDS = ("rerank_score", "score", "relevance")  # the first present one is the relevance
RANK_FIELD = "rank"

# Fields fusion appends to each result, in output order. An input field with one of these names is
# kept as `input_<name>` (the convention pages.parquet uses for reserved input columns).
ADDED_FIELDS = (
    "rank",
    "final_score",
    "relevance_norm",
    "relevance_from",
    "trust_score",
    "trust_used",
    "band",
    "tag",
    "in_context",
    "in_top_k",
    "drop_reason",
    "reasons",
    "run_doc_id",
)
UNSCORED = "UNSCORED"
QUARANTINED = "QUARANTINED"
BELOW_MIN_TRUST = "BELOW_MIN_TRUST"
# the run read this URL but never scanned its content (binary, too large, timeout…): never in context
UNSCANNED = "UNSCANNED"

RESULTS_SCHEMA: dict[str, Any] = {
    "_row": pl.Int64,
    "_line": pl.Int64,
    "_json": pl.String,
    "query": pl.String,
    "url": pl.String,
    "score": pl.Float64,
    "score_field": pl.String,
    "rank_in": pl.Int64,
}
TRUST_SCHEMA: dict[str, Any] = {
    "url": pl.String,
    "run_doc_id": pl.String,
    "trust_score": pl.Float64,
    "band": pl.String,
    "reasons": pl.List(pl.String),
    "hard_quarantine": pl.Boolean,
}


@dataclass(frozen=True)
class BadLine:
    """One input line (or array item) that is not a usable result, and why, in one line."""

    line: int
    message: str


@dataclass
class ParsedResults:
    """`frame` has RESULTS_SCHEMA (one row per usable result); `unit` is "line" or "item"."""

    frame: pl.DataFrame
    bad: list[BadLine] = field(default_factory=list)
    unit: str = "line"
    seen: int = 0


@dataclass
class FuseOutcome:
    """What `fuse_results` returns: fused rows, the per-query summary and the skipped input."""

    fused: pl.DataFrame
    summary: pl.DataFrame
    parsed: ParsedResults


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: Any) -> float | None:
    """A finite JSON number (never a bool or a numeric string), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def _parse_one(obj: Any, score_field: str | None) -> tuple[dict[str, Any] | None, str]:
    """Fields fusion needs from one result object, or None and the one-line reason."""
    if not isinstance(obj, dict):
        return None, f"not a JSON object (got {type(obj).__name__})"
    query: Any = None
    for key in QUERY_FIELDS:
        value = obj.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None, f"`{key}` must be a string or an integer, got {_short(value)}"
        query = str(value)
        if query.strip():
            break
        return None, f"`{key}` is empty"
    if query is None:
        return None, "no query: needs `query` or `query_id`"
    url = obj.get("url")
    if not isinstance(url, str) or not url.strip():
        return None, "no url: needs a non-empty string `url`"
    score: float | None = None
    used: str | None = None
    for key in (score_field,) if score_field else SCORE_FIELDS:
        if key == RANK_FIELD:
            break
        value = obj.get(key)
        if value is None:
            continue
        score = _number(value)
        if score is None:
            return None, f"`{key}` is not a finite number: {_short(value)}"
        used = key
        break
    rank: int | None = None
    if score is None and (score_field in (None, RANK_FIELD)):
        value = obj.get(RANK_FIELD)
        if value is not None:
            num = _number(value)
            if num is None or num < 1 or num != int(num):
                return None, f"`rank` must be an integer >= 1, got {_short(value)}"
            rank, used = int(num), RANK_FIELD
    if used is None:
        if score_field:
            return None, f"no `{score_field}` (chosen with --score-field)"
        return None, "no relevance: needs `rerank_score`, `score`, `relevance` or `rank`"
    return {
        "query": query,
        "url": url.strip(),
        "score": score,
        "score_field": used,
        "rank_in": rank,
    }, ""


def _renamed(obj: dict[str, Any]) -> str:
    """The object as JSON with input fields that clash with fusion's own renamed `input_<name>`."""
    out = {(f"input_{k}" if k in ADDED_FIELDS else k): v for k, v in obj.items()}
    return json.dumps(out, ensure_ascii=False, allow_nan=False)


def parse_results(text: str, *, score_field: str | None = None) -> ParsedResults:
    """Retrieval results from JSONL text (or a JSON array) -> one row per usable result.

    Each result needs a query (`query_id` or `query`, string or integer), a `url`, and a relevance:
    the first of `rerank_score`, `score`, `relevance` that is present, else `rank` (or only
    `score_field` when given). A line that is not usable becomes one BadLine; the batch goes on.
    """
    body = text.lstrip("\ufeff")
    items: list[tuple[int, str | None, Any]] = []  # (line, raw text or None, object or error)
    bad: list[BadLine] = []
    unit = "line"
    head = body.lstrip()
    array: Any = None
    if head.startswith("["):
        try:
            array = json.loads(head)
        except (json.JSONDecodeError, RecursionError):
            array = None  # e.g. a JSONL file whose first line is an array: read it as lines
    if isinstance(array, list):
        unit = "item"
        items = [(i, None, obj) for i, obj in enumerate(array, start=1)]
    else:
        # split on "\n" only: str.splitlines() would also split on U+2028 inside a JSON string
        for i, text_line in enumerate(body.split("\n"), start=1):
            raw_line = text_line.strip()
            if not raw_line:
                continue
            try:
                items.append((i, raw_line, json.loads(raw_line)))
            except json.JSONDecodeError as exc:
                bad.append(BadLine(i, f"not JSON: {exc.msg} (column {exc.colno})"))
            except RecursionError:
                bad.append(BadLine(i, "not JSON: nested too deeply"))
    rows: list[dict[str, Any]] = []
    for line, raw, obj in items:
        row, why = _parse_one(obj, score_field)
        if row is None:
            bad.append(BadLine(line, why))
            continue
        try:
            if raw is None or any(k in obj for k in ADDED_FIELDS):
                raw = _renamed(obj)
        except ValueError:  # NaN/Infinity in a pass-through field: not JSON another tool can read
            bad.append(BadLine(line, "a field holds NaN or Infinity, which JSON does not allow"))
            continue
        row.update(_row=len(rows), _line=line, _json=raw)
        rows.append(row)
    frame = pl.DataFrame(rows, schema=RESULTS_SCHEMA)
    bad.sort(key=lambda b: b.line)
    return ParsedResults(frame=frame, bad=bad, unit=unit, seen=len(rows) + len(bad))


def trust_of(urls: pl.Series, scores: pl.LazyFrame) -> pl.DataFrame:
    """One row per distinct URL with the run's verdict (TRUST_SCHEMA); nulls when the run lacks it.

    URLs match as `trustaudit explain` matches them (`trustaudit.io.urlmatch`). Old runs without a
    `hard_quarantine` or `reasons` column read as false / empty.
    """
    distinct = urls.cast(pl.String).unique(maintain_order=True)
    ids = match_doc_ids(distinct, scores)
    names = set(scores.collect_schema().names())
    wanted = [c for c in ("trust_score", "band", "reasons", "hard_quarantine") if c in names]
    found = ids.drop_nulls().unique().to_list()
    verdicts = (
        scores.filter(pl.col("doc_id").cast(pl.String).is_in(found))
        .select(pl.col("doc_id").cast(pl.String).alias("run_doc_id"), *wanted)
        .unique("run_doc_id")
        .collect()
    )
    for name, dtype in TRUST_SCHEMA.items():
        if name not in verdicts.columns and name != "url":
            verdicts = verdicts.with_columns(pl.lit(None, dtype).alias(name))
    out = pl.DataFrame({"url": distinct, "run_doc_id": ids}).join(
        verdicts.drop("url", strict=False), on="run_doc_id", how="left", maintain_order="left"
    )
    return out.select([pl.col(n).cast(t) for n, t in TRUST_SCHEMA.items()])


def _relevance(policy: FusionPolicy) -> pl.Expr:
    """Raw relevance (the score, or the rank turned into one), scaled per query by `normalize`."""
    if policy.rank_score == "reciprocal":
        from_rank = 1.0 / pl.col("rank_in")
    else:
        top = pl.col("rank_in").max().over("query")
        from_rank = 1.0 - (pl.col("rank_in") - 1) / top
    raw = pl.coalesce(pl.col("score"), from_rank.cast(pl.Float64))
    lo, hi = raw.min().over("query"), raw.max().over("query")
    # all scores equal: nothing tells them apart, so each gets the full relevance
    minmax = pl.when(hi > lo).then((raw - lo) / (hi - lo)).otherwise(pl.lit(1.0))
    if policy.normalize == "none":
        return raw
    if policy.normalize == "minmax":
        return minmax
    if policy.normalize == "sigmoid":
        return 1.0 / (1.0 + (-raw).exp())
    outside = ((raw < 0) | (raw > 1)).any().over("query")
    return pl.when(outside).then(minmax).otherwise(raw)


def fuse(
    results: pl.DataFrame, trust: pl.DataFrame, policy: FusionPolicy, *, medium_tag: str
) -> pl.DataFrame:
    """Fused rows (one per result, none dropped) sorted by query (first appearance) then new rank.

    Adds ADDED_FIELDS. `rank` puts in-context results first by final_score (ties: relevance, then
    input order), then the results left out of the context. `trust_used` is the run's trust, or
    `unscored_trust` for a URL the run does not hold (trust_score null, band null, reason UNSCORED).
    """
    tag = policy.medium_tag or medium_tag
    scored = pl.col("trust_score").is_not_null()
    quarantined = (pl.col("band") == "quarantine").fill_null(False) | pl.col(
        "hard_quarantine"
    ).fill_null(False)
    below = pl.col("trust_used") < policy.min_trust
    unscored_out = ~scored & pl.lit(policy.drop_unscored)
    unscanned = (
        pl.col("unscanned").fill_null(False) if "unscanned" in trust.columns else pl.lit(False)
    )
    no_reasons = pl.lit([], dtype=pl.List(pl.String))
    df = (
        results.join(trust, on="url", how="left", maintain_order="left")
        .with_columns(
            relevance_norm=_relevance(policy).round(6),
            relevance_from=pl.col("score_field"),
            trust_used=pl.when(scored).then(pl.col("trust_score")).otherwise(policy.unscored_trust),
            _q=pl.col("_row").min().over("query"),
        )
        .with_columns(
            final_score=(
                policy.alpha * pl.col("relevance_norm") + policy.beta * pl.col("trust_used")
            ).round(6),
            drop_reason=pl.when(quarantined)
            .then(pl.lit(QUARANTINED))
            .when(unscanned)
            .then(pl.lit(UNSCANNED))
            .when(unscored_out)
            .then(pl.lit(UNSCORED))
            .when(below)
            .then(pl.lit(BELOW_MIN_TRUST))
            .otherwise(pl.lit(None, pl.String)),
            tag=pl.when(~scored)
            .then(pl.lit(policy.unscored_tag))
            .when(pl.col("band") == "medium")
            .then(pl.lit(tag))
            .otherwise(pl.lit(None, pl.String)),
            reasons=pl.when(scored)
            .then(pl.col("reasons").fill_null(no_reasons))
            .when(unscanned)
            .then(
                pl.col("reasons").fill_null(no_reasons).list.concat(pl.lit([UNSCORED, UNSCANNED]))
            )
            .otherwise(pl.col("reasons").fill_null(no_reasons).list.concat(pl.lit([UNSCORED]))),
        )
        .with_columns(in_context=pl.col("drop_reason").is_null())
        .sort(
            ["_q", "in_context", "final_score", "relevance_norm", "_row"],
            descending=[False, True, True, True, False],
        )
        .with_columns(rank=pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("query"))
        .with_columns(in_top_k=pl.col("in_context") & (pl.col("rank") <= policy.top_k))
    )
    return df.select("_row", "_line", "_json", "query", "url", "hard_quarantine", *ADDED_FIELDS)


def mark_unscanned(trust: pl.DataFrame, errors: pl.LazyFrame | None) -> pl.DataFrame:
    """Add `unscanned`: the run holds this URL only as an error row whose content was never scanned.

    Why: such a URL used to pass as an ordinary unscored one (neutral trust 0.5, kept in context)
    although the audit had read it and could not check it.
    """
    if errors is None:
        return trust
    from trustaudit.io.records import UNSCANNED_CODES, normalize_url

    urls = (
        errors.filter(pl.col("code").is_in(sorted(UNSCANNED_CODES)) & pl.col("url").is_not_null())
        .select("url")
        .unique()
        .collect()
        .get_column("url")
        .to_list()
    )
    bad = {normalize_url(u) for u in urls}
    return trust.with_columns(
        unscanned=pl.col("url").map_elements(
            lambda u: normalize_url(u) in bad, return_dtype=pl.Boolean
        )
        & pl.col("trust_score").is_null()
    )


def summarize(fused: pl.DataFrame, policy: FusionPolicy) -> pl.DataFrame:
    """One row per query, in input order: counts, mean trust of the top-k kept, re-search advice."""
    top = pl.col("in_top_k")
    out = fused.group_by("query", maintain_order=True).agg(
        results=pl.len().cast(pl.Int64),
        kept=pl.col("in_context").sum(),
        dropped=(~pl.col("in_context")).sum(),
        quarantined=(pl.col("drop_reason") == QUARANTINED).sum(),
        unscored=pl.col("trust_score").is_null().sum(),
        medium_in_top_k=(top & (pl.col("band") == "medium")).sum(),
        top_k=top.sum(),
        mean_trust_top_k=pl.col("trust_used").filter(top).mean().round(4),
        top_url=pl.col("url").filter(pl.col("in_context")).first(),
    )
    advised = pl.col("mean_trust_top_k").is_null() | (
        pl.col("mean_trust_top_k") < policy.research_below
    )
    counts = ("kept", "dropped", "quarantined", "unscored", "medium_in_top_k", "top_k")
    return out.with_columns(pl.col(*counts).cast(pl.Int64), research_advised=advised)


def fused_jsonl(fused: pl.DataFrame) -> pl.Series:
    """One JSON line per fused row: the input object's own text with the fusion fields appended."""
    added = pl.struct(*ADDED_FIELDS).struct.json_encode()
    return fused.select(
        (pl.col("_json").str.head(-1) + pl.lit(",") + added.str.slice(1)).alias("line")
    ).to_series()


def fuse_results(
    text: str,
    scores: pl.LazyFrame,
    policy: FusionPolicy,
    *,
    medium_tag: str,
    score_field: str | None = None,
    errors: pl.LazyFrame | None = None,
) -> FuseOutcome:
    """Parse retrieval results, join the run's trust by URL, fuse and summarise (the whole job).

    `errors` (the run's errors.parquet): URLs the run read but never scanned are dropped (UNSCANNED).
    """
    parsed = parse_results(text, score_field=score_field)
    trust = mark_unscanned(trust_of(parsed.frame.get_column("url"), scores), errors)
    fused = fuse(parsed.frame, trust, policy, medium_tag=medium_tag)
    return FuseOutcome(fused=fused, summary=summarize(fused, policy), parsed=parsed)


# Fields of a result that hold its text, tried in order, for `search_result` content.
SNIPPET_FIELDS = ("snippet", "text", "content", "chunk", "passage", "summary")


def _json_str(field: str) -> pl.Expr:
    return pl.col("_json").str.json_path_match(f"$.{field}")


def anthropic_search_results(fused: pl.DataFrame) -> pl.Series:
    """One JSON line per query: `{"query": ..., "content": [search_result blocks]}` for the results
    fusion kept in context, in rank order — ready to be a `tool_result`'s content in an Anthropic
    Messages request.

    Each block is `{"type": "search_result", "source": url, "title": ..., "content": [text blocks],
    "citations": {"enabled": true}}`. The trust is where the model *and* the user see it: the title
    starts with `[trust 0.62 · medium]` and the first text block says the trust, the band and the
    medium-trust (or unscored) tag, so a citation of the block carries its badge. The result's own
    text (first of SNIPPET_FIELDS in the input object) is the second block.
    """
    trust = pl.col("trust_score").round(3).cast(pl.String)
    badge = (
        pl.when(pl.col("trust_score").is_null())
        .then(pl.lit("[unscored]"))
        .otherwise(pl.format("[trust {} · {}]", trust, pl.col("band").fill_null("?")))
    )
    title = pl.coalesce([_json_str("title"), pl.col("url")])
    snippet = pl.coalesce([_json_str(f) for f in SNIPPET_FIELDS])
    note = pl.concat_str(
        [
            pl.when(pl.col("trust_score").is_null())
            .then(pl.lit("trustaudit: not audited (no trust score)."))
            .otherwise(pl.format("trustaudit: trust {}, band {}.", trust, pl.col("band"))),
            pl.col("tag"),
        ],
        separator=" ",
        ignore_nulls=True,
    )

    def text_block(expr: pl.Expr) -> pl.Expr:
        return pl.struct(type=pl.lit("text"), text=expr)

    block = pl.struct(
        type=pl.lit("search_result"),
        source=pl.col("url"),
        title=pl.concat_str(
            [badge, pl.lit(" "), title, pl.lit(" "), pl.col("tag")], ignore_nulls=True
        ).str.strip_chars(),
        content=pl.concat_list(
            [text_block(note), pl.when(snippet.is_not_null()).then(text_block(snippet))]
        ).list.drop_nulls(),
        citations=pl.struct(enabled=pl.lit(True)),
    )
    # fused rows come sorted by query (first appearance) then rank: group_by keeps that order
    per_query = fused.group_by("query", maintain_order=True).agg(
        content=pl.when(pl.col("in_context")).then(block).drop_nulls()
    )
    return per_query.select(
        pl.struct("query", "content").struct.json_encode().alias("line")
    ).to_series()
