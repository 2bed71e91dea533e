"""Coherence: the reference formula, stitched vs real text, too few paragraphs, repetition."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from scoring.corpus_fixtures import TOPICS, VectorEmbedder

from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.coherence import (
    REFERENCE_EDGES,
    coherence_signals,
    cross_from_variance,
    edges_for,
    intra_coherence,
    intra_norm_expr,
    intra_norm_reference,
)

P = Policy()


@pytest.mark.parametrize(
    ("intra", "expected"),
    [(0.6, 1.0), (0.45, 0.5), (0.75, 0.5), (0.30, 0.0), (0.29, 0.2), (0.86, 0.2), (0.1, 0.2)],
)
def test_reference_intra_norm(intra: float, expected: float) -> None:
    assert intra_norm_reference(intra) == pytest.approx(expected)
    got = pl.select(intra_norm_expr(pl.lit(intra), REFERENCE_EDGES)).item()
    assert got == pytest.approx(expected)


def test_reference_cross() -> None:
    assert cross_from_variance(0.2) == pytest.approx(0.8)
    assert cross_from_variance(0.0) == 1.0
    assert cross_from_variance(1.7) == 0.0


def test_intra_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    v = rng.standard_normal((9, 16)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    counts = np.array([4, 1, 3, 1])
    starts = np.array([0, 4, 5, 8])
    got = intra_coherence(v, starts, counts)
    for k, (s, n) in enumerate(zip(starts, counts, strict=True)):
        if n < 2:
            assert math.isnan(got[k])
            continue
        pairs = [float(v[i] @ v[j]) for i, j in itertools.combinations(range(s, s + n), 2)]
        assert got[k] == pytest.approx(np.mean(pairs), abs=1e-5)


def _page(doc_id: str, paragraphs: list[str]) -> dict[str, object]:
    return {"doc_id": doc_id, "paragraphs": paragraphs}


def test_exact_reference_score_with_cross() -> None:
    """intra 0.6 -> intra_norm 1.0; cross 0.8 -> coherence 0.5*1.0 + 0.5*0.8 = 0.9."""
    a, b = "a" * 50, "b" * 50
    # an unlisted model name -> the policy's reference edges
    emb = VectorEmbedder({a: [1.0, 0.0], b: [0.6, 0.8]}, name="reference")  # cosine 0.6
    pages = pl.DataFrame([_page("d1", [a, b])])
    cross = pl.DataFrame({"doc_id": ["d1"], "cross_consistency": [cross_from_variance(0.2)]})
    row = coherence_signals(pages, P, emb, cross=cross).row(0, named=True)
    assert row["intra_coherence"] == pytest.approx(0.6, abs=1e-6)
    assert row["intra_norm"] == pytest.approx(1.0, abs=1e-6)
    assert row["coherence_score"] == pytest.approx(0.9, abs=1e-6)
    assert row["reasons_coherence"] == []


def test_one_paragraph_is_neutral_with_reason() -> None:
    pages = pl.DataFrame(
        [_page("one", [TOPICS["coffee"][0], "short menu"]), _page("none", [])],
        schema={"doc_id": pl.String, "paragraphs": pl.List(pl.String)},
    )
    out = coherence_signals(pages, P, HashingEmbedder(64))
    for row in out.iter_rows(named=True):
        assert row["intra_coherence"] is None
        assert row["intra_norm"] == P.coherence.neutral
        assert row["coherence_score"] == pytest.approx(0.5)
        assert row["reasons_coherence"][0].startswith("COHERENCE_TOO_FEW_PARAGRAPHS:")
    assert out.filter(pl.col("doc_id") == "one")["paragraphs_used"].item() == 1


def test_repetition_and_incoherence_reasons() -> None:
    x, y, z = "x" * 50, "y" * 50, "z" * 50
    emb = VectorEmbedder({x: [1, 0, 0], y: [0, 1, 0], z: [0, 0, 1]}, name="reference")
    pages = pl.DataFrame([_page("rep", [x, x, x, x]), _page("low", [x, y, z])])
    out = {r["doc_id"]: r for r in coherence_signals(pages, P, emb).iter_rows(named=True)}
    assert out["rep"]["intra_norm"] == pytest.approx(0.2)
    assert out["rep"]["reasons_coherence"][0].startswith("COHERENCE_REPETITIVE: intra 1.0")
    assert out["low"]["intra_norm"] == pytest.approx(0.2)
    assert out["low"]["reasons_coherence"][0].startswith("COHERENCE_LOW: intra 0.0")


def test_stitched_scores_lower_than_real_articles() -> None:
    topics = list(TOPICS)
    real = [_page(f"real-{t}", TOPICS[t]) for t in topics]
    stitched = [
        _page(f"st-{i}", [TOPICS[topics[(i + k) % len(topics)]][k] for k in range(4)])
        for i in range(len(topics))
    ]
    out = coherence_signals(pl.DataFrame(real + stitched), P, HashingEmbedder(1024, min_word_len=4))
    intra = dict(zip(out["doc_id"], out["intra_coherence"], strict=True))
    worst_real = min(v for k, v in intra.items() if k.startswith("real"))
    best_stitched = max(v for k, v in intra.items() if k.startswith("st"))
    assert worst_real > best_stitched


def test_unknown_script_paragraphs_are_dropped_not_counted_as_unrelated() -> None:
    a, b, oov = "a" * 50, "b" * 50, "?" * 50
    emb = VectorEmbedder({a: [1.0, 0.0], b: [0.6, 0.8], oov: [0.0, 0.0]})
    pages = pl.DataFrame([_page("d", [a, oov, b, oov]), _page("all-oov", [oov, oov])])
    out = {r["doc_id"]: r for r in coherence_signals(pages, P, emb).iter_rows(named=True)}
    assert out["d"]["paragraphs_used"] == 2
    assert out["d"]["intra_coherence"] == pytest.approx(0.6, abs=1e-6)
    assert out["all-oov"]["paragraphs_used"] == 0
    assert out["all-oov"]["intra_norm"] == P.coherence.neutral


def test_edges_per_model() -> None:
    assert edges_for("all-MiniLM-L6-v2", P) == (0.19, 0.70, 0.445, 0.32)
    assert edges_for("minilm-static-256", P) == (0.41, 0.90, 0.655, 0.31)
    assert edges_for("minilm-static-256+centered", P) == (0.05, 0.80, 0.425, 0.47)
    for name, low, high, center, width in P.coherence.model_edges:
        # calibrated bands are continuous: 0.2 at both edges (within rounding)
        for edge in (low, high):
            norm = pl.select(intra_norm_expr(pl.lit(edge), (low, high, center, width))).item()
            assert norm == pytest.approx(0.2, abs=0.03), name
    assert edges_for("unlisted", P) == REFERENCE_EDGES
    assert edges_for("all-MiniLM-L6-v2", P.with_overrides({"coherence": {"model_edges": []}})) == (
        REFERENCE_EDGES
    )
    custom = P.with_overrides({"coherence": {"model_edges": [["m", 0.1, 0.9, 0.5, 0.4]]}})
    assert edges_for("m", custom) == (0.1, 0.9, 0.5, 0.4)
    assert edges_for("other", custom) == (0.30, 0.85, 0.60, 0.30)


def test_short_paragraphs_and_cap_are_respected() -> None:
    pol = P.with_overrides({"coherence": {"max_paragraphs": 3}})
    pages = pl.DataFrame([_page("d", ["tiny", *TOPICS["tax"]])])
    assert coherence_signals(pages, pol, HashingEmbedder(64))["paragraphs_used"].item() == 3


@pytest.mark.slow
def test_default_model_separates_stitched_from_real() -> None:
    from trustaudit.embed import get_embedder

    emb = get_embedder(P.embeddings)
    topics = list(TOPICS)
    real = [_page(f"real-{t}", TOPICS[t]) for t in topics]
    stitched = [
        _page(f"st-{i}", [TOPICS[topics[(i + k) % len(topics)]][k] for k in range(4)])
        for i in range(len(topics))
    ]
    out = coherence_signals(pl.DataFrame(real + stitched), P, emb)
    real_scores = out.filter(pl.col("doc_id").str.starts_with("real"))["coherence_score"]
    st_scores = out.filter(pl.col("doc_id").str.starts_with("st"))["coherence_score"]
    assert real_scores.min() > st_scores.max()


def test_text_lines_stand_in_for_missing_paragraphs() -> None:
    pages = pl.DataFrame({"doc_id": ["d"], "text": ["\n".join(TOPICS["coffee"])]})
    assert coherence_signals(pages, P, HashingEmbedder(64))["paragraphs_used"].item() == 5


def test_language_centering_removes_the_shared_direction() -> None:
    """A shared per-language component lifts every cosine; centring removes it (stitched -> ~0)."""
    rng = np.random.default_rng(3)
    common = rng.standard_normal(64) * 3.0
    topics = rng.standard_normal((30, 64))
    table: dict[str, list[float]] = {}
    pages = []
    for t in range(30):
        paras = []
        for k in range(4):
            text = f"topic {t} paragraph {k} " + "x" * 40
            table[text] = (common + topics[t] + 0.5 * rng.standard_normal(64)).tolist()
            paras.append(text)
        pages.append({"doc_id": f"real{t:02d}", "paragraphs": paras, "lang": "de"})
    for t in range(10):  # stitched: paragraph k from topic t+k
        paras = [f"topic {(t + k) % 30} paragraph {k} " + "x" * 40 for k in range(4)]
        pages.append({"doc_id": f"st{t:02d}", "paragraphs": paras, "lang": "de"})
    df = pl.DataFrame(pages)
    emb = VectorEmbedder(table, name="m")
    pol = P.with_overrides({"coherence": {"center_min_paragraphs": 50, "center_min_pages": 20}})
    raw = coherence_signals(df, P, emb)  # 40 pages < 500 paragraphs: not centred
    cen = coherence_signals(df, pol, emb)
    assert set(raw["coherence_model"]) == {"m"} and set(cen["coherence_model"]) == {"m+centered"}
    st_raw = raw.filter(pl.col("doc_id").str.starts_with("st"))["intra_coherence"]
    st_cen = cen.filter(pl.col("doc_id").str.starts_with("st"))["intra_coherence"]
    real_cen = cen.filter(pl.col("doc_id").str.starts_with("real"))["intra_coherence"]
    assert st_raw.min() > 0.5  # the shared direction makes unrelated paragraphs look alike
    assert st_cen.max() < 0.2 < real_cen.min()


def test_non_latin_script_is_neutral_with_reason() -> None:
    text = "これは日本語の段落です。内容は十分に長い文章になっています。さらに文を加えます。"
    pages = pl.DataFrame([_page("ja", [text, text + "追加"])])
    row = coherence_signals(pages, P, HashingEmbedder(64)).row(0, named=True)
    assert row["intra_norm"] == P.coherence.neutral
    assert row["reasons_coherence"][0].startswith("COHERENCE_UNSUPPORTED_SCRIPT:")


def test_split_coherence_finds_back_to_back_and_interleaved_topics() -> None:
    from trustaudit.scoring.coherence import split_coherence

    e = np.eye(4)
    a, b = e[0], e[1]
    pages = [
        [a, a, a, b, b, b],  # two articles back to back: split after paragraph 3
        [a, b, a, b, a, b],  # interleaved
        [a, a, a, a, a, a],  # one topic
        [a, a, b],  # too short for min_side 2
    ]
    vecs = np.array([v for p in pages for v in p], dtype=np.float32)
    counts = np.array([len(p) for p in pages])
    starts = np.cumsum(counts) - counts
    gap, cross, at = split_coherence(vecs, starts, counts, min_side=2)
    assert gap[0] == pytest.approx(1.0) and cross[0] == pytest.approx(0.0) and at[0] == 3
    assert gap[1] == pytest.approx(1.0) and cross[1] == pytest.approx(0.0) and at[1] == 0
    assert gap[2] == pytest.approx(0.0) and cross[2] == pytest.approx(1.0)
    assert np.isnan(gap[3]) and at[3] == -1
