"""Combine sub-scores into the trust score, band and reasons (DESIGN §4).

reference = round(w_d*domain + w_a*affiliate + w_c*coherence, 3), then + sum(adjust_*), clipped to
[0, 1] and rounded again (`reference_score`, the reference formula exactly). When a hard rule fires (any
`quarantine_*` column: injection, blocklist, dense undisclosed affiliate, ...) the band is quarantine
and trust_score = min(reference_score, scoring.hard_rule_cap): sorting or fusing by trust_score then
agrees with the bands (an injected page no longer ranks among the good ones).

Extension point: any signal family joins `adjust_<family>` (a signed trust adjustment),
`quarantine_<family>` (a hard rule) and `reasons_<family>` (list of "CODE: detail") columns onto the
signals frame; score() picks them up by prefix, no change here needed.
"""

from __future__ import annotations

import polars as pl

from trustaudit.policy import Policy
from trustaudit.scoring._reasons import codes_of

BANDS = ("quarantine", "medium", "trusted")
# Kept in scores.parquet when present: the behaviour sub-score and the tail judge's verdict.
TRUST_LAYER_COLUMNS = ("behaviour_score", "judge_score", "judge_reason", "judge_status")


def reference_score(
    domain: pl.Expr, affiliate: pl.Expr, coherence: pl.Expr, policy: Policy
) -> pl.Expr:
    """The reference formula, exactly (rounded to 3 decimals)."""
    w = policy.weights
    return (w.domain * domain + w.affiliate * affiliate + w.coherence * coherence).round(3)


def score(signals: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """signals (one row per doc_id, with sub-scores, adjust_*, quarantine_*, reasons_*) -> scores."""
    df = signals
    extra_reasons: list[pl.Expr] = []
    if "coherence_score" not in df.columns:
        df = df.with_columns(coherence_score=pl.lit(None, dtype=pl.Float64))
        extra_reasons.append(
            pl.lit(
                [f"COHERENCE_NOT_COMPUTED: neutral {policy.coherence.neutral}"],
                dtype=pl.List(pl.String),
            )
        )
    neutral = {
        "domain_score": policy.domain.age_neutral,
        "affiliate_score": 0.5,
        "coherence_score": policy.coherence.neutral,
    }
    for col in neutral:
        if col not in df.columns:
            df = df.with_columns(pl.lit(None, dtype=pl.Float64).alias(col))
    df = df.with_columns([pl.col(c).fill_null(v).alias(c) for c, v in neutral.items()])
    adjust_cols = sorted(c for c in df.columns if c.startswith("adjust_"))
    quarantine_cols = sorted(c for c in df.columns if c.startswith("quarantine_"))
    reason_cols = sorted(c for c in df.columns if c.startswith("reasons_"))
    base = reference_score(
        pl.col("domain_score"), pl.col("affiliate_score"), pl.col("coherence_score"), policy
    )
    adjust = (
        pl.sum_horizontal([pl.col(c).fill_null(0.0) for c in adjust_cols])
        if adjust_cols
        else pl.lit(0.0)
    )
    hard = (
        pl.any_horizontal([pl.col(c).fill_null(False) for c in quarantine_cols])
        if quarantine_cols
        else pl.lit(False)
    )
    b = policy.bands
    details = (
        pl.concat_list([pl.col(c).fill_null([]) for c in reason_cols] + extra_reasons)
        if (reason_cols or extra_reasons)
        else pl.lit([], dtype=pl.List(pl.String))
    )
    cap = policy.scoring.hard_rule_cap
    df = df.with_columns(
        trust_score_base=base,
        reference_score=(base + adjust).clip(0.0, 1.0).round(3),
        hard_quarantine=hard,
        reason_details=details,
    )
    df = df.with_columns(
        trust_score=pl.when(pl.col("hard_quarantine"))
        .then(pl.min_horizontal(pl.col("reference_score"), pl.lit(cap)))
        .otherwise(pl.col("reference_score")),
    )
    df = df.with_columns(
        band=pl.when(pl.col("hard_quarantine") | (pl.col("trust_score") < b.quarantine_below))
        .then(pl.lit("quarantine"))
        .when(pl.col("trust_score") < b.trusted_from)
        .then(pl.lit("medium"))
        .otherwise(pl.lit("trusted")),
        reasons=codes_of(pl.col("reason_details")),
    )
    keep = [
        "doc_id",
        "url",
        "registered_domain",
        "trust_score",
        "band",
        "reasons",
        "reason_details",
        "hard_quarantine",
        "reference_score",
        "trust_score_base",
        "domain_score",
        "affiliate_score",
        "coherence_score",
        *adjust_cols,
        # trust-layer sub-scores shown next to their adjustments (adjust_behaviour, adjust_judge)
        *[c for c in TRUST_LAYER_COLUMNS if c in df.columns],
    ]
    return df.select([c for c in keep if c in df.columns])
