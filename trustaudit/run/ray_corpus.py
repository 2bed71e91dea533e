"""The corpus signals on Ray Data: the steps of `trustaudit.corpus_stages`, scheduled by Ray.

map       one `map_batches` over the pages computes the syndication keys of every page
          (`corpus_stages.syndication_map`) as rows of one key table, and one the claim values
          and grouping evidence; no row carries a page's text onward.
group-by  the band keys and the sampled shingles are shuffled by `key % partitions`
          (`groupby(...).map_groups`), each partition reduced by the same Polars functions as the
          local driver (`bucket_edges`, `shingle_pairs`).
driver    the candidate edges, the candidates' signatures, the components (label propagation),
          the clustered pages' facts and the claim tables: key tables, never the corpus.
map       `map_batches` over the page facts writes the per-page columns.

The caller owns `ray.init` (the ray engine, `--ray-address`); `corpus_signals_ray` only schedules.
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from trustaudit.corpus_stages import (
    CLAIM_COLUMNS,
    CorpusRun,
    SyndicationMap,
    bucket_edges,
    connected_components,
    containment_edges,
    finish_syndication,
    jaccard_at_least,
    shingle_pairs,
    syndication_map,
    title_groups,
    verify_edges,
    with_verbatim,
    write_partitions,
)
from trustaudit.policy import Policy
from trustaudit.run.ray_hooks import settle_fsspec_import
from trustaudit.scoring.claims import claim_scores, claim_values, group_columns, group_from
from trustaudit.scoring.syndication import syndication_clusters

__all__ = ["corpus_signals_ray", "settle_fsspec_import"]

# part codes of the key table the syndication map emits
_BAND, _SHINGLE, _SIG, _META = 0, 1, 2, 3
_KEY_SCHEMA: dict[str, Any] = {
    "part": pl.UInt8,
    "doc_id": pl.String,
    "key": pl.UInt64,
    "_p": pl.UInt32,
    "vec": pl.Binary,
}
_META_SCHEMA: dict[str, Any] = {
    "doc_id": pl.String,
    "registered_domain": pl.String,
    "published": pl.Date,
    "fetched_at": pl.Datetime("us", "UTC"),
    "syndication_wire": pl.String,
    "n_sampled": pl.UInt32,
}


def _keys_batch(
    batch: pa.Table, policy: Policy, partitions: int, spill: str | None = None
) -> pa.Table:
    """map_batches: pages -> rows (part, doc_id, key, _p, vec) + the page facts as a meta row.

    With `spill`, the band and shingle keys are written there in `partitions` Parquet folders
    instead (the shuffle through shared storage) and only signatures and facts come back."""
    m = syndication_map(pl.DataFrame(batch), policy)
    if spill is not None:
        name = uuid.uuid4().hex
        write_partitions(m.bands, Path(spill) / "bands", name, partitions)
        write_partitions(m.shingles, Path(spill) / "shingles", name, partitions)
        m = SyndicationMap(m.meta, m.bands.clear(), m.shingles.clear(), m.sigs)

    def keyed(frame: pl.DataFrame, part: int) -> pl.DataFrame:
        return frame.select(
            pl.lit(part, pl.UInt8).alias("part"),
            "doc_id",
            "key",
            (pl.col("key") % partitions).cast(pl.UInt32).alias("_p"),
            pl.lit(None, pl.Binary).alias("vec"),
        )

    sigs = m.sigs.select(
        pl.lit(_SIG, pl.UInt8).alias("part"),
        "doc_id",
        pl.lit(None, pl.UInt64).alias("key"),
        pl.lit(None, pl.UInt32).alias("_p"),
        pl.col("vec").cast(pl.Binary),
    )
    keys = pl.concat([keyed(m.bands, _BAND), keyed(m.shingles, _SHINGLE), sigs])
    meta = m.meta.select(list(_META_SCHEMA)).cast(pl.Schema(_META_SCHEMA))
    out = pl.concat(
        [
            keys.with_columns(
                **{c: pl.lit(None, t) for c, t in _META_SCHEMA.items() if c != "doc_id"}
            ),
            meta.with_columns(
                part=pl.lit(_META, pl.UInt8),
                key=pl.lit(None, pl.UInt64),
                _p=pl.lit(None, pl.UInt32),
                vec=pl.lit(None, pl.Binary),
            ),
        ],
        how="diagonal",
    )
    return out.select(*_KEY_SCHEMA, *[c for c in _META_SCHEMA if c != "doc_id"]).to_arrow()


def _part(ds: Any, part: int, columns: list[str]) -> Any:
    def pick(batch: pa.Table) -> pa.Table:
        frame = pl.DataFrame(batch)
        return frame.filter(pl.col("part") == part).select(columns).to_arrow()

    return ds.map_batches(pick, batch_format="pyarrow")


def _edges_group(batch: pa.Table) -> pa.Table:
    """map_groups over one key partition: the bucket edges of its band keys."""
    keys = pl.DataFrame(batch).select("doc_id", "key")
    return bucket_edges(keys.lazy()).collect().to_arrow()


def _pairs_group(batch: pa.Table, max_df: int) -> pa.Table:
    """map_groups over one shingle partition: page pairs and their shared sampled shingles."""
    keys = pl.DataFrame(batch).select("doc_id", "key")
    return shingle_pairs(keys.lazy(), max_df=max_df).collect().to_arrow()


def _partition_reduce(batch: pa.Table, root: str, kind: str, max_df: int) -> pa.Table:
    """map_batches over partition numbers: each reads its partition's spilled keys and reduces
    them with the local driver's function (bucket edges or shingle pairs)."""
    schema: dict[str, Any] = {"a": pl.String, "b": pl.String}
    if kind == "shingles":
        schema["shared"] = pl.UInt32
    parts = []
    for p in batch.column("p").to_pylist():
        files = sorted((Path(root) / kind / f"p{p:03d}").glob("*.parquet"))
        if files:
            keys = pl.scan_parquet(files, glob=False)
            red = bucket_edges(keys) if kind == "bands" else shingle_pairs(keys, max_df=max_df)
            parts.append(red.collect())
    frame = pl.concat(parts) if parts else pl.DataFrame(schema=schema)
    return frame.to_arrow()


