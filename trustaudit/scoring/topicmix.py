"""Topic mix: do a page's paragraphs fall apart into unrelated groups, whatever their order?

Stitched pages take paragraphs from k unrelated articles (2 <= k <= 5) and arrange them in blocks,
in rotation or at random. The topic-shift split (one cut) and the interleave test (period two) each
see one arrangement. This test sees none: paragraphs are nodes, two paragraphs are linked when their
IDF-weighted word vectors share enough vocabulary (cosine >= `min_cosine`), and the statistic is the
share of the page's paragraphs in the largest connected group. A real article repeats its names and
topic words across paragraphs (one large group); a page stitched from k sources splits into about k
groups (share near 1/k). Paragraphs in other languages share no vocabulary with the rest, so a
per-paragraph language mix falls apart too.

Why words, not embeddings: on 700 real pages of ../shared/corpora against pages stitched from 2-5
of them in random arrangements, the largest-group share separated them with ROC-AUC 0.96 (words cut
to 5 letters, cosine 0.08), the clustered static embeddings with 0.72-0.81 (cosines after language
centring are too noisy for a partition of 10 paragraphs).

Pure Polars and one sparse connected-components call per batch of pages: word weights are a
group-by, candidate pairs a self-join on (page, word) within a page, never all pairs of the corpus.
The one corpus-wide part is the IDF: `word_counts` per batch (map), `merge_word_counts` (an
associative sum), then `lexical_groups(..., counts=...)` per batch gives the same groups as one call
over the whole corpus (docs/corpus-at-scale.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

__all__ = [
    "STOPWORDS_4",
    "WordCounts",
    "lexical_groups",
    "merge_word_counts",
    "neighbour_cohesion",
    "paragraph_groups",
    "paragraph_pairs",
    "paragraph_tokens",
    "word_counts",
]

# Function words of four letters or more (en/de/fr/es/pt/it/nl): they link any two paragraphs of a
# language, and a small corpus has too few pages for IDF to discount them.
STOPWORDS_4 = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "have",
        "they",
        "their",
        "there",
        "which",
        "would",
        "about",
        "were",
        "been",
        "will",
        "when",
        "what",
        "your",
        "more",
        "into",
        "than",
        "them",
        "then",
        "some",
        "could",
        "other",
        "also",
        "only",
        "over",
        "such",
        "these",
        "those",
        "after",
        "before",
        "where",
        "while",
        "just",
        "like",
        "very",
        "most",
        "many",
        "much",
        "being",
        "does",
        "said",
        "says",
        "here",
        "because",
        "should",
        "between",
        "through",
        "each",
        "even",
        "well",
        "does",
        "doing",
        "both",
        "same",
        "since",
        "under",
        "again",
        "eine",
        "einer",
        "eines",
        "einem",
        "einen",
        "nicht",
        "sich",
        "auch",
        "noch",
        "wird",
        "sind",
        "oder",
        "aber",
        "wenn",
        "dass",
        "sein",
        "ihre",
        "seine",
        "ihrer",
        "beim",
        "über",
        "nach",
        "mehr",
        "schon",
        "wurde",
        "werden",
        "kann",
        "diese",
        "dieser",
        "dieses",
        "durch",
        "unter",
        "gegen",
        "sowie",
        "dann",
        "denn",
        "doch",
        "ohne",
        "bereits",
        "immer",
        "dans",
        "pour",
        "avec",
        "sont",
        "mais",
        "plus",
        "tout",
        "cette",
        "elle",
        "leur",
        "leurs",
        "nous",
        "vous",
        "être",
        "fait",
        "comme",
        "aussi",
        "sans",
        "sous",
        "entre",
        "très",
        "deux",
        "ainsi",
        "dont",
        "même",
        "encore",
        "para",
        "como",
        "pero",
        "este",
        "esta",
        "esto",
        "están",
        "sobre",
        "entre",
        "cuando",
        "también",
        "porque",
        "todo",
        "todos",
        "desde",
        "hasta",
        "donde",
        "puede",
        "sido",
        "hace",
        "según",
        "tiene",
        "mismo",
        "otros",
        "mais",
        "como",
        "para",
        "pelo",
        "pela",
        "pelos",
        "pelas",
        "está",
        "estão",
        "sobre",
        "entre",
        "quando",
        "também",
        "porque",
        "todo",
        "desde",
        "onde",
        "pode",
        "sido",
        "isso",
        "essa",
        "esse",
        "aquele",
        "ainda",
        "mesmo",
        "outros",
        "foram",
        "será",
        "della",
        "delle",
        "dello",
        "degli",
        "nella",
        "nelle",
        "sono",
        "come",
        "anche",
        "questo",
        "questa",
        "quando",
        "perché",
        "tutto",
        "dopo",
        "prima",
        "ancora",
        "essere",
        "stato",
        "stata",
        "niet",
        "voor",
        "zijn",
        "maar",
        "door",
        "naar",
        "over",
        "deze",
        "ook",
        "worden",
        "werd",
        "heeft",
        "hebben",
    ]
)


@dataclass(frozen=True)
class WordCounts:
    """The corpus-wide part of the IDF: how many paragraphs (in all and per language), and in
    how many of them each word (stem) occurs, per language. Counts of disjoint batches of
    paragraphs add up (`merge_word_counts`)."""

    paragraphs: int
    df: pl.DataFrame  # lang (String), tok (String), df (UInt32: paragraphs containing it)
    languages: pl.DataFrame  # lang (String), paragraphs (UInt32)


def _lang(paras: pl.DataFrame) -> pl.Expr:
    """A paragraph's IDF language: its `lang_key` column when given, else one language for all.

    Why per language: a corpus mostly in English and German makes French or Polish function words
    rare, so their IDF is high and they link every paragraph of a French or Polish page (pages
    stitched from 3-4 French articles stayed one group). Within its own language a function word
    is in most paragraphs and weighs little."""
    if "lang_key" in paras.columns:
        return pl.col("lang_key").cast(pl.String).fill_null("und")
    return pl.lit("und", pl.String)


def paragraph_tokens(
    paras: pl.DataFrame, *, min_word_chars: int = 4, stem: int = 5
) -> pl.DataFrame:
    """r (row of `paras`), doc_id, lang, tok, tf: the words (cut to `stem` letters) of each
    paragraph (lang: `lang_key` when `paras` has it, else 'und')."""
    rows = paras.select("doc_id", "text", lang=_lang(paras)).with_row_index("r")
    return (
        rows.select(
            "r",
            "doc_id",
            "lang",
            tok=pl.col("text").str.to_lowercase().str.extract_all(rf"\p{{L}}{{{min_word_chars},}}"),
        )
        .explode("tok")
        .drop_nulls("tok")
        .filter(~pl.col("tok").is_in(sorted(STOPWORDS_4)))
        .with_columns(pl.col("tok").str.slice(0, stem) if stem > 0 else pl.col("tok"))
        .group_by("r", "doc_id", "lang", "tok")
        .agg(tf=(pl.len().cast(pl.Float64).log() + 1.0))
        # a fixed row order: the float sums downstream then add up in the same order every run
        .sort("r", "tok")
    )


def _df(toks: pl.DataFrame) -> pl.DataFrame:
    return toks.group_by("lang", "tok").agg(df=pl.col("r").n_unique())


def _languages(paras: pl.DataFrame) -> pl.DataFrame:
    return paras.group_by(lang=_lang(paras)).agg(paragraphs=pl.len().cast(pl.UInt32))


def word_counts(paras: pl.DataFrame, *, min_word_chars: int = 4, stem: int = 5) -> WordCounts:
    """The map side of the IDF over one batch of paragraphs (doc_id, text)."""
    toks = paragraph_tokens(paras, min_word_chars=min_word_chars, stem=stem)
    return WordCounts(paras.height, _df(toks), _languages(paras))


def merge_word_counts(parts: list[WordCounts]) -> WordCounts:
    """The associative merge of `word_counts` (sums of integer counts)."""
    if not parts:
        return WordCounts(
            0,
            pl.DataFrame(schema={"lang": pl.String, "tok": pl.String, "df": pl.UInt32}),
            pl.DataFrame(schema={"lang": pl.String, "paragraphs": pl.UInt32}),
        )
    df = pl.concat([p.df for p in parts]).group_by("lang", "tok").agg(pl.col("df").sum())
    langs = pl.concat([p.languages for p in parts]).group_by("lang").agg(pl.col("paragraphs").sum())
    return WordCounts(sum(p.paragraphs for p in parts), df, langs)


def paragraph_pairs(
    paras: pl.DataFrame,
    *,
    min_word_chars: int = 4,
    stem: int = 5,
    counts: WordCounts | None = None,
) -> pl.DataFrame:
    """r, r_b (rows of `paras`, r < r_b, same page), cos: the IDF word-vector cosine of every pair
    of paragraphs of a page that share a word (pairs sharing none have cosine 0 and no row).

    IDF from `counts` (the merged `word_counts` of the whole corpus) when given, else from `paras`.
    """
    schema = {"r": pl.UInt32, "r_b": pl.UInt32, "cos": pl.Float64}
    if paras.height == 0:
        return pl.DataFrame(schema=schema)
    toks = paragraph_tokens(paras, min_word_chars=min_word_chars, stem=stem)
    counts = (
        counts if counts is not None else WordCounts(paras.height, _df(toks), _languages(paras))
    )
    idf = counts.df.join(counts.languages, on="lang", how="left").select(
        "lang",
        "tok",
        idf=(
            (pl.col("paragraphs").cast(pl.Float64) + 1.0) / (pl.col("df").cast(pl.Float64) + 1.0)
        ).log()
        + 1.0,
    )
    w = toks.join(idf, on=["lang", "tok"], maintain_order="left").with_columns(
        w=pl.col("tf") * pl.col("idf")
    )
    w = w.with_columns(w=pl.col("w") / (pl.col("w") ** 2).sum().over("r").sqrt())
    # only words that occur in two paragraphs of the same page can link anything
    w = w.filter(pl.len().over("doc_id", "tok") >= 2).select("r", "doc_id", "tok", "w")
    # A join's row order is not fixed, and floats added up in another order differ in their last
    # bit: the products are summed in fixed point (integer sums do not depend on the order), so
    # coherence_topic_neighbours is the same in every run (2^-40 ≈ 1e-12 resolution).
    return (
        w.join(w, on=["doc_id", "tok"], suffix="_b")
        .filter(pl.col("r") < pl.col("r_b"))
        .group_by("r", "r_b")
        .agg(cos=((pl.col("w") * pl.col("w_b")) * _COS_SCALE).round().cast(pl.Int64).sum())
        .with_columns(pl.col("cos") / _COS_SCALE)
        .cast(schema)  # type: ignore[arg-type]
    )


_COS_SCALE = float(2**40)


def paragraph_groups(
    paras: pl.DataFrame,
    *,
    min_cosine: float = 0.08,
    min_word_chars: int = 4,
    stem: int = 5,
    counts: WordCounts | None = None,
    pairs: pl.DataFrame | None = None,
) -> np.ndarray:
    """Group label of each paragraph row (connected components of the word-link graph; labels are
    unique across `paras`, a paragraph linked to nothing is its own group).

    IDF from `counts` (the merged `word_counts` of the whole corpus) when given, else from `paras`;
    `pairs`: `paragraph_pairs` of `paras` when already computed.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if paras.height == 0:
        return np.zeros(0, dtype=np.int64)
    n = paras.height
    if pairs is None:
        pairs = paragraph_pairs(paras, min_word_chars=min_word_chars, stem=stem, counts=counts)
    linked = pairs.filter(pl.col("cos") >= min_cosine)
    a = linked.get_column("r").to_numpy().astype(np.int64)
    b = linked.get_column("r_b").to_numpy().astype(np.int64)
    graph = coo_matrix((np.ones(len(a), np.int8), (a, b)), shape=(n, n))
    return connected_components(graph, directed=False)[1].astype(np.int64)


