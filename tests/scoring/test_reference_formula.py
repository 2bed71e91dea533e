"""Hand-computed values of the reference formulas (DESIGN §3–§4), end to end through the Polars code.

Case: domain created 2 years before `now`, newest publication 30 days before `now`, 3 affiliate links in
1,000 words with no disclosure, intra-document coherence 0.6 and cross-source normalized variance 0.2.
  age       = min(730/365, 5)/5            = 0.4
  activity  = max(0, 1 - 30/180)           = 0.833333…
  domain    = 0.6*0.4 + 0.4*0.833333…      = 0.573333…
  affiliate = density 3 ≤ 5, undisclosed   = 0.5
  intra_norm= 1 - |0.6-0.6|/0.3            = 1.0 ; cross = 1 - 0.2 = 0.8
  coherence = 0.5*1.0 + 0.5*0.8            = 0.9
  trust     = round(0.35*0.573333 + 0.30*0.5 + 0.35*0.9, 3) = round(0.665667, 3) = 0.666 -> medium
"""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl
import pytest

from trustaudit.policy import Policy
from trustaudit.scoring.affiliate import affiliate_signals, flag_affiliate_links
from trustaudit.scoring.domain import domain_signals
from trustaudit.scoring.score import score

NOW = date(2026, 11, 1)


def _pages() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "doc_id": ["d1"],
            "url": ["https://www.review.example.com/p"],
            "host": ["www.review.example.com"],
            "registered_domain": ["example.com"],
            "published": [NOW - timedelta(days=30)],
            "word_count": [1000],
            "text": ["word " * 1000],
        }
    )


def _links() -> pl.DataFrame:
    hrefs = [
        "https://amzn.to/a",
        "https://www.shareasale.com/r.cfm?b=1",
        "https://shop.example.net/x?aff=42",
        "https://other.example.org/",
        "https://www.review.example.com/about",
    ]
    return pl.DataFrame(
        {
            "doc_id": ["d1"] * 5,
            "href": hrefs,
            "host": [
                "amzn.to",
                "www.shareasale.com",
                "shop.example.net",
                "other.example.org",
                "www.review.example.com",
            ],
            "rel": [[], [], [], [], []],
            "anchor_text": ["a"] * 5,
        },
        schema_overrides={"rel": pl.List(pl.String)},
    )


def test_reference_case_by_hand() -> None:
    # activity_prior_pages = 0: the reference activity formula as is (the default shrinks the
    # activity of a domain with one dated page toward neutral, see test_domain.py)
    policy = Policy().with_overrides({"domain": {"activity_prior_pages": 0}})
    pages = _pages()
    dom, _ = domain_signals(
        pages, policy, now=NOW, created={"example.com": NOW - timedelta(days=730)}
    )
    aff = affiliate_signals(pages, flag_affiliate_links(_links(), policy), policy)
    assert dom["age_score"][0] == pytest.approx(0.4)
    assert dom["activity_score"][0] == pytest.approx(1 - 30 / 180)
    assert dom["domain_score"][0] == pytest.approx(0.6 * 0.4 + 0.4 * (1 - 30 / 180))
    assert aff["affiliate_links"][0] == 3 and aff["links_total"][0] == 5
    assert aff["affiliate_per_1k_words"][0] == pytest.approx(3.0)
    assert aff["affiliate_ratio"][0] == pytest.approx(0.6)
    assert aff["affiliate_score"][0] == 0.5
    coherence = pl.DataFrame(
        {"doc_id": ["d1"], "coherence_score": [0.5 * (1 - abs(0.6 - 0.6) / 0.3) + 0.5 * (1 - 0.2)]}
    )
    signals = (
        pages.select("doc_id", "url", "registered_domain")
        .join(dom, on="doc_id")
        .join(aff, on="doc_id")
        .join(coherence, on="doc_id")
    )
    out = score(signals, policy)
    assert out["coherence_score"][0] == pytest.approx(0.9)
    assert out["trust_score"][0] == 0.666
    assert out["band"][0] == "medium"
    assert out["hard_quarantine"][0] is False
    assert "AFFILIATE_UNDISCLOSED" in out["reasons"][0]


def test_reference_weights_exact_when_only_reference_signals_present() -> None:
    policy = Policy()
    df = pl.DataFrame(
        {
            "doc_id": list("abcd"),
            "domain_score": [0.0, 1.0, 0.3, 0.77],
            "affiliate_score": [0.1, 1.0, 0.25, 0.7],
            "coherence_score": [0.2, 1.0, 0.9, 0.55],
        }
    )
    out = score(df, policy)
    expected = [
        round(0.35 * d + 0.30 * a + 0.35 * c, 3)
        for d, a, c in zip(
            df["domain_score"], df["affiliate_score"], df["coherence_score"], strict=True
        )
    ]
    assert out["trust_score"].to_list() == expected
    assert out["trust_score"].to_list() == out["trust_score_base"].to_list()
