"""Policy section for the execution engines: the `[engine]` table of trustaudit.toml."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class EnginePolicy:
    """How an engine schedules the stages; never what they compute (scores are the same either way)."""

    distributed_corpus_min_pages: int = opt(
        20_000,
        "with --engine ray, syndication, claims, coherence's maps and the per-page signals run as"
        " Ray steps only from this many pages on; below it they run on the driver (same columns), where"
        " a small corpus is faster, and the local Ray instance is stopped as soon as extraction is done",
    )
    local_corpus_min_pages: int = opt(
        5_000,
        "syndication and claims run as batched map/group-by steps spilled to the run's .work folder"
        " (corpus_stages.run_local) from this many pages on: with --engine local, and with --engine"
        " ray below distributed_corpus_min_pages; below it in one call (same columns), where a small"
        " corpus is faster",
        ge=1,
    )
    corpus_batch_pages: int = opt(
        1_000,
        "pages per batch of the corpus steps that run in batches: coherence (its corpus-wide parts,"
        " boilerplate counts, word document frequencies and language means, are merged aggregates),"
        " and the local engine's batched syndication and claims; the scores do not depend on it,"
        " memory for one batch's paragraphs, vectors and shingles does",
        ge=1,
    )
    coherence_batch_bytes: int = opt(
        16_000_000,
        "... and at most this many bytes of page text per coherence batch (a larger page is a batch"
        " of its own)",
        ge=1,
    )
