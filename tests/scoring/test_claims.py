"""Cross-source claims: number formats, extraction, conflicting prices, grouping."""

from __future__ import annotations

import polars as pl
import pytest

from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.claims import claim_signals, entity_groups, extract_claims, parse_number

P = Policy()


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("1.234,56", 1234.56),
        ("1,234.56", 1234.56),
        ("19,99", 19.99),
        ("19.99", 19.99),
        ("1,234", 1234.0),
        ("1.234", 1234.0),
        ("1.234.567", 1234567.0),
        ("1,234,567.5", 1234567.5),
        ("3,5", 3.5),
        ("49", 49.0),
        ("1\u00a0234,50", 1234.5),
    ],
)
def test_parse_number_both_conventions(raw: str, value: float) -> None:
    assert pl.select(parse_number(pl.lit(raw))).item() == pytest.approx(value)


def test_extract_claim_kinds() -> None:
    text = (
        "Now €19,99 (was 49.00 EUR); US$ 1,299.00 in the US and R$ 1.234,56 in Brazil. "
        "Rated 4.5/5 by readers and 8 out of 10 by us. Founded in 1998. 20 % faster. "
        "Kostet 1.299,00 € oder 30 euros."
    )
    got = extract_claims(pl.DataFrame({"doc_id": ["a"], "text": [text]}))
    rows = {(r["kind"], r["unit"], r["value"]) for r in got.iter_rows(named=True)}
    assert rows >= {
        ("price", "EUR", 19.99),
        ("price", "EUR", 49.0),
        ("price", "USD", 1299.0),
        ("price", "BRL", 1234.56),
        ("price", "EUR", 1299.0),
        ("price", "EUR", 30.0),
        ("rating/5", "/5", 4.5),
        ("rating/10", "/10", 8.0),
        ("year", "", 1998.0),
        ("percent", "", 20.0),
    }


def _product_pages() -> pl.DataFrame:
    price = ["€49.00", "49,00 €", "EUR 49.00", "€ 48,90", "€19.99"]
    return pl.DataFrame(
        {
            "doc_id": [f"p{i}" for i in range(5)] + ["lonely"],
            "entity": ["Acme X100"] * 5 + ["Other thing"],
            "title": ["Acme X100 review"] * 5 + ["Other"],
            "text": [f"The Acme X100 costs {p} and we rate it 4/5." for p in price]
            + ["It costs €5."],
        }
    )


def test_conflicting_price_is_an_outlier_with_reason() -> None:
    out = {r["doc_id"]: r for r in claim_signals(_product_pages(), P).iter_rows(named=True)}
    bad = out["p4"]
    assert bad["claim_group"] == "e:acme x100" and bad["claim_group_pages"] == 5
    assert bad["claim_outliers"] == 1
    assert len(bad["reasons_claims"]) == 1
    assert bad["reasons_claims"][0].startswith(
        "CLAIM_OUTLIER: price 19.99 EUR vs group median 49.0 (5 pages"
    )
    # one of two compared claims (price, rating) is in full conflict -> variance 0.5
    assert bad["claim_normalized_variance"] == pytest.approx(0.5)
    assert bad["cross_consistency"] == pytest.approx(0.5)
    for d in ("p0", "p1", "p2", "p3"):
        assert out[d]["claim_outliers"] == 0 and out[d]["reasons_claims"] == []
        assert out[d]["cross_consistency"] > 0.95
    # a page alone in its group has nothing to compare: cross stays null (neutral downstream)
    assert out["lonely"]["cross_consistency"] is None
    assert out["lonely"]["claims_compared"] == 0


def test_small_group_is_not_compared() -> None:
    pages = _product_pages().head(2)
    out = claim_signals(pages, P)
    assert out["claims_compared"].to_list() == [0, 0]
    assert out["cross_consistency"].is_null().all()


def test_groups_without_entity_column() -> None:
    pages = pl.DataFrame(
        {
            "doc_id": ["a", "b", "c", "d", "e"],
            "title": [
                "Acme X100 review: the best budget blender | Site A",
                "Acme X100 review: the best budget blender - Site B",
                "Acme X100 Review: The Best Budget Blender",
                "Completely different article about tax",
                "Home",
            ],
            "text": [""] * 5,
        }
    )
    exact = entity_groups(pages, P)
    g = dict(zip(exact["doc_id"], exact["claim_group"], strict=True))
    assert g["a"] == g["b"] == g["c"] is not None
    assert g["d"] != g["a"]
    assert g["e"] is None  # too short to stand for an entity
    emb = entity_groups(pages, P, encode=HashingEmbedder(256).encode)
    g2 = dict(zip(emb["doc_id"], emb["claim_group"], strict=True))
    assert g2["a"] == g2["b"] == g2["c"] == "t:a"
    # a near-duplicate cluster id wins over titles
    clusters = pl.DataFrame({"doc_id": ["d"], "syndication_cluster_id": ["zz"]})
    g3 = entity_groups(pages, P, clusters=clusters)
    assert g3.filter(pl.col("doc_id") == "d")["claim_group"].item() == "s:zz"
