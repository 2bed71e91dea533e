"""The executor seam: what an engine must do to run the extraction stage."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # Ray workers import this module (ReadPart): keep the scoring code out of them
    import pyarrow as pa

    from trustaudit.io.extract import ExtractResult
    from trustaudit.io.readers import Source
    from trustaudit.io.records import ErrorRow
    from trustaudit.policy import Policy
    from trustaudit.stages import CorpusMap, PageMap


class Executor(Protocol):
    """Runs the pure extraction stage over batches of records; schedules, never decides.

    `run` takes (key, records) pairs and yields (key, result) as batches finish, in any order; the
    caller commits each result as one part. `killed` counts workers killed for a stuck record.
    """

    killed: int

    def describe(self) -> dict[str, Any]:
        """What ran the stages, for the manifest: engine name, and nodes/CPUs where it knows."""
        ...

    def page_map(self, policy: Policy) -> PageMap | None:
        """How to run `stages.page_signals` on this engine, given the batches of pages (each with
        its links) and the corpus's page count; None: in the driver's process, batch by batch."""
        ...

    def corpus_map(self, policy: Policy, work: Path) -> CorpusMap | None:
        """How to run the batched corpus steps (syndication, claims) on this engine, spilling to
        `work` (a folder inside the run); None: `scoring.corpus.corpus_signals` in the driver."""
        ...

    def run(
        self, tasks: Iterator[tuple[Any, pa.Table]], policy: Policy
    ) -> Iterator[tuple[Any, ExtractResult]]: ...


@dataclass(frozen=True)
class Shard:
    """One source to read where the engine chooses, and the batches of it a previous run
    already committed (read past, never extracted again: resume)."""

    index: int  # the source's position in the run's inputs (the `sNNNN` of its parts)
    source: Source
    committed: frozenset[int]  # batch indexes with a `.done` marker


@dataclass(frozen=True)
class ReadPart:
    """One batch of a shard, read and extracted on the engine's workers: what the driver commits
    as part `s{shard}-b{batch}`. `result` is None for a batch already committed."""

    shard: int
    batch: int
    records: int  # records read (pages + extraction errors)
    read_errors: list[ErrorRow]  # what the reader met (accounted as errors of this part)
    result: ExtractResult | None


# shards -> parts as they finish (any order); the reader of an engine that reads on its workers
ShardReader = Callable[[Sequence[Shard]], Iterator[ReadPart]]


def shard_reader(
    executor: Executor, sources: Sequence[Source], policy: Policy
) -> ShardReader | None:
    """The engine's way to read `sources` on its workers (`run.ray.RayExecutor.shard_reader`),
    or None: the driver reads them and the executor's `run` extracts what it hands over.

    Why optional: only an engine with workers gains from it, and only for sources a worker can
    open (files and object-store keys; not the crawl's run directory)."""
    offer = getattr(executor, "shard_reader", None)
    return offer(sources, policy) if offer is not None else None
