"""Behavioural review signals: when pages are reviews exported from a platform, how the reviews
behave (who wrote them, when, with which rating) is the strongest cheap evidence of a campaign.

Each page is one review. Signals per review and per reviewed entity, from the fake-review
literature: rating entropy of the entity, deviation from the entity's robust consensus (median/MAD),
burst score (reviews in the review's window vs the entity's baseline), reviewer tenure at review
time, single-review reviewers, verified flag. They combine into `behaviour_campaign` (0..1, a
weighted mean of the components that are present) and `behaviour_score` = 1 - campaign; the score
takes `adjust_behaviour` = -weight * campaign. Pages without platform fields get 0, so an ordinary
corpus scores exactly by the reference formula; the manifest records BEHAVIOUR_NOT_APPLICABLE for a
corpus without any, and a page with some platform field but no rating, date or reviewer gets it.
"""

from __future__ import annotations

import math

import polars as pl

from trustaudit.policy import Policy
from trustaudit.policy.behaviour import BehaviourPolicy
from trustaudit.scoring._reasons import reason_list

FIELDS = (
    "entity",
    "rating",
    "reviewer",
    "review_date",
    "reviewer_since",
    "verified",
    "review_count",
)
_TRUE = ("true", "1", "yes", "y", "t", "verified")
# 1.4826 * MAD estimates a normal sigma; the floor keeps a unanimous entity from dividing by 0
_MAD_TO_SIGMA = 1.4826


def present_fields(columns: list[str], bp: BehaviourPolicy) -> dict[str, str]:
    """Canonical field -> input column, for the fields the input has (names from the policy)."""
    out = {}
    for name in FIELDS:
        col = getattr(bp, f"{name}_field")
        if col in columns:
            out[name] = col
        elif f"input_{col}" in columns:  # a name that collided with a page column
            out[name] = f"input_{col}"
    return out


def _as_date(col: str, dtype: pl.DataType) -> pl.Expr:
    if dtype == pl.Date:
        return pl.col(col)
    if isinstance(dtype, pl.Datetime):
        return pl.col(col).dt.date()
    if dtype == pl.String:
        return pl.col(col).str.slice(0, 10).str.to_date("%Y-%m-%d", strict=False)
    return pl.lit(None, pl.Date)


def _as_bool(col: str, dtype: pl.DataType) -> pl.Expr:
    if dtype == pl.Boolean:
        return pl.col(col)
    if dtype.is_numeric():
        return pl.col(col).cast(pl.Float64) != 0
    if dtype == pl.String:
        return pl.col(col).str.strip_chars().str.to_lowercase().is_in(_TRUE)
    return pl.lit(None, pl.Boolean)


def _normalised(pages: pl.DataFrame, fields: dict[str, str]) -> pl.DataFrame:
    """doc_id plus `_entity`, `_rating`, ... typed (null when the input lacks the field)."""
    schema = pages.schema
    exprs: list[pl.Expr] = [pl.col("doc_id")]
    typed = {
        "entity": lambda c, t: pl.col(c).cast(pl.String),
        "reviewer": lambda c, t: pl.col(c).cast(pl.String),
        "rating": lambda c, t: pl.col(c).cast(pl.Float64, strict=False),
        "review_count": lambda c, t: pl.col(c).cast(pl.Float64, strict=False),
        "review_date": _as_date,
        "reviewer_since": _as_date,
        "verified": _as_bool,
    }
    nulls = {
        "entity": pl.String,
        "reviewer": pl.String,
        "rating": pl.Float64,
        "review_count": pl.Float64,
        "review_date": pl.Date,
        "reviewer_since": pl.Date,
        "verified": pl.Boolean,
    }
    for name in FIELDS:
        if name in fields:
            exprs.append(typed[name](fields[name], schema[fields[name]]).alias(f"_{name}"))
        else:
            exprs.append(pl.lit(None, nulls[name]).alias(f"_{name}"))
    return pages.select(exprs)


def behaviour_status(columns: list[str], policy: Policy) -> str:
    """What the family did with this corpus, for the manifest (`computed` or why not)."""
    if not policy.behaviour.enabled:
        return "BEHAVIOUR_NOT_APPLICABLE: behaviour.enabled = false"
    if not ({"rating", "review_date", "reviewer"} & set(present_fields(columns, policy.behaviour))):
        return "BEHAVIOUR_NOT_APPLICABLE: no platform fields (rating, review_date, reviewer)"
    return "computed"


def not_applicable(pages: pl.DataFrame) -> pl.DataFrame:
    """Every page neutral: adjust 0. The reason is not repeated on every page of a corpus that has
    no platform field at all (it would top every report's reason counts); the manifest says it."""
    return pages.select(
        "doc_id",
        behaviour_applicable=pl.lit(False),
        behaviour_score=pl.lit(None, pl.Float64),
        adjust_behaviour=pl.lit(0.0),
    )


