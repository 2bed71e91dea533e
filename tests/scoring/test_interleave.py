"""Interleaved topics: lag-2 minus lag-1 paragraph similarity, and its coherence penalty."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scoring.corpus_fixtures import TOPICS, VectorEmbedder

from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.coherence import coherence_signals
from trustaudit.scoring.interleave import interleave_gap

P = Policy()


def _segments(pages: list[list[np.ndarray]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    vecs = np.array([v for p in pages for v in p], dtype=np.float32)
    counts = np.array([len(p) for p in pages])
    return vecs, (np.cumsum(counts) - counts).astype(np.int64), counts


def test_interleave_gap_on_toy_topics() -> None:
    e = np.eye(3)
    a, b = e[0], e[1]
    pages = [
        [a, b, a, b, a, b],  # interleaved: neighbours unrelated, every second one identical
        [a, a, a, b, b, b],  # back to back: the split's job, not interleaving
        [a, a, a, a],  # one topic
        [a, b, a],  # below min_paragraphs
    ]
    gap, lag1, lag2 = interleave_gap(*_segments(pages), min_paragraphs=4)
    assert lag1[0] == pytest.approx(0.0) and lag2[0] == pytest.approx(1.0)
    assert gap[0] == pytest.approx(1.0)
    # lag1: 4 of 5 adjacent pairs equal (0.8); lag2: 2 of 4 pairs two apart equal (0.5)
    assert gap[1] == pytest.approx(0.5 - 0.8)
    assert gap[2] == pytest.approx(0.0)
    assert math.isnan(gap[3]) and math.isnan(lag1[3])
    # the same page passes with a lower minimum
    assert interleave_gap(*_segments(pages), min_paragraphs=3)[0][3] == pytest.approx(1.0)


def test_interleave_gap_matches_brute_force_and_never_crosses_pages() -> None:
    rng = np.random.default_rng(1)
    v = rng.standard_normal((17, 8))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    counts = np.array([5, 2, 6, 4])
    starts = (np.cumsum(counts) - counts).astype(np.int64)
    gap, lag1, lag2 = interleave_gap(v, starts, counts, min_paragraphs=4)
    for k, (s, n) in enumerate(zip(starts, counts, strict=True)):
        if n < 4:
            assert math.isnan(gap[k])
            continue
        l1 = np.mean([v[i] @ v[i + 1] for i in range(s, s + n - 1)])
        l2 = np.mean([v[i] @ v[i + 2] for i in range(s, s + n - 2)])
        assert lag1[k] == pytest.approx(l1) and lag2[k] == pytest.approx(l2)
        assert gap[k] == pytest.approx(l2 - l1)
    empty = interleave_gap(np.zeros((0, 8)), np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert all(len(x) == 0 for x in empty)


def test_interleaved_page_gets_penalty_and_reason_real_page_does_not() -> None:
    a1, a2, b1, b2 = ("a" * 40 + "1"), ("a" * 40 + "2"), ("b" * 40 + "1"), ("b" * 40 + "2")
    emb = VectorEmbedder(
        {a1: [1.0, 0.0, 0.1], a2: [0.9, 0.1, 0.0], b1: [0.0, 1.0, 0.1], b2: [0.1, 0.9, 0.0]},
        name="reference",
    )
    pages = pl.DataFrame(
        [
            {"doc_id": "mixed", "paragraphs": [a1, b1, a2, b2, a1, b2]},
            {"doc_id": "blocks", "paragraphs": [a1, a2, a1, b1, b2, b1]},
        ]
    )
    # one-word synthetic paragraphs repeat inside the page: structure, unless structure_aware is off
    pol = P.with_overrides(
        {
            "coherence": {
                "split_penalty": 0.0,
                "center_by_language": False,
                "structure_aware": False,
                "topic_penalty": 0.0,
                # the interleave statistic alone: one-letter "words" repeat on every page, so the
                # word cohesion that waives it (and the loose-paragraph penalty) are set aside
                "topic_cohesive_neighbours": 2.0,
                "topic_neighbour_penalty": 0.0,
            }
        }
    )
    out = {r["doc_id"]: r for r in coherence_signals(pages, pol, emb).iter_rows(named=True)}
    mixed, blocks = out["mixed"], out["blocks"]
    assert mixed["coherence_interleave"] > P.coherence.interleave_high
    assert mixed["adjust_coherence"] == pytest.approx(-P.coherence.interleave_penalty)
    assert any(r.startswith("COHERENCE_INTERLEAVED:") for r in mixed["reasons_coherence"])
    assert blocks["coherence_interleave"] < 0
    assert blocks["adjust_coherence"] == 0.0
    assert not any(r.startswith("COHERENCE_INTERLEAVED") for r in blocks["reasons_coherence"])
    # the penalty is a ramp between interleave_low and interleave_high, and can be switched off
    g = mixed["coherence_interleave"]
    ramp = pol.with_overrides(
        {"coherence": {"interleave_low": g - 0.1, "interleave_high": g + 0.1}}
    )
    half = coherence_signals(pages, ramp, emb).filter(pl.col("doc_id") == "mixed")
    assert half["adjust_coherence"].item() == pytest.approx(-P.coherence.interleave_penalty / 2)
    off = pol.with_overrides({"coherence": {"interleave_penalty": 0.0}})
    assert coherence_signals(pages, off, emb)["adjust_coherence"].to_list() == [0.0, 0.0]
    # paragraphs whose words hang together waive it (coherence_topic_neighbours >= the key)
    waived = pol.with_overrides({"coherence": {"topic_cohesive_neighbours": 0.0}})
    row = (
        coherence_signals(pages, waived, emb).filter(pl.col("doc_id") == "mixed").row(0, named=True)
    )
    assert row["adjust_coherence"] == 0.0
    assert not any(r.startswith("COHERENCE_INTERLEAVED") for r in row["reasons_coherence"])


def test_real_topic_pages_are_not_flagged_interleaved() -> None:
    topics = list(TOPICS)
    real = [{"doc_id": t, "paragraphs": TOPICS[t]} for t in topics]
    mixed = [
        {
            "doc_id": f"mix-{i}",
            "paragraphs": [TOPICS[topics[i if k % 2 == 0 else (i + 1) % 4]][k] for k in range(5)],
        }
        for i in range(len(topics))
    ]
    out = coherence_signals(pl.DataFrame(real + mixed), P, HashingEmbedder(1024, min_word_len=4))
    gaps = dict(zip(out["doc_id"], out["coherence_interleave"], strict=True))
    assert max(gaps[t] for t in topics) < min(gaps[f"mix-{i}"] for i in range(4))
