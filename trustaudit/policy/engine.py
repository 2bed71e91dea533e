"""Policy section for the execution engines: the `[engine]` table of trustaudit.toml."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class EnginePolicy:
    """How an engine schedules the stages; never what they compute (scores are the same either way)."""

    distributed_corpus_min_pages: int = opt(
        20_000,
        "with --engine ray, syndication and claims run as Ray map/group-by steps only from this many"
        " pages on; below it they run on the driver (same columns), where a small corpus is faster",
    )
    coherence_batch_pages: int = opt(
        1_000,
        "coherence runs over the pages in batches of this many: its corpus-wide parts (boilerplate"
        " counts, word document frequencies, language means) are merged aggregates, so the scores do"
        " not depend on it; memory for paragraphs and their vectors is bounded by one batch",
        ge=1,
    )
    coherence_batch_bytes: int = opt(
        16_000_000,
        "... and at most this many bytes of page text (a larger page is a batch of its own)",
        ge=1,
    )
