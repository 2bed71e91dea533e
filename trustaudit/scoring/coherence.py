"""Coherence: do a page's paragraphs belong together, and do its claims agree with other sources?

`intra_coherence` is the mean pairwise cosine of paragraph embeddings (DESIGN §3). Stitched pages
(paragraphs lifted from unrelated articles) sit low; mass repetition sits very high. The embedding
call is injected (`embedder.encode`), so the function stays pure and tests use a hashing embedder.

Three parts of it compare a page with the corpus: boilerplate (a short paragraph on many pages),
the IDF of the topic-mix words, and the per-language mean vector of the centring. Each is a
merged aggregate (`CoherenceCorpus`: map over batches of pages, associative merge), and the rest is
a map per batch (`coherence_apply`), so `coherence_signals` holds one batch's paragraphs and
vectors at a time (`engine.corpus_batch_pages`) and gives the same scores for any batching.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from trustaudit.embed.base import Embedder
from trustaudit.policy import Policy
from trustaudit.scoring.interleave import interleave_gap
from trustaudit.scoring.topicmix import WordCounts, lexical_groups, merge_word_counts, word_counts

__all__ = [
    "REFERENCE_EDGES",
    "CoherenceCorpus",
    "CoherenceCounts",
    "boilerplate_counts",
    "boilerplate_keys",
    "center_vectors",
    "coherence_apply",
    "coherence_apply_step",
    "coherence_corpus",
    "coherence_counts",
    "coherence_counts_step",
    "coherence_signals",
    "coherence_words",
    "coherence_words_step",
    "cross_from_variance",
    "edges_for",
    "intra_coherence",
    "intra_norm_expr",
    "intra_norm_reference",
    "language_means",
    "language_sums",
    "merge_boilerplate_counts",
    "merge_coherence_counts",
    "merge_language_sums",
    "page_batches",
    "page_text_bytes",
    "paragraph_table",
    "split_coherence",
    "text_bytes_expr",
]

# (low, high, center, width) of DESIGN §3, defined for all-MiniLM-L6-v2 cosines.
REFERENCE_EDGES: tuple[float, float, float, float] = (0.30, 0.85, 0.60, 0.30)
_ENCODE_CHUNK = 8192  # paragraphs per encode call: bounds memory, keeps batches large


# What coherence_signals returns, in order (corpus.py composes its column list from it).
COHERENCE_COLUMNS: tuple[str, ...] = (
    "doc_id",
    "paragraphs_used",
    "intra_coherence",
    "intra_norm",
    "cross_consistency",
    "coherence_score",
    "coherence_model",
    "coherence_split",
    "coherence_split_gap",
    "coherence_split_at",
    "coherence_topic_shift",
    "coherence_interleave",
    "coherence_topic_paragraphs",
    "coherence_topic_groups",
    "coherence_topic_share",
    "coherence_topic_grouped",
    "coherence_topic_neighbours",
    "coherence_structure_share",
    "coherence_language_mix",
    "adjust_coherence",
    "reasons_coherence",
)


def intra_norm_reference(intra: float, out_of_band: float = 0.2) -> float:
    """The reference formula verbatim: < 0.30 or > 0.85 -> 0.2, else 1 - |intra - 0.60| / 0.30."""
    low, high, center, width = REFERENCE_EDGES
    if intra < low or intra > high:
        return out_of_band
    return 1.0 - abs(intra - center) / width


def cross_from_variance(normalized_variance: float) -> float:
    """Reference cross-source term: max(0, 1 - normalized_variance)."""
    return max(0.0, 1.0 - normalized_variance)


def edges_for(model: str, policy: Policy) -> tuple[float, float, float, float]:
    """Edges calibrated for `model` (policy.coherence.model_edges), else the policy's own edges.

    Cosine distributions differ between models, so one set of edges cannot fit all of them.
    """
    c = policy.coherence
    for name, low, high, center, width in c.model_edges:
        if name == model:
            return (low, high, center, width)
    return (c.low, c.high, c.center, c.width)


def intra_norm_expr(
    intra: pl.Expr,
    edges: tuple[float | pl.Expr, float | pl.Expr, float | pl.Expr, float | pl.Expr],
    out_of_band: float = 0.2,
) -> pl.Expr:
    """Polars form of the reference formula for any edges; clipped to [0, 1]."""
    low, high, center, width = edges
    inside = (1.0 - (intra - center).abs() / width).clip(0.0, 1.0)
    return (
        pl.when(intra.is_null())
        .then(None)
        .when((intra < low) | (intra > high))
        .then(pl.lit(out_of_band))
        .otherwise(inside)
    )


# Frequent function words per language: a fallback when a page has no `lang`. Centering needs
# only a rough grouping, and a wrong guess just means a different mean vector.
_STOPWORDS: dict[str, str] = {
    "en": "the|and|of|to|is|that|for|with",
    "de": "der|die|und|das|ist|nicht|mit|den",
    "fr": "le|la|les|et|des|est|pas|une",
    "es": "el|los|las|del|que|por|una|para",
    "pt": "os|das|não|uma|para|com|dos|são",
    "it": "il|della|che|per|non|sono|gli|nella",
    "nl": "het|een|van|niet|zijn|voor|met|ook",
}


def language_key(pages: pl.DataFrame, *, with_latin_share: bool = True) -> pl.DataFrame:
    """doc_id, lang_key, latin_share (without `with_latin_share`: doc_id, lang_key).

    lang_key: the page's `lang` primary subtag, else a function-word guess, else 'und'.
    latin_share: Latin-script letters / all letters in the first 3,000 characters (the MiniLM
    vocabulary covers Latin-script languages; other scripts embed as near-identical sub-word soup).
    """
    raw = (
        pl.col("text").fill_null("").str.slice(0, 3000)
        if "text" in pages.columns
        else pl.col("paragraphs").list.join(" ").str.slice(0, 3000)
    )
    sample = raw.str.to_lowercase()
    letters = raw.str.count_matches(r"\p{L}")
    names = list(_STOPWORDS)
    counts = pl.concat_list(
        [
            # ASCII word boundaries: a Unicode \b leaves the fast regex engine (≈30x slower)
            sample.str.count_matches(rf"(?-u:\b)(?:{w})(?-u:\b)").cast(pl.Int64)
            for w in _STOPWORDS.values()
        ]
    )
    guess = (
        pl.when(counts.list.max() >= 3)
        .then(counts.list.arg_max().replace_strict(dict(enumerate(names)), return_dtype=pl.String))
        .otherwise(pl.lit("und"))
    )
    given = (
        pl.col("lang").cast(pl.String).str.to_lowercase().str.extract(r"^([a-z]{2,3})")
        if "lang" in pages.columns
        else pl.lit(None, pl.String)
    )
    if not with_latin_share:  # the two counts over every letter are most of the cost
        return pages.select("doc_id", lang_key=pl.coalesce(given, guess))
    return pages.select(
        "doc_id",
        lang_key=pl.coalesce(given, guess),
        latin_share=pl.when(letters > 0)
        .then(raw.str.count_matches(r"\p{Latin}") / letters)
        .otherwise(1.0),
    )


# Fixed-point scale of the per-language vector sums: integer sums are associative, so the mean
# is the same bit for bit whatever the batches and their merge order (2^-32 ≈ 2e-10 resolution,
# far below float32's; |x| <= 1 over 2^31 rows still fits in int64).
_SUM_SCALE = float(2**32)


def language_sums(paras: pl.DataFrame, vecs: np.ndarray) -> pl.DataFrame:
    """The map side of language centring: per lang_key of these paragraphs (rows of `vecs`):
    n (paragraphs), pages (distinct doc_id), sum (fixed-point int64 vector sum, as a list).

    Mergeable by `merge_language_sums` when each page's paragraphs are in one batch."""
    langs = paras.get_column("lang_key").fill_null("und")
    fixed = np.rint(vecs.astype(np.float64) * _SUM_SCALE).astype(np.int64)
    rows = []
    for lang in sorted(set(langs.to_list())):
        mask = (langs == lang).to_numpy()
        rows.append(
            {
                "lang_key": lang,
                "n": int(mask.sum()),
                "pages": paras.filter(pl.Series(mask)).get_column("doc_id").n_unique(),
                "sum": fixed[mask].sum(axis=0).tolist(),
            }
        )
    return pl.DataFrame(
        rows,
        schema={"lang_key": pl.String, "n": pl.Int64, "pages": pl.Int64, "sum": pl.List(pl.Int64)},
    )


