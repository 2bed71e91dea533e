"""Policy section for citation provenance and KB cards (owned by citations)."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class CitationsPolicy:
    card_min_similarity: float = opt(0.5, "cards less similar than this to their source fail")
