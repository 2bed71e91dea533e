"""Containment: a copy inside a much longer page clusters with it even at a low Jaccard."""

from __future__ import annotations

import random
from datetime import date

import numpy as np
import polars as pl
import pytest
from scoring.corpus_fixtures import random_text, swap_words

from trustaudit.policy import Policy
from trustaudit.scoring.containment import containment_pairs, merge_components
from trustaudit.scoring.syndication import syndication_signals

P = Policy()


def _corpus() -> pl.DataFrame:
    rng = random.Random(11)
    article = random_text(rng, 150)
    rows = [
        # the original inside a long page (comments, related links, …): Jaccard with the copy ~0.1
        ("orig", "news.example", article + " " + random_text(rng, 900), date(2024, 1, 1)),
        ("copy", "farm.example", swap_words(article, 0.05, rng), date(2024, 5, 1)),
        ("other", "blog.example", random_text(rng, 300), date(2024, 1, 1)),
        # same text on the original's own domain: never a containment pair
        ("amp", "news.example", article, date(2024, 1, 1)),
    ]
    return pl.DataFrame(
        rows,
        schema={
            "doc_id": pl.String,
            "registered_domain": pl.String,
            "text": pl.String,
            "published": pl.Date,
        },
        orient="row",
    )


def _pairs(df: pl.DataFrame, **kw: object) -> pl.DataFrame:
    s = P.syndication
    args: dict[str, object] = {
        "shingle_words": s.shingle_words,
        "seed": s.seed,
        "sample_mod": s.containment_sample_mod,
        "max_df": s.containment_max_df,
        "min_shared": s.containment_min_shared,
        "min_containment": s.min_containment,
    }
    args.update(kw)
    return containment_pairs(df["text"], df["registered_domain"], **args)  # type: ignore[arg-type]


def test_containment_pairs_find_the_contained_copy_across_domains_only() -> None:
    df = _corpus()
    pairs = _pairs(df)
    found = {
        (df["doc_id"][a], df["doc_id"][b]) for a, b in zip(pairs["a"], pairs["b"], strict=True)
    }
    # orig-copy and amp-copy (another domain); never orig-amp (same domain) nor "other"
    assert found == {("orig", "copy"), ("copy", "amp")}
    row = pairs.filter(pl.col("a") == 0).row(0, named=True)
    assert row["containment"] > 0.8
    # common phrases (max_df) and a high bar remove the pair
    assert _pairs(df, min_containment=0.99).height == 0
    assert _pairs(df, max_df=1).height == 0


def test_low_jaccard_copy_becomes_a_late_copy() -> None:
    df = _corpus().filter(pl.col("doc_id") != "amp")
    out = {r["doc_id"]: r for r in syndication_signals(df, P).iter_rows(named=True)}
    assert out["copy"]["syndication_late_copy"] is True
    assert out["copy"]["syndication_earliest_domain"] == "news.example"
    assert out["orig"]["syndication_is_earliest"] is True
    assert out["other"]["syndication_cluster_size"] == 1
    # without containment, Jaccard alone misses the copy
    off = P.with_overrides({"syndication": {"min_containment": 0.0}})
    r = syndication_signals(df, off).filter(pl.col("doc_id") == "copy").row(0, named=True)
    assert r["syndication_cluster_size"] == 1 and r["adjust_syndication"] == 0.0


def test_merge_components() -> None:
    labels = np.array([0, 0, 1, 2, 2, 3])
    merged = merge_components(labels, np.array([1]), np.array([3]))
    assert merged[0] == merged[1] == merged[3] == merged[4]
    assert len({merged[2], merged[5], merged[0]}) == 3
    assert merge_components(labels, np.array([], np.int64), np.array([], np.int64)) is labels


def test_empty_and_short_inputs() -> None:
    empty = pl.Series([], dtype=pl.String)
    assert _pairs(pl.DataFrame({"text": empty, "registered_domain": empty})).height == 0
    df = pl.DataFrame({"text": ["a b", ""], "registered_domain": ["x.example", "y.example"]})
    assert _pairs(df).height == 0


@pytest.mark.parametrize("mod", [1, 4])
def test_sampling_keeps_identical_shingles_on_both_pages(mod: int) -> None:
    df = _corpus()
    assert _pairs(df, sample_mod=mod).height == 2


def test_minhash_shingles_give_the_same_pairs_as_containment_own() -> None:
    """syndication hands its MinHash shingles to containment: the pairs must not change."""
    from trustaudit.scoring.syndication import minhash_signatures

    pages = _corpus()
    texts, domains = pages["text"], pages["registered_domain"]
    s = P.syndication
    kw = dict(
        shingle_words=s.shingle_words,
        seed=s.seed,
        sample_mod=1,
        max_df=20,
        min_shared=3,
        min_containment=0.5,
    )
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    minhash_signatures(
        texts, shingle_words=s.shingle_words, num_perm=s.num_perm, seed=s.seed, keep_shingles=kept
    )
    own = containment_pairs(texts, domains, **kw)  # type: ignore[arg-type]
    reused = containment_pairs(texts, domains, shingles=kept[0], **kw)  # type: ignore[arg-type]
    assert own.height >= 1 and own.sort("a", "b").equals(reused.sort("a", "b"))