def merge_language_sums(parts: list[pl.DataFrame]) -> pl.DataFrame:
    """The associative merge of `language_sums` tables (sums of counts and of vectors)."""
    frame = (
        pl.concat(parts)
        if parts
        else language_sums(
            pl.DataFrame(schema={"doc_id": pl.String, "lang_key": pl.String}), np.zeros((0, 1))
        )
    )
    out = []
    for lang, part in sorted(frame.group_by("lang_key"), key=lambda kv: str(kv[0][0])):
        out.append(
            {
                "lang_key": lang[0],
                "n": int(part.get_column("n").sum()),
                "pages": int(part.get_column("pages").sum()),
                "sum": np.asarray(part.get_column("sum").to_list(), np.int64).sum(axis=0).tolist(),
            }
        )
    return pl.DataFrame(out, schema=frame.schema)


def language_means(sums: pl.DataFrame, policy: Policy) -> dict[str, np.ndarray]:
    """Mean paragraph vector of each language that has enough paragraphs and pages to centre.

    Static embeddings share a large common direction per language (an English-vocabulary model
    maps German text to similar sub-word soup), which lifts every cosine: German pages scored
    0.79 median against 0.54 for English ones, and stitched pages overlapped real ones. The mean
    is a per-language sum / count: `language_sums` per batch, `merge_language_sums`, then
    `center_vectors` (docs/corpus-at-scale.md).
    """
    c = policy.coherence
    keep = sums.filter(
        (pl.col("n") >= c.center_min_paragraphs) & (pl.col("pages") >= c.center_min_pages)
    )
    return {
        row["lang_key"]: np.asarray(row["sum"], np.float64) / _SUM_SCALE / row["n"]
        for row in keep.iter_rows(named=True)
    }


def center_vectors(
    paras: pl.DataFrame, vecs: np.ndarray, means: dict[str, np.ndarray]
) -> np.ndarray:
    """The map side: subtract the paragraph's language mean and re-normalise (other rows kept)."""
    if not means:
        return vecs
    vecs = vecs.copy()
    langs = paras.get_column("lang_key").fill_null("und").to_numpy()
    for lang, mean in means.items():
        rows = np.flatnonzero(langs == lang)
        centred = vecs[rows] - mean
        vecs[rows] = centred / np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12)
    return vecs


