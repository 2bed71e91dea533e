"""corpus_signals wires syndication -> claims -> coherence into one doc_id-keyed table."""

from __future__ import annotations

import random

import polars as pl
import pytest
from scoring.corpus_fixtures import TOPICS, random_text, swap_words

from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.corpus import CORPUS_COLUMNS, corpus_signals

P = Policy()


def _pages() -> pl.DataFrame:
    rng = random.Random(2)
    base = random_text(rng, 150)
    prices = ["€49.00", "€49.00", "€49.00", "€19.99"]
    rows = []
    for i, price in enumerate(prices):
        paras = [*TOPICS["coffee"][:3], f"The Acme grinder costs {price} at most shops."]
        rows.append(
            {
                "doc_id": f"g{i}",
                "registered_domain": f"shop{i}.example",
                "title": "Acme grinder review",
                "entity": "acme grinder",
                "paragraphs": paras,
                "text": "\n".join(paras),
            }
        )
    for i in range(3):
        t = swap_words(base, 0.1, rng)
        rows.append(
            {
                "doc_id": f"s{i}",
                "registered_domain": f"farm{i}.example",
                "title": None,
                "entity": None,
                "paragraphs": [t],
                "text": t,
            }
        )
    return pl.DataFrame(rows)


def test_corpus_signals_columns_and_values() -> None:
    out = corpus_signals(_pages(), None, P, HashingEmbedder(256))
    assert out.columns == list(CORPUS_COLUMNS)
    rows = {r["doc_id"]: r for r in out.iter_rows(named=True)}
    assert rows["g3"]["claim_outliers"] == 1
    assert rows["g3"]["cross_consistency"] == pytest.approx(0.0)
    assert rows["g0"]["cross_consistency"] == pytest.approx(1.0)
    assert rows["g0"]["coherence_score"] > rows["g3"]["coherence_score"]
    assert rows["s1"]["syndication_other_domains"] == 2
    assert rows["s1"]["adjust_syndication"] == pytest.approx(-0.10)
    # no dates: the earliest copy is undetermined, so every copy gets the per-domain part only
    assert rows["s0"]["adjust_syndication"] == pytest.approx(-0.10)
    assert rows["s0"]["syndication_is_earliest"] is None
    assert rows["s1"]["syndication_late_copy"] is False
    assert rows["s0"]["reasons_coherence"][0].startswith("COHERENCE_TOO_FEW_PARAGRAPHS")
    assert rows["g0"]["coherence_model"] == "hashing-256"


def test_disabled_families_drop_their_columns() -> None:
    pol = P.with_overrides({"syndication": {"enabled": False}, "claims": {"enabled": False}})
    out = corpus_signals(_pages(), None, pol, HashingEmbedder(64))
    assert "adjust_syndication" not in out.columns and "reasons_claims" not in out.columns
    assert out["cross_consistency"].is_null().all()
    no_embed = corpus_signals(_pages(), None, P, None)
    assert "coherence_score" not in no_embed.columns
    assert "cross_consistency" in no_embed.columns
