"""Policy sections for corpus-level signals: embeddings, coherence, syndication, claims, anchors."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class EmbeddingPolicy:
    static_model: str = opt("minilm-static-256", "default (fast) static model name")
    accurate_model: str = opt("all-MiniLM-L6-v2", "transformer model for the accurate path")
    cache_dir: str = opt("", "embedding cache directory ('' = ~/.cache/trustaudit)")


@dataclass(frozen=True)
class CoherencePolicy:
    enabled: bool = opt(True, "compute intra-document and cross-source coherence")
    neutral: float = opt(0.5, "coherence sub-score when it cannot be computed")
    low: float = opt(0.30, "intra below this -> incoherent (0.2)")
    high: float = opt(0.85, "intra above this -> mass repetition (0.2)")
    center: float = opt(0.60, "intra_norm = 1 - |intra - center| / width")
    width: float = opt(0.30, "see center")


@dataclass(frozen=True)
class SyndicationPolicy:
    enabled: bool = opt(True, "near-duplicate text across registered domains")
    penalty_per_domain: float = opt(0.05, "trust penalty per other domain carrying the same text")
    penalty_cap: float = opt(0.20, "maximum syndication penalty")


@dataclass(frozen=True)
class ClaimsPolicy:
    enabled: bool = opt(True, "cross-source numeric claim consistency")


@dataclass(frozen=True)
class AnchorsPolicy:
    anchor_domains: tuple[str, ...] = opt(
        ("wikipedia.org", "arxiv.org", "github.com", "news.ycombinator.com"),
        "domains whose links count as anchor presence",
    )
