"""Policy section for `trustaudit fuse` (owned by fusion): the `[fusion]` table of trustaudit.toml.

These knobs decide query-time re-ranking, not a page's trust: changing them never changes a run.
Formula and defaults from DESIGN §4: `final = alpha*relevance + beta*trust` (0.7/0.3), a re-search
advised when the mean trust of a query's top-k kept results is below 0.6.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class FusionPolicy:
    alpha: float = opt(
        0.7, "weight of the query's (normalised) relevance in final = alpha*relevance + beta*trust"
    )
    beta: float = opt(0.3, "weight of the page's trust score in the final score")
    top_k: int = opt(
        5, "context size per query: the first k kept results are in_top_k and feed the trust check"
    )
    research_below: float = opt(
        0.6,
        "advise a re-search when the mean trust of a query's top-k kept results is below this"
        " (or when nothing is kept)",
    )
    unscored_trust: float = opt(
        0.5,
        "trust used in the formula for a URL the run never scored (its trust_score stays null,"
        " reason UNSCORED); 0.5 is the neutral value missing signals get",
    )
    min_trust: float = opt(
        0.0,
        "also drop from the context results whose trust (or unscored_trust) is below this;"
        " 0 = only the run's quarantine band drops",
    )
    drop_unscored: bool = opt(False, "keep URLs the run never scored out of the context")
    normalize: Literal["auto", "minmax", "sigmoid", "none"] = opt(
        "auto",
        "relevance scaling per query: auto (min-max when any score is outside [0, 1], else as"
        " is), minmax, sigmoid (for logits, absolute), none",
    )
    rank_score: Literal["linear", "reciprocal"] = opt(
        "linear",
        "relevance of a result that has only a rank: linear 1-(rank-1)/max_rank, reciprocal 1/rank",
    )
    medium_tag: str = opt("", "tag of medium-band results ('' = bands.medium_tag)")
    unscored_tag: str = opt(
        "[UNSCORED SOURCE — not audited, verify before asserting]",
        "tag of results whose URL the run never scored",
    )

    def __post_init__(self) -> None:
        if self.alpha < 0 or self.beta < 0 or self.alpha + self.beta <= 0:
            raise ValueError("alpha and beta must be >= 0 and not both 0")
        if self.top_k < 1:
            raise ValueError("top_k must be >= 1")
        for name in ("research_below", "unscored_trust", "min_trust"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1]")
