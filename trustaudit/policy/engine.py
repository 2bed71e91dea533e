"""Policy section for the execution engines: the `[engine]` table of trustaudit.toml."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class EnginePolicy:
    """How an engine schedules the stages; never what they compute (scores are the same either way)."""

    distributed_corpus_min_pages: int = opt(
        20_000,
        "with --engine ray, syndication, claims and the per-page signals run as Ray steps only from"
        " this many pages on; below it they run on the driver (same columns), where a small corpus"
        " is faster, and the local Ray instance is stopped as soon as extraction is done",
    )
