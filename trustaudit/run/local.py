"""The local executor: extraction in this process, or in a pool of killable worker processes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from trustaudit.io.extract import ExtractResult, extract_records
from trustaudit.io.extract_pool import KillablePool
from trustaudit.policy import Policy
from trustaudit.stages import CorpusMap, Encode, PageMap

# what the batched syndication and claim steps read of a page (`corpus_stages._PAGE_COLUMNS`)
_CORPUS_PAGE_COLUMNS = (
    "doc_id", "text", "registered_domain", "published", "fetched_at", "title", "entity",
)  # fmt: skip


class LocalCorpusMap:
    """Syndication and claims as the batched local driver (`corpus_stages.run_local`): the pages'
    corpus columns (a run's pages.parquet, or a frame written to one Parquet file under `work`)
    are read in batches of `engine.corpus_batch_pages`, and their keys are spilled there, so the
    shingles and signatures of the whole corpus are never in memory at once. Same columns as
    `corpus_signals`.

    `min_pages` (`engine.local_corpus_min_pages`): below it `stages.distributed` keeps the one-call
    path, where a small corpus is faster.
    """

    def __init__(self, policy: Policy, work: Path) -> None:
        self.policy = policy
        self.work = work
        self.min_pages = policy.engine.local_corpus_min_pages

    def __call__(self, pages: pl.DataFrame | list[Path], encode: Encode | None) -> pl.DataFrame:
        from trustaudit.corpus_stages import run_local

        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        try:
            if isinstance(pages, pl.DataFrame):
                sources = [self.work / "pages.parquet"]
                columns = [c for c in _CORPUS_PAGE_COLUMNS if c in pages.columns]
                pages.select(columns).write_parquet(sources[0])
            else:  # a run's pages.parquet: run_local reads its columns a batch at a time
                sources = pages
            done = run_local(
                sources,
                self.policy,
                work=self.work,
                batch_rows=self.policy.engine.corpus_batch_pages,
                encode=encode,
            )
            return pl.read_parquet(done.output, glob=False)
        finally:
            shutil.rmtree(self.work, ignore_errors=True)


class LocalExecutor:
    """`workers` <= 1: one batch after the other in this process (no pool to start, easy to debug);
    more: a `KillablePool`, where a document stuck in C code costs its record, not the run."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self.killed = 0

    def describe(self) -> dict[str, Any]:
        return {"name": "local", "workers": self.workers}

    def page_map(self, policy: Policy) -> PageMap | None:
        """None: Polars already uses every core for the per-page families of one frame."""
        return None

    def corpus_map(self, policy: Policy, work: Path) -> CorpusMap | None:
        """Syndication and claims in spilled batches under `work` for corpora of
        `engine.local_corpus_min_pages` pages and more (`LocalCorpusMap`)."""
        return LocalCorpusMap(policy, work)

    def run(
        self, tasks: Iterator[tuple[Any, pa.Table]], policy: Policy
    ) -> Iterator[tuple[Any, ExtractResult]]:
        if self.workers <= 1:
            for key, records in tasks:
                yield key, extract_records(records, policy)
            return
        pool = KillablePool(self.workers, policy)
        try:
            yield from pool.run(tasks)
        finally:
            self.killed = pool.killed
