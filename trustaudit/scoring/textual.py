"""Cheap textual signals: lexical density, duplicate lines, superlatives, digits. Weak alone.

Repetition uses duplicate-line character fractions rather than word n-grams: n-gram repetition
through Polars list operations is slower than Python (DESIGN §6).
"""

from __future__ import annotations

import polars as pl

from trustaudit.policy import Policy
from trustaudit.scoring._reasons import reason_list

# en/pt/es/de/fr hype words; a high rate marks marketing copy, not a verdict on its own
SUPERLATIVES = (
    # explicit letter/digit delimiters instead of \b: a Unicode \b forces Rust's slow regex engine
    # (≈20x slower on real pages); callers lower-case the text first
    r"(?:^|[^\p{L}\p{N}_])(?:best|greatest|ultimate|amazing|incredible|unbelievable|perfect|unbeatable|"
    r"revolutionary|top-rated|must-have|life-changing|guaranteed|miracle|insane|mind-blowing|world-class|"
    r"melhor(?:es)?|incr[íi]vel|perfeito|imperd[íi]vel|garantido|mejor(?:es)?|incre[íi]ble|perfecto|"
    r"beste[nr]?|unglaublich|perfekt|meilleur(?:e|s|es)?|incroyable|parfait)(?:[^\p{L}\p{N}_]|$)"
)


def textual_signals(pages: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """Per page raw textual values, an `adjust_textual` penalty (≤ 0) and reasons."""
    t = policy.textual
    text = pl.col("text").fill_null("")
    words = pl.col("word_count").cast(pl.Float64)
    para_len = pl.col("paragraphs").list.eval(pl.element().str.len_chars())
    dup_len = pl.col("paragraphs").list.eval(
        pl.when(pl.element().is_duplicated()).then(pl.element().str.len_chars()).otherwise(0)
    )
    out = pages.with_columns(pl.col("paragraphs").cast(pl.List(pl.String))).select(
        "doc_id",
        "word_count",
        # type/token ratio over the first 300 words: the plain ratio falls with length (Heaps' law),
        # so a long honest article would look as poor as short spam
        # (split on whitespace of a bounded prefix: ~4x faster than a \w+ extract over the whole text)
        lexical_density=pl.when(pl.col("word_count") > 0)
        .then(
            text.str.slice(0, 4000)
            .str.to_lowercase()
            .str.replace_all(r"[^\w\s]+", "")
            .str.replace_all("\n", " ", literal=True)
            .str.split(" ")
            .list.head(300)
            .pipe(lambda w: w.list.n_unique() / w.list.len())
        )
        .otherwise(None),
        dup_line_char_frac=pl.when(para_len.list.sum() > 0)
        .then(dup_len.list.sum() / para_len.list.sum())
        .otherwise(0.0),
        superlatives_per_100_words=pl.when(pl.col("word_count") > 0)
        .then(
            # doubled spaces: each delimiter is consumed once, so adjacent hype words all count
            text.str.to_lowercase()
            .str.replace_all(" ", "  ", literal=True)
            .str.count_matches(SUPERLATIVES)
            * 100.0
            / words
        )
        .otherwise(None),
        digits_per_100_words=pl.when(pl.col("word_count") > 0)
        .then(text.str.count_matches(r"\d") * 100.0 / words)
        .otherwise(None),
    )
    long_enough = pl.col("word_count") >= 50  # density and rates are noise on tiny texts
    repetitive = pl.col("dup_line_char_frac") > t.max_dup_line_frac
    hype = long_enough & (pl.col("superlatives_per_100_words") > t.max_superlative_per_100w)
    low_density = long_enough & (pl.col("lexical_density") < t.min_lexical_density)
    failed = repetitive.cast(pl.Int8) + hype.cast(pl.Int8) + low_density.cast(pl.Int8)
    out = out.with_columns(
        adjust_textual=-(t.weight * failed.cast(pl.Float64) / 3.0),
        reasons_textual=reason_list(
            [
                pl.when(repetitive).then(
                    pl.format(
                        "TEXT_REPETITIVE: {}% of characters in duplicated lines",
                        (pl.col("dup_line_char_frac") * 100).round(1),
                    )
                ),
                pl.when(hype).then(
                    pl.format(
                        "TEXT_SUPERLATIVE_HEAVY: {} superlatives per 100 words",
                        pl.col("superlatives_per_100_words").round(1),
                    )
                ),
                pl.when(low_density).then(
                    pl.format(
                        "TEXT_LOW_LEXICAL_DENSITY: {} distinct/total words",
                        pl.col("lexical_density").round(2),
                    )
                ),
            ]
        ),
    )
    return out.drop("word_count")