def neighbour_cohesion(
    paras: pl.DataFrame, pairs: pl.DataFrame, *, neighbours: int = 6, quantile: float = 0.25
) -> pl.DataFrame:
    """doc_id -> topic_neighbour_cosine: over a page's paragraphs, the `quantile` of each
    paragraph's mean word cosine to its `neighbours` most similar other paragraphs of the page
    (fewer when the page has fewer; a pair sharing no word counts 0).

    Why nearest neighbours, not components: one shared name chains two donors into one connected
    group, but it does not give a paragraph six close neighbours. In a real article most
    paragraphs share vocabulary with several others; a page stitched from k articles in runs of
    2-5 paragraphs leaves a quarter of its paragraphs with one or two related neighbours at most.
    The mean over all other paragraphs falls with page length (long real pages cover subtopics);
    the nearest few do not.
    """
    rows = paras.select("doc_id").with_row_index("r")
    both = pl.concat([pairs.select("r", "cos"), pairs.select(pl.col("r_b").alias("r"), "cos")])
    top = both.group_by("r").agg(
        top=pl.col("cos").sort(descending=True).head(neighbours).sum()  # summed in a fixed order
    )
    per = (
        rows.join(top, on="r", how="left")
        .with_columns(
            k=(pl.len().over("doc_id") - 1).clip(upper_bound=neighbours),
        )
        .filter(pl.col("k") > 0)
        .with_columns(near=pl.col("top").fill_null(0.0) / pl.col("k"))
    )
    return per.group_by("doc_id").agg(
        topic_neighbour_cosine=pl.col("near").quantile(quantile, interpolation="linear")
    )


