"""`trustaudit eval build`: a planted-source queries file from a run and its labels, so a team has
100+ queries on day one.

Clean results are pages labelled trusted; planted ones are pages labelled untrusted, each given one
kind (first match): `injection` (an injection finding), `affiliate` (an affiliate reason),
`new_blog` (domain younger than `eval.new_domain_days`), `llm_review` (the rest: nothing structural
gives them away). A labels CSV may also carry a `kind` column, which wins. Query i plants one page
of kind `eval.kinds[i % n]` among `eval.clean_per_query` clean results, with a relevance in
[`eval.planted_relevance_min`, 1] (planted to look relevant) at a random position.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.errors import UsageError
from trustaudit.gate.labels import join_labels, read_labels
from trustaudit.io.records import doc_id_for
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy

AFFILIATE_CODES = (
    "AFFILIATE_DENSE_NO_DISCLOSURE",
    "AFFILIATE_HIGH_DENSITY",
    "AFFILIATE_UNDISCLOSED",
    "AFFILIATE_DISCLOSED",
)


def _label_kinds(path: Path) -> pl.DataFrame | None:
    """doc_id -> kind from an optional `kind` column of the labels CSV (url or doc_id keyed)."""
    df = pl.read_csv(path, infer_schema=False, glob=False)
    cols = {c.strip().lower(): c for c in df.columns}
    if "kind" not in cols or not ({"url", "doc_id"} & set(cols)):
        return None
    key = "url" if "url" in cols else "doc_id"
    keys = df[cols[key]].to_list()
    ids = [doc_id_for(k.strip(), "", None) if key == "url" and k else k for k in keys]
    return pl.DataFrame(
        {"doc_id": ids, "label_kind": df[cols["kind"]].to_list()},
        schema={"doc_id": pl.String, "label_kind": pl.String},
    ).filter(pl.col("label_kind").is_not_null() & (pl.col("label_kind").str.strip_chars() != ""))


def classify(run: RunDir, labels: Path, policy: Policy) -> pl.DataFrame:
    """Labelled pages of the run: doc_id, url, title, kind (a planted kind, or null = clean)."""
    scores = run.read("scores")
    joined = join_labels(scores, read_labels(labels))
    sig_cols = [
        c
        for c in ("domain_age_days", "injection_count")
        if c in run.scan("signals").collect_schema().names()
    ]
    signals = run.read("signals", columns=["doc_id", *sig_cols])
    titles = run.read("pages", columns=["doc_id", "title"])
    df = joined.join(signals, on="doc_id", how="left").join(titles, on="doc_id", how="left")
    for c in ("domain_age_days", "injection_count"):
        if c not in df.columns:
            df = df.with_columns(pl.lit(None, pl.Int64).alias(c))
    kinds = _label_kinds(labels)
    if kinds is not None:
        df = df.join(kinds, on="doc_id", how="left")
    else:
        df = df.with_columns(label_kind=pl.lit(None, pl.String))
    reasons = pl.col("reasons").fill_null([])
    derived = (
        pl.when(pl.col("injection_count").fill_null(0) > 0)
        .then(pl.lit("injection"))
        .when(reasons.list.eval(pl.element().is_in(AFFILIATE_CODES)).list.any())
        .then(pl.lit("affiliate"))
        .when(pl.col("domain_age_days") < policy.eval.new_domain_days)
        .then(pl.lit("new_blog"))
        .otherwise(pl.lit("llm_review"))
    )
    return df.select(
        "doc_id",
        "url",
        "title",
        kind=pl.when(pl.col("should_quarantine"))
        .then(pl.coalesce("label_kind", derived))
        .otherwise(None),
    ).sort("doc_id")


def build_queries(
    run_dir: str | Path, labels: str | Path, policy: Policy, *, n: int = 120, seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, int], list[str]]:
    """(query objects, planted pages available per kind, warnings)."""
    run = RunDir.at(run_dir)
    run.require("scores.parquet", "signals.parquet", "pages.parquet")
    pages = classify(run, Path(labels), policy)
    clean = pages.filter(pl.col("kind").is_null()).to_dicts()
    pools = {k: pages.filter(pl.col("kind") == k).to_dicts() for k in policy.eval.kinds}
    available = {k: len(v) for k, v in pools.items()}
    kinds = [k for k in policy.eval.kinds if pools[k]]
    warnings = [
        f"no labelled untrusted page of kind {k}: not planted"
        for k in policy.eval.kinds
        if not pools[k]
    ]
    if not clean:
        raise UsageError("no trusted-labelled page of the run: nothing to plant among",
                         hint="the labels need trusted rows that match the run's pages")  # fmt: skip
    if not kinds:
        raise UsageError("no untrusted-labelled page of the run: nothing to plant")
    rng = random.Random(seed)
    e = policy.eval
    out = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        planted = rng.choice(pools[kind])
        picked = rng.sample(clean, k=min(e.clean_per_query, len(clean)))
        results: list[dict[str, Any]] = [
            {"url": p["url"], "relevance": round(rng.uniform(0.3, 0.9), 3), "planted": None}
            for p in picked
        ]
        results.insert(
            rng.randrange(len(results) + 1),
            {
                "url": planted["url"],
                "relevance": round(rng.uniform(e.planted_relevance_min, 1.0), 3),
                "planted": kind,
            },
        )
        topic = (picked[0].get("title") or picked[0]["url"] or "")[:80]
        out.append({"query_id": f"q{i:04d}", "query": f"{topic} ({i})", "results": results})
    return out, available, warnings


def write_queries(path: Path, queries: list[dict[str, Any]]) -> None:
    from trustaudit.io.atomic import atomic_open

    with atomic_open(path) as fh:
        for q in queries:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