def _reduced(ds: Any, kind: str, partitions: int, spill: Path | None, max_df: int) -> Any:
    """The group-by of one key kind: Ray's hash shuffle on `_p`, or per-partition tasks over the
    keys the map spilled (`spill`)."""
    import ray.data

    if spill is None:
        fn = _edges_group if kind == "bands" else _pairs_group
        kwargs = {} if kind == "bands" else {"max_df": max_df}
        part = _part(ds, _BAND if kind == "bands" else _SHINGLE, ["doc_id", "key", "_p"])
        return part.groupby("_p", num_partitions=partitions).map_groups(
            fn, batch_format="pyarrow", fn_kwargs=kwargs
        )
    numbers: Any = ray.data.from_items([{"p": p} for p in range(partitions)])
    return numbers.map_batches(
        _partition_reduce,
        batch_size=1,
        batch_format="pyarrow",
        fn_kwargs={"root": str(spill), "kind": kind, "max_df": max_df},
    )


def _collect(ds: Any, schema: dict[str, Any]) -> pl.DataFrame:
    import ray

    tables = [t for t in ray.get(ds.to_arrow_refs()) if t.num_rows]
    if not tables:
        return pl.DataFrame(schema=schema)
    return pl.concat([pl.DataFrame(t) for t in tables]).cast(pl.Schema(schema))


def _claims_batch(batch: pa.Table) -> pa.Table:
    """map_batches: pages -> claim values (kind != null) and grouping rows (kind null)."""
    pages = pl.DataFrame(batch)
    values = claim_values(pages)
    groups = group_columns(pages)
    return pl.concat([values, groups], how="diagonal").to_arrow()


def _finish_batch(batch: pa.Table, policy: Policy, tables: Any) -> pa.Table:
    """map_batches: page facts -> the per-page syndication and claim columns."""
    import ray

    labels, clusters, claims = ray.get(tables)
    meta = pl.DataFrame(batch).cast(pl.Schema(_META_SCHEMA))
    frame = (
        finish_syndication(meta, labels, clusters, policy)
        if clusters is not None
        else meta.select("doc_id")
    )
    if claims is not None:
        frame = frame.join(claims, on="doc_id", how="left", maintain_order="left")
    return frame.to_arrow()


