"""Syndication: the same text on several registered domains (content farms, scraped copies).

Map stage (per batch of pages, parallel): word-shingle hashes -> MinHash signatures (rensa).
Reduce stage 1 (key = LSH band hash): pages sharing a band bucket become candidate edges to the
bucket's smallest row; each edge is verified by the signatures' estimated Jaccard.
Reduce stage 2 (key = cluster): connected components, then per cluster the number of distinct
registered domains and the earliest copy (published date, then fetch time, then doc_id).
Never all pairs: cost is linear in pages (plus the size of real duplicate buckets).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl

from trustaudit.policy import Policy
from trustaudit.scoring.containment import containment_pairs, merge_components

__all__ = [
    "SYNDICATION_COLUMNS",
    "WIRE_CREDIT",
    "band_keys",
    "bucket_pairs",
    "cluster_rows",
    "embedding_clusters",
    "farm_signals",
    "minhash_signatures",
    "simhash_band_keys",
    "syndication_base",
    "syndication_clusters",
    "syndication_columns",
    "syndication_signals",
    "verbatim_rows",
    "wire_credit",
]

# the columns syndication_signals gives each page (corpus_signals and the batched form)
SYNDICATION_COLUMNS = (
    "syndication_cluster_id",
    "syndication_cluster_size",
    "syndication_other_domains",
    "syndication_is_earliest",
    "syndication_earliest_domain",
    "syndication_late_copy",
    "syndication_all_undated",
    "syndication_wire",
    "adjust_syndication",
    "reasons_syndication",
)

# Licensed wire copy names its agency in a dateline "(Reuters) —", a credit "© AFP" or a source line
# "Fonte: Agência Brasil". Checked in the first and last 400 characters only: an article that
# merely reports on Reuters mentions it in the body.
_AGENCIES = (
    r"AP|Reuters|AFP|EFE|dpa|DPA|ANSA|Lusa|UPI|PA Media|Xinhua|KNA|epd|APA|SDA|Keystone-SDA|"
    r"Associated Press|Agence France-Presse|Ag[êe]ncia Brasil|Agencia EFE|Agenzia ANSA|"
    r"Deutsche Presse-Agentur|Europa Press|Ag[êe]ncia Lusa|Estad[ãa]o Conte[úu]do|Folhapress"
)
WIRE_CREDIT = (
    rf"\((?P<a>{_AGENCIES})\)"
    rf"|(?i:©|\(c\)|copyright|fonte|source|quelle|fuente|cr[ée]dit|with reporting by|"
    rf"reporting by|mit material von|com informa[çc][õo]es d[aeo]s?|con informaci[óo]n de)"
    rf"\s*:?\s*(?:[^\n]{{0,30}}?\b)?(?P<b>{_AGENCIES})\b"
)


# Odd 64-bit multipliers (from splitmix64) to combine word hashes into shingle and band hashes.
_MULS = np.array(
    [0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD6E8FEB86659FD93,
     0xA0761D6478BD642F, 0xE7037ED1A0B428DB, 0x8EBC6AF09C88C6E3, 0x589965CC75374CC3],
    dtype=np.uint64,
)  # fmt: skip


def _words(texts: pl.Series) -> pl.Series:
    return texts.fill_null("").str.to_lowercase().str.extract_all(r"\w+")


def minhash_signatures(
    texts: pl.Series,
    *,
    shingle_words: int,
    num_perm: int,
    seed: int,
    keep_shingles: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Signatures (uint32 [n, num_perm]) of word `shingle_words`-gram sets, and word counts.

    Rows with fewer words than one shingle get an all-max signature: callers must exclude them
    (they would all collide). With `keep_shingles`, (row, shingle hash) arrays are appended to it
    so the containment stage reuses them instead of tokenising every text again.
    """
    import rensa

    words = _words(texts)
    counts = words.list.len().to_numpy().astype(np.int64)
    n = len(counts)
    k = shingle_words
    if n == 0:
        if keep_shingles is not None:
            keep_shingles.append((np.zeros(0, np.int64), np.zeros(0, np.uint64)))
        return np.zeros((0, num_perm), np.uint32), counts
    # Empty lists are filtered out first: how explode treats them differs between Polars versions.
    flat = words.filter(words.list.len() > 0).explode().hash(seed=seed).to_numpy()
    flat_counts = counts
    ends = np.cumsum(flat_counts)
    # Shingle hash at every position: sum of word hashes times position multipliers (wrapping).
    sh = np.zeros(len(flat), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            sh[: len(flat) - j] += flat[j:] * _MULS[j % len(_MULS)]
    pos = np.arange(len(flat)) - np.repeat(ends - flat_counts, flat_counts)
    valid = pos <= np.repeat(counts, flat_counts) - k
    shingles = sh[valid]
    if keep_shingles is not None:
        rows = np.repeat(np.arange(n, dtype=np.int64), flat_counts)[valid]
        keep_shingles.append((rows, shingles))
    per_doc = np.maximum(counts - k + 1, 0)
    offsets = np.concatenate([[0], np.cumsum(per_doc)]).astype(np.uint64)
    matrix = rensa.RMinHash.digest_matrix_from_flat_token_hashes(shingles, offsets, num_perm, seed)
    return np.array(matrix.to_rows(), dtype=np.uint32).reshape(n, num_perm), counts


def band_keys(sigs: np.ndarray, bands: int) -> np.ndarray:
    """uint64 [n, bands]: one hash per band of `num_perm // bands` rows, band index mixed in."""
    rows = sigs.shape[1] // bands
    out = np.zeros((sigs.shape[0], bands), dtype=np.uint64)
    s64 = sigs.astype(np.uint64)
    with np.errstate(over="ignore"):
        for b in range(bands):
            acc = np.full(sigs.shape[0], np.uint64(b + 1) * _MULS[7], dtype=np.uint64)
            for r in range(rows):
                acc = (acc ^ s64[:, b * rows + r]) * _MULS[r % 7]
            out[:, b] = acc
    return out


def cluster_rows(sigs: np.ndarray, keys: np.ndarray, *, min_jaccard: float) -> np.ndarray:
    """Component label per row (rows in no verified edge keep their own label).

    Reduce by band key: every row is linked to the smallest row of each bucket it shares; an
    edge survives when the estimated Jaccard (share of equal signature slots) reaches
    `min_jaccard`, which removes bucket collisions.
    """
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    return _bucket_components(keys, lambda a, b: (sigs[a] == sigs[b]).mean(axis=1) >= min_jaccard)


def bucket_pairs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidate row pairs (a, rep) of LSH buckets: each row linked to the smallest row of every
    bucket it shares (deduplicated). Linear in rows x bands, never all pairs."""
    n, bands = keys.shape
    bucket = pl.DataFrame(
        {"row": np.repeat(np.arange(n, dtype=np.int64), bands), "key": keys.ravel()}
    )
    edges = (
        bucket.with_columns(rep=pl.col("row").min().over("key"))
        .filter(pl.col("row") != pl.col("rep"))
        .select("row", "rep")
        .unique()
    )
    return edges.get_column("row").to_numpy(), edges.get_column("rep").to_numpy()


def _bucket_components(
    keys: np.ndarray, verify: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> np.ndarray:
    """Connected components over LSH buckets: each row is linked to the smallest row of every bucket
    it shares, an edge survives when `verify(rows_a, rows_b)` holds, and components are labelled.
    Linear in rows × bands, never all pairs."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = keys.shape[0]
    a, b = bucket_pairs(keys)
    keep = np.zeros(len(a), dtype=bool)
    step = 200_000  # bounds the verification block ([edges, width] at a time)
    for s in range(0, len(a), step):
        keep[s : s + step] = verify(a[s : s + step], b[s : s + step])
    graph = coo_matrix((np.ones(int(keep.sum()), np.int8), (a[keep], b[keep])), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return labels.astype(np.int64)


def verbatim_rows(
    sigs: np.ndarray,
    keys: np.ndarray,
    domains: pl.Series,
    *,
    min_jaccard: float,
    containment: pl.DataFrame | None = None,
    min_containment: float = 1.0,
) -> np.ndarray:
    """Rows with a near-verbatim copy on another registered domain: a bucket pair whose
    estimated Jaccard reaches `min_jaccard`, or a containment pair (a, b, containment: rows of
    the same arrays) at `min_containment` or more. Licensed wire copy is reprinted as it was
    sent; a spun copy (10% of words changed: Jaccard 0.3-0.7, containment 0.5-0.85) is not."""
    out = np.zeros(len(sigs), dtype=bool)
    if len(sigs) == 0:
        return out
    dom = domains.cast(pl.String).fill_null("?").to_numpy()
    a, b = bucket_pairs(keys)
    ok = ((sigs[a] == sigs[b]).mean(axis=1) >= min_jaccard) & (dom[a] != dom[b])
    if containment is not None and containment.height:
        c = containment.filter(pl.col("containment") >= min_containment)
        ca, cb = c.get_column("a").to_numpy(), c.get_column("b").to_numpy()
        a, b, ok = (
            np.concatenate([a, ca]),
            np.concatenate([b, cb]),
            np.concatenate([ok, dom[ca] != dom[cb]]),
        )
    out[a[ok]] = True
    out[b[ok]] = True
    return out


def wire_credit(text: pl.Expr) -> pl.Expr:
    """The credited news agency of a licensed wire copy (null when there is no credit line)."""
    edge = pl.concat_str(text.str.slice(0, 400), pl.lit("\n"), text.str.slice(-400))
    found = edge.str.extract_groups(WIRE_CREDIT)
    return pl.coalesce(found.struct.field("a"), found.struct.field("b"))


def syndication_base(pages: pl.DataFrame) -> pl.DataFrame:
    """doc_id, registered_domain, published, fetched_at, syndication_wire: what the per-cluster
    reduction and the per-page columns read of each page (a map: no text leaves it)."""
    cols = pages.columns
    base = pages.select(
        "doc_id",
        pl.col("registered_domain").cast(pl.String) if "registered_domain" in cols else pl.lit(None, pl.String).alias("registered_domain"),
        pl.col("published").cast(pl.Date) if "published" in cols else pl.lit(None, pl.Date).alias("published"),
        pl.col("fetched_at").cast(pl.Datetime("us", "UTC")) if "fetched_at" in cols else pl.lit(None, pl.Datetime("us", "UTC")).alias("fetched_at"),
    )  # fmt: skip
    return base.with_columns(
        syndication_wire=pl.Series(
            "w", pages.select(wire_credit(pl.col("text").fill_null(""))).to_series()
        )
        if "text" in cols
        else pl.lit(None, pl.String)
    )


def syndication_signals(pages: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """One row per doc_id: syndication_cluster_id (smallest doc_id of the near-duplicate cluster,
    null when alone), syndication_cluster_size, syndication_other_domains, syndication_is_earliest,
    syndication_earliest_domain, adjust_syndication (<= 0), reasons_syndication.

    Needs doc_id, text, registered_domain; uses published and fetched_at when present. The whole
    corpus in one process; `trustaudit.corpus_stages` computes the same columns batch by batch.
    """
    s = policy.syndication
    # Rows in doc_id order: a bucket's representative is then its smallest doc_id, the rule the
    # batched reduction (corpus_stages) uses, so both give the same edges whatever the input order.
    pages = pages.sort("doc_id", maintain_order=True)
    cols = pages.columns
    base = syndication_base(pages)
    texts = (
        pages.get_column("text")
        if "text" in cols
        else pl.Series([None] * pages.height, dtype=pl.String)
    )
    sig_parts, count_parts = [], []
    shingle_parts: list[tuple[np.ndarray, np.ndarray]] | None = (
        [] if s.min_containment > 0 else None
    )
    for start in range(0, pages.height, s.batch_docs):  # the map stage, one batch at a time
        sig, cnt = minhash_signatures(
            texts.slice(start, s.batch_docs),
            shingle_words=s.shingle_words,
            num_perm=s.num_perm,
            seed=s.seed,
            keep_shingles=shingle_parts,
        )
        if shingle_parts:  # rows are local to the batch
            rows, hashes = shingle_parts[-1]
            shingle_parts[-1] = (rows + start, hashes)
        sig_parts.append(sig)
        count_parts.append(cnt)
    counts = np.concatenate(count_parts) if count_parts else np.zeros(0, np.int64)
    eligible = np.flatnonzero(counts >= s.min_words)
    labels = np.full(pages.height, -1, dtype=np.int64)
    verbatim = np.zeros(pages.height, dtype=bool)
    if len(eligible):
        sigs = np.concatenate(sig_parts)[eligible]
        keys = band_keys(sigs, s.bands)
        labels[eligible] = cluster_rows(sigs, keys, min_jaccard=s.min_jaccard)
        pairs = None
        if shingle_parts is not None:  # copies inside a longer page: low Jaccard, high containment
            rows = np.concatenate([r for r, _ in shingle_parts])
            hashes = np.concatenate([h for _, h in shingle_parts])
            on = np.isin(rows, eligible)  # row positions -> positions among the eligible rows
            pairs = containment_pairs(
                texts.gather(eligible),
                base.get_column("registered_domain").gather(eligible),
                shingles=(np.searchsorted(eligible, rows[on]), hashes[on]),
                shingle_words=s.shingle_words,
                seed=s.seed,
                sample_mod=s.containment_sample_mod,
                max_df=s.containment_max_df,
                min_shared=s.containment_min_shared,
                min_containment=s.min_containment,
            )
            labels[eligible] = merge_components(
                labels[eligible], pairs["a"].to_numpy(), pairs["b"].to_numpy()
            )
        verbatim[eligible] = verbatim_rows(
            sigs,
            keys,
            base.get_column("registered_domain").gather(eligible),
            min_jaccard=s.wire_min_jaccard,
            containment=pairs,
            min_containment=s.wire_min_containment,
        )
    df = base.with_columns(_label=pl.Series(labels), _verbatim=pl.Series(verbatim)).with_columns(
        _label=pl.when(pl.col("_label") >= 0).then(pl.col("_label"))
    )
    return syndication_columns(df, syndication_clusters(df, policy), policy)


def syndication_clusters(members: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """The reduction keyed by cluster: one row per `_label` with two or more members.

    `members`: syndication_base columns + `_label` (null: in no cluster). Columns _label,
    syndication_cluster_id (smallest doc_id), syndication_cluster_size, _domains (distinct
    registered domains), _known, _earliest_doc, syndication_earliest_domain,
    syndication_all_undated. Every rule below depends only on the members, not on their order.
    """
    s = policy.syndication
    # Earliest copy: each page's date is its published date, else its fetch time (first seen);
    # the smallest wins (ties: fetch time, doc_id). Undetermined (no copy penalty, no source) when
    # a member has no date at all, or when the winner is known only by a published date and an
    # undated member was fetched on or after it (that member may be older: a claimed date and a
    # fetch time do not order two pages). Nulls never win by sorting.
    ts = pl.Datetime("us", "UTC")

    def presume_window(fetched: pl.Expr, claimed: pl.Expr) -> pl.Expr:
        """An undated copy fetched within `presume_dated_days` of the winner's claimed date keeps
        the order undetermined; fetched long after it, the dated page is presumed the source."""
        if s.presume_dated_days <= 0:
            return pl.lit(True)
        return fetched < claimed + pl.duration(days=s.presume_dated_days)

    in_cluster = members.filter(pl.col("_label").is_not_null()).with_columns(
        _key=pl.coalesce(pl.col("published").cast(ts), pl.col("fetched_at"))
    )
    order = ["_label", "_key", "fetched_at", "doc_id"]
    clusters = (
        in_cluster.sort(order, nulls_last=True)
        .group_by("_label", maintain_order=True)
        .agg(
            syndication_cluster_id=pl.col("doc_id").min(),
            syndication_cluster_size=pl.len().cast(pl.Int32),
            _domains=pl.col("registered_domain").fill_null("?").n_unique().cast(pl.Int32),
            _known=pl.col("_key").is_not_null().all()
            & (
                pl.col("published").first().is_null()
                | ~(
                    pl.col("published").is_null().slice(1)
                    & (pl.col("fetched_at").slice(1) >= pl.col("_key").first())
                    & presume_window(pl.col("fetched_at").slice(1), pl.col("_key").first())
                ).any()
            ),
            _earliest_doc=pl.col("doc_id").first(),
            syndication_earliest_domain=pl.col("registered_domain").first(),
            syndication_all_undated=pl.col("published").is_null().all(),
        )
        .filter(pl.col("syndication_cluster_size") > 1)
        .with_columns(
            _earliest_doc=pl.when(pl.col("_known")).then(pl.col("_earliest_doc")),
            syndication_earliest_domain=pl.when(pl.col("_known")).then(
                pl.col("syndication_earliest_domain")
            ),
        )
    )
    return clusters


def syndication_columns(df: pl.DataFrame, clusters: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """The per-page syndication columns (a map over pages): `df` is syndication_base + `_label`,
    `clusters` the output of `syndication_clusters` (only the clusters of these pages needed)."""
    s = policy.syndication
    out = df.join(clusters, on="_label", how="left")
    other = (pl.col("_domains") - 1).fill_null(0).cast(pl.Int32)
    known = pl.col("_known").fill_null(True)
    from_source = known & pl.col("registered_domain").eq_missing(
        pl.col("syndication_earliest_domain")
    )
    credit = pl.col("syndication_wire")
    # A credit line is not a licence: a copy on other domains keeps the wire tag only when it is
    # near-verbatim to one of them (`_verbatim`); a spun copy that kept "(AP)" is a copy.
    verbatim = pl.col("_verbatim").fill_null(False) if "_verbatim" in df.columns else pl.lit(True)
    wire = credit.is_not_null() & ((other == 0) | verbatim)
    penalised = (other > 0) & ~from_source & ~wire  # licensed wire copy: dedup, not distrust
    is_earliest = (
        pl.when(pl.col("_label").is_null() | pl.col("syndication_cluster_id").is_null())
        .then(True)
        .when(known)
        .then(pl.col("doc_id") == pl.col("_earliest_doc"))
    )
    late_copy = penalised & known & (pl.col("doc_id") != pl.col("_earliest_doc"))
    penalty = s.penalty_per_domain * other.cast(pl.Float64) + pl.when(late_copy).then(
        pl.lit(s.copy_penalty)
    ).otherwise(0.0)
    unlicensed = (
        pl.when(credit.is_not_null() & ~wire)
        .then(
            pl.format("; credit line {} but no near-verbatim copy: not licensed wire copy", credit)
        )
        .otherwise(pl.lit(""))
    )
    out = out.with_columns(
        syndication_cluster_size=pl.col("syndication_cluster_size").fill_null(1),
        syndication_other_domains=other,
        syndication_is_earliest=is_earliest,
        syndication_late_copy=late_copy.fill_null(False),
        syndication_all_undated=pl.col("syndication_all_undated").fill_null(False),
        syndication_wire=pl.when(wire).then(credit),
        adjust_syndication=pl.when(penalised)
        .then(-pl.min_horizontal(pl.lit(s.penalty_cap), penalty))
        .otherwise(0.0),
        reasons_syndication=pl.concat_list(
            pl.when(penalised & late_copy)
            .then(
                pl.format(
                    "SYNDICATED_ACROSS_N_DOMAINS: later copy of text shared with {} other "
                    "domains (earliest: {}){}",
                    other,
                    pl.col("syndication_earliest_domain").fill_null("?"),
                    unlicensed,
                )
            )
            .when(penalised)
            .then(
                pl.format(
                    "SYNDICATED_ACROSS_N_DOMAINS: text shared with {} other domains (earliest: "
                    "{}){}",
                    other,
                    pl.col("syndication_earliest_domain").fill_null("undetermined"),
                    unlicensed,
                )
            )
            .when(wire)
            .then(
                pl.format(
                    "SYNDICATED_WIRE: licensed wire copy (credit: {}); shared with {} other "
                    "domain(s); deduplicate, not a trust penalty",
                    pl.col("syndication_wire"),
                    other,
                )
            )
            .when(other > 0)
            .then(
                pl.format(
                    "SYNDICATION_SOURCE: earliest publisher of text shared with {} other domains",
                    other,
                )
            )
        ).list.drop_nulls(),
    )
    return out.select("doc_id", *SYNDICATION_COLUMNS)


def farm_signals(signals: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """Who to distrust in a cluster whose order the dates cannot settle, from trust evidence.

    Runs on the joined signals frame (syndication + domain columns), because the evidence is the
    domain family's: allowlisted, linked from an anchor, an anchor site itself, a reputation prior
    at the anchor level, or a domain at least `farm_older_days` old. Two cases:

    - SYNDICATION_FARM: every copy undated, on `farm_min_domains`+ domains, none with evidence:
      the fetch order names a "source" no better than the others, so every member gets at least
      `farm_penalty`. Two copies (fewer domains than `farm_min_domains`, `farm_pairs`) are a farm
      only when neither is a site page either (`farm_pair_min_links` links: an honest original
      sits in its site's navigation; a scraped pair of bare copies does not).
    - SYNDICATION_PRESUMED_COPY: the order is undetermined (or known only by fetch order) and
      some members have evidence: those are presumed the source (a fetch-order copy penalty on
      them is lifted), the members without evidence get the late-copy penalty. For two copies
      without domain evidence, being a site page when the other copy is not is that evidence;
      when both are, the fetch order stands (a coin flip is no ground to penalise both).

    Licensed wire copy is exempt. Returns signals + `syndication_farm`,
    `adjust_syndication_farm` (the change to adjust_syndication) and `reasons_syndication_farm`.
    """
    s = policy.syndication
    need = {"syndication_cluster_id", "syndication_other_domains", "syndication_all_undated"}
    if not need <= set(signals.columns):
        return signals

    def flag(name: str) -> pl.Expr:
        return pl.col(name).fill_null(False) if name in signals.columns else pl.lit(False)

    count = pl.col("anchor_count") if "anchor_count" in signals.columns else pl.lit(0)
    age = pl.col("domain_age_days") if "domain_age_days" in signals.columns else pl.lit(None)
    older = (age.fill_null(0) >= s.farm_older_days) if s.farm_older_days > 0 else pl.lit(False)
    evidence = (
        flag("in_allowlist")
        | flag("reputation_anchor")
        | flag("anchor_self")
        | (count.fill_null(0) > 0)
        | older
    )
    cluster = pl.col("syndication_cluster_id")
    wire = (
        pl.col("syndication_wire").is_not_null()
        if "syndication_wire" in signals.columns
        else pl.lit(False)
    )
    adjust = (
        pl.col("adjust_syndication").fill_null(0.0)
        if "adjust_syndication" in signals.columns
        else pl.lit(0.0)
    )
    other = pl.col("syndication_other_domains").fill_null(0)
    shared = cluster.is_not_null() & (other > 0) & ~wire
    any_evidence = evidence.any().over(cluster)
    undated = pl.col("syndication_all_undated").fill_null(False)
    # Two copies (below farm_min_domains): page evidence - a page that belongs to a site (links,
    # navigation) - orders them when only one copy has it; two bare copies are a farm.
    links = pl.col("links_total") if "links_total" in signals.columns else pl.lit(None)
    small = other + 1 < s.farm_min_domains
    page_ev = (links.fill_null(0) >= s.farm_pair_min_links) & pl.lit(s.farm_pairs)
    any_page = page_ev.any().over(cluster)
    separates = small & ~any_evidence & any_page & ~page_ev.all().over(cluster)
    farm = (
        shared
        & undated
        & ~any_evidence
        & (~small | (pl.lit(s.farm_pairs) & ~any_page))
        & pl.lit(s.farm_penalty > 0)
    )
    unordered = (
        pl.col("syndication_is_earliest").is_null() | undated
        if "syndication_is_earliest" in signals.columns
        else undated
    )
    presumed = shared & unordered & ((any_evidence & ~evidence) | (separates & ~page_ev))
    source = shared & unordered & ((any_evidence & evidence) | (separates & page_ev))
    per_domain = s.penalty_per_domain * other.cast(pl.Float64)
    copy_total = pl.min_horizontal(pl.lit(s.penalty_cap), per_domain + s.copy_penalty)
    change = (
        pl.when(farm)
        .then(-(pl.lit(s.farm_penalty) + adjust).clip(lower_bound=0.0))
        .when(presumed)
        .then(pl.min_horizontal(pl.lit(0.0), -copy_total - adjust))
        .when(source)  # lift a fetch-order copy penalty: keep the per-domain part only
        .then((-pl.min_horizontal(pl.lit(s.penalty_cap), per_domain) - adjust).clip(0.0, None))
        .otherwise(0.0)
    )
    holds = pl.when(any_evidence).then(evidence).otherwise(separates & page_ev)
    holder = (
        pl.when(holds)
        .then(pl.col("registered_domain") if "registered_domain" in signals.columns else None)
        .drop_nulls()
        .first()
        .over(cluster)
    )
    what = (
        pl.when(any_evidence)
        .then(pl.lit("trust evidence"))
        .otherwise(pl.format("{}+ links (a site page)", pl.lit(s.farm_pair_min_links)))
    )
    return signals.with_columns(
        syndication_farm=farm.fill_null(False),
        adjust_syndication_farm=change.fill_null(0.0),
        reasons_syndication_farm=pl.concat_list(
            pl.when(farm).then(
                pl.format(
                    "SYNDICATION_FARM: text shared with {} other domain(s), every copy undated "
                    "and none allowlisted, anchored, rated or on an old domain{}; no copy can be "
                    "named the source",
                    other,
                    pl.when(small).then(pl.lit(" and none a site page")).otherwise(pl.lit("")),
                )
            ),
            pl.when(presumed.fill_null(False)).then(
                pl.format(
                    "SYNDICATION_PRESUMED_COPY: the dates do not order the copies; {} has {} "
                    "and is presumed the source, this copy has none",
                    holder.fill_null("another member"),
                    what,
                )
            ),
        ).list.drop_nulls(),
    )


def simhash_band_keys(vecs: np.ndarray, *, bits: int, bands: int, seed: int) -> np.ndarray:
    """rows x bands uint64 keys of random-hyperplane LSH (SimHash): `bits` sign bits per band, the
    band number in the high bits so keys of different bands never collide. The one definition for
    embedding_clusters and the batched title keys (corpus_stages.simhash_keys)."""
    rng = np.random.default_rng(seed)
    planes = rng.standard_normal((vecs.shape[1], bits * bands)).astype(np.float32)
    signs = (vecs @ planes) > 0
    weights = (np.uint64(1) << np.arange(bits, dtype=np.uint64)).astype(np.uint64)
    return np.stack(
        [
            (signs[:, b * bits : (b + 1) * bits].astype(np.uint64) * weights).sum(axis=1)
            + np.uint64(b) * (np.uint64(1) << np.uint64(bits))
            for b in range(bands)
        ],
        axis=1,
    )


def embedding_clusters(
    vecs: np.ndarray, *, min_cosine: float, bits: int = 12, bands: int = 20, seed: int = 1
) -> np.ndarray:
    """Component label per row of unit vectors whose cosine reaches `min_cosine` (approximately).

    Random-hyperplane LSH (SimHash): `bands` buckets of `bits` sign bits each, so near-identical
    vectors share a bucket with high probability; candidate edges to each bucket's smallest row are
    verified by the exact cosine. Used for paraphrase near-duplicates and similar titles; linear in
    rows, never all pairs.
    """
    n = len(vecs)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    keys = simhash_band_keys(vecs, bits=bits, bands=bands, seed=seed)
    return _bucket_components(
        keys, lambda a, b: np.einsum("ij,ij->i", vecs[a], vecs[b]) >= min_cosine
    )
