"""Order-free topic mix, per-paragraph language mix and structural paragraphs (issue #14)."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest
from scoring.corpus_fixtures import TOPICS, chained_paragraphs

from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.coherence import coherence_signals, paragraph_languages, structural
from trustaudit.scoring.topicmix import (
    lexical_groups,
    neighbour_cohesion,
    paragraph_pairs,
    paragraph_tokens,
)

P = Policy()
NAMES = list(TOPICS)  # coffee, volcano, tax, football: each repeats its topic words


def paras(pages: dict[str, list[str]]) -> pl.DataFrame:
    return pl.DataFrame(
        [{"doc_id": d, "text": t} for d, ps in pages.items() for t in ps],
        schema={"doc_id": pl.String, "text": pl.String},
    )


def stitched(k: int, order: str, seed: int) -> list[str]:
    """Paragraphs from k topics, two or three each, in blocks, rotation or random order."""
    rng = random.Random(seed)
    chunks = [TOPICS[NAMES[i]][: rng.randint(2, 3)] for i in range(k)]
    if order == "blocks":
        return [p for c in chunks for p in c]
    if order == "rotation":
        return [c[i] for i in range(3) for c in chunks if i < len(c)]
    out = [p for c in chunks for p in c]
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("order", ["blocks", "rotation", "random"])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_stitched_pages_fall_apart_whatever_the_order(k: int, order: str) -> None:
    pages = {name: TOPICS[name] for name in NAMES} | {"mix": stitched(k, order, seed=k)}
    out = {r["doc_id"]: r for r in lexical_groups(paras(pages)).to_dicts()}
    assert out["mix"]["topic_largest_share"] <= 0.5 + 1e-9
    assert out["mix"]["topic_groups"] >= 2
    for name in NAMES:  # each real topic page holds together better than the stitched one
        assert out[name]["topic_largest_share"] > out["mix"]["topic_largest_share"], name
        assert out[name]["topic_largest_share"] >= 0.6, name


def test_the_order_of_paragraphs_does_not_change_the_groups() -> None:
    base = stitched(3, "blocks", seed=1)
    shuffled = base[::-1]
    pages = {name: TOPICS[name] for name in NAMES} | {"a": base, "b": shuffled}
    out = {r["doc_id"]: r for r in lexical_groups(paras(pages)).to_dicts()}
    assert out["a"]["topic_largest_share"] == out["b"]["topic_largest_share"]
    assert out["a"]["topic_groups"] == out["b"]["topic_groups"]


def test_paragraph_language_mix() -> None:
    en = (
        "The council said that the budget for the harbour and the ferry is not enough for the town."
    )
    de = "Der Rat sagt, dass das Geld für den Hafen und die Fähre nicht reicht, und die Stadt ist arm."
    pages = {"mixed": [en, de, en + " Again.", de + " Wieder."], "plain": [en, en + " Also."]}
    out = {
        r["doc_id"]: r["coherence_language_mix"]
        for r in paragraph_languages(paras(pages)).to_dicts()
    }
    assert out["mixed"] == pytest.approx(0.5) and out["plain"] == 0.0


_RU = "Городской совет во вторник решил, что новый паром не начнёт работу до лета этого года."
_BN = "পৌরসভা মঙ্গলবার জানিয়েছে যে নতুন ফেরি এই গ্রীষ্মের আগে চালু হবে না বলে সবাই হতাশ।"


@pytest.mark.parametrize("other", [_RU, _BN])
def test_paragraphs_in_another_script_are_a_language_mix(other: str) -> None:
    en = (
        "The council said that the budget for the harbour and the ferry is not enough for the town."
    )
    pages = {"mixed": [en, other, en + " Again.", other + " 2"], "plain": [other, other + " 2"]}
    out = {
        r["doc_id"]: r["coherence_language_mix"]
        for r in paragraph_languages(paras(pages)).to_dicts()
    }
    assert out["mixed"] == pytest.approx(0.5) and out.get("plain", 0.0) == 0.0
    # without script tags the other script has no function words to name it: no mix
    off = paragraph_languages(paras(pages), scripts=False).to_dicts()
    assert all(r["coherence_language_mix"] == 0.0 for r in off)


@pytest.mark.parametrize(
    ("text", "is_structure"),
    [
        ("By Maria Silva and John Smith", True),
        ("- Grind the coffee beans just before brewing so the coffee keeps its aroma.", True),
        ("1. Use water just off the boil because boiling water scorches the grounds.", True),
        ("Smith, J. et al. (2019). Coffee chemistry. Food Journal, vol. 3, pp. 12-19.", True),
        ("Grind the coffee beans just before brewing so the coffee keeps its aroma.", False),
    ],
)
def test_structural_paragraphs(text: str, is_structure: bool) -> None:
    df = paras({"d": [text]})
    assert structural(df, P).to_list() == [is_structure]


def test_repeated_lede_and_cross_page_boilerplate_are_structure() -> None:
    lede = "The harbour council approved the new ferry budget on Tuesday after a long debate."
    nav = "Subscribe to our newsletter for the latest harbour news every morning today."
    df = paras({"a": [lede, "Body text about ferries.", lede, nav], "b": [nav], "c": [nav]})
    flags = structural(df, P).to_list()
    assert flags[0] is False and flags[2] is True  # only the repeat of the lede
    assert flags[3] and flags[4] and flags[5]  # on three pages: navigation


def test_coherence_penalises_a_topic_mix_once_with_reason() -> None:
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n]} for n in NAMES]
        + [{"doc_id": "mix", "paragraphs": stitched(4, "random", seed=3)}]
    )
    emb = HashingEmbedder(dim=256)
    out = {r["doc_id"]: r for r in coherence_signals(pages, P, emb).to_dicts()}
    mix = out["mix"]
    assert any(r.startswith("COHERENCE_TOPIC_MIX") for r in mix["reasons_coherence"])
    # one topic penalty: never more than the largest of split, interleave and mix
    c = P.coherence
    most = max(c.split_penalty, c.interleave_penalty, c.topic_penalty + c.topic_low_penalty)
    assert mix["adjust_coherence"] >= -most
    assert mix["adjust_coherence"] <= -c.topic_penalty / 2
    for n in NAMES:
        assert not any(r.startswith("COHERENCE_TOPIC_MIX") for r in out[n]["reasons_coherence"])


def test_a_low_share_split_needs_fewer_grouped_paragraphs() -> None:
    """Four sources of three paragraphs each among six unrelated strays: two thirds of the
    paragraphs are grouped (< topic_grouped_min 0.70) but the largest group holds a sixth (<=
    topic_low_share), so
    topic_low_grouped_min (0.50) applies and the page is a topic mix."""
    rng = random.Random(5)
    strays = [
        " ".join("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(7)) for _ in range(10))
        for _ in range(6)
    ]
    body = [p for n in NAMES for p in TOPICS[n][:3]] + strays
    rng.shuffle(body)
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n]} for n in NAMES]
        + [{"doc_id": "mix", "paragraphs": body}]
    )
    emb = HashingEmbedder(dim=256)
    mix = {r["doc_id"]: r for r in coherence_signals(pages, P, emb).to_dicts()}["mix"]
    assert 0.5 <= mix["coherence_topic_grouped"] < P.coherence.topic_grouped_min
    assert mix["coherence_topic_share"] <= P.coherence.topic_low_share
    assert any(r.startswith("COHERENCE_TOPIC_MIX") for r in mix["reasons_coherence"])
    strict = Policy().with_overrides(
        {"coherence": {"topic_low_grouped_min": 0.7, "topic_free_share": 0.0}}
    )
    mix = {r["doc_id"]: r for r in coherence_signals(pages, strict, emb).to_dicts()}["mix"]
    assert not any(r.startswith("COHERENCE_TOPIC_MIX") for r in mix["reasons_coherence"])


def test_a_largest_group_under_the_free_share_needs_no_second_group() -> None:
    """Three linked paragraphs of one article and four of others that link to nothing (donors
    whose paragraphs share no words among themselves): one group of 3/7 = 0.43 and strays, no
    second group. At or below topic_free_share the page is a topic mix all the same."""
    rng = random.Random(8)
    strays = [
        " ".join("".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(7)) for _ in range(10))
        for _ in range(4)
    ]
    body = TOPICS["coffee"][:3] + strays
    rng.shuffle(body)
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n]} for n in NAMES]
        + [{"doc_id": "mix", "paragraphs": body}]
    )
    emb = HashingEmbedder(dim=256)
    mix = {r["doc_id"]: r for r in coherence_signals(pages, P, emb).to_dicts()}["mix"]
    assert mix["coherence_topic_groups"] == 1
    assert mix["coherence_topic_share"] == pytest.approx(3 / 7)
    assert any(r.startswith("COHERENCE_TOPIC_MIX") for r in mix["reasons_coherence"])
    assert mix["adjust_coherence"] <= -P.coherence.topic_penalty + 1e-9
    off = Policy().with_overrides({"coherence": {"topic_free_share": 0.0}})
    mix = {r["doc_id"]: r for r in coherence_signals(pages, off, emb).to_dicts()}["mix"]
    assert not any(r.startswith("COHERENCE_TOPIC_MIX") for r in mix["reasons_coherence"])


def test_the_topic_mix_penalty_keeps_rising_below_the_low_share() -> None:
    """Flat topic_penalty from topic_share_full down to topic_low_share, then + topic_low_penalty
    linearly down to topic_low_full: a page split into four groups of a quarter each pays 0.35."""
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n]} for n in NAMES]
        + [
            {
                "doc_id": "mix",
                "paragraphs": [p for i in range(3) for n in NAMES for p in [TOPICS[n][i]]],
            }
        ]
    )
    emb = HashingEmbedder(dim=256)
    mix = {r["doc_id"]: r for r in coherence_signals(pages, P, emb).to_dicts()}["mix"]
    assert mix["coherence_topic_share"] == pytest.approx(0.25)
    assert mix["adjust_coherence"] == pytest.approx(-0.35)
    assert "penalty 0.35" in next(
        r for r in mix["reasons_coherence"] if r.startswith("COHERENCE_TOPIC_MIX")
    )
    flat = Policy().with_overrides({"coherence": {"topic_low_penalty": 0.0}})
    mix = {r["doc_id"]: r for r in coherence_signals(pages, flat, emb).to_dicts()}["mix"]
    assert mix["adjust_coherence"] == pytest.approx(-0.30)


@pytest.mark.parametrize(
    ("title", "factor"),
    [
        ("10 things in tech you need to know today, November 19", 0.5),
        ("Top 7 Stories of the Week", 0.5),
        ("15 Helpful Tips to Overcome Binge Eating", 0.5),
        ("Council approves 10 new harbour berths", 1.0),
        ("Harbour news", 1.0),
    ],
)
def test_a_numbered_list_title_halves_the_topic_mix_penalty(title: str, factor: float) -> None:
    """A digest of plain paragraphs under "10 things…" covers several topics by design; a stitched
    page may borrow such a title, so the penalty is halved, not lifted."""
    body = [p for i in range(3) for n in NAMES for p in [TOPICS[n][i]]]
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n], "title": n} for n in NAMES]
        + [{"doc_id": "mix", "paragraphs": body, "title": title}]
    )
    mix = {
        r["doc_id"]: r for r in coherence_signals(pages, P, HashingEmbedder(dim=256)).to_dicts()
    }["mix"]
    assert mix["adjust_coherence"] == pytest.approx(-0.35 * factor)
    reason = next(r for r in mix["reasons_coherence"] if r.startswith("COHERENCE_TOPIC_MIX"))
    assert ("numbered-list title" in reason) is (factor < 1.0)


def test_a_list_shaped_roundup_is_not_a_topic_mix() -> None:
    # a digest: a heading (short line, >= 40 characters) before each item of another topic
    # (other paragraphs than the stitched page's: a paragraph on three pages is boilerplate)
    items = [p for n in NAMES for p in TOPICS[n][3:5]]
    heads = [
        f"Item {i + 1}: remarkable weekly roundup highlights included" for i in range(len(items))
    ]
    roundup = [x for pair in zip(heads, items, strict=True) for x in pair]
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n]} for n in NAMES]
        + [
            {"doc_id": "roundup", "paragraphs": roundup},
            {"doc_id": "mix", "paragraphs": stitched(4, "blocks", seed=3)},
        ]
    )
    out = {r["doc_id"]: r for r in coherence_signals(pages, P, HashingEmbedder(dim=256)).to_dicts()}
    assert out["roundup"]["coherence_structure_share"] >= P.coherence.topic_list_share
    assert not any(r.startswith("COHERENCE_TOPIC_MIX") for r in out["roundup"]["reasons_coherence"])
    assert any(r.startswith("COHERENCE_TOPIC_MIX") for r in out["mix"]["reasons_coherence"])


def test_portuguese_is_not_read_as_spanish() -> None:
    pt = [
        "O governo disse que não há recursos para a obra, e os moradores pedem mais prazo ao prefeito.",
        "Segundo a prefeitura, a ponte também será reformada com verba dos estados e uma parte da União.",
        "Os vereadores afirmaram que o projeto não é prioridade e que a cidade precisa de mais escolas.",
    ]
    es = [
        "El gobierno dijo que los fondos para la obra no alcanzan y las familias piden una prórroga.",
        "Según la alcaldía, el puente será reformado con dinero del Estado y una parte por la región.",
    ]
    out = {
        r["doc_id"]: r["coherence_language_mix"]
        for r in paragraph_languages(paras({"pt": pt, "mixed": pt[:2] + es})).to_dicts()
    }
    assert out["pt"] == 0.0
    assert out["mixed"] == pytest.approx(0.5)


def test_neighbour_cohesion_matches_a_dense_brute_force() -> None:
    rng = random.Random(4)
    pool = [p for ps in TOPICS.values() for p in ps]
    pages = {f"p{i}": rng.sample(pool, rng.randint(2, 12)) for i in range(6)}
    df = paras(pages)
    pairs = paragraph_pairs(df)
    got = dict(neighbour_cohesion(df, pairs, neighbours=3, quantile=0.25).iter_rows())
    # dense cosines from the same IDF word vectors
    toks = paragraph_tokens(df)
    n_par = df.height
    idf = toks.group_by("tok").agg(df=pl.col("r").n_unique())
    w = toks.join(idf, on="tok").with_columns(
        w=pl.col("tf") * (((n_par + 1.0) / (pl.col("df") + 1.0)).log() + 1.0)
    )
    vocab = {t: i for i, t in enumerate(sorted(set(w["tok"].to_list())))}
    m = np.zeros((n_par, len(vocab)))
    for r, t, x in w.select("r", "tok", "w").iter_rows():
        m[r, vocab[t]] = x
    m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    docs = df["doc_id"].to_numpy()
    for doc in pages:
        rows = np.flatnonzero(docs == doc)
        sim = m[rows] @ m[rows].T
        np.fill_diagonal(sim, -np.inf)
        k = min(3, len(rows) - 1)
        near = -np.sort(-sim, axis=1)[:, :k].mean(axis=1)
        assert got[doc] == pytest.approx(np.quantile(near, 0.25)), doc


def test_a_chained_stitched_page_is_one_group_but_loose_paragraphs() -> None:
    real = ("coffee", "volcano", "football")
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n]} for n in TOPICS]
        + [{"doc_id": "chained", "paragraphs": chained_paragraphs()}]
    )
    out = {r["doc_id"]: r for r in coherence_signals(pages, P, HashingEmbedder(dim=256)).to_dicts()}
    chained = out["chained"]
    # the topic mix sees one linked group: it cannot tell
    assert chained["coherence_topic_share"] == 1.0 and chained["coherence_topic_groups"] == 1
    assert chained["coherence_topic_neighbours"] < P.coherence.topic_neighbour_start
    loose = [r for r in chained["reasons_coherence"] if r.startswith("COHERENCE_LOOSE_PARAGRAPHS")]
    assert loose and "6 closest paragraphs" in loose[0], chained["reasons_coherence"]
    assert chained["adjust_coherence"] < 0
    for n in real:
        assert out[n]["coherence_topic_neighbours"] > chained["coherence_topic_neighbours"]
        assert not any(r.startswith("COHERENCE_LOOSE") for r in out[n]["reasons_coherence"])
    off = P.with_overrides({"coherence": {"topic_neighbour_penalty": 0.0}})
    row = coherence_signals(pages, off, HashingEmbedder(dim=256)).filter(
        pl.col("doc_id") == "chained"
    )
    assert not any(r.startswith("COHERENCE_LOOSE") for r in row["reasons_coherence"].item())


def test_a_page_under_the_minimum_words_is_not_tested_for_loose_paragraphs() -> None:
    """Short paragraphs share few words even from one author: below
    `coherence.topic_neighbour_min_words` of prose the loose-paragraph test says nothing."""
    pages = pl.DataFrame(
        [{"doc_id": n, "paragraphs": TOPICS[n]} for n in TOPICS]
        + [{"doc_id": "chained", "paragraphs": chained_paragraphs()}]
    )
    words = sum(len(p.split()) for p in chained_paragraphs())
    high = P.with_overrides({"coherence": {"topic_neighbour_min_words": words + 1}})
    row = coherence_signals(pages, high, HashingEmbedder(dim=256)).filter(
        pl.col("doc_id") == "chained"
    )
    assert not any(r.startswith("COHERENCE_LOOSE") for r in row["reasons_coherence"].item())
    low = P.with_overrides({"coherence": {"topic_neighbour_min_words": words - 20}})
    row = coherence_signals(pages, low, HashingEmbedder(dim=256)).filter(
        pl.col("doc_id") == "chained"
    )
    assert any(r.startswith("COHERENCE_LOOSE") for r in row["reasons_coherence"].item())
