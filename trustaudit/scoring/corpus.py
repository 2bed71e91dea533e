"""All signals that need the whole corpus, as one call for the pipeline (DESIGN §1 reduce stages).

Order matters: syndication clusters feed the entity groups of the claims stage, whose
`cross_consistency` feeds the coherence sub-score. Each stage is a group-by on its key (LSH band,
near-dup cluster, entity group, page), so an engine could shuffle by it; the embedding call is the
only per-page model work and is batched across pages.

This function holds the whole corpus in one process. `trustaudit.corpus_stages` computes the same
syndication and claim columns as map -> group-by -> map steps over batches (`run_local`, and on Ray
`run.ray_corpus`), with memory bounded by a batch (docs/corpus-at-scale.md).
"""

from __future__ import annotations

import polars as pl

from trustaudit.embed.base import Embedder
from trustaudit.policy import Policy
from trustaudit.scoring.claims import CLAIM_COLUMNS, claim_signals
from trustaudit.scoring.coherence import COHERENCE_COLUMNS, coherence_signals
from trustaudit.scoring.syndication import SYNDICATION_COLUMNS, syndication_signals

__all__ = ["CORPUS_COLUMNS", "corpus_signals"]

CORPUS_COLUMNS: tuple[str, ...] = (
    *COHERENCE_COLUMNS,
    *SYNDICATION_COLUMNS,
    *CLAIM_COLUMNS,
)


def corpus_signals(
    pages: pl.DataFrame,
    links: pl.DataFrame | None,
    policy: Policy,
    embedder: Embedder | None,
) -> pl.DataFrame:
    """One row per doc_id with the columns of CORPUS_COLUMNS that the policy enables.

    `pages` needs doc_id, text, paragraphs, registered_domain (title, entity, published,
    fetched_at used when present). `links` is accepted for a uniform stage signature; anchor
    presence is per domain: call `anchors.anchor_presence(links, pages, policy)` for domain.py.
    A disabled family's columns are absent, so score.py applies its neutral and reason.
    `embedder` None skips coherence (and title clustering for claims).
    """
    del links  # per-domain anchors are a separate table (see docstring)
    out = pages.select("doc_id")
    synd: pl.DataFrame | None = None
    if policy.syndication.enabled:
        synd = syndication_signals(pages, policy)
        out = out.join(synd, on="doc_id", how="left")
    cross: pl.DataFrame | None = None
    if policy.claims.enabled:
        encode = embedder.encode if embedder is not None else None
        cross = claim_signals(pages, policy, clusters=synd, encode=encode)
        out = out.join(cross.drop("cross_consistency"), on="doc_id", how="left")
    if policy.coherence.enabled and embedder is not None:
        coh = coherence_signals(pages, policy, embedder, cross=cross)
        out = out.join(coh, on="doc_id", how="left")
    elif cross is not None:
        out = out.join(cross.select("doc_id", "cross_consistency"), on="doc_id", how="left")
    return out.select([c for c in CORPUS_COLUMNS if c in out.columns])