def lexical_groups(
    paras: pl.DataFrame,
    *,
    min_cosine: float = 0.08,
    min_word_chars: int = 4,
    stem: int = 5,
    labels: np.ndarray | None = None,
    counts: WordCounts | None = None,
    neighbours: int = 6,
    neighbour_quantile: float = 0.25,
) -> pl.DataFrame:
    """paras (doc_id, text; one row per usable paragraph) -> per doc_id: topic_paragraphs,
    topic_groups (groups of 2+ linked paragraphs), topic_largest_share (largest group / paragraphs),
    topic_grouped_share (paragraphs in groups of 2+ / paragraphs), topic_neighbour_cosine
    (`neighbour_cohesion`; null for a page of one paragraph).

    IDF is over the paragraphs given (the corpus), per language when `paras` has `lang_key`:
    idf = ln((N_lang + 1) / (df_lang + 1)) + 1. `stem` > 0
    keeps the first `stem` letters of each word (a crude, language-free stemmer: inflections and
    German compounds then link). `counts`: the corpus's merged `word_counts` when `paras` is one
    batch of it (the IDF is then the corpus's, whatever the batches).
    """
    schema = {
        "doc_id": pl.String,
        "topic_paragraphs": pl.Int32,
        "topic_groups": pl.Int32,
        "topic_largest_share": pl.Float64,
        "topic_grouped_share": pl.Float64,
        "topic_neighbour_cosine": pl.Float64,
    }
    if paras.height == 0:
        return pl.DataFrame(schema=schema)
    pairs = paragraph_pairs(paras, min_word_chars=min_word_chars, stem=stem, counts=counts)
    if labels is None:
        labels = paragraph_groups(paras, min_cosine=min_cosine, pairs=pairs)
    rows = paras.select("doc_id")
    sizes = (
        rows.select("doc_id", pl.Series("g", labels))
        .group_by("doc_id", "g")
        .agg(size=pl.len())
        .group_by("doc_id")
        .agg(
            topic_paragraphs=pl.col("size").sum().cast(pl.Int32),
            topic_groups=(pl.col("size") >= 2).sum().cast(pl.Int32),
            _largest=pl.col("size").max(),
            _grouped=pl.col("size").filter(pl.col("size") >= 2).sum(),
        )
    )
    near = neighbour_cohesion(paras, pairs, neighbours=neighbours, quantile=neighbour_quantile)
    return (
        sizes.select(
            "doc_id",
            "topic_paragraphs",
            "topic_groups",
            topic_largest_share=pl.col("_largest") / pl.col("topic_paragraphs"),
            topic_grouped_share=pl.col("_grouped").fill_null(0) / pl.col("topic_paragraphs"),
        )
        .join(near, on="doc_id", how="left")
        .cast(schema)  # type: ignore[arg-type]
    )
