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
import pyarrow as pa

from trustaudit.embed import get_embedder
from trustaudit.io.atomic import write_parquet
from trustaudit.io.memo import StageMemo, frame_digest
from trustaudit.io.rundir import (
    RunDir,
    recorded_hash,
)
from trustaudit.policy import Policy
from trustaudit.progress import NullProgress, Progress
from trustaudit.run.pages import ParquetPages
from trustaudit.scoring.score import score
from trustaudit.stages import (
    CorpusMap,
    FramePages,
    PageMap,
    PageSource,
    read_domain_evidence,
    source_signal_tables,
)


# ------------------------------------------------------------------ signals (reduce stages)
def compute_signals(
    run: RunDir,
    policy: Policy,
    *,
    now: date,
    progress: Progress | None = None,
    memo: StageMemo | None = None,
    links_in: Path | None = None,
    page_map: PageMap | None = None,
    corpus_map: CorpusMap | None = None,
) -> dict[str, Any]:
    """Reduce stage: every signal family over the pages/links tables -> signals.parquet,
    domains.parquet, and links.parquet again with affiliate flags.

    The tables are read a batch at a time (`run.pages.ParquetPages`), never held whole; the links
    come from `links_in` (the merge's unflagged links; default links.parquet itself, as a rescore
    has them) and `links_in` is removed once links.parquet is written. With a memo
    (`audit --cache`), families whose inputs are unchanged are read back, not recomputed.
    """
    progress = progress or NullProgress()
    progress.start("signals")
    t0 = time.perf_counter()
    source = _page_source(run, links_in or run.links)
    # RDAP results of a crawl (`crawl --rdap`, `audit --rdap`) fill in registration dates
    evidence = read_domain_evidence(policy, rdap_ages=run.root / "crawl" / "domain_ages.csv")
    salt = recorded_hash(run, policy)  # list paths inside the run: the same in every run
    tables = source_signal_tables(
        source,
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
    signals, domains, computed = tables.signals, tables.domains, tables.families
    write_parquet(run.signals, signals)
    if tables.links is not None:  # a source in memory: its flagged links
        write_parquet(run.links, tables.links)
    if links_in is not None and links_in != run.links:
        links_in.unlink(missing_ok=True)
    write_parquet(run.domains, domains)
    # Arrow's allocator keeps what the batches freed (≈ 140 MB after 7,970 pages) for reuse;
    # the reports that follow allocate through Polars and Python, so hand it back now
    pa.default_memory_pool().release_unused()
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


def _page_source(run: RunDir, links_in: Path) -> PageSource:
    """The run's pages and links as a PageSource: its Parquet files read in batches; a table kept
    as a folder of parts (`pages/part-*.parquet`) is read whole. The contract columns of the
    pages are checked first (types, unique doc_id: a damaged run is a RunDirError, exit 2)."""
    run.read("pages", columns=["doc_id", "url"])
    if run.pages.is_file() and links_in.is_file():
        return ParquetPages(run.pages, links_in, run.links)
    return FramePages(run.read("pages"), run.read("links"))


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
