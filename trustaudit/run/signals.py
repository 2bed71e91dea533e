"""The signal and score stages over a run directory: read the merged tables, call the pure stage
functions (`trustaudit.stages.signal_tables`, `scoring.score.score`), write signals/domains/scores.

Each can run alone on a finished ingest (`trustaudit score RUN` re-runs both with a new policy).
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.embed import get_embedder
from trustaudit.io.atomic import BackgroundWrites, write_parquet
from trustaudit.io.memo import StageMemo, frame_digest
from trustaudit.io.rundir import (
    RunDir,
    recorded_hash,
)
from trustaudit.policy import Policy
from trustaudit.progress import NullProgress, Progress
from trustaudit.run.ingest import (
    _SYNC,
    Merged,
)
from trustaudit.scoring.score import score
from trustaudit.stages import CorpusMap, PageMap, read_domain_evidence, signal_tables


# ------------------------------------------------------------------ signals (reduce stages)
def compute_signals(
    run: RunDir,
    policy: Policy,
    *,
    now: date,
    progress: Progress | None = None,
    memo: StageMemo | None = None,
    merged: Merged | None = None,
    background: BackgroundWrites | None = None,
    page_map: PageMap | None = None,
    corpus_map: CorpusMap | None = None,
) -> dict[str, Any]:
    """Reduce stage: every signal family over the pages/links tables -> signals.parquet, domains.parquet.

    With a memo (`audit --cache`), families whose inputs are unchanged are read back, not recomputed.
    """
    progress = progress or NullProgress()
    progress.start("signals")
    t0 = time.perf_counter()
    if merged is not None:  # straight from the merge: no round trip through the disk
        pages, links = merged.pages, merged.links
    else:
        pages, links = run.read("pages"), run.read("links")
    # RDAP results of a crawl (`crawl --rdap`, `audit --rdap`) fill in registration dates
    evidence = read_domain_evidence(policy, rdap_ages=run.root / "crawl" / "domain_ages.csv")
    salt = recorded_hash(run, policy)  # list paths inside the run: the same in every run
    tables = signal_tables(
        pages,
        links,
        policy,
        now=now,
        evidence=evidence,
        embedder=lambda: get_embedder(policy.embeddings),
        # no memoised family reads the run date: an unchanged corpus and policy give the same output
        memo=memo.get_or_compute if memo is not None else None,
        digest=(lambda frame: frame_digest(frame, salt=salt)) if memo is not None else None,
        page_map=page_map,
        corpus_map=corpus_map,
    )
    signals, links, domains, computed = (
        tables.signals,
        tables.links,
        tables.domains,
        tables.families,
    )
    write_parquet(run.signals, signals)
    (background or _SYNC).write_parquet(
        run.links, links
    )  # the largest table; nothing reads it next
    write_parquet(run.domains, domains)
    seconds = time.perf_counter() - t0
    progress.done("signals", f"{signals.height} pages")
    out = {
        "status": "done",
        "pages": signals.height,
        "domains": domains.height,
        "seconds": round(seconds, 3),
        "families": computed,
    }
    if memo is not None:
        out["memo"] = memo.summary()
    return out


def score_run(
    run: RunDir,
    policy: Policy,
    *,
    progress: Progress | None = None,
    judge_urls: list[str] | None = None,
    cache: Path | None = None,
) -> dict[str, Any]:
    """Score stage: signals.parquet -> scores.parquet; domains.parquet gains page aggregates.

    With a judge configured ([judge] endpoint + model), the tail is judged and scored again."""
    progress = progress or NullProgress()
    progress.start("score")
    t0 = time.perf_counter()
    signals = run.read("signals")
    scores = score(signals, policy)
    judge_counts = None
    if policy.judge.configured:  # trust-layer: the LLM judge on the tail (docs/judge.md)
        from trustaudit.judge.tail import judge_stage

        signals, judge_counts = judge_stage(
            run, scores, signals, policy, urls=judge_urls, cache=cache
        )
        scores = score(signals, policy)
    write_parquet(run.scores, scores)
    domains = run.read("domains")
    agg = scores.group_by("registered_domain").agg(
        mean_trust=pl.col("trust_score").mean().round(3),
        min_trust=pl.col("trust_score").min(),
        quarantined=(pl.col("band") == "quarantine").sum(),
        medium=(pl.col("band") == "medium").sum(),
        trusted=(pl.col("band") == "trusted").sum(),
    )
    keep = [c for c in domains.columns if c not in agg.columns or c == "registered_domain"]
    domains = domains.select(keep).join(agg, on="registered_domain", how="left", nulls_equal=True)
    write_parquet(run.domains, domains)
    progress.done("score", f"{scores.height} pages")
    out = {"status": "done", "pages": scores.height, "seconds": round(time.perf_counter() - t0, 3)}
    if judge_counts is not None:
        out["judge"] = judge_counts
    return out
