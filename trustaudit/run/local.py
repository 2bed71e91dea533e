"""The local executor: extraction in this process, or in a pool of killable worker processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from trustaudit.io.extract import ExtractResult, extract_records
from trustaudit.io.extract_pool import KillablePool
from trustaudit.policy import Policy
from trustaudit.stages import CorpusMap, PageMap


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
        """None: one process holds the corpus anyway; `corpus_signals` needs no spill."""
        return None

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
