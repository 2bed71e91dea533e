"""Coherence over batches of pages: the corpus-wide parts (boilerplate, topic-mix IDF, language
means) are merged aggregates, so any batching gives the scores of one call over the corpus."""

from __future__ import annotations

import random

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scoring.corpus_fixtures import TOPICS

from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.coherence import (
    CoherenceCorpus,
    boilerplate_counts,
    boilerplate_keys,
    coherence_apply,
    coherence_corpus,
    coherence_signals,
    merge_boilerplate_counts,
    page_batches,
    paragraph_table,
)
from trustaudit.scoring.topicmix import merge_word_counts, word_counts

NAMES = list(TOPICS)
NAV = "Subscribe to our newsletter for the latest stories every morning"  # < 40 words
GERMAN = [
    "Der Vulkan ist in der Nacht ausgebrochen und die Lava fließt langsam in das Tal hinunter.",
    "Die Behörden haben die Dörfer am Hang geräumt, weil die Asche die Luft sehr stark belastet.",
    "Forscher messen die Gase, die der Vulkan ausstößt, und warnen vor einem weiteren Ausbruch.",
]


def _corpus(n: int = 36, seed: int = 7) -> pl.DataFrame:
    """Pages on one topic, pages stitched from two or three, German pages, and a navigation line
    on every third page (boilerplate only when counted across the batches)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        kind = i % 4
        if kind == 3:
            paras = list(GERMAN)
            lang = "de"
        elif kind == 2:
            a, b = rng.sample(NAMES, 2)
            paras = TOPICS[a][:3] + TOPICS[b][:3]
            lang = "en"
        else:
            paras = list(TOPICS[NAMES[i % len(NAMES)]])
            rng.shuffle(paras)
            lang = "en"
        if i % 3 == 0:
            paras = [*paras, NAV]
        rows.append(
            {"doc_id": f"d{i:03d}", "paragraphs": paras, "lang": lang, "title": f"Page {i}"}
        )
    # no usable paragraph: a batch of its own still says its language was centred
    rows.append({"doc_id": "empty", "paragraphs": ["Too short."], "lang": "en", "title": "E"})
    return pl.DataFrame(rows)


# centring on (a small corpus), words of four letters: every aggregate matters here
POLICY = Policy().with_overrides(
    {"coherence": {"center_min_paragraphs": 10, "center_min_pages": 3}}
)
EMB = HashingEmbedder(256, min_word_len=4)


@pytest.mark.parametrize("batch_pages", [1, 5, 7])
def test_any_batching_gives_the_scores_of_one_call(batch_pages: int) -> None:
    pages = _corpus()
    whole = coherence_signals(pages, POLICY, EMB, batch_pages=10_000)
    batched = coherence_signals(pages, POLICY, EMB, batch_pages=batch_pages)
    assert_frame_equal(batched, whole)  # values, dtypes and row order
    assert whole.filter(pl.col("coherence_model").str.ends_with("+centered")).height > 0
    assert whole.filter(pl.col("doc_id") == "empty")["coherence_model"].item().endswith("+centered")


def test_batches_scored_on_their_own_corpus_would_differ() -> None:
    """Why the aggregates exist: scoring each batch with only its own counts changes the scores
    (boilerplate seen on three pages of the corpus is on one page of a small batch)."""
    pages = _corpus()
    whole = coherence_signals(pages, POLICY, EMB, batch_pages=10_000)
    alone = []
    for start in range(0, pages.height, 5):
        batch = pages.slice(start, 5)
        own = coherence_corpus(lambda b=batch: [b], POLICY, EMB)
        alone.append(coherence_apply(batch, POLICY, EMB, own))
    assert not pl.concat(alone).equals(whole)


def test_the_policy_key_sets_the_batch_size() -> None:
    pages = _corpus()
    small = POLICY.with_overrides({"engine": {"corpus_batch_pages": 4}})
    assert_frame_equal(coherence_signals(pages, small, EMB), coherence_signals(pages, POLICY, EMB))
    with pytest.raises(ValueError, match="corpus_batch_pages"):
        Policy().with_overrides({"engine": {"corpus_batch_pages": 0}})


def test_boilerplate_counts_add_up_over_batches() -> None:
    pages = _corpus()
    paras = paragraph_table(pages, POLICY)
    whole = boilerplate_counts(paras, POLICY).sort("key")
    parts = [
        boilerplate_counts(paragraph_table(pages.slice(s, 4), POLICY), POLICY)
        for s in range(0, pages.height, 4)
    ]
    assert_frame_equal(merge_boilerplate_counts(parts[::-1]).sort("key"), whole)
    nav = paras.filter(pl.col("text") == NAV).select(pl.col("text").hash(seed=0))["text"][0]
    assert whole.filter(pl.col("key") == nav)["pages"].item() == 12  # on every third page
    assert nav in boilerplate_keys(whole, POLICY).to_list()
    # in a batch of four pages the line is on two at most: not boilerplate there
    assert all(nav not in boilerplate_keys(part, POLICY).to_list() for part in parts)


def test_word_counts_add_up_over_batches() -> None:
    pages = _corpus()
    paras = paragraph_table(pages, POLICY)
    whole = word_counts(paras)
    parts = [word_counts(paras.slice(s, 9)) for s in range(0, paras.height, 9)]
    merged = merge_word_counts(parts[::-1])
    assert merged.paragraphs == whole.paragraphs == paras.height
    assert_frame_equal(merged.df.sort("lang", "tok"), whole.df.sort("lang", "tok"))
    # per-language IDF (coherence.topic_idf_by_language): counts per (lang, tok) add up too
    tagged = paras.with_columns(
        lang_key=pl.when(pl.int_range(pl.len()) % 3 == 0).then(pl.lit("de")).otherwise(pl.lit("en"))
    )
    whole = word_counts(tagged)
    merged = merge_word_counts(
        [word_counts(tagged.slice(s, 7)) for s in range(0, tagged.height, 7)]
    )
    assert_frame_equal(merged.df.sort("lang", "tok"), whole.df.sort("lang", "tok"))
    assert_frame_equal(merged.languages.sort("lang"), whole.languages.sort("lang"))
    assert set(whole.languages["lang"]) == {"de", "en"}


def test_an_empty_corpus_and_pages_without_paragraphs() -> None:
    empty = _corpus().clear()
    assert coherence_signals(empty, POLICY, EMB).height == 0
    bare = pl.DataFrame(
        {"doc_id": ["a", "b"], "paragraphs": [[], ["short"]], "lang": ["en", "en"]},
        schema={"doc_id": pl.String, "paragraphs": pl.List(pl.String), "lang": pl.String},
    )
    out = coherence_signals(bare, POLICY, EMB, batch_pages=1)
    assert out["paragraphs_used"].to_list() == [0, 0]
    assert isinstance(coherence_corpus(lambda: [bare], POLICY, EMB), CoherenceCorpus)


def test_page_batches_cut_at_pages_or_bytes() -> None:
    sizes = [5, 5, 5, 30, 5, 5]
    assert page_batches(sizes, max_pages=2, max_bytes=100) == [(0, 2), (2, 2), (4, 2)]
    assert page_batches(sizes, max_pages=10, max_bytes=12) == [(0, 2), (2, 1), (3, 1), (4, 2)]
    assert page_batches([], max_pages=2, max_bytes=10) == []


def test_a_text_budget_cuts_the_batches_with_the_same_scores() -> None:
    pages = _corpus()
    whole = coherence_signals(pages, POLICY, EMB)
    tight = POLICY.with_overrides({"engine": {"coherence_batch_bytes": 1500}})
    assert_frame_equal(coherence_signals(pages, tight, EMB), whole)
