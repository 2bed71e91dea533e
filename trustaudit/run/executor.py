"""The executor seam: what an engine must do to run the extraction stage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa

from trustaudit.io.extract import ExtractResult
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
        """How to run `stages.page_signals` on this engine; None: in the driver's process."""
        ...

    def corpus_map(self, policy: Policy, work: Path) -> CorpusMap | None:
        """How to run the batched corpus steps (syndication, claims) on this engine, spilling to
        `work` (a folder inside the run); None: `scoring.corpus.corpus_signals` in the driver."""
        ...

    def run(
        self, tasks: Iterator[tuple[Any, pa.Table]], policy: Policy
    ) -> Iterator[tuple[Any, ExtractResult]]: ...