def corpus_signals_ray(
    pages: Any,
    policy: Policy,
    *,
    out: Path,
    partitions: int = 16,
    batch_rows: int = 20_000,
    spill: Path | None = None,
    encode: Callable[[list[str]], np.ndarray] | None = None,
) -> CorpusRun:
    """Syndication and claim columns of a Ray dataset of pages (doc_id, text, registered_domain,
    published, fetched_at, title, entity), written as Parquet under `out` (one file per block).

    Same columns and values as `corpus_stages.run_local` and `scoring.corpus.corpus_signals`.
    The group-bys shuffle through Ray's object store (`groupby`), or, with `spill` (a folder every
    node can read and write), through Parquet partitions the map writes: the memory of Ray's hash
    shuffle then drops out (docs/corpus-at-scale.md)."""
    import ray

    settle_fsspec_import()
    s = policy.syndication
    run = CorpusRun(output=out)
    # a re-run replaces, never appends: Ray names its output files per execution
    for stale in out.glob("*.parquet") if out.is_dir() else []:
        stale.unlink()
    if spill is not None:
        shutil.rmtree(spill, ignore_errors=True)
    t0 = time.perf_counter()
    # batch_rows bounds a map task's memory: one batch of text and its shingles at a time
    keys = pages.map_batches(
        _keys_batch,
        batch_format="pyarrow",
        batch_size=batch_rows,
        fn_kwargs={
            "policy": policy,
            "partitions": partitions,
            "spill": None if spill is None else str(spill),
        },
    ).materialize()
    run.seconds["map"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    cand = _collect(
        _reduced(keys, "bands", partitions, spill, s.containment_max_df),
        {"a": pl.String, "b": pl.String},
    ).unique()
    ids = pl.concat([cand.get_column("a"), cand.get_column("b")]).unique()
    wanted = ray.put(ids)

    def candidate_sigs(batch: pa.Table) -> pa.Table:
        frame = pl.DataFrame(batch)
        want = ray.get(wanted)
        return (
            frame.filter((pl.col("part") == _SIG) & pl.col("doc_id").is_in(want.implode()))
            .select("doc_id", "vec")
            .to_arrow()
        )

    sigs = _collect(
        keys.map_batches(candidate_sigs, batch_format="pyarrow"),
        {"doc_id": pl.String, "vec": pl.Binary},
    )
    edges = verify_edges(cand, sigs, jaccard_at_least(s.min_jaccard), np.uint32)
    run.seconds["lsh_groupby"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    meta_ds = _part(keys, _META, ["doc_id", *[c for c in _META_SCHEMA if c != "doc_id"]])
    if s.min_containment > 0:
        pairs = (
            _collect(
                _reduced(keys, "shingles", partitions, spill, s.containment_max_df),
                {"a": pl.String, "b": pl.String, "shared": pl.UInt32},
            )
            .group_by("a", "b")
            .agg(pl.col("shared").sum())
        )
        in_pairs = ray.put(pl.concat([pairs.get_column("a"), pairs.get_column("b")]).unique())
        meta_pairs = _collect(
            meta_ds.map_batches(_rows_in, batch_format="pyarrow", fn_kwargs={"wanted": in_pairs}),
            _META_SCHEMA,
        )
        edges = pl.concat([edges, containment_edges(pairs, meta_pairs, policy)])
    run.seconds["containment_groupby"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    labels = connected_components(edges)
    run.edges, run.clustered = edges.height, labels.height
    run.seconds["components"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    members = _collect(
        meta_ds.map_batches(
            _rows_in,
            batch_format="pyarrow",
            fn_kwargs={"wanted": ray.put(labels.get_column("doc_id"))},
        ),
        _META_SCHEMA,
    ).join(labels, on="doc_id")
    clusters = syndication_clusters(members, policy) if policy.syndication.enabled else None
    # a wire credit needs a near-verbatim copy (corpus_stages.with_verbatim)
    labels = with_verbatim(
        labels, cand, sigs, pairs if s.min_containment > 0 else None, members, policy
    )
    run.seconds["cluster_reduce"] = time.perf_counter() - t0

    claims = None
    if policy.claims.enabled:
        t0 = time.perf_counter()
        both = _collect(
            pages.map_batches(_claims_batch, batch_format="pyarrow", batch_size=batch_rows),
            {
                "doc_id": pl.String,
                "kind": pl.String,
                "unit": pl.String,
                "value": pl.Float64,
                "_tk": pl.String,
                "_entity": pl.String,
            },
        )
        values = both.filter(pl.col("kind").is_not_null()).select("doc_id", "kind", "unit", "value")
        gcols = both.filter(pl.col("kind").is_null()).select("doc_id", "_tk", "_entity")
        cluster_ids = (
            clusters.select("_label", "syndication_cluster_id")
            .join(labels, on="_label")
            .select("doc_id", "syndication_cluster_id")
            if clusters is not None
            else pl.DataFrame(schema={"doc_id": pl.String, "syndication_cluster_id": pl.String})
        )
        gkeys = gcols.join(cluster_ids, on="doc_id", how="left")
        groups = group_from(gkeys, title_groups(gkeys, policy, encode))
        claims = claim_scores(groups.select("doc_id"), groups, values, policy).select(
            "doc_id", *CLAIM_COLUMNS
        )
        run.seconds["claims"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    tables = ray.put((labels, clusters, claims))
    done = meta_ds.map_batches(
        _finish_batch, batch_format="pyarrow", fn_kwargs={"policy": policy, "tables": tables}
    )
    # the write lists paths in its workers' threads: settle fsspec there first (the engine passes
    # no job-wide runtime_env: one would cost every worker of the ingest a fresh start)
    hook = {"worker_process_setup_hook": "trustaudit.run.ray_hooks.settle_fsspec_import"}
    done.write_parquet(str(out), ray_remote_args={"runtime_env": hook})
    if spill is not None:
        shutil.rmtree(spill, ignore_errors=True)
    run.seconds["finish"] = time.perf_counter() - t0
    return run


def _rows_in(batch: pa.Table, wanted: Any) -> pa.Table:
    """map_batches: the rows whose doc_id is in the (object-store) Series `wanted`."""
    import ray

    want = ray.get(wanted)
    return pl.DataFrame(batch).filter(pl.col("doc_id").is_in(want.implode())).to_arrow()
