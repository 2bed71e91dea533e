"""Textual signals: repetition, hype, lexical density -> a bounded penalty with reasons."""

from __future__ import annotations

import polars as pl
import pytest

from trustaudit.policy import Policy
from trustaudit.scoring.textual import textual_signals


def one(text: str, paragraphs: list[str] | None = None) -> dict:  # type: ignore[type-arg]
    paras = paragraphs if paragraphs is not None else [p for p in text.split("\n") if p]
    df = pl.DataFrame(
        {"doc_id": ["d"], "text": [text], "word_count": [len(text.split())], "paragraphs": [paras]},
        schema_overrides={"paragraphs": pl.List(pl.String)},
    )
    return textual_signals(df, Policy()).to_dicts()[0]


def test_clean_prose_has_no_penalty() -> None:
    import random

    vocab = [
        f"{a}{b}"
        for a in (
            "river",
            "forest",
            "trade",
            "market",
            "harbor",
            "valley",
            "bridge",
            "mill",
            "stone",
            "cloud",
            "north",
            "grain",
            "salt",
            "iron",
            "glass",
            "wool",
            "spice",
            "canal",
            "tower",
            "field",
        )
        for b in ("s", "ing", "ed", "er", "ful", "ness", "ward", "ly", "ish", "dom")
    ]
    rng = random.Random(7)
    text = "\n".join(" ".join(rng.choice(vocab) for _ in range(12)) + "." for _ in range(30))
    r = one(text)
    assert r["adjust_textual"] == 0.0 and r["dup_line_char_frac"] == 0.0
    assert [x.split(":")[0] for x in r["reasons_textual"]] == []


def test_duplicated_lines_and_hype_are_penalised() -> None:
    line = "The best amazing ultimate perfect unbeatable product ever made for you"
    text = "\n".join([line] * 10)
    r = one(text)
    assert r["dup_line_char_frac"] == pytest.approx(1.0)
    assert r["superlatives_per_100_words"] > 30
    codes = [x.split(":")[0] for x in r["reasons_textual"]]
    assert codes == [  # TEXT_THIN moved to scoring/quality.py (with its penalty)
        "TEXT_REPETITIVE",
        "TEXT_SUPERLATIVE_HEAVY",
        "TEXT_LOW_LEXICAL_DENSITY",
    ]
    assert r["adjust_textual"] == pytest.approx(-0.10)


def test_digits_and_empty_text() -> None:
    r = one("Price 1999 and 2024 and 42 " + "word " * 96)
    assert r["digits_per_100_words"] == pytest.approx(10 * 100 / 102)
    empty = one("", [])
    assert empty["lexical_density"] is None and empty["adjust_textual"] == 0.0
