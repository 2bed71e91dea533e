"""Behavioural review signals: campaign reviews score below honest ones; absent fields are neutral."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest
from helpers import write_jsonl
from polars.testing import assert_frame_equal

from trustaudit.policy import Policy
from trustaudit.scoring.behaviour import behaviour_signals, behaviour_status
from trustaudit.scoring.score import score

P = Policy()


def _reviews() -> pl.DataFrame:
    """Entity `a`: 8 honest reviews over months from old verified accounts, then 4 in two days from
    brand-new single-review unverified accounts, all 5 stars."""
    honest = [
        (f"h{i}", r, f"2026-0{1 + i % 8}-1{i % 9}", "2019-05-01", True, 7)
        for i, r in enumerate([3, 4, 2, 4, 3, 4, 3, 2])
    ]
    fake = [(f"f{i}", 5, f"2026-09-0{1 + i % 2}", "2026-08-30", False, 1) for i in range(4)]
    rows = honest + fake
    return pl.DataFrame(
        {
            "doc_id": [r[0] for r in rows],
            "entity": ["a"] * len(rows),
            "rating": [r[1] for r in rows],
            "reviewer": [f"u-{r[0]}" for r in rows],
            "review_date": [r[2] for r in rows],
            "reviewer_since": [r[3] for r in rows],
            "verified": [r[4] for r in rows],
            "review_count": [r[5] for r in rows],
        }
    )


def test_campaign_reviews_score_below_honest_ones_with_numbered_reasons() -> None:
    out = behaviour_signals(_reviews(), P)
    fake = out.filter(pl.col("doc_id").str.starts_with("f"))
    honest = out.filter(pl.col("doc_id").str.starts_with("h"))
    assert fake["behaviour_campaign"].min() > honest["behaviour_campaign"].max()  # type: ignore[operator]
    assert (fake["adjust_behaviour"] < 0).all() and (out["adjust_behaviour"] <= 0).all()
    assert out["adjust_behaviour"].min() >= -P.behaviour.weight  # type: ignore[operator]
    f0 = fake.row(0, named=True)
    assert f0["behaviour_reviewer_tenure_days"] in (2, 3)
    assert f0["behaviour_single_review_reviewer"] is True and f0["behaviour_verified"] is False
    assert f0["behaviour_entity_reviews"] == 12
    codes = [d.split(":")[0] for d in f0["reasons_behaviour"]]
    assert {"BEHAVIOUR_NEW_REVIEWER", "BEHAVIOUR_SINGLE_REVIEW_REVIEWER"} <= set(codes)
    assert any("days old" in d and any(c.isdigit() for c in d) for d in f0["reasons_behaviour"])
    assert out.schema["behaviour_campaign"] == pl.Float64
    assert out.schema["behaviour_burst_score"] == pl.Float64
    # entity-level: 4 of 12 single-review reviewers, 8 of 12 verified
    assert f0["behaviour_entity_single_review_share"] == pytest.approx(4 / 12)
    assert f0["behaviour_entity_verified_share"] == pytest.approx(8 / 12)


def test_rating_deviation_uses_the_entitys_median_and_mad() -> None:
    df = _reviews().with_columns(
        rating=pl.when(pl.col("doc_id") == "h0").then(pl.lit(5)).otherwise(pl.col("rating"))
    )
    r = behaviour_signals(df, P).filter(pl.col("doc_id") == "h1").row(0, named=True)
    ratings = df["rating"].cast(pl.Float64)
    med = ratings.median()
    mad = (ratings - med).abs().median()
    expected = abs(4 - med) / max(1.4826 * mad, 4 / 8)  # type: ignore[operator]
    assert r["behaviour_rating_deviation_z"] == pytest.approx(expected)


def test_field_names_and_rating_scale_come_from_the_policy() -> None:
    df = _reviews().rename({"rating": "stars", "entity": "product_id"})
    df = df.with_columns(pl.col("stars") * 2)  # a 2..10 scale
    policy = P.with_overrides(
        {
            "behaviour": {
                "rating_field": "stars",
                "entity_field": "product_id",
                "rating_min": 2,
                "rating_max": 10,
            }
        }
    )
    mapped = behaviour_signals(df, policy)
    plain = behaviour_signals(_reviews(), P)
    assert_frame_equal(
        mapped.select("doc_id", "behaviour_rating_norm", "behaviour_campaign"),
        plain.select("doc_id", "behaviour_rating_norm", "behaviour_campaign"),
    )
    unmapped = behaviour_signals(df, P)  # default names miss `stars`: no rating component
    assert unmapped["behaviour_rating_norm"].is_null().all()


def test_no_platform_fields_is_neutral_and_scores_exactly_as_before() -> None:
    pages = pl.DataFrame({"doc_id": ["d1", "d2"], "url": ["https://x.org/1", "https://x.org/2"]})
    b = behaviour_signals(pages, P)
    assert b["adjust_behaviour"].to_list() == [0.0, 0.0]
    assert behaviour_status(pages.columns, P).startswith("BEHAVIOUR_NOT_APPLICABLE: no platform")
    assert behaviour_status(_reviews().columns, P) == "computed"
    signals = pages.with_columns(
        registered_domain=pl.lit("x.org"),
        domain_score=pl.Series([0.4, 0.9]),
        affiliate_score=pl.Series([0.5, 0.1]),
        coherence_score=pl.Series([0.7, 0.3]),
    )
    before = score(signals, P)
    after = score(signals.join(b, on="doc_id"), P)
    assert after["reasons"].to_list() == before["reasons"].to_list()
    assert_frame_equal(
        after.select(before.columns),
        before,
    )
    assert after["trust_score"].to_list() == before["trust_score"].to_list()


def test_disabled_and_partial_rows() -> None:
    off = behaviour_signals(_reviews(), P.with_overrides({"behaviour": {"enabled": False}}))
    assert (off["adjust_behaviour"] == 0).all() and not off["behaviour_applicable"].any()
    extra = pl.DataFrame({"doc_id": ["plain", "entity-only"], "entity": [None, "a"]})
    mixed = pl.concat([_reviews(), extra], how="diagonal_relaxed")
    out = behaviour_signals(mixed, P)
    plain = out.filter(pl.col("doc_id") == "plain").row(0, named=True)
    assert plain["adjust_behaviour"] == 0.0 and plain["behaviour_applicable"] is False
    assert plain["reasons_behaviour"] == []  # an ordinary page of a mixed corpus: no noise
    half = out.filter(pl.col("doc_id") == "entity-only").row(0, named=True)
    assert half["adjust_behaviour"] == 0.0 and half["behaviour_applicable"] is False
    assert half["reasons_behaviour"][0].startswith("BEHAVIOUR_NOT_APPLICABLE")


def test_string_typed_inputs_are_coerced() -> None:
    df = _reviews().with_columns(
        pl.col("rating").cast(pl.String),
        pl.col("verified").cast(pl.String),
        pl.col("review_count").cast(pl.String),
    )
    assert_frame_equal(behaviour_signals(df, P), behaviour_signals(_reviews(), P))


def test_simulator_auc_on_held_out_seed() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from behaviour_sim import evaluate

    res = evaluate(2, 30, P)
    assert res["auc_behaviour_campaign"] >= 0.9
    assert res["auc_behaviour_campaign"] > res["auc_single_review"]


def test_audit_end_to_end_with_platform_fields(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    body = " ".join(f"word{i} sentence about the blender and its motor." for i in range(40))
    recs = []
    for r in _reviews().to_dicts():
        recs.append(
            {
                "url": f"https://reviews.example.com/{r.pop('doc_id')}",
                "text": body,
                **r,
            }
        )
    src = write_jsonl(tmp_path / "reviews.jsonl", recs)
    out = tmp_path / "run"
    res = runner.invoke(app, ["audit", str(src), "--out", str(out), "--now", "2026-11-01"])
    assert res.exit_code == 0, res.output
    sig = pl.read_parquet(out / "signals.parquet")
    assert {"behaviour_burst_score", "behaviour_campaign", "adjust_behaviour"} <= set(sig.columns)
    scores = pl.read_parquet(out / "scores.parquet")
    fake = scores.filter(pl.col("url").str.contains("/f"))
    honest = scores.filter(pl.col("url").str.contains("/h"))
    assert fake["trust_score"].max() < honest["trust_score"].min()  # type: ignore[operator]
    assert fake["reasons"].list.contains("BEHAVIOUR_NEW_REVIEWER").all()
    assert "behaviour_score" in scores.columns


def test_audit_reads_platform_columns_from_parquet(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    """Typed Parquet columns (Date, Boolean) work like the JSONL strings."""
    body = " ".join(f"word{i} sentence about the kettle and its lid." for i in range(40))
    df = (
        _reviews()
        .with_columns(
            url=pl.format("https://reviews.example.com/{}", pl.col("doc_id")),
            text=pl.lit(body),
            review_date=pl.col("review_date").str.to_date(),
            reviewer_since=pl.col("reviewer_since").str.to_date(),
        )
        .drop("doc_id")
    )
    src = tmp_path / "reviews.parquet"
    df.write_parquet(src)
    out = tmp_path / "run"
    res = runner.invoke(app, ["audit", str(src), "--out", str(out), "--now", "2026-11-01"])
    assert res.exit_code == 0, res.output
    sig = pl.read_parquet(out / "signals.parquet").join(
        pl.read_parquet(out / "scores.parquet").select("doc_id", "url"), on="doc_id"
    )
    fake = sig.filter(pl.col("url").str.contains("/f"))
    assert fake["behaviour_reviewer_tenure_days"].is_in([2, 3]).all()
    assert (fake["behaviour_verified"] == False).all()  # noqa: E712
    assert fake["behaviour_campaign"].min() >= P.behaviour.flag_from  # type: ignore[operator]
