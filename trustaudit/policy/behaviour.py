"""Policy section for behavioural review signals (owned by trust-layer): the `[behaviour]` table.

Used only when the input carries review-platform fields (JSONL fields or Parquet columns); a corpus
without them scores exactly by the reference formula. Component weights were tuned on
`bench/behaviour_sim.py` seed 1 and checked on seed 2 (docs/behaviour.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class BehaviourPolicy:
    enabled: bool = opt(True, "compute behaviour_* signals when the input has platform fields")
    weight: float = opt(
        0.15,
        "adjust_behaviour = -weight * behaviour_campaign (0..1): the most a review loses; 0 disables",
    )
    # --- input contract: which input column holds each field ---
    entity_field: str = opt("entity", "input column naming what is reviewed (product, place)")
    rating_field: str = opt("rating", "input column with the numeric rating")
    reviewer_field: str = opt("reviewer", "input column with the reviewer id")
    review_date_field: str = opt("review_date", "input column with the review date (ISO)")
    reviewer_since_field: str = opt(
        "reviewer_since", "input column with the reviewer's account creation date (ISO)"
    )
    verified_field: str = opt("verified", "input column: verified purchase/stay (bool)")
    review_count_field: str = opt(
        "review_count", "input column: reviews the reviewer wrote in total (else counted here)"
    )
    rating_min: float = opt(1.0, "lowest rating of the platform's scale")
    rating_max: float = opt(5.0, "highest rating of the platform's scale")
    # --- signal shapes ---
    burst_window_days: int = opt(7, "window of the burst score: reviews per window vs baseline")
    burst_high: float = opt(3.0, "burst score at which the burst component reaches 1")
    tenure_trusted_days: float = opt(
        365.0, "reviewer tenure at review time from which the new-reviewer component is 0"
    )
    deviation_high: float = opt(
        3.0, "robust z (|rating - entity median| / 1.4826 MAD) at which deviation reaches 1"
    )
    min_entity_reviews: int = opt(
        5, "entity-level components (deviation, burst, entropy) need this many reviews"
    )
    # --- component weights of behaviour_campaign (a weighted mean of the present ones) ---
    w_burst: float = opt(0.30, "weight of the burst component")
    w_tenure: float = opt(0.25, "weight of the new-reviewer (short tenure) component")
    w_single: float = opt(0.15, "weight of the single-review-reviewer component")
    w_unverified: float = opt(0.10, "weight of the unverified component")
    w_extreme: float = opt(0.15, "weight of extreme-rating-away-from-consensus")
    w_entropy: float = opt(0.05, "weight of the entity's low rating entropy")
    flag_from: float = opt(0.5, "behaviour_campaign at or above this adds BEHAVIOUR_CAMPAIGN_LIKE")

    def __post_init__(self) -> None:
        if self.rating_max <= self.rating_min:
            raise ValueError("behaviour.rating_max must be above rating_min")
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError("behaviour.weight must be in [0, 1]")
        if self.burst_window_days < 1 or self.burst_high <= 1.0:
            raise ValueError("behaviour.burst_window_days >= 1 and burst_high > 1 needed")
        if self.tenure_trusted_days <= 0 or self.deviation_high <= 0:
            raise ValueError("behaviour.tenure_trusted_days and deviation_high must be > 0")
        ws = (
            self.w_burst,
            self.w_tenure,
            self.w_single,
            self.w_unverified,
            self.w_extreme,
            self.w_entropy,
        )
        if min(ws) < 0 or sum(ws) <= 0:
            raise ValueError("behaviour.w_* must be >= 0 and not all 0")
