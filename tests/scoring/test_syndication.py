"""Syndication: spun copies across domains cluster, the earliest copy is not penalised."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime

import numpy as np
import polars as pl
import pytest
from scoring.corpus_fixtures import random_text, swap_words

from trustaudit.policy import Policy
from trustaudit.scoring.syndication import (
    embedding_clusters,
    minhash_signatures,
    syndication_signals,
)

P = Policy()


def _corpus(seed: int = 5) -> pl.DataFrame:
    rng = random.Random(seed)
    original = random_text(rng, 200)
    rows = [
        # the original: earliest published date
        ("orig", "news.example", original, date(2024, 1, 1), None),
        # 10%-word-swapped copies on three other domains, dated later
        (
            "copy1",
            "farm-a.example",
            swap_words(original, 0.10, rng),
            date(2024, 3, 1),
            datetime(2024, 3, 1, tzinfo=UTC),
        ),
        ("copy2", "farm-b.example", swap_words(original, 0.10, rng), date(2024, 2, 1), None),
        (
            "copy3",
            "farm-c.example",
            swap_words(original, 0.10, rng),
            date(2024, 3, 2),
            datetime(2024, 3, 2, tzinfo=UTC),
        ),
        # a second copy on the original's own domain (print view): same publisher, no penalty
        ("print", "news.example", swap_words(original, 0.02, rng), date(2024, 1, 2), None),
        # unrelated pages, and a short page
        ("other1", "blog.example", random_text(rng, 200), date(2024, 1, 1), None),
        ("other2", "farm-a.example", random_text(rng, 200), date(2024, 1, 1), None),
        ("short", "farm-b.example", " ".join(original.split()[:20]), None, None),
    ]
    return pl.DataFrame(
        rows,
        schema={
            "doc_id": pl.String,
            "registered_domain": pl.String,
            "text": pl.String,
            "published": pl.Date,
            "fetched_at": pl.Datetime("us", "UTC"),
        },
        orient="row",
    )


def test_spun_copies_cluster_across_domains() -> None:
    out = {r["doc_id"]: r for r in syndication_signals(_corpus(), P).iter_rows(named=True)}
    cluster = {d for d, r in out.items() if r["syndication_cluster_id"] == "copy1"}
    assert cluster == {"orig", "copy1", "copy2", "copy3", "print"}
    for d in ("copy1", "copy2", "copy3"):
        r = out[d]
        assert r["syndication_other_domains"] == 3
        assert r["syndication_is_earliest"] is False
        assert r["syndication_late_copy"] is True
        # 3 other domains x 0.05 + copy_penalty 0.30 = 0.45, capped at penalty_cap 0.40
        assert r["adjust_syndication"] == pytest.approx(-0.40)
        assert r["reasons_syndication"] == [
            "SYNDICATED_ACROSS_N_DOMAINS: later copy of text shared with 3 other domains "
            "(earliest: news.example)"
        ]
    assert out["orig"]["syndication_is_earliest"] is True
    assert out["orig"]["adjust_syndication"] == 0.0
    assert out["orig"]["reasons_syndication"][0].startswith("SYNDICATION_SOURCE:")
    assert out["orig"]["syndication_late_copy"] is False
    assert out["print"]["adjust_syndication"] == 0.0  # same publisher as the earliest copy
    off = P.with_overrides({"syndication": {"copy_penalty": 0.0}})
    r = syndication_signals(_corpus(), off).filter(pl.col("doc_id") == "copy1").row(0, named=True)
    assert r["adjust_syndication"] == pytest.approx(-0.15)
    for d in ("other1", "other2", "short"):
        assert out[d]["syndication_cluster_id"] is None
        assert out[d]["syndication_cluster_size"] == 1
        assert out[d]["adjust_syndication"] == 0.0
        assert out[d]["reasons_syndication"] == []


def test_penalty_is_capped_and_configurable() -> None:
    rng = random.Random(9)
    text = random_text(rng, 150)
    df = pl.DataFrame(
        {
            "doc_id": [f"d{i}" for i in range(8)],
            "registered_domain": [f"site{i}.example" for i in range(8)],
            "text": [swap_words(text, 0.05, rng) for _ in range(8)],
        }
    )
    out = syndication_signals(df, P)
    assert out["syndication_other_domains"].to_list() == [7] * 8
    # no dates at all: the earliest copy is undetermined (never decided by nulls or doc_id), so
    # no copy penalty and no source; every page gets the capped per-domain part
    assert out["syndication_is_earliest"].to_list() == [None] * 8
    assert out["syndication_late_copy"].to_list() == [False] * 8
    assert out["adjust_syndication"].to_list() == pytest.approx([-0.35] * 8)
    dated = df.with_columns(published=pl.date_range(date(2024, 1, 1), date(2024, 1, 8), eager=True))
    got = syndication_signals(dated, P)
    assert got["syndication_is_earliest"].to_list() == [True] + [False] * 7
    # 7 x 0.05 + 0.30 = 0.65, capped at penalty_cap 0.40
    assert got["adjust_syndication"].to_list() == pytest.approx([0.0] + [-0.40] * 7)
    off = P.with_overrides({"syndication": {"penalty_per_domain": 0.0}})
    assert syndication_signals(df, off)["adjust_syndication"].to_list() == [0.0] * 8


def test_undated_original_vs_later_claimed_date_is_undetermined() -> None:
    rng = random.Random(3)
    text = random_text(rng, 150)
    fetched = datetime(2024, 6, 1, tzinfo=UTC)
    df = pl.DataFrame(
        {
            "doc_id": ["orig", "copy"],
            "registered_domain": ["news.example", "farm.example"],
            "text": [text, swap_words(text, 0.05, rng)],
            "published": [None, date(2024, 3, 1)],  # the copy claims an earlier date
            "fetched_at": [fetched, fetched],
        },
        schema_overrides={"published": pl.Date},
    )
    out = {r["doc_id"]: r for r in syndication_signals(df, P).iter_rows(named=True)}
    # the undated page may be older than the claimed date: nobody is the earliest copy
    for d in ("orig", "copy"):
        assert out[d]["syndication_is_earliest"] is None
        assert out[d]["syndication_late_copy"] is False
        assert out[d]["adjust_syndication"] == pytest.approx(-0.05)
    # fetched before the claimed date: the undated page is certainly earlier (first seen)
    early = df.with_columns(fetched_at=pl.Series([datetime(2024, 1, 1, tzinfo=UTC), fetched]))
    out = {r["doc_id"]: r for r in syndication_signals(early, P).iter_rows(named=True)}
    assert out["orig"]["syndication_is_earliest"] is True
    assert out["copy"]["syndication_late_copy"] is True
    assert out["copy"]["adjust_syndication"] == pytest.approx(-0.35)  # 0.05 + copy 0.30


def test_missing_optional_columns_and_empty_input() -> None:
    df = pl.DataFrame(
        {"doc_id": ["a"], "text": [None]}, schema={"doc_id": pl.String, "text": pl.String}
    )
    out = syndication_signals(df, P)
    assert out.height == 1 and out["syndication_other_domains"].item() == 0
    empty = syndication_signals(df.clear(), P)
    assert empty.height == 0


def test_swap_recall_by_fraction() -> None:
    """10%-swapped copies must cluster (3-word shingles, 32 bands x 2 rows)."""
    rng = random.Random(1)
    rows = []
    for i in range(40):
        t = random_text(rng, 150)
        rows.append((f"o{i:02d}", "orig.example", t))
        rows.append((f"c{i:02d}", f"copy{i}.example", swap_words(t, 0.10, rng)))
    df = pl.DataFrame(rows, schema=["doc_id", "registered_domain", "text"], orient="row")
    out = syndication_signals(df, P)
    ids = dict(zip(out["doc_id"], out["syndication_cluster_id"], strict=True))
    recall = np.mean(
        [ids[f"c{i:02d}"] is not None and ids[f"c{i:02d}"] == ids[f"o{i:02d}"] for i in range(40)]
    )
    assert recall >= 0.95
    assert out["syndication_cluster_size"].max() == 2  # no false merges between originals


def test_signatures_are_deterministic_and_exclude_short_rows() -> None:
    texts = pl.Series(["one two three four five", "one two three four five", "a b", None])
    sig, counts = minhash_signatures(texts, shingle_words=3, num_perm=16, seed=1)
    assert sig.shape == (4, 16) and counts.tolist() == [5, 5, 2, 0]
    assert (sig[0] == sig[1]).all()


def test_embedding_clusters_find_paraphrases_not_strangers() -> None:
    rng = np.random.default_rng(0)
    base = rng.standard_normal((50, 32))
    near = base + 0.2 * rng.standard_normal((50, 32))
    v = np.concatenate([base, near]).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    labels = embedding_clusters(v, min_cosine=0.9)
    assert np.mean(labels[:50] == labels[50:]) >= 0.9
    assert len(set(labels[:50].tolist())) == 50


@pytest.mark.parametrize(
    ("text", "agency"),
    [
        ("WASHINGTON (Reuters) - The Senate voted on Tuesday to ...", "Reuters"),
        ("PARIS (AFP) — Les syndicats ont appelé ...", "AFP"),
        ("O governo anunciou ontem ...\nFonte: Agência Brasil", "Agência Brasil"),
        ("MADRID, 3 jun (EFE).- El Gobierno aprobó ...", "EFE"),
        ("Die Regierung hat ... (dpa)", "dpa"),
        (
            "The council met ...\n© 2024 The Associated Press. All rights reserved.",
            "Associated Press",
        ),
        ("The council met ... with reporting by Reuters", "Reuters"),
    ],
)
def test_wire_credit_lines(text: str, agency: str) -> None:
    from trustaudit.scoring.syndication import wire_credit

    got = pl.select(wire_credit(pl.lit(text))).item()
    assert got == agency


def test_an_article_about_an_agency_is_not_wire_copy() -> None:
    from trustaudit.scoring.syndication import wire_credit

    body = "x " * 300 + "Reuters reported that the AP style guide changed. " + "y " * 300
    assert pl.select(wire_credit(pl.lit(body))).item() is None


def _cluster(
    domains: list[str],
    *,
    published: list[date | None],
    prefix: str = "",
    seed: int = 9,
    swap: float = 0.03,
    links: list[int] | None = None,
) -> pl.DataFrame:
    rng = random.Random(seed)
    text = random_text(rng, 180)
    fetched = [datetime(2024, 6, i + 1, tzinfo=UTC) for i in range(len(domains))]
    return pl.DataFrame(
        {
            "doc_id": [f"p{i}" for i in range(len(domains))],
            "registered_domain": domains,
            "text": [prefix + swap_words(text, swap, rng) for _ in domains],
            "published": published,
            "fetched_at": fetched,
            "links_total": links or [0] * len(domains),
        },
        schema_overrides={"published": pl.Date},
    )


def test_farm_cluster_penalises_every_member() -> None:
    from trustaudit.scoring.syndication import farm_signals

    df = _cluster(["farm-a.example", "farm-b.example", "farm-c.example"], published=[None] * 3)
    synd = syndication_signals(df, P)
    assert synd["syndication_all_undated"].all()
    # the first fetched copy was named the source and left unpenalised
    assert synd.filter(pl.col("doc_id") == "p0")["adjust_syndication"].item() == 0.0
    dom = pl.DataFrame(
        {"doc_id": ["p0", "p1", "p2"], "in_allowlist": [False] * 3, "anchor_count": [0] * 3,
         "reputation_anchor": [False] * 3}
    )  # fmt: skip
    out = farm_signals(synd.join(dom, on="doc_id"), P)
    total = (out["adjust_syndication"] + out["adjust_syndication_farm"]).to_list()
    assert all(t <= -P.syndication.farm_penalty + 1e-9 for t in total), total
    assert out["syndication_farm"].all()
    assert all(r[0].startswith("SYNDICATION_FARM") for r in out["reasons_syndication_farm"])
    # one member with evidence (a rated domain) is the presumed source, whatever the fetch order:
    # no farm; its fetch-order copy penalty is lifted, the others are presumed copies
    anchored = dom.with_columns(reputation_anchor=pl.Series([False, True, False]))
    named = synd.join(df.select("doc_id", "registered_domain"), on="doc_id")
    out = farm_signals(named.join(anchored, on="doc_id"), P).sort("doc_id")
    assert not out["syndication_farm"].any()
    total = (out["adjust_syndication"] + out["adjust_syndication_farm"]).round(6).to_list()
    assert total == [-0.4, -0.1, -0.4]  # copies: 2 x 0.05 + 0.30; source: 2 x 0.05 only
    assert out["reasons_syndication_farm"][0][0].startswith(
        "SYNDICATION_PRESUMED_COPY: the dates do not order the copies; farm-b.example has"
    )
    assert out["reasons_syndication_farm"][1].to_list() == []
    # a dated member: the ordinary earliest-copy logic applies
    dated = _cluster(
        ["farm-a.example", "farm-b.example", "farm-c.example"],
        published=[date(2024, 1, 1), None, None],
    )
    out = farm_signals(syndication_signals(dated, P).join(dom, on="doc_id"), P)
    assert not out["syndication_farm"].any()


def test_wire_copies_are_tagged_not_penalised() -> None:
    from trustaudit.scoring.syndication import farm_signals

    df = _cluster(
        ["paper-a.example", "paper-b.example", "paper-c.example"],
        published=[None] * 3,
        prefix="LONDON (Reuters) - ",
        swap=0.0,  # licensed wire copy is reprinted as sent
    )
    synd = syndication_signals(df, P)
    assert (synd["syndication_wire"] == "Reuters").all()
    assert (synd["adjust_syndication"] == 0.0).all()
    assert all(r[0].startswith("SYNDICATED_WIRE: licensed wire copy (credit: Reuters)")
               for r in synd["reasons_syndication"])  # fmt: skip
    dom = pl.DataFrame({"doc_id": ["p0", "p1", "p2"], "anchor_count": [0] * 3})
    out = farm_signals(synd.join(dom, on="doc_id"), P)
    assert not out["syndication_farm"].any()


def test_a_page_dated_years_before_an_undated_copy_is_presumed_the_source() -> None:
    rng = random.Random(4)
    text = random_text(rng, 150)
    df = pl.DataFrame(
        {
            "doc_id": ["orig", "copy"],
            "registered_domain": ["news.example", "farm.example"],
            "text": [text, swap_words(text, 0.05, rng)],
            "published": [date(2019, 3, 1), None],
            "fetched_at": [datetime(2026, 6, 1, tzinfo=UTC)] * 2,
        },
        schema_overrides={"published": pl.Date},
    )
    out = {r["doc_id"]: r for r in syndication_signals(df, P).iter_rows(named=True)}
    assert out["orig"]["syndication_is_earliest"] is True
    assert out["copy"]["syndication_late_copy"] is True
    assert out["copy"]["adjust_syndication"] == pytest.approx(-0.35)
    # 0 restores "undetermined"; a date inside the window stays undetermined too
    off = P.with_overrides({"syndication": {"presume_dated_days": 0}})
    assert syndication_signals(df, off)["syndication_is_earliest"].to_list() == [None, None]
    recent = df.with_columns(published=pl.Series([date(2026, 3, 1), None], dtype=pl.Date))
    assert syndication_signals(recent, P)["syndication_late_copy"].to_list() == [False, False]


def test_a_spun_copy_with_a_wire_credit_is_not_wire_copy() -> None:
    from trustaudit.scoring.syndication import farm_signals

    rng = random.Random(12)
    text = "LONDON (AP) - " + random_text(rng, 250)
    df = pl.DataFrame(
        {
            "doc_id": ["orig", "spun"],
            "registered_domain": ["paper.example", "spinner.example"],
            "text": [text, swap_words(text, 0.10, random.Random(1))],
            "published": [date(2024, 1, 1), date(2024, 5, 1)],
        },
        schema_overrides={"published": pl.Date},
    )
    out = {r["doc_id"]: r for r in syndication_signals(df, P).iter_rows(named=True)}
    spun = out["spun"]
    assert spun["syndication_cluster_id"] == out["orig"]["syndication_cluster_id"] is not None
    assert spun["syndication_wire"] is None and out["orig"]["syndication_wire"] is None
    assert spun["adjust_syndication"] < -0.3 and spun["syndication_late_copy"] is True
    assert "credit line AP but no near-verbatim copy" in spun["reasons_syndication"][0]
    # the same pair reprinted verbatim is licensed wire copy again
    verbatim = df.with_columns(text=pl.lit(text))
    got = syndication_signals(verbatim, P)
    assert (got["syndication_wire"] == "AP").all() and (got["adjust_syndication"] == 0.0).all()
    # a lone credited page (no copy to compare) keeps its tag
    lone = syndication_signals(df.head(1), P).row(0, named=True)
    assert lone["syndication_wire"] == "AP"
    # a stricter bar turns the verbatim pair into copies too
    strict = P.with_overrides(
        {"syndication": {"wire_min_jaccard": 1.0, "wire_min_containment": 1.0}}
    )
    near = verbatim.with_columns(text=pl.Series([text, swap_words(text, 0.02, random.Random(2))]))
    assert (syndication_signals(near, P)["syndication_wire"] == "AP").all()
    assert syndication_signals(near, strict)["syndication_wire"].null_count() == 2
    assert farm_signals(got.with_columns(links_total=pl.lit(0)), P)["syndication_farm"].sum() == 0


def test_two_bare_undated_copies_are_a_farm() -> None:
    from trustaudit.scoring.syndication import farm_signals

    pair = _cluster(["farm-a.example", "farm-b.example"], published=[None, None], swap=0.08)
    synd = syndication_signals(pair, P).join(pair.select("doc_id", "links_total"), on="doc_id")
    # the fetch order named p0 the source: no penalty on it before the farm rule
    assert synd.filter(pl.col("doc_id") == "p0")["adjust_syndication"].item() == 0.0
    out = farm_signals(synd, P).sort("doc_id")
    assert out["syndication_farm"].all()
    total = (out["adjust_syndication"] + out["adjust_syndication_farm"]).to_list()
    assert all(t <= -P.syndication.farm_penalty + 1e-9 for t in total), total
    assert "none a site page" in out["reasons_syndication_farm"][0][0]
    # pairs off: the old behaviour (farm needs farm_min_domains)
    off = P.with_overrides({"syndication": {"farm_pairs": False}})
    assert not farm_signals(synd, off)["syndication_farm"].any()
    # one copy is a site page (links), the other bare: it is the presumed source, whatever the
    # fetch order; the bare copy is the presumed copy
    site = synd.with_columns(links_total=pl.Series([0, 40], dtype=pl.Int64))
    named = site.join(pair.select("doc_id", "registered_domain"), on="doc_id")
    out = farm_signals(named, P).sort("doc_id")
    assert not out["syndication_farm"].any()
    total = (out["adjust_syndication"] + out["adjust_syndication_farm"]).round(6).to_list()
    assert total == [-0.35, -0.05]  # copy: 0.05 + 0.30; source: 0.05
    assert out["reasons_syndication_farm"][0][0].startswith(
        "SYNDICATION_PRESUMED_COPY: the dates do not order the copies; farm-b.example has 3+ links"
    )
    # both site pages: nothing separates them, the fetch order stands, no farm
    both = synd.with_columns(links_total=pl.lit(40))
    out = farm_signals(both, P).sort("doc_id")
    assert not out["syndication_farm"].any()
    assert (out["adjust_syndication_farm"] == 0.0).all()