def paragraph_table(pages: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """Usable paragraphs, one row each: doc_id, text (first `max_paragraphs` long enough ones) and
    para_index, the paragraph's position in the page's `paragraphs` (so a report can show the
    paragraphs a topic statistic saw).

    Without a `paragraphs` column the text's lines are the paragraphs.
    """
    c = policy.coherence
    paras = (
        pl.col("paragraphs")
        if "paragraphs" in pages.columns
        else pl.col("text").fill_null("").str.split("\n")
    )
    return (
        pages.select("doc_id", paras.alias("text"))
        .explode("text")
        .with_columns(
            pl.col("text").str.strip_chars(),
            para_index=pl.int_range(pl.len(), dtype=pl.Int32).over("doc_id"),
        )
        .filter(pl.col("text").str.len_chars() >= c.min_paragraph_chars)
        .filter(pl.int_range(pl.len()).over("doc_id") < c.max_paragraphs)
    )


# A list item, a byline or dateline, a reference entry: structure, not a topic.
_LIST_ITEM = r"^\s*(?:[-–•*·▪►✓]|\d{1,3}[.)]|[a-z][.)]|\[\d+\])\s"
_BYLINE = (
    r"(?i)^(?:by|por|von|par|di|door|texto|text|foto|photo|fotos|photos)\s*:?\s+\S+(?:\s+\S+){0,6}$"
)
_REFERENCE = (
    r"(?i)(?:\bdoi\s*:|\bdoi\.org/|\bisbn\b|\bet al\.|\bpp?\.\s*\d|\bvol\.\s*\d"
    r"|\(\d{4}[a-z]?\)[.,:]|\bin:\s|\bretrieved\b|\babgerufen\b)"
)


def structural(
    paras: pl.DataFrame, policy: Policy, *, boilerplate: pl.Series | None = None
) -> pl.Series:
    """For each paragraph row (doc_id, text): True when it is structure rather than topical prose.

    Short lines (headings, list entries, table-of-contents lines), list items, bylines and
    datelines, reference entries, a paragraph repeated inside its page (a repeated lede: only the
    first copy counts) and a short paragraph found on `boilerplate_min_pages` pages of the run
    (navigation, newsletter boxes) are left out of the topic statistics (split, interleave, mix).
    Intra coherence keeps them: mass repetition is what its upper edge is for.

    `boilerplate`: the corpus's `boilerplate_keys` when `paras` is one batch of it; else they are
    counted over `paras`.
    """
    c = policy.coherence
    if boilerplate is None:
        boilerplate = boilerplate_keys(boilerplate_counts(paras, policy), policy)
    text = pl.col("text")
    words = text.str.count_matches(r"\S+")
    return paras.select(
        (words < c.structure_min_words)
        | text.str.contains(_LIST_ITEM)
        | text.str.contains(_BYLINE)
        | (text.str.contains(_REFERENCE) & (words < 80))
        | (pl.int_range(pl.len()).over("doc_id", text) > 0)
        | (_text_key().is_in(boilerplate) & (words < _BOILERPLATE_MAX_WORDS))
    ).to_series()


_BOILERPLATE_MAX_WORDS = (
    40  # a repeated paragraph this long is content (a syndicated lede), not a box
)


def _text_key() -> pl.Expr:
    """A paragraph text's 64-bit hash: boilerplate is counted by it, 8 bytes per distinct short
    paragraph instead of its text (Polars' hash is stable within one Polars version)."""
    return pl.col("text").hash(seed=0)


def boilerplate_counts(paras: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """The map side of boilerplate detection over one batch of paragraph rows (doc_id, text):
    key (text hash), pages (distinct doc_ids with it), for paragraphs short enough to be
    boilerplate. Batches of distinct pages merge by summing (`merge_boilerplate_counts`)."""
    del policy  # the word limit is fixed; kept for a uniform signature
    words = pl.col("text").str.count_matches(r"\S+")
    return (
        paras.filter(words < _BOILERPLATE_MAX_WORDS)
        .group_by(key=_text_key())
        .agg(pages=pl.col("doc_id").n_unique().cast(pl.Int64))
    )


def merge_boilerplate_counts(parts: list[pl.DataFrame]) -> pl.DataFrame:
    """The associative merge of `boilerplate_counts` tables."""
    if not parts:
        return pl.DataFrame(schema={"key": pl.UInt64, "pages": pl.Int64})
    return pl.concat(parts).group_by("key").agg(pl.col("pages").sum())


def boilerplate_keys(counts: pl.DataFrame, policy: Policy) -> pl.Series:
    """The keys of the short paragraphs found on `boilerplate_min_pages` pages or more."""
    return counts.filter(pl.col("pages") >= policy.coherence.boilerplate_min_pages).get_column(
        "key"
    )


def list_shape(pages: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """doc_id -> coherence_structure_share: the share of a page's non-empty paragraphs (all of them,
    short ones included) that are headings, list items or bylines. A list-shaped page (roundups,
    digests, numbered guides, link lists) covers several topics by design."""
    c = policy.coherence
    paras = (
        pl.col("paragraphs")
        if "paragraphs" in pages.columns
        else pl.col("text").fill_null("").str.split("\n")
    )
    rows = (
        pages.select("doc_id", paras.alias("text"))
        .explode("text")
        .with_columns(pl.col("text").str.strip_chars())
        .filter(pl.col("text").str.len_chars() > 0)
    )
    text = pl.col("text")
    short = (
        (text.str.count_matches(r"\S+") < c.structure_min_words)
        | text.str.contains(_LIST_ITEM)
        | text.str.contains(_BYLINE)
    )
    return rows.group_by("doc_id").agg(coherence_structure_share=short.cast(pl.Float64).mean())


# A title that announces a numbered list: "10 things in tech…", "Top 7…", "15 Helpful Tips…".
LIST_TITLE = (
    r"(?i)^\W*(?:the\s+)?(?:top\s+)?\d{1,2}\s+(?:\w+\s+){0,2}?(?:things|reasons|ways|tips|facts"
    r"|stories|takeaways|questions|lessons|headlines|charts|photos|pictures|moments|books|apps"
    r"|games|deals|products|gifts|ideas|mistakes|signs|places|people|songs|movies|shows|items"
    r"|picks|cosas|razones|consejos|coisas|dicas|razões|dinge|gründe|tipps|choses|raisons"
    r"|conseils|cose|motivi|consigli)\b"
)


def list_title(pages: pl.DataFrame) -> pl.DataFrame:
    """doc_id -> _list_title: the page's title announces a numbered list (a digest or listicle
    covers several topics by design, whatever its markup)."""
    title = pl.col("title").cast(pl.String) if "title" in pages.columns else pl.lit(None, pl.String)
    return pages.select("doc_id", _list_title=title.fill_null("").str.contains(LIST_TITLE))


# Per-paragraph language: words one language uses and its neighbours do not (no "que"/"para"
# shared by pt and es, no "de" shared by fr/es/pt), so Portuguese and Spanish paragraphs of one
# page are not read as a mix.
_PARA_STOPWORDS: dict[str, str] = {
    "en": "the|and|of|is|that|with|was|for|this|are",
    "de": "der|die|und|das|ist|nicht|mit|den|sich|auch",
    "fr": "le|les|et|des|est|pas|une|dans|qui|sur",
    "es": "el|los|las|del|una|por|con|pero|muy|esta",
    "pt": "os|não|uma|com|dos|são|ao|pelo|também|mais",
    "it": "il|della|che|per|non|sono|gli|nella|anche|questo",
    "nl": "het|een|van|niet|zijn|voor|met|ook|maar|wordt",
}


# Scripts a paragraph can be tagged by when more than half its letters are in it (Unicode script
# names of the regex engine); Han, Hiragana and Katakana count apart, a Japanese paragraph is
# mostly one of them.
_SCRIPTS: tuple[tuple[str, str], ...] = (
    ("cyrillic", "Cyrillic"),
    ("greek", "Greek"),
    ("arabic", "Arabic"),
    ("hebrew", "Hebrew"),
    ("han", "Han"),
    ("hiragana", "Hiragana"),
    ("katakana", "Katakana"),
    ("hangul", "Hangul"),
    ("devanagari", "Devanagari"),
    ("bengali", "Bengali"),
    ("tamil", "Tamil"),
    ("thai", "Thai"),
    ("georgian", "Georgian"),
    ("armenian", "Armenian"),
)


def paragraph_languages(paras: pl.DataFrame, *, scripts: bool = True) -> pl.DataFrame:
    """doc_id -> coherence_language_mix: share of a page's language-identifiable paragraphs that
    are not in its main language, when at least two languages have two paragraphs each (else 0).

    A paragraph's language is the one whose distinctive function words it uses most: at least
    three hits and twice as many as the runner-up (an unsure paragraph gets none). With `scripts`,
    a paragraph with more than half its letters in a non-Latin script (`_SCRIPTS`) is tagged by
    that script instead (policy `coherence.language_mix_scripts`).
    """
    low = pl.col("text").str.to_lowercase()
    letters = pl.col("text").str.count_matches(r"\p{L}")
    names = list(_PARA_STOPWORDS)
    counts = pl.concat_list(
        [
            low.str.count_matches(rf"(?-u:\b)(?:{w})(?-u:\b)").cast(pl.Int64)
            for w in _PARA_STOPWORDS.values()
        ]
    )
    top = counts.list.max()
    second = counts.list.sort(descending=True).list.get(1)
    # a paragraph mostly in another script is tagged by its script (Latin function words cannot
    # name it): English next to Bengali, Japanese or Arabic paragraphs is a mix too
    script = pl.coalesce(
        [
            pl.when(pl.col("text").str.count_matches(rf"\p{{{name}}}") > 0.5 * letters).then(
                pl.lit(f"script:{tag}")
            )
            for tag, name in _SCRIPTS
        ]
    )
    tagged = paras.select(
        "doc_id",
        lang=pl.when(pl.lit(scripts) & (letters > 0))
        .then(script)
        .otherwise(None)
        .fill_null(
            pl.when((top >= 3) & (top >= 2 * second)).then(
                counts.list.arg_max().replace_strict(dict(enumerate(names)), return_dtype=pl.String)
            )
        ),
    ).drop_nulls("lang")
    per = tagged.group_by("doc_id", "lang").agg(n=pl.len())
    return per.group_by("doc_id").agg(
        coherence_language_mix=pl.when((pl.col("n") >= 2).sum() >= 2)
        .then(1.0 - pl.col("n").max() / pl.col("n").sum())
        .otherwise(0.0)
    )


def _encode_unique(texts: pl.Series, embedder: Embedder) -> np.ndarray:
    """Embed each distinct text once (boilerplate repeats across pages), in large batches."""
    uniq = texts.unique(maintain_order=True)
    inverse = (
        pl.DataFrame({"text": texts})
        .join(pl.DataFrame({"text": uniq}).with_row_index("u"), on="text", how="left")
        .get_column("u")
        .to_numpy()
    )
    values = uniq.to_list()
    chunks = [
        embedder.encode(values[i : i + _ENCODE_CHUNK]) for i in range(0, len(values), _ENCODE_CHUNK)
    ]
    vecs = np.concatenate(chunks) if chunks else np.zeros((0, embedder.dim), np.float32)
    return np.asarray(vecs, dtype=np.float32)[inverse]


def intra_coherence(vecs: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Mean pairwise cosine per segment of unit rows, in O(n·d): (|Σv|² - Σ|v|²) / (n(n-1)).

    Segments with fewer than two rows get NaN.
    """
    if len(starts) == 0:
        return np.zeros(0, dtype=np.float64)
    sums = np.add.reduceat(vecs.astype(np.float64), starts, axis=0)
    sq = np.add.reduceat(np.einsum("ij,ij->i", vecs, vecs).astype(np.float64), starts)
    n = counts.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (np.einsum("ij,ij->i", sums, sums) - sq) / (n * (n - 1.0))
    out[counts < 2] = np.nan
    return out


def split_coherence(
    vecs: np.ndarray, starts: np.ndarray, counts: np.ndarray, *, min_side: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strongest two-topic partition of each segment of unit rows: (gap, cross, k) per segment.

    Candidate partitions of a segment of n rows: every contiguous split "first k | rest" with
    `min_side <= k <= n - min_side` (two articles back to back), plus the alternating split
    "even rows | odd rows" (two articles interleaved paragraph by paragraph). For a partition with
    side sums S1, S2 of m1, m2 rows: cross = S1·S2 / (m1·m2) is the mean cosine of pairs across
    the sides ("halves similarity"), w_i = (|S_i|² - m_i) / (m_i(m_i - 1)) the mean cosine of
    pairs within a side, and gap = (w1 + w2) / 2 - cross. A stitched page has tight sides and a
    low cross term (large gap); a real article has gap ≈ 0. Returns the partition with the largest
    gap: k = paragraphs before the split, 0 for the alternating one; NaN / -1 for segments with
    fewer than 2*min_side rows. Cumulative sums: O(n·d) per segment, no pairwise products.
    """
    nseg = len(starts)
    if nseg == 0 or len(vecs) == 0:
        return np.full(nseg, np.nan), np.full(nseg, np.nan), np.full(nseg, -1, dtype=np.int64)
    v = vecs.astype(np.float64)
    n_rows = len(v)
    seg_of = np.repeat(np.arange(nseg), counts)
    local = np.arange(n_rows) - np.repeat(starts, counts)
    n = counts[seg_of].astype(np.float64)
    totals = np.add.reduceat(v, starts, axis=0)
    sq = np.einsum("ij,ij->i", v, v)
    tot_sq = np.add.reduceat(sq, starts)

    def _gap(s1, s2, q1, q2, m1, m2):
        with np.errstate(invalid="ignore", divide="ignore"):
            cross = np.einsum("ij,ij->i", s1, s2) / (m1 * m2)
            w1 = (np.einsum("ij,ij->i", s1, s1) - q1) / (m1 * (m1 - 1.0))
            w2 = (np.einsum("ij,ij->i", s2, s2) - q2) / (m2 * (m2 - 1.0))
            gap = (w1 + w2) / 2.0 - cross
        return gap, cross

    # Contiguous: the prefix before row i (row i starts the second side), k = local index.
    csum = np.cumsum(v, axis=0)
    prefix = csum - v - (csum[starts] - v[starts])[seg_of]
    qsum = np.cumsum(sq)
    qpre = qsum - sq - (qsum[starts] - sq[starts])[seg_of]
    k = local.astype(np.float64)
    gap, cross = _gap(prefix, totals[seg_of] - prefix, qpre, tot_sq[seg_of] - qpre, k, n - k)
    ok = (local >= min_side) & (n - k >= min_side) & ~np.isnan(gap)
    gap = np.where(ok, gap, -np.inf)
    seg_max = np.maximum.reduceat(gap, starts)
    hit = ok & (gap == seg_max[seg_of])
    big = np.iinfo(np.int64).max
    first = np.minimum.reduceat(np.where(hit, local, big), starts)
    first_cross = np.full(nseg, np.nan)
    rows = np.flatnonzero(hit & (local == first[seg_of]))
    first_cross[seg_of[rows]] = cross[rows]
    # Alternating: even vs odd rows.
    even_mask = local % 2 == 0
    even = np.add.reduceat(v * even_mask[:, None], starts, axis=0)
    qeven = np.add.reduceat(sq * even_mask, starts)
    m_even = np.add.reduceat(even_mask.astype(np.float64), starts)
    alt_gap, alt_cross = _gap(even, totals - even, qeven, tot_sq - qeven, m_even, counts - m_even)
    eligible = counts >= 2 * min_side
    alt_gap = np.where(eligible & ~np.isnan(alt_gap), alt_gap, -np.inf)
    use_alt = alt_gap > seg_max
    best = np.where(use_alt, alt_gap, seg_max)
    valid = eligible & np.isfinite(best)
    best = np.where(valid, best, np.nan)
    best_cross = np.where(valid, np.where(use_alt, alt_cross, first_cross), np.nan)
    where = np.where(valid, np.where(use_alt, 0, first), -1).astype(np.int64)
    return best, best_cross, where


def _paragraph_vectors(
    paras: pl.DataFrame, langs: pl.DataFrame, policy: Policy, embedder: Embedder
) -> tuple[pl.DataFrame, np.ndarray]:
    """The paragraphs (sorted by doc_id, with lang_key when centring) and their unit vectors,
    without those the model has no vocabulary for."""
    paras = paras.sort("doc_id", maintain_order=True)
    vecs = _encode_unique(paras.get_column("text"), embedder)
    # All-unknown-token paragraphs (scripts the model has no vocabulary for) embed to zero:
    # they carry no evidence, so they are dropped rather than counted as unrelated.
    known = np.einsum("ij,ij->i", vecs, vecs) > 0.25
    if not known.all():
        paras, vecs = paras.filter(pl.Series(known)), vecs[known]
    if policy.coherence.center_by_language:
        paras = paras.join(
            langs.select("doc_id", "lang_key"), on="doc_id", how="left", maintain_order="left"
        )
    return paras, vecs


def _vector_statistics(
    paras: pl.DataFrame,
    langs: pl.DataFrame,
    policy: Policy,
    embedder: Embedder,
    means: dict[str, np.ndarray] | None,
) -> tuple[pl.DataFrame, set[str]]:
    """Per doc_id from the paragraph embeddings: paragraphs_used, intra_coherence (all usable
    paragraphs) and the split / interleave statistics (prose paragraphs only, `_topical`), with
    the vectors centred on the corpus's language `means` (None: these paragraphs' own means).
    Returns the table and the languages whose vectors were centred."""
    c = policy.coherence
    centred_langs: set[str] = set()
    if paras.height:
        paras, vecs = _paragraph_vectors(paras, langs, policy, embedder)
        if c.center_by_language:
            if means is None:
                means = language_means(language_sums(paras, vecs), policy)
            vecs = center_vectors(paras, vecs, means)
            centred_langs = set(means)
        seg = paras.group_by("doc_id", maintain_order=True).len()
        counts = seg.get_column("len").to_numpy()
        starts = (np.cumsum(counts) - counts).astype(np.int64)
        keep = paras.get_column("_topical").to_numpy()
        t_seg = (
            paras.filter(pl.col("_topical"))
            .group_by("doc_id", maintain_order=True)
            .agg(pl.len(), coherence_topic_paragraphs=pl.col("para_index"))
        )
        t_counts = t_seg.get_column("len").to_numpy()
        t_starts = (np.cumsum(t_counts) - t_counts).astype(np.int64)
        t_vecs = vecs[keep]
        split_gap, split_low, split_at = split_coherence(
            t_vecs, t_starts, t_counts, min_side=c.split_min_side
        )
        interleave, _, _ = interleave_gap(
            t_vecs, t_starts, t_counts, min_paragraphs=c.interleave_min_paragraphs
        )
        topic = t_seg.select(
            "doc_id",
            pl.Series("coherence_split_gap", split_gap).fill_nan(None),
            pl.Series("coherence_split", split_low).fill_nan(None),
            pl.Series("coherence_split_at", split_at, dtype=pl.Int32),
            pl.Series("coherence_interleave", interleave).fill_nan(None),
            "coherence_topic_paragraphs",  # which paragraphs split/interleave saw (report evidence)
        )
        per_doc = seg.select(
            "doc_id",
            pl.col("len").cast(pl.Int32).alias("paragraphs_used"),
            pl.Series("intra_coherence", intra_coherence(vecs, starts, counts)).fill_nan(None),
        ).join(topic, on="doc_id", how="left")
    else:
        per_doc = pl.DataFrame(
            schema={
                "doc_id": pl.String,
                "paragraphs_used": pl.Int32,
                "intra_coherence": pl.Float64,
                "coherence_split_gap": pl.Float64,
                "coherence_split": pl.Float64,
                "coherence_split_at": pl.Int32,
                "coherence_interleave": pl.Float64,
                "coherence_topic_paragraphs": pl.List(pl.Int32),
            }
        )
    return per_doc, centred_langs


def _topic_adjustment(out: pl.DataFrame, policy: Policy, unsupported: pl.Expr) -> pl.DataFrame:
    """The topic penalties (split, interleave, mix: the largest applies) and the language-mix
    penalty as `adjust_coherence`, with their reasons appended to `reasons_coherence`.

    Additive adjustments, so coherence_score keeps the reference formula.
    """
    c = policy.coherence
    # Paragraphs whose words hang together (each shares vocabulary with its closest paragraphs)
    # are not two topics, whatever the embedding split and interleave statistics say.
    cohesive = pl.col("topic_neighbour_cosine").fill_null(0.0) >= c.topic_cohesive_neighbours
    # Topic shift: an additive penalty, so coherence_score keeps the reference formula.
    split = pl.col("coherence_split")
    shifted = (
        split.is_not_null()
        & ~cohesive
        & ~unsupported.fill_null(False)
        & (pl.col("coherence_split_gap") > c.split_threshold)
        & pl.lit(c.split_penalty > 0)
    )
    where = (
        pl.when(pl.col("coherence_split_at") == 0)
        .then(pl.lit("alternating paragraphs"))
        .otherwise(pl.format("split after paragraph {}", pl.col("coherence_split_at")))
    )
    # Interleaving (scoring/interleave.py): a ramp from interleave_low to interleave_high.
    inter = pl.when(~unsupported.fill_null(False) & ~cohesive).then(pl.col("coherence_interleave"))
    span = max(c.interleave_high - c.interleave_low, 1e-9)
    inter_pen = c.interleave_penalty * ((inter - c.interleave_low) / span).clip(0.0, 1.0)
    inter_pen = inter_pen.fill_null(0.0)
    # Topic mix: a ramp from topic_share_start down to topic_share_full of the largest group.
    share = pl.col("topic_largest_share")
    # k sources leave k linked groups holding most paragraphs (policy: topic_grouped_min)
    grouped = (pl.col("topic_groups").fill_null(0) >= 2) & (
        pl.col("topic_grouped_share").fill_null(0.0)
        >= pl.when(share <= c.topic_low_share)
        .then(pl.lit(c.topic_low_grouped_min))
        .otherwise(pl.lit(c.topic_grouped_min))
    )
    # a largest group under topic_free_share is a split page whether the rest link or not: donors
    # whose paragraphs share little vocabulary among themselves leave strays, not a second group
    mixable = (
        (pl.col("topic_paragraphs").fill_null(0) >= c.topic_min_paragraphs)
        & ~unsupported.fill_null(False)
        & (grouped | (share <= c.topic_free_share))
        & (pl.col("coherence_structure_share").fill_null(0.0) < c.topic_list_share)
    )
    mix_span = max(c.topic_share_start - c.topic_share_full, 1e-9)
    low_span = max(c.topic_low_share - c.topic_low_full, 1e-9)
    mix_pen = (
        pl.when(mixable)
        .then(
            c.topic_penalty * ((c.topic_share_start - share) / mix_span).clip(0.0, 1.0)
            # split into small groups: the penalty keeps rising below topic_low_share
            + c.topic_low_penalty * ((c.topic_low_share - share) / low_span).clip(0.0, 1.0)
        )
        .fill_null(0.0)
    )
    listed = pl.col("_list_title").fill_null(False) & pl.lit(c.topic_list_title_factor < 1.0)
    mix_pen = pl.when(listed).then(mix_pen * c.topic_list_title_factor).otherwise(mix_pen)
    # Loose paragraphs (topicmix.neighbour_cohesion): a ramp from topic_neighbour_start down to
    # topic_neighbour_full, on the pages the topic mix tests (enough prose, Latin script, no list)
    # with topic_neighbour_min_words of prose
    near = pl.col("topic_neighbour_cosine")
    testable = (
        (pl.col("topic_paragraphs").fill_null(0) >= c.topic_min_paragraphs)
        & (pl.col("_prose_words").fill_null(0) >= c.topic_neighbour_min_words)
        & ~unsupported.fill_null(False)
        & (pl.col("coherence_structure_share").fill_null(0.0) < c.topic_list_share)
    )
    near_span = max(c.topic_neighbour_start - c.topic_neighbour_full, 1e-9)
    loose_pen = (
        pl.when(testable & near.is_not_null())
        .then(
            c.topic_neighbour_penalty
            * ((c.topic_neighbour_start - near) / near_span).clip(0.0, 1.0)
        )
        .otherwise(0.0)
    )
    loose_pen = pl.when(listed).then(loose_pen * c.topic_list_title_factor).otherwise(loose_pen)
    split_pen = pl.when(shifted).then(pl.lit(c.split_penalty)).otherwise(0.0).fill_null(0.0)
    lang_mix = pl.col("coherence_language_mix").fill_null(0.0)
    lang_flag = lang_mix >= c.language_mix_min_share
    lang_pen = pl.when(lang_flag).then(pl.lit(c.language_mix_penalty)).otherwise(0.0)
    out = out.with_columns(
        coherence_topic_shift=shifted.fill_null(False),
        coherence_topic_groups=pl.col("topic_groups").fill_null(0).cast(pl.Int32),
        coherence_topic_share=share,
        coherence_topic_grouped=pl.col("topic_grouped_share"),
        coherence_topic_neighbours=near,
        coherence_structure_share=pl.col("coherence_structure_share"),
        coherence_language_mix=lang_mix,
        # one topic penalty (the largest of split, interleave, mix, loose), plus the language mix
        adjust_coherence=-pl.max_horizontal(split_pen, inter_pen, mix_pen, loose_pen) - lang_pen,
        reasons_coherence=pl.concat_list(
            "reasons_coherence",
            pl.when(shifted).then(
                pl.format(
                    "COHERENCE_TOPIC_SHIFT: halves similarity {} vs within {} ({})",
                    split.round(2),
                    (split + pl.col("coherence_split_gap")).round(2),
                    where,
                )
            ),
            pl.when(mix_pen > 0).then(
                pl.format(
                    "COHERENCE_TOPIC_MIX: the largest group of paragraphs sharing vocabulary holds "
                    "{}% of {} paragraphs ({} groups; penalty {}{})",
                    (share * 100).round(0).cast(pl.Int64),
                    pl.col("topic_paragraphs"),
                    pl.col("topic_groups"),
                    mix_pen.round(2),
                    pl.when(listed)
                    .then(pl.lit(f", x{c.topic_list_title_factor} for a numbered-list title"))
                    .otherwise(pl.lit("")),
                )
            ),
            pl.when(loose_pen > 0).then(
                pl.format(
                    "COHERENCE_LOOSE_PARAGRAPHS: a quarter of {} paragraphs share almost no "
                    "vocabulary even with their {} closest paragraphs (word cosine {} < {}; "
                    "penalty {}{})",
                    pl.col("topic_paragraphs"),
                    pl.lit(c.topic_neighbours),
                    near.round(3),
                    pl.lit(c.topic_neighbour_start),
                    loose_pen.round(2),
                    pl.when(listed)
                    .then(pl.lit(f", x{c.topic_list_title_factor} for a numbered-list title"))
                    .otherwise(pl.lit("")),
                )
            ),
            pl.when(lang_flag).then(
                pl.format(
                    "COHERENCE_LANGUAGE_MIX: {}% of paragraphs in another language than the "
                    "page's main one",
                    (lang_mix * 100).round(0).cast(pl.Int64),
                )
            ),
            pl.when(inter_pen > 0).then(
                pl.format(
                    "COHERENCE_INTERLEAVED: paragraphs two apart {} more similar than adjacent "
                    "ones (penalty {})",
                    inter.round(2),
                    inter_pen.round(2),
                )
            ),
        ).list.drop_nulls(),
    )
    return out


@dataclass(frozen=True)
class CoherenceCounts:
    """The mergeable counts of one batch of pages (first map): short paragraphs' page counts
    (`boilerplate_counts`) and per-language vector sums (`language_sums`, when centring)."""

    boilerplate: pl.DataFrame
    languages: pl.DataFrame | None


@dataclass(frozen=True)
class CoherenceCorpus:
    """What coherence needs from the whole corpus, whatever the batch a page is scored in:
    the boilerplate keys, the word counts of the topic-mix IDF, the language means to centre on."""

    boilerplate: pl.Series
    words: WordCounts
    means: dict[str, np.ndarray]


def _topical(paras: pl.DataFrame, policy: Policy, boilerplate: pl.Series) -> pl.DataFrame:
    """paras with `_topical`: topic statistics see prose only (lists, bylines, references,
    repeats and boilerplate are not topic shifts)."""
    topical = (
        ~structural(paras, policy, boilerplate=boilerplate)
        if policy.coherence.structure_aware and paras.height
        else pl.Series([True] * paras.height, dtype=pl.Boolean)
    )
    return paras.with_columns(_topical=topical)


def coherence_counts(pages: pl.DataFrame, policy: Policy, embedder: Embedder) -> CoherenceCounts:
    """First map over one batch of pages: what boilerplate detection and centring count."""
    paras = paragraph_table(pages, policy)
    languages = None
    if policy.coherence.center_by_language and paras.height:
        langs = language_key(pages, with_latin_share=False)
        vparas, vecs = _paragraph_vectors(paras, langs, policy, embedder)
        languages = language_sums(vparas, vecs)
    return CoherenceCounts(boilerplate_counts(paras, policy), languages)


def merge_coherence_counts(parts: list[CoherenceCounts]) -> CoherenceCounts:
    """The associative merge of `coherence_counts`."""
    langs = [p.languages for p in parts if p.languages is not None]
    return CoherenceCounts(
        merge_boilerplate_counts([p.boilerplate for p in parts]),
        merge_language_sums(langs) if langs else None,
    )


def coherence_words(pages: pl.DataFrame, policy: Policy, boilerplate: pl.Series) -> WordCounts:
    """Second map over one batch of pages (needs the boilerplate keys: boilerplate is not prose):
    the topic-mix word counts of its prose paragraphs."""
    paras = _topical(paragraph_table(pages, policy), policy, boilerplate)
    prose = _with_idf_language(paras.filter(pl.col("_topical")), pages, policy)
    return word_counts(prose, stem=policy.coherence.topic_stem_chars)


def _with_idf_language(
    prose: pl.DataFrame, pages: pl.DataFrame, policy: Policy, langs: pl.DataFrame | None = None
) -> pl.DataFrame:
    """prose with the page's `lang_key` when the topic-mix IDF is per language
    (`coherence.topic_idf_by_language`; `langs`: `language_key(pages)` when already computed)."""
    if not policy.coherence.topic_idf_by_language:
        return prose
    if langs is None:
        langs = language_key(pages, with_latin_share=False)
    return prose.join(
        langs.select("doc_id", "lang_key"), on="doc_id", how="left", maintain_order="left"
    )


# The three maps in one shape, `step(pages, policy, embedder, extra)`, module-level so an engine
# can ship them to its workers (`stages.BatchMap`, `run.ray.RayExecutor._batch_map`).
def coherence_counts_step(
    pages: pl.DataFrame, policy: Policy, embedder: Embedder, _extra: None
) -> CoherenceCounts:
    """Coherence's first map (`coherence_counts`)."""
    return coherence_counts(pages, policy, embedder)


def coherence_words_step(
    pages: pl.DataFrame, policy: Policy, _embedder: Embedder, keys: pl.Series
) -> WordCounts:
    """Coherence's second map (`coherence_words`), given the boilerplate keys."""
    return coherence_words(pages, policy, keys)


def coherence_apply_step(
    pages: pl.DataFrame,
    policy: Policy,
    embedder: Embedder,
    extra: tuple[CoherenceCorpus | None, pl.DataFrame | None],
) -> pl.DataFrame:
    """One batch scored against the merged corpus (`coherence_apply`); extra = (corpus, cross)."""
    corpus, cross = extra
    return coherence_apply(pages, policy, embedder, corpus, cross=cross)


def coherence_corpus(
    batches: Callable[[], Iterable[pl.DataFrame]],
    policy: Policy,
    embedder: Embedder,
    *,
    run: Callable[[Callable[..., Any], Any], list[Any]] | None = None,
) -> CoherenceCorpus:
    """The corpus-wide parts over every batch of pages (`batches()` is iterated twice: counts,
    then the words of what is prose once boilerplate is known). `run(step, extra)` gives a step's
    output for every batch, in batch order: an engine's workers (`stages.corpus_coherence`), by
    default this process. The merges are sums of integers, so where the maps ran does not matter."""
    if run is None:

        def run(step: Callable[..., Any], extra: Any) -> list[Any]:
            return [step(b, policy, embedder, extra) for b in batches()]

    counts = merge_coherence_counts(run(coherence_counts_step, None))
    keys = boilerplate_keys(counts.boilerplate, policy)
    words = merge_word_counts(run(coherence_words_step, keys))
    means = (
        language_means(counts.languages, policy)
        if policy.coherence.center_by_language and counts.languages is not None
        else {}
    )
    return CoherenceCorpus(keys, words, means)


def text_bytes_expr(columns: Iterable[str]) -> pl.Expr | None:
    """Each page's text size in bytes, what its paragraphs and their vectors will hold (how
    `page_batches` cuts a corpus), over a frame with these columns; None without text."""
    names = set(columns)
    if "text" in names:
        text = pl.col("text")
    elif "paragraphs" in names:
        text = pl.col("paragraphs").list.join("\n")
    else:
        return None
    return text.str.len_bytes().fill_null(0)


def page_text_bytes(pages: pl.DataFrame) -> list[int]:
    """Each page's text size in bytes (`text_bytes_expr`; 0 without text)."""
    size = text_bytes_expr(pages.columns)
    if size is None:
        return [0] * pages.height
    return pages.select(size).to_series().to_list()


def page_batches(sizes: list[int], *, max_pages: int, max_bytes: int) -> list[tuple[int, int]]:
    """(start, length) of consecutive batches of at most `max_pages` pages and `max_bytes` bytes
    (`sizes`: each page's); a page larger than `max_bytes` is a batch of its own."""
    bounds: list[tuple[int, int]] = []
    start, held = 0, 0
    for i, size in enumerate(sizes):
        if i > start and (i - start >= max(1, max_pages) or held + size > max_bytes):
            bounds.append((start, i - start))
            start, held = i, 0
        held += size
    if sizes:
        bounds.append((start, len(sizes) - start))
    return bounds


def coherence_signals(
    pages: pl.DataFrame,
    policy: Policy,
    embedder: Embedder,
    *,
    cross: pl.DataFrame | None = None,
    batch_pages: int | None = None,
) -> pl.DataFrame:
    """One row per doc_id: paragraphs_used, intra_coherence, intra_norm, cross_consistency,
    coherence_score, reasons_coherence (COHERENCE_COLUMNS).

    `cross` (doc_id, cross_consistency) comes from `claims.claim_signals`; a page without peers or
    claims keeps cross null and the neutral `coherence.cross_neutral`. The pages are taken in
    batches of `batch_pages` (default `engine.corpus_batch_pages`) and at most
    `engine.coherence_batch_bytes` of text: the corpus-wide parts are merged over all of them
    first (`coherence_corpus`), then each batch is scored on its own (`coherence_apply`), so
    paragraphs and vectors are held for one batch at a time and the scores are those of one call
    over the whole corpus. A corpus of one batch is its own corpus (one pass, nothing to merge).
    """
    bounds = page_batches(
        page_text_bytes(pages),
        max_pages=batch_pages or policy.engine.corpus_batch_pages,
        max_bytes=policy.engine.coherence_batch_bytes,
    )
    if len(bounds) <= 1:
        return coherence_apply(pages, policy, embedder, None, cross=cross)

    def batches() -> Iterable[pl.DataFrame]:
        return (pages.slice(start, length) for start, length in bounds)

    corpus = coherence_corpus(batches, policy, embedder)
    parts = [coherence_apply(b, policy, embedder, corpus, cross=cross) for b in batches()]
    return parts[0] if len(parts) == 1 else pl.concat(parts, how="vertical_relaxed")


def coherence_apply(
    pages: pl.DataFrame,
    policy: Policy,
    embedder: Embedder,
    corpus: CoherenceCorpus | None,
    *,
    cross: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """The last map: COHERENCE_COLUMNS for one batch of pages, given the corpus's aggregates
    (None: the batch is the whole corpus, and its own paragraphs give them)."""
    c = policy.coherence
    model = embedder.name
    paras = paragraph_table(pages, policy)
    boilerplate = (
        corpus.boilerplate
        if corpus is not None
        else boilerplate_keys(boilerplate_counts(paras, policy), policy)
    )
    paras = _topical(paras, policy, boilerplate)
    langs = language_key(pages)
    prose = paras.filter(pl.col("_topical"))
    # order-free statistics on the words of the prose paragraphs (scoring/topicmix.py)
    mix = (
        lexical_groups(
            _with_idf_language(prose, pages, policy, langs),
            min_cosine=c.topic_min_cosine,
            stem=c.topic_stem_chars,
            counts=corpus.words if corpus is not None else None,
            neighbours=c.topic_neighbours,
            neighbour_quantile=c.topic_neighbour_quantile,
        )
        .join(
            paragraph_languages(prose, scripts=c.language_mix_scripts),
            on="doc_id",
            how="full",
            coalesce=True,
        )
        .join(list_shape(pages, policy), on="doc_id", how="full", coalesce=True)
        .join(list_title(pages), on="doc_id", how="full", coalesce=True)
        .join(
            prose.group_by("doc_id").agg(
                _prose_words=pl.col("text").str.count_matches(r"\S+").sum()
            ),
            on="doc_id",
            how="full",
            coalesce=True,
        )
    )
    means = corpus.means if corpus is not None else None
    per_doc, centred_langs = _vector_statistics(paras, langs, policy, embedder, means)
    if means is not None:  # the corpus's centred languages, even in a batch without paragraphs
        centred_langs = set(means)
    out = (
        pages.select("doc_id")
        .join(per_doc, on="doc_id", how="left")
        .join(mix, on="doc_id", how="left")
        .join(langs, on="doc_id", how="left")
        .with_columns(
            coherence_model=pl.when(pl.col("lang_key").is_in(sorted(centred_langs)))
            .then(pl.lit(f"{model}+centered"))
            .otherwise(pl.lit(model))
        )
    )
    spaces = pl.DataFrame(
        [(m, *edges_for(m, policy)) for m in (model, f"{model}+centered")],
        schema=["coherence_model", "_low", "_high", "_center", "_width"],
        orient="row",
    )
    out = out.join(spaces, on="coherence_model", how="left")
    if cross is not None and "cross_consistency" in cross.columns:
        out = out.join(cross.select("doc_id", "cross_consistency"), on="doc_id", how="left")
    else:
        out = out.with_columns(cross_consistency=pl.lit(None, dtype=pl.Float64))
    intra = pl.col("intra_coherence")
    low, high = pl.col("_low"), pl.col("_high")
    edges = (low, high, pl.col("_center"), pl.col("_width"))
    used = pl.col("paragraphs_used").fill_null(0)
    unsupported = pl.col("latin_share") < c.min_latin_share
    out = out.with_columns(
        paragraphs_used=used.cast(pl.Int32),
        intra_norm=pl.when(unsupported)
        .then(None)
        .otherwise(intra_norm_expr(intra, edges, c.out_of_band)),
    ).with_columns(
        coherence_score=(
            c.intra_weight * pl.col("intra_norm").fill_null(c.neutral)
            + (1.0 - c.intra_weight) * pl.col("cross_consistency").fill_null(c.cross_neutral)
        ),
        reasons_coherence=pl.concat_list(
            pl.when(used < c.min_paragraphs)
            .then(
                pl.format(
                    "COHERENCE_TOO_FEW_PARAGRAPHS: {} usable paragraph(s), need {}; neutral {}",
                    used,
                    pl.lit(c.min_paragraphs),
                    pl.lit(c.neutral),
                )
            )
            .when(unsupported)
            .then(
                pl.format(
                    "COHERENCE_UNSUPPORTED_SCRIPT: {} of letters in Latin script < {}; neutral {}",
                    pl.col("latin_share").round(2),
                    pl.lit(c.min_latin_share),
                    pl.lit(c.neutral),
                )
            )
            .when(intra < low)
            .then(
                pl.format(
                    "COHERENCE_LOW: intra {} < {} ({})",
                    intra.round(2),
                    low,
                    pl.col("coherence_model"),
                )
            )
            .when(intra > high)
            .then(
                pl.format(
                    "COHERENCE_REPETITIVE: intra {} > {} ({})",
                    intra.round(2),
                    high,
                    pl.col("coherence_model"),
                )
            )
        ).list.drop_nulls(),
    )
    out = _topic_adjustment(out, policy, unsupported)
    # Too few paragraphs: intra stays null, intra_norm is the documented neutral.
    return out.with_columns(pl.col("intra_norm").fill_null(c.neutral)).select(COHERENCE_COLUMNS)
