"""The corpus signals as map -> group-by -> map steps that no single process needs whole.

`scoring.corpus.corpus_signals` holds every page's text, signatures and claims in one process;
its memory grows with the corpus. The functions here are the same signals cut at their keys, as
pure frame -> frame steps an engine schedules (docs/corpus-at-scale.md):

syndication
  map      `syndication_map`: per batch of pages, MinHash signatures, LSH band keys
           (doc_id, key), sampled containment shingles (doc_id, key) and the per-page facts
           (domain, dates, wire credit, sampled-shingle count). No text leaves it.
  group-by `bucket_edges` on band key: each page linked to its bucket's smallest doc_id;
           `verify_edges` keeps the pairs whose signatures agree (joined for candidates only).
  group-by `shingle_pairs` on shingle hash, summed by page pair; `containment_edges` filters.
  fixpoint `connected_components`: min-label propagation with joins over the edge list.
  group-by `syndication_clusters` on the component label (earliest copy, domains).
  map      `syndication_columns` per batch of pages with its clusters.
claims
  map      `claim_values` and `group_columns` per batch; then group-bys by claim group,
           (group, kind, unit) and doc_id in `claims.claim_scores`.
language centring (coherence)
  map      `coherence.language_sums`; merge `coherence.merge_language_sums`; map
           `coherence.center_vectors`.

`run_local` drives these over Parquet shards batch by batch, spilling keys to Parquet partitions
so that memory is bounded by the batch and one key partition; `run/ray_corpus.py` runs the same
steps on Ray Data. Both give exactly the columns of `corpus_signals` for syndication and claims.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from trustaudit.policy import Policy
from trustaudit.scoring.claims import CLAIM_COLUMNS as CLAIMS_ONLY
from trustaudit.scoring.claims import (
    claim_scores,
    claim_values,
    group_columns,
    group_from,
    needs_title,
)
from trustaudit.scoring.syndication import (
    SYNDICATION_COLUMNS,
    band_keys,
    minhash_signatures,
    simhash_band_keys,
    syndication_base,
    syndication_clusters,
    syndication_columns,
)

__all__ = [
    "CorpusRun",
    "SyndicationMap",
    "bucket_edges",
    "connected_components",
    "containment_edges",
    "decode_vectors",
    "encode_vectors",
    "finish_syndication",
    "run_local",
    "shingle_pairs",
    "simhash_keys",
    "syndication_map",
    "title_groups",
    "verify_edges",
    "with_verbatim",
    "write_partitions",
]

# The columns the batched form produces: corpus_signals' syndication and claims columns, and
# cross_consistency (coherence, which would consume it, is not batched yet).
CLAIM_COLUMNS = (*CLAIMS_ONLY, "cross_consistency")
_EDGES: dict[str, Any] = {"a": pl.String, "b": pl.String}
_KEYS: dict[str, Any] = {"doc_id": pl.String, "key": pl.UInt64}


# --------------------------------------------------------------------------- vectors as bytes
def encode_vectors(vecs: np.ndarray) -> pl.Series:
    """Rows of a 2-d array as one fixed-size binary value each (no per-row Python loop)."""
    vecs = np.ascontiguousarray(vecs)
    width = vecs.shape[1] * vecs.dtype.itemsize if vecs.ndim == 2 else 0
    arr = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(max(width, 1)), len(vecs), [None, pa.py_buffer(vecs.tobytes())]
    )
    return pl.Series("vec", arr.cast(pa.large_binary()))


def decode_vectors(blobs: pl.Series, dtype: type[np.generic]) -> np.ndarray:
    """The inverse of encode_vectors: [n, width] array of `dtype`."""
    if blobs.len() == 0:
        return np.zeros((0, 0), dtype)
    raw = np.frombuffer(b"".join(blobs.to_list()), dtype=dtype)
    return raw.reshape(blobs.len(), -1)


# --------------------------------------------------------------------------- syndication: map
@dataclass(frozen=True)
class SyndicationMap:
    """What the map step makes of one batch of pages (every frame keyed by doc_id).

    meta: syndication_base columns + n_sampled (the page's sampled containment shingles);
    bands: doc_id, key (one row per LSH band, eligible pages only); shingles: doc_id, key
    (sampled shingle hashes, distinct per page); sigs: doc_id, vec (signature bytes)."""

    meta: pl.DataFrame
    bands: pl.DataFrame
    shingles: pl.DataFrame
    sigs: pl.DataFrame


def syndication_map(pages: pl.DataFrame, policy: Policy) -> SyndicationMap:
    """The per-batch map of syndication: the same hashing as `syndication_signals`."""
    s = policy.syndication
    texts = (
        pages.get_column("text")
        if "text" in pages.columns
        else pl.Series([None] * pages.height, dtype=pl.String)
    )
    keep: list[tuple[np.ndarray, np.ndarray]] = []
    sig, counts = minhash_signatures(
        texts, shingle_words=s.shingle_words, num_perm=s.num_perm, seed=s.seed, keep_shingles=keep
    )
    eligible = counts >= s.min_words
    ids = pages.get_column("doc_id").cast(pl.String)
    elig_ids = ids.filter(pl.Series(eligible))
    sigs = sig[eligible]
    keys = band_keys(sigs, s.bands) if len(sigs) else np.zeros((0, s.bands), np.uint64)
    bands = pl.DataFrame(
        {
            "doc_id": elig_ids.gather(np.repeat(np.arange(len(elig_ids)), s.bands)),
            "key": keys.ravel(),
        },
        schema=_KEYS,
    )
    rows, hashes = keep[0]
    if s.min_containment > 0:
        # the containment sample (containment.containment_pairs): high bits choose the shingle
        on = eligible[rows] & (
            (hashes >> np.uint64(40)) % np.uint64(max(s.containment_sample_mod, 1)) == 0
        )
        shingles = pl.DataFrame(
            {"doc_id": ids.gather(rows[on]), "key": hashes[on]}, schema=_KEYS
        ).unique()
    else:
        shingles = pl.DataFrame(schema=_KEYS)
    sampled = shingles.group_by("doc_id").agg(n_sampled=pl.len().cast(pl.UInt32))
    meta = (
        syndication_base(pages)
        .with_columns(pl.col("doc_id").cast(pl.String))
        .join(sampled, on="doc_id", how="left", maintain_order="left")
    )
    return SyndicationMap(
        meta=meta,
        bands=bands,
        shingles=shingles,
        sigs=pl.DataFrame({"doc_id": elig_ids, "vec": encode_vectors(sigs)}),
    )


# --------------------------------------------------------------------------- group-bys
def bucket_edges(keys: pl.LazyFrame) -> pl.LazyFrame:
    """Group-by key: every doc_id of a bucket linked to the bucket's smallest doc_id (a, b)."""
    return (
        keys.group_by("key")
        .agg(a=pl.col("doc_id"), b=pl.col("doc_id").min())
        .filter(pl.col("a").list.len() > 1)
        .explode("a")
        .filter(pl.col("a") != pl.col("b"))
        .select("a", "b")
        .unique()
    )


def verify_edges(
    edges: pl.DataFrame,
    vectors: pl.DataFrame,
    accept: Callable[[np.ndarray, np.ndarray], np.ndarray],
    dtype: type[np.generic],
) -> pl.DataFrame:
    """The candidate edges whose endpoint vectors (doc_id, vec) pass `accept(rows_a, rows_b)`."""
    if edges.height == 0:
        return edges.select("a", "b")
    va = edges.join(vectors.rename({"doc_id": "a"}), on="a", maintain_order="left")
    both = va.join(vectors.rename({"doc_id": "b", "vec": "vec_b"}), on="b", maintain_order="left")
    ok = accept(decode_vectors(both["vec"], dtype), decode_vectors(both["vec_b"], dtype))
    return both.filter(pl.Series(ok)).select("a", "b")


def jaccard_at_least(min_jaccard: float) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The signature test of syndication.cluster_rows: share of equal slots >= min_jaccard."""
    return lambda a, b: (a == b).mean(axis=1) >= min_jaccard


def shingle_pairs(shingles: pl.LazyFrame, *, max_df: int) -> pl.LazyFrame:
    """Group-by shingle hash: page pairs (a < b) sharing it, counted (a, b, shared). Hashes on more
    than `max_df` pages are common phrases and skipped. Partial counts from disjoint sets of
    hashes add up (`pl.concat(...).group_by("a", "b").agg(pl.col("shared").sum())`)."""
    buckets = (
        shingles.group_by("key")
        .agg(pl.col("doc_id"))
        .filter(pl.col("doc_id").list.len().is_between(2, max_df))
        .explode("doc_id")
    )
    return (
        buckets.join(buckets, on="key", suffix="_b")
        .filter(pl.col("doc_id") < pl.col("doc_id_b"))
        .group_by("doc_id", "doc_id_b")
        .agg(shared=pl.len().cast(pl.UInt32))
        .rename({"doc_id": "a", "doc_id_b": "b"})
    )


def containment_edges(
    pairs: pl.DataFrame, meta: pl.DataFrame, policy: Policy, *, min_containment: float | None = None
) -> pl.DataFrame:
    """Pairs on different domains whose estimated containment (shared / the smaller page's
    sampled shingles) passes the policy (or `min_containment`), as in
    containment.containment_pairs."""
    s = policy.syndication
    bar = s.min_containment if min_containment is None else min_containment
    m = meta.select("doc_id", "registered_domain", "n_sampled")
    return (
        pairs.filter(pl.col("shared") >= s.containment_min_shared)
        .join(m.rename({"doc_id": "a", "registered_domain": "_d", "n_sampled": "n_a"}), on="a")
        .join(m.rename({"doc_id": "b", "registered_domain": "_d_b", "n_sampled": "n_b"}), on="b")
        .filter(
            (pl.col("shared") / pl.min_horizontal("n_a", "n_b") >= bar)
            & ~pl.col("_d").eq_missing(pl.col("_d_b"))
        )
        .select("a", "b")
    )


def with_verbatim(
    labels: pl.DataFrame,
    cand: pl.DataFrame,
    sigs: pl.DataFrame,
    pairs: pl.DataFrame | None,
    members: pl.DataFrame,
    policy: Policy,
) -> pl.DataFrame:
    """labels + `_verbatim`: the page has a near-verbatim copy on another registered domain (the
    candidate edges at `wire_min_jaccard`, or the containment pairs at `wire_min_containment`),
    as syndication.verbatim_rows; a wire credit without one is no licence. `members`: doc_id,
    registered_domain, n_sampled of the clustered pages."""
    s = policy.syndication
    dom = members.select("doc_id", "registered_domain")
    strict = verify_edges(cand, sigs, jaccard_at_least(s.wire_min_jaccard), np.uint32)
    strict = (
        strict.join(dom.rename({"doc_id": "a", "registered_domain": "_d"}), on="a")
        .join(dom.rename({"doc_id": "b", "registered_domain": "_d_b"}), on="b")
        .filter(~pl.col("_d").fill_null("?").eq(pl.col("_d_b").fill_null("?")))
        .select("a", "b")
    )
    parts = [strict]
    if pairs is not None and pairs.height:
        parts.append(
            containment_edges(pairs, members, policy, min_containment=s.wire_min_containment)
        )
    both = pl.concat(parts)
    ids = pl.concat([both.get_column("a"), both.get_column("b")]).unique().implode()
    return labels.with_columns(_verbatim=pl.col("doc_id").is_in(ids))


def connected_components(edges: pl.DataFrame, *, max_rounds: int = 200) -> pl.DataFrame:
    """doc_id, _label (the smallest doc_id of its component) for every doc_id in an edge.

    Min-label propagation over the edge list with joins, plus pointer jumping (a label takes its
    own label's label), until no label changes: O(edges) per round, O(log diameter) rounds on the
    star-shaped components LSH makes. No adjacency matrix, no all-pairs.
    """
    if edges.height == 0:
        return pl.DataFrame(schema={"doc_id": pl.String, "_label": pl.String})
    both = pl.concat([edges.select("a", "b"), edges.select(a="b", b="a")]).unique()
    labels = (
        both.group_by("a")
        .agg(_label=pl.min_horizontal(pl.col("a").first(), pl.col("b").min()))
        .rename({"a": "doc_id"})
    )
    for _ in range(max_rounds):
        neighbour = (
            both.join(labels, left_on="b", right_on="doc_id")
            .group_by("a")
            .agg(_m=pl.col("_label").min())
        )
        step = labels.join(neighbour, left_on="doc_id", right_on="a", how="left").select(
            "doc_id", _label=pl.min_horizontal("_label", "_m")
        )
        jump = step.join(
            step.rename({"doc_id": "_label", "_label": "_l2"}), on="_label", how="left"
        ).select("doc_id", _label=pl.min_horizontal("_label", "_l2"))
        changed = (
            jump.join(labels, on="doc_id", suffix="_old")
            .filter(pl.col("_label") != pl.col("_label_old"))
            .height
        )
        labels = jump
        if changed == 0:
            break
    else:  # pragma: no cover - a path of 2^200 pages
        raise RuntimeError("connected_components did not converge")
    return labels.sort("doc_id")


def finish_syndication(
    meta: pl.DataFrame, labels: pl.DataFrame, clusters: pl.DataFrame, policy: Policy
) -> pl.DataFrame:
    """The per-page map: syndication columns of a batch of `meta` rows."""
    df = meta.join(labels, on="doc_id", how="left", maintain_order="left")
    return syndication_columns(df, clusters, policy).select("doc_id", *SYNDICATION_COLUMNS)


# --------------------------------------------------------------------------- titles (claims)
def simhash_keys(
    doc_ids: pl.Series, vecs: np.ndarray, *, bits: int = 12, bands: int = 20, seed: int = 1
) -> pl.DataFrame:
    """doc_id, key: the random-hyperplane band keys of syndication.embedding_clusters."""
    keys = simhash_band_keys(vecs, bits=bits, bands=bands, seed=seed)
    idx = np.repeat(np.arange(len(doc_ids)), bands)
    return pl.DataFrame({"doc_id": doc_ids.gather(idx), "key": keys.ravel()}, schema=_KEYS)


def title_groups(
    keys: pl.DataFrame,
    policy: Policy,
    encode: Callable[[list[str]], np.ndarray] | None,
    *,
    batch_rows: int = 50_000,
) -> pl.DataFrame:
    """doc_id, _tgroup for the pages grouped by title: the exact normalised title, or with
    `encode` the smallest doc_id of the title-vector component (embedding_clusters' rule)."""
    need = keys.filter(needs_title(policy)).select("doc_id", "_tk").sort("doc_id")
    if encode is None or need.height == 0:
        return need.select("doc_id", _tgroup="_tk")
    c = policy.claims
    key_parts, vec_parts = [], []
    for start in range(0, need.height, batch_rows):  # map: vectors and band keys per batch
        part = need.slice(start, batch_rows)
        vecs = np.asarray(encode(part.get_column("_tk").to_list()), np.float32)
        key_parts.append(simhash_keys(part.get_column("doc_id"), vecs, seed=c.seed))
        vec_parts.append(
            pl.DataFrame({"doc_id": part.get_column("doc_id"), "vec": encode_vectors(vecs)})
        )
    candidates = bucket_edges(pl.concat(key_parts).lazy()).collect()
    ids = pl.concat([candidates.get_column("a"), candidates.get_column("b")]).unique()
    vectors = pl.concat(vec_parts).filter(pl.col("doc_id").is_in(ids.implode()))
    edges = verify_edges(
        candidates,
        vectors,
        lambda a, b: np.einsum("ij,ij->i", a, b) >= c.title_min_cosine,
        np.float32,
    )
    labels = connected_components(edges)
    return need.join(labels, on="doc_id", how="left").select(
        "doc_id", _tgroup=pl.coalesce("_label", "doc_id")
    )


# --------------------------------------------------------------------------- the local driver
@dataclass
class CorpusRun:
    """What `run_local` measured: seconds per stage, the output file, counts."""

    output: Path
    seconds: dict[str, float] = field(default_factory=dict)
    pages: int = 0
    edges: int = 0
    clustered: int = 0


def _batches(sources: list[Path], batch_rows: int, columns: list[str]) -> Iterator[pl.DataFrame]:
    for path in sources:
        pf = pq.ParquetFile(path)
        cols = [c for c in columns if c in pf.schema_arrow.names]
        for batch in pf.iter_batches(batch_size=batch_rows, columns=cols):
            yield pl.from_arrow(pa.Table.from_batches([batch]))  # type: ignore[misc]


def _write(frame: pl.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.write_parquet(path)


def write_partitions(frame: pl.DataFrame, root: Path, name: str, partitions: int) -> None:
    """Spill (doc_id, key) rows into `partitions` files by key, so a group-by reads one at a time."""
    if frame.height == 0:
        return
    part = frame.with_columns(_p=(pl.col("key") % partitions).cast(pl.UInt32))
    for (p,), chunk in part.group_by("_p"):
        _write(chunk.drop("_p"), root / f"p{p:03d}" / f"{name}.parquet")


def _scan_parts(folder: Path) -> pl.LazyFrame:
    """The spill's part files of one kind, listed by Python, not by a Polars glob: the spill lives
    under the user's --out, whose name may hold `[` or `*`."""
    return pl.scan_parquet(sorted(folder.glob("*.parquet")), glob=False)


def _scan(root: Path, schema: dict[str, Any]) -> pl.LazyFrame:
    files = sorted(root.glob("*.parquet"))
    if not files:
        return pl.DataFrame(schema=schema).lazy()
    return pl.scan_parquet(files, glob=False)


_PAGE_COLUMNS = [
    "doc_id", "text", "registered_domain", "published", "fetched_at", "title", "entity",
]  # fmt: skip


def run_local(
    sources: list[Path],
    policy: Policy,
    *,
    work: Path,
    batch_rows: int = 50_000,
    partitions: int = 16,
    encode: Callable[[list[str]], np.ndarray] | None = None,
    progress: Callable[[str], None] | None = None,
) -> CorpusRun:
    """Syndication and claims over Parquet shards of pages, batch by batch; writes
    `work/corpus.parquet` (doc_id + the syndication and claim columns that the policy enables).

    Peak memory: one batch of pages, one key partition in a group-by, the candidate edges and
    the per-page key tables (doc_id, dates, claim group), never the corpus' text or signatures.
    """
    say = progress or (lambda _m: None)
    spill = work / "spill"
    shutil.rmtree(spill, ignore_errors=True)
    out = CorpusRun(output=work / "corpus.parquet")
    s = policy.syndication
    synd_on, claims_on = policy.syndication.enabled, policy.claims.enabled

    # 1. map over batches: syndication keys, claim values, grouping evidence
    t0 = time.perf_counter()
    for i, pages in enumerate(_batches(sources, batch_rows, _PAGE_COLUMNS)):
        out.pages += pages.height
        name = f"b{i:06d}"
        if synd_on:
            m = syndication_map(pages, policy)
            _write(m.meta, spill / "meta" / f"{name}.parquet")
            _write(m.sigs, spill / "sigs" / f"{name}.parquet")
            write_partitions(m.bands, spill / "bands", name, partitions)
            write_partitions(m.shingles, spill / "shingles", name, partitions)
        else:
            _write(
                pages.select(pl.col("doc_id").cast(pl.String)), spill / "meta" / f"{name}.parquet"
            )
        if claims_on:
            _write(claim_values(pages), spill / "claims" / f"{name}.parquet")
            _write(group_columns(pages), spill / "groups" / f"{name}.parquet")
        say(f"map: {out.pages} pages")
    out.seconds["map"] = time.perf_counter() - t0

    labels = pl.DataFrame(schema={"doc_id": pl.String, "_label": pl.String})
    clusters: pl.DataFrame | None = None
    if synd_on:
        # 2. group-by band key, one partition at a time -> candidate edges, verified
        t0 = time.perf_counter()
        cand = pl.concat(
            [bucket_edges(_scan(p, _KEYS)).collect() for p in sorted((spill / "bands").glob("p*"))]
            or [pl.DataFrame(schema=_EDGES)]
        ).unique()
        ids = pl.concat([cand.get_column("a"), cand.get_column("b")]).unique().implode()
        sig_rows = (_scan_parts(spill / "sigs").filter(pl.col("doc_id").is_in(ids))).collect()
        edges = verify_edges(cand, sig_rows, jaccard_at_least(s.min_jaccard), np.uint32)
        out.seconds["lsh_groupby"] = time.perf_counter() - t0
        # 3. group-by shingle hash -> containment pairs
        t0 = time.perf_counter()
        pairs = None
        if s.min_containment > 0:
            pair_parts = [
                shingle_pairs(_scan(p, _KEYS), max_df=s.containment_max_df).collect()
                for p in sorted((spill / "shingles").glob("p*"))
            ]
            pairs = (
                pl.concat(pair_parts).group_by("a", "b").agg(pl.col("shared").sum())
                if pair_parts
                else pl.DataFrame(schema={**_EDGES, "shared": pl.UInt32})
            )
            in_pairs = pl.concat([pairs.get_column("a"), pairs.get_column("b")]).unique().implode()
            meta_pairs = (
                _scan_parts(spill / "meta").filter(pl.col("doc_id").is_in(in_pairs)).collect()
            )
            edges = pl.concat([edges, containment_edges(pairs, meta_pairs, policy)])
        out.seconds["containment_groupby"] = time.perf_counter() - t0
        # 4. connected components, 5. per-cluster reduction
        t0 = time.perf_counter()
        labels = connected_components(edges)
        out.edges, out.clustered = edges.height, labels.height
        out.seconds["components"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        members = _scan_parts(spill / "meta").join(labels.lazy(), on="doc_id").collect()
        clusters = syndication_clusters(members, policy)
        labels = with_verbatim(labels, cand, sig_rows, pairs, members, policy)
        out.seconds["cluster_reduce"] = time.perf_counter() - t0

    claims: pl.DataFrame | None = None
    if claims_on:
        # 6. claims: groups (entity, cluster, title), then the group-bys of claim_scores
        t0 = time.perf_counter()
        cluster_ids = (
            clusters.select("_label", "syndication_cluster_id")
            .join(labels, on="_label")
            .select("doc_id", "syndication_cluster_id")
            if clusters is not None
            else pl.DataFrame(schema={"doc_id": pl.String, "syndication_cluster_id": pl.String})
        )
        keys = (
            _scan_parts(spill / "groups")
            .join(cluster_ids.lazy(), on="doc_id", how="left")
            .collect()
        )
        groups = group_from(keys, title_groups(keys, policy, encode, batch_rows=batch_rows))
        claims = claim_scores(
            groups.select("doc_id"),
            groups,
            _scan_parts(spill / "claims").collect(),
            policy,
        ).select("doc_id", *CLAIM_COLUMNS)
        out.seconds["claims"] = time.perf_counter() - t0

    # 7. per-page map: the output, batch by batch
    t0 = time.perf_counter()
    writer: pq.ParquetWriter | None = None
    try:
        for meta_file in sorted((spill / "meta").glob("*.parquet")):
            meta = pl.read_parquet(meta_file, glob=False)
            frame = meta.select("doc_id")
            if synd_on and clusters is not None:
                frame = finish_syndication(meta, labels, clusters, policy)
            if claims is not None:
                frame = frame.join(claims, on="doc_id", how="left", maintain_order="left")
            table = frame.to_arrow()
            if writer is None:
                writer = pq.ParquetWriter(out.output, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    out.seconds["finish"] = time.perf_counter() - t0
    shutil.rmtree(spill, ignore_errors=True)
    return out