def _entity_stats(bp: BehaviourPolicy) -> list[pl.Expr]:
    """Per-entity consensus, entropy, burst baseline, shares (broadcast to each review)."""
    e = "_entity"
    span = bp.rating_max - bp.rating_min
    # entropy over five levels of the normalised rating, so a 1..10 scale reads like a 1..5 one
    bins = 5
    rating_bin = ((pl.col("_rating") - bp.rating_min) / span * (bins - 1)).round(0)
    median = pl.col("_rating").median().over(e)
    mad = (pl.col("_rating") - median).abs().median().over(e)
    scale = pl.max_horizontal(_MAD_TO_SIGMA * mad, pl.lit(span / 8.0))
    p_bin = pl.len().over(e, rating_bin) / pl.col("_rating").count().over(e)
    entropy = pl.when(pl.col("_rating").is_not_null()).then(-p_bin.log()).mean().over(e)
    bucket = (pl.col("_review_date").cast(pl.Int64) // bp.burst_window_days).alias("_bucket")
    return [
        pl.col("_rating").count().over(e).alias("behaviour_entity_reviews"),
        median.alias("_median"),
        ((pl.col("_rating") - median).abs() / scale).alias("behaviour_rating_deviation_z"),
        (entropy / math.log(bins)).alias("behaviour_entity_rating_entropy"),
        bucket,
    ]


def _burst() -> pl.Expr:
    """Reviews of the entity in this review's window / the entity's mean per window over its span."""
    e = "_entity"
    dated = pl.col("_bucket").is_not_null()
    in_window = pl.col("_bucket").count().over(e, "_bucket")
    span = (pl.col("_bucket").max() - pl.col("_bucket").min()).over(e) + 1
    # a sparse entity's baseline is below one review per window; one review alone is no burst
    baseline = pl.max_horizontal(pl.col("_bucket").count().over(e) / span, pl.lit(1.0))
    return pl.when(dated).then(in_window / baseline).otherwise(None)


def _components(bp: BehaviourPolicy) -> dict[str, tuple[float, pl.Expr]]:
    """name -> (weight, expression in [0, 1] where 1 looks like a campaign; null when unknown)."""
    enough = pl.col("_entity").is_not_null() & (
        pl.col("behaviour_entity_reviews") >= bp.min_entity_reviews
    )
    extreme = (pl.col("_rating") <= bp.rating_min) | (pl.col("_rating") >= bp.rating_max)
    dev = (pl.col("behaviour_rating_deviation_z") / bp.deviation_high).clip(0.0, 1.0)
    return {
        "burst": (
            bp.w_burst,
            pl.when(enough).then(
                ((pl.col("behaviour_burst_score") - 1.0) / (bp.burst_high - 1.0)).clip(0.0, 1.0)
            ),
        ),
        "tenure": (
            bp.w_tenure,
            1.0
            - (pl.col("behaviour_reviewer_tenure_days") / bp.tenure_trusted_days).clip(0.0, 1.0),
        ),
        "single": (bp.w_single, pl.col("behaviour_single_review_reviewer").cast(pl.Float64)),
        "unverified": (bp.w_unverified, (~pl.col("behaviour_verified")).cast(pl.Float64)),
        # an extreme rating is common in honest reviews too; away from the consensus it weighs double
        "extreme": (
            bp.w_extreme,
            pl.when(pl.col("_rating").is_not_null()).then(
                extreme.cast(pl.Float64) * (0.5 + 0.5 * pl.when(enough).then(dev).otherwise(0.0))
            ),
        ),
        "entropy": (
            bp.w_entropy,
            pl.when(enough).then(1.0 - pl.col("behaviour_entity_rating_entropy").clip(0.0, 1.0)),
        ),
    }


def _reasons(bp: BehaviourPolicy) -> pl.Expr:
    enough = pl.col("behaviour_entity_reviews") >= bp.min_entity_reviews
    return reason_list(
        [
            pl.when(pl.col("behaviour_campaign") >= bp.flag_from).then(
                pl.format(
                    "BEHAVIOUR_CAMPAIGN_LIKE: campaign likelihood {} from the review's behaviour",
                    pl.col("behaviour_campaign").round(2),
                )
            ),
            pl.when(enough & (pl.col("behaviour_burst_score") >= bp.burst_high)).then(
                pl.format(
                    "BEHAVIOUR_BURST: {}x the entity's reviews per {}-day window",
                    pl.col("behaviour_burst_score").round(1),
                    pl.lit(bp.burst_window_days),
                )
            ),
            pl.when(pl.col("behaviour_reviewer_tenure_days") < bp.tenure_trusted_days / 12).then(
                pl.format(
                    "BEHAVIOUR_NEW_REVIEWER: account {} days old at review time",
                    pl.col("behaviour_reviewer_tenure_days"),
                )
            ),
            pl.when(pl.col("behaviour_single_review_reviewer")).then(
                pl.lit("BEHAVIOUR_SINGLE_REVIEW_REVIEWER: the reviewer's only review")
            ),
            pl.when(enough & (pl.col("behaviour_rating_deviation_z") >= bp.deviation_high)).then(
                pl.format(
                    "BEHAVIOUR_RATING_DEVIATION: rating {} vs entity median {} (robust z {})",
                    pl.col("_rating"),
                    pl.col("_median"),
                    pl.col("behaviour_rating_deviation_z").round(1),
                )
            ),
            pl.when(enough & (pl.col("behaviour_entity_rating_entropy") < 0.3)).then(
                pl.format(
                    "BEHAVIOUR_LOW_RATING_ENTROPY: entity rating entropy {} of 1",
                    pl.col("behaviour_entity_rating_entropy").round(2),
                )
            ),
            # only on a page that has some platform field: the many ordinary pages of a mixed
            # corpus would otherwise all carry it (and top every report's reason counts)
            pl.when(~pl.col("behaviour_applicable") & pl.col("_some_field")).then(
                pl.lit("BEHAVIOUR_NOT_APPLICABLE: no rating, date or reviewer on this page")
            ),
        ]
    )


def behaviour_signals(pages: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """pages (doc_id + optional platform columns) -> one row per doc_id: behaviour_* values,
    `behaviour_score` (higher = more trustworthy), `adjust_behaviour` (<= 0) and reasons."""
    bp = policy.behaviour
    if behaviour_status(pages.columns, policy) != "computed":
        return not_applicable(pages)
    fields = present_fields(pages.columns, bp)
    df = _normalised(pages, fields)
    # no review_count: count the reviewer's reviews in this corpus
    counted = pl.when(pl.col("_reviewer").is_not_null()).then(pl.len().over("_reviewer"))
    n_reviews = pl.coalesce(
        pl.col("_review_count"), counted if "reviewer" in fields else pl.lit(None, pl.Float64)
    )
    df = df.with_columns(_entity_stats(bp)).with_columns(
        behaviour_rating_norm=(
            (pl.col("_rating") - bp.rating_min) / (bp.rating_max - bp.rating_min)
        ).clip(0.0, 1.0),
        behaviour_burst_score=_burst(),
        behaviour_reviewer_tenure_days=(pl.col("_review_date") - pl.col("_reviewer_since"))
        .dt.total_days()
        .clip(lower_bound=0),
        behaviour_single_review_reviewer=n_reviews.cast(pl.Float64) <= 1,
        behaviour_verified=pl.col("_verified"),
    )
    entity_cols = [
        "behaviour_entity_reviews",
        "behaviour_rating_deviation_z",
        "behaviour_entity_rating_entropy",
        "behaviour_burst_score",
    ]
    # reviews without an entity share no consensus: their entity-level values stay unknown
    df = df.with_columns(
        [pl.when(pl.col("_entity").is_not_null()).then(pl.col(c)).alias(c) for c in entity_cols]
    )
    df = df.with_columns(
        behaviour_entity_single_review_share=pl.col("behaviour_single_review_reviewer")
        .cast(pl.Float64)
        .mean()
        .over("_entity"),
        behaviour_entity_verified_share=pl.col("behaviour_verified")
        .cast(pl.Float64)
        .mean()
        .over("_entity"),
    )
    comps = _components(bp)
    num = pl.sum_horizontal([(w * x).fill_null(0.0) for w, x in comps.values()])
    den = pl.sum_horizontal(
        [pl.when(x.is_not_null()).then(w).otherwise(0.0) for w, x in comps.values()]
    )
    applicable = (den > 0) & (
        pl.col("_rating").is_not_null()
        | pl.col("_review_date").is_not_null()
        | pl.col("_reviewer").is_not_null()
    )
    some_field = pl.any_horizontal([pl.col(f"_{n}").is_not_null() for n in FIELDS])
    df = df.with_columns(behaviour_applicable=applicable, _some_field=some_field).with_columns(
        behaviour_campaign=pl.when(applicable).then((num / den).round(4)),
    )
    df = df.with_columns(
        behaviour_score=(1.0 - pl.col("behaviour_campaign")).round(4),
        adjust_behaviour=(-bp.weight * pl.col("behaviour_campaign")).fill_null(0.0).round(4),
    ).with_columns(reasons_behaviour=_reasons(bp))
    keep = [
        "doc_id",
        "behaviour_applicable",
        "behaviour_rating_norm",
        "behaviour_rating_deviation_z",
        "behaviour_entity_reviews",
        "behaviour_entity_rating_entropy",
        "behaviour_burst_score",
        "behaviour_reviewer_tenure_days",
        "behaviour_single_review_reviewer",
        "behaviour_entity_single_review_share",
        "behaviour_verified",
        "behaviour_entity_verified_share",
        "behaviour_campaign",
        "behaviour_score",
        "adjust_behaviour",
        "reasons_behaviour",
    ]
    return df.select(keep)
