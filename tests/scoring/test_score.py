"""Bands, hard rules, adjustments and reasons in score()."""

from __future__ import annotations

import polars as pl

from trustaudit.policy import Policy
from trustaudit.scoring.score import score


def frame(**cols: list) -> pl.DataFrame:  # type: ignore[type-arg]
    n = len(next(iter(cols.values())))
    base = {
        "doc_id": [f"d{i}" for i in range(n)],
        "domain_score": [1.0] * n,
        "affiliate_score": [1.0] * n,
        "coherence_score": [1.0] * n,
    }
    base.update(cols)
    return pl.DataFrame(base)


def test_band_edges_are_half_open() -> None:
    # trust = 0.35*1.0 + 0.30*a + 0.35*c
    df = frame(
        domain_score=[1.0, 1.0, 1.0, 1.0],
        affiliate_score=[0.0, 1 / 6, 1.0, 1.0],
        coherence_score=[0.0, 0.0, 0.05 / 0.35, 0.049 / 0.35],
    )
    out = score(df, Policy())
    assert out["trust_score"].to_list() == [0.35, 0.4, 0.7, 0.699]
    assert out["band"].to_list() == ["quarantine", "medium", "trusted", "medium"]
    strict = score(
        frame(domain_score=[0.5]),
        Policy().with_overrides(
            {"profile": "strict", "bands": {"quarantine_below": 0.85, "trusted_from": 0.9}}
        ),
    )
    assert strict["trust_score"][0] == 0.825 and strict["band"][0] == "quarantine"


def test_hard_rule_caps_the_number_and_keeps_the_reference() -> None:
    df = frame(
        domain_score=[1.0, 1.0, 0.0],
        affiliate_score=[1.0, 1.0, 0.0],
        coherence_score=[1.0, 1.0, 0.0],
        quarantine_injection=[True, False, True],
        reasons_injection=[["INJECTION_HIDDEN: display:none div"], [], []],
    )
    out = score(df, Policy())
    assert out["reference_score"].to_list() == [1.0, 1.0, 0.0]
    # capped at 0.20; a reference already below the cap stays as it is
    assert out["trust_score"].to_list() == [0.2, 1.0, 0.0]
    assert out["band"].to_list() == ["quarantine", "trusted", "quarantine"]
    assert out["hard_quarantine"].to_list() == [True, False, True]
    assert out["reasons"][0].to_list() == ["INJECTION_HIDDEN"]
    assert out["reason_details"][0].to_list() == ["INJECTION_HIDDEN: display:none div"]


def test_hard_rule_cap_follows_the_policy() -> None:
    df = frame(quarantine_blocklist=[True], quarantine_affiliate=[None])
    out = score(df, Policy().with_overrides({"scoring": {"hard_rule_cap": 0.05}}))
    assert out["trust_score"][0] == 0.05 and out["reference_score"][0] == 1.0


def test_sorting_by_trust_agrees_with_bands() -> None:
    df = frame(
        domain_score=[1.0, 0.2, 0.6, 1.0],
        quarantine_injection=[True, False, False, False],
    )
    out = score(df, Policy()).sort("trust_score")
    order = {"quarantine": 0, "medium": 1, "trusted": 2}
    ranks = [order[b] for b in out["band"].to_list()]
    assert ranks == sorted(ranks)


def test_hard_rule_cap_must_be_below_the_quarantine_threshold() -> None:
    import pytest

    from trustaudit.policy import PolicyError, load_policy

    with pytest.raises(PolicyError, match="hard_rule_cap"):
        load_policy(None, overrides={"scoring": {"hard_rule_cap": 0.5}}, environ={})
    with pytest.raises(PolicyError, match="hard_rule_cap"):
        load_policy(None, overrides={"bands": {"quarantine_below": 0.1}}, environ={})
    ok = load_policy(None, overrides={"profile": "strict"}, environ={})
    assert ok.scoring.hard_rule_cap < ok.bands.quarantine_below


def test_adjustments_add_and_clip() -> None:
    df = frame(adjust_syndication=[-0.2, None, -2.0], adjust_textual=[-0.05, 0.0, 0.0])
    out = score(df, Policy())
    assert out["trust_score"].to_list() == [0.75, 1.0, 0.0]
    assert out["trust_score_base"].to_list() == [1.0, 1.0, 1.0]
    assert out["reference_score"].to_list() == out["trust_score"].to_list()


def test_missing_families_get_documented_neutral_values() -> None:
    df = pl.DataFrame(
        {"doc_id": ["x"], "domain_score": [None], "affiliate_score": [0.5]},
        schema_overrides={"domain_score": pl.Float64},
    )
    out = score(df, Policy())
    # domain neutral 0.5, coherence neutral 0.5 -> 0.35*0.5+0.3*0.5+0.35*0.5
    assert out["trust_score"][0] == 0.5
    assert "COHERENCE_NOT_COMPUTED" in out["reasons"][0].to_list()


def test_reasons_are_concatenated_across_families_in_order() -> None:
    df = frame(
        domain_score=[1.0],
        reasons_affiliate=[["AFFILIATE_DISCLOSED: 2 link(s)"]],
        reasons_domain=[["DOMAIN_YOUNG: 3 days"]],
    )
    out = score(df, Policy())
    assert out["reasons"][0].to_list() == ["AFFILIATE_DISCLOSED", "DOMAIN_YOUNG"]
