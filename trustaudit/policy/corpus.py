"""Policy sections for corpus-level signals: embeddings, coherence, syndication, claims, anchors."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class EmbeddingPolicy:
    static_model: str = opt(
        "minilm-static-256",
        "default (fast) model: 'minilm-static-256' (distilled once from the packaged MiniLM), "
        "a model2vec folder path, or 'hashing-256' (deterministic, for tests)",
    )
    accurate_model: str = opt(
        "all-MiniLM-L6-v2", "transformer for the accurate path (packaged name or a local folder)"
    )
    cache_dir: str = opt(
        "", "models + embedding cache ('' = $TRUSTAUDIT_CACHE or ~/.cache/trustaudit)"
    )
    disk_cache: bool = opt(True, "cache paragraph embeddings on disk by sha1(model, text)")
    batch_size: int = opt(1024, "paragraphs per encode batch (static path; accurate uses 32)")
    max_chars: int = opt(2000, "paragraph characters fed to the model (longer text is cut)")


@dataclass(frozen=True)
class CoherencePolicy:
    enabled: bool = opt(True, "compute intra-document and cross-source coherence")
    neutral: float = opt(0.5, "coherence sub-score when it cannot be computed")
    low: float = opt(0.30, "intra below this -> incoherent (0.2) [reference edges]")
    high: float = opt(0.85, "intra above this -> mass repetition (0.2) [reference edges]")
    center: float = opt(0.60, "intra_norm = 1 - |intra - center| / width [reference edges]")
    width: float = opt(0.30, "see center")
    out_of_band: float = opt(0.2, "intra_norm outside [low, high]")
    min_paragraphs: int = opt(2, "fewer usable paragraphs -> neutral intra_norm")
    min_paragraph_chars: int = opt(
        40, "paragraphs shorter than this are not used (menus, captions)"
    )
    max_paragraphs: int = opt(64, "only the first N usable paragraphs of a page are embedded")
    model_edges: tuple[tuple[str, float, float, float, float], ...] = opt(
        (
            ("all-MiniLM-L6-v2", 0.30, 0.85, 0.60, 0.30),
            ("minilm-static-256", 0.30, 0.85, 0.60, 0.30),
        ),
        "per-model edges (model, low, high, center, width) calibrated on the dev set; "
        "a model not listed uses low/high/center/width above",
    )


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
