"""corpus_stages: the corpus signals as map -> group-by -> map give corpus_signals' columns exactly.

Parity on the demo corpus and on a small real subset of ../shared/corpora (with copies on other
domains so that clusters form), in batches small enough that clusters span batches; the steps
(components, bucket edges, language sums) against their single-process counterparts.
"""

from __future__ import annotations

import csv
import gzip
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scoring.corpus_fixtures import random_text, swap_words

from trustaudit.api import audit, extract_pages
from trustaudit.corpus_stages import (
    CLAIM_COLUMNS,
    SYNDICATION_COLUMNS,
    bucket_edges,
    connected_components,
    run_local,
)
from trustaudit.embed import Embedder, HashingEmbedder, get_embedder
from trustaudit.policy import Policy, build_policy
from trustaudit.scoring.coherence import (
    center_vectors,
    language_means,
    language_sums,
    merge_language_sums,
)
from trustaudit.scoring.corpus import corpus_signals
from trustaudit.scoring.syndication import syndication_signals
from trustaudit.stages import FramePages, corpus_coherence, corpus_status

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "corpora"
P = Policy()
COLUMNS = ["doc_id", *SYNDICATION_COLUMNS, *CLAIM_COLUMNS]


@pytest.fixture(scope="module")
def demo_pages(tmp_path_factory: pytest.TempPathFactory) -> pl.DataFrame:
    out = tmp_path_factory.mktemp("demo") / "run"
    corpus = REPO / "fixtures" / "corpus"
    audit([corpus / "pages", corpus / "extra.jsonl"], out, workers=1, fresh=True, now="2026-11-01")
    return pl.read_parquet(out / "pages.parquet")


def _real_pages(n: int = 60, copies: int = 8) -> pl.DataFrame:
    """The first `n` trafilatura pages, and `copies` of them re-published on other domains (some
    truncated: containment, not Jaccard, must find those)."""
    root = SHARED / "trafilatura-pages"
    with open(root / "manifest.csv", newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if (root / r["path"]).is_file()][:n]
    records = [
        {
            "url": r["url"],
            "html": gzip.decompress((root / r["path"]).read_bytes()).decode("utf-8", "replace"),
        }
        for r in rows
        if r["url"].startswith("http")
    ]
    rng = random.Random(5)
    for i, rec in enumerate(rng.sample(records, copies)):
        html = rec["html"] if i % 2 else rec["html"][: len(rec["html"]) * 2 // 3]
        records.append({"url": f"https://copy{i}.example/a/{i}", "html": html})
    return extract_pages(records, P).pages


def _batched(pages: pl.DataFrame, tmp_path: Path, *, batch_rows: int, **kw) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    # shuffled into two shards: neither batch nor file order may change a value
    shuffled = pages.sample(fraction=1.0, shuffle=True, seed=3)
    half = shuffled.height // 2
    paths = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    shuffled.slice(0, half).write_parquet(paths[0])
    shuffled.slice(half).write_parquet(paths[1])
    run = run_local(paths, P, work=tmp_path / "work", batch_rows=batch_rows, partitions=3, **kw)
    return pl.read_parquet(run.output).sort("doc_id")


def _assert_parity(old: pl.DataFrame, new: pl.DataFrame) -> None:
    assert new.height == old.height
    assert_frame_equal(new.select(COLUMNS), old.sort("doc_id").select(COLUMNS))


def test_demo_corpus_parity(demo_pages: pl.DataFrame, tmp_path: Path) -> None:
    old = corpus_signals(demo_pages, None, P, None)
    new = _batched(demo_pages, tmp_path, batch_rows=7)
    _assert_parity(old, new)
    # the demo has a syndicated cluster and claim groups: the parity is not of empty columns
    assert new.get_column("syndication_cluster_id").drop_nulls().n_unique() >= 1
    assert new.get_column("claim_group").drop_nulls().n_unique() >= 2


def _claim_pages() -> pl.DataFrame:
    """Product pages grouped by entity, by near-dup cluster and by title, with one price outlier
    in each group (the demo corpus has no group of three pages with claims)."""
    rng = random.Random(2)
    rows = []
    for g, (entity, title) in enumerate([("acme grinder", "x"), (None, "Budget kettle review")]):
        for i, price in enumerate(["€49.00", "€49.00", "€48.00", "€19.99"]):
            text = f"{random_text(rng, 80)}\nThe product costs {price} at most shops."
            rows.append(
                {"doc_id": f"g{g}{i}", "registered_domain": f"shop{i}.example", "title": title,
                 "entity": entity, "text": text, "paragraphs": text.split("\n")}
            )  # fmt: skip
    base = random_text(rng, 150)
    for i, price in enumerate(["$10", "$10", "$10", "$99"]):
        text = f"{swap_words(base, 0.05, rng)} It costs {price}."
        rows.append(
            {"doc_id": f"s{i}", "registered_domain": f"farm{i}.example", "title": None,
             "entity": None, "text": text, "paragraphs": [text]}
        )  # fmt: skip
    return pl.DataFrame(rows)


def test_claims_parity_across_batches(tmp_path: Path) -> None:
    pages = _claim_pages()
    old = corpus_signals(pages, None, P, None)
    new = _batched(pages, tmp_path, batch_rows=3)
    _assert_parity(old, new)
    outliers = new.filter(pl.col("claim_outliers") > 0).get_column("doc_id").sort().to_list()
    assert outliers == ["g03", "g13", "s3"]


def test_demo_corpus_parity_with_title_vectors(demo_pages: pl.DataFrame, tmp_path: Path) -> None:
    emb = HashingEmbedder(256)
    old = corpus_signals(demo_pages, None, P, emb)
    new = _batched(demo_pages, tmp_path, batch_rows=9, encode=emb.encode)
    _assert_parity(old, new)


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/corpora not present")
def test_real_subset_parity(tmp_path: Path) -> None:
    pages = _real_pages()
    old = corpus_signals(pages, None, P, None)
    new = _batched(pages, tmp_path, batch_rows=16)
    _assert_parity(old, new)
    # copies joined their originals' clusters: the parity covers real clusters
    assert new.get_column("syndication_cluster_id").drop_nulls().n_unique() >= 4


def test_syndication_does_not_depend_on_row_order(demo_pages: pl.DataFrame) -> None:
    a = syndication_signals(demo_pages, P).sort("doc_id")
    b = syndication_signals(demo_pages.reverse(), P).sort("doc_id")
    assert_frame_equal(a, b)


def test_components_are_smallest_doc_ids() -> None:
    # a path longer than one propagation step, a star, a lone pair
    edges = pl.DataFrame(
        {
            "a": ["p5", "p4", "p3", "p2", "s1", "s2", "s3", "x"],
            "b": ["p4", "p3", "p2", "p1", "s0", "s0", "s0", "y"],
        }
    )
    got = dict(connected_components(edges).iter_rows())
    assert {k: got[k] for k in ("p5", "p1", "s3", "s0", "x", "y")} == {
        "p5": "p1", "p1": "p1", "s3": "s0", "s0": "s0", "x": "x", "y": "x",
    }  # fmt: skip


def test_components_match_scipy_on_a_random_graph() -> None:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as scipy_cc

    rng = np.random.default_rng(4)
    n = 300
    a, b = rng.integers(0, n, 260), rng.integers(0, n, 260)
    names = np.array([f"d{i:04d}" for i in range(n)])
    got = connected_components(pl.DataFrame({"a": names[a], "b": names[b]}))
    _, ref = scipy_cc(coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)), directed=False)
    smallest = pl.DataFrame({"doc_id": names, "c": ref}).with_columns(
        want=pl.col("doc_id").min().over("c")
    )
    joined = got.join(smallest, on="doc_id")
    assert joined.height == got.height
    assert (joined.get_column("_label") == joined.get_column("want")).all()


def test_bucket_edges_link_to_the_smallest_doc_id() -> None:
    keys = pl.DataFrame(
        {"doc_id": ["c", "a", "b", "d", "e"], "key": [1, 1, 1, 2, 3]},
        schema={"doc_id": pl.String, "key": pl.UInt64},
    )
    edges = bucket_edges(keys.lazy()).collect().sort("a")
    assert edges.rows() == [("b", "a"), ("c", "a")]


def test_language_sums_merge_exactly_in_any_order() -> None:
    rng = np.random.default_rng(1)
    vecs = rng.standard_normal((40, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    paras = pl.DataFrame(
        {"doc_id": [f"d{i // 2}" for i in range(40)], "lang_key": ["en"] * 24 + ["de"] * 16}
    )
    whole = language_sums(paras, vecs)
    parts = [language_sums(paras.slice(s, 10), vecs[s : s + 10]) for s in range(0, 40, 10)]
    merged = merge_language_sums(parts[::-1])
    assert_frame_equal(merged.sort("lang_key"), whole.sort("lang_key"))
    pol = P.with_overrides({"coherence": {"center_min_paragraphs": 20, "center_min_pages": 10}})
    means = language_means(merged, pol)
    assert set(means) == {"en"}  # de has 16 paragraphs: too few
    centred = center_vectors(paras, vecs, means)
    assert np.allclose(np.linalg.norm(centred[:24], axis=1), 1.0, atol=1e-5)
    assert np.abs(centred[:24].mean(axis=0)).max() < np.abs(vecs[:24].mean(axis=0)).max()
    assert np.array_equal(centred[24:], vecs[24:])


@pytest.fixture(scope="module")
def ray_local() -> Iterator[None]:
    """One local Ray instance for this module's Ray tests (started once, stopped after the last):
    each start costs seconds, and its worker processes, once they have imported the scoring code,
    serve the next test's tasks too. The tests only schedule on it; starting Ray from a run is
    tested through the CLI (tests/cli/test_engines.py)."""
    pytest.importorskip("ray.data")
    import ray

    from trustaudit.run.ray_corpus import settle_fsspec_import

    settle_fsspec_import()
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 object_store_memory=128 * 1024 * 1024,
                 runtime_env={"worker_process_setup_hook": settle_fsspec_import})  # fmt: skip
    try:
        yield
    finally:
        if started:
            ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("spill", [False, True], ids=["groupby", "spill"])
def test_ray_parity_on_the_demo_corpus(
    ray_local: None, demo_pages: pl.DataFrame, tmp_path: Path, *, spill: bool
) -> None:
    import ray.data

    from trustaudit.run.ray_corpus import corpus_signals_ray

    pages = pl.concat([demo_pages, _claim_pages()], how="diagonal_relaxed")
    src = tmp_path / "pages.parquet"
    pages.select(
        "doc_id", "text", "registered_domain", "published", "fetched_at", "title", "entity"
    ).write_parquet(src)
    ds = ray.data.read_parquet(str(src)).repartition(4)
    spill_to = tmp_path / "spill" if spill else None
    corpus_signals_ray(ds, P, out=tmp_path / "out", partitions=3, spill=spill_to)
    new = pl.read_parquet(tmp_path / "out" / "*.parquet").sort("doc_id")
    _assert_parity(corpus_signals(pages, None, P, None), new)
    assert new.filter(pl.col("claim_outliers") > 0).height == 3


def test_wire_tag_parity_across_batches(tmp_path: Path) -> None:
    """A verbatim reprint, a trimmed reprint (containment) and a spun copy of one credited wire
    story, in batches of two: the batched reduction tags the same pages SYNDICATED_WIRE."""
    rng = random.Random(4)
    story = "LONDON (Reuters) - " + random_text(rng, 260)
    texts = {
        "w0": ("paper-a.example", story),
        "w1": ("paper-b.example", story),  # verbatim
        "w2": ("paper-c.example", " ".join(story.split()[:200])),  # trimmed reprint
        "w3": ("spinner.example", swap_words(story, 0.10, rng)),  # spun, credit kept
        "x0": ("blog.example", random_text(rng, 200)),
    }
    pages = pl.DataFrame(
        [
            {"doc_id": d, "registered_domain": dom, "text": t, "title": None, "entity": None,
             "paragraphs": [t]}
            for d, (dom, t) in texts.items()
        ]
    )  # fmt: skip
    old = corpus_signals(pages, None, P, None)
    new = _batched(pages, tmp_path, batch_rows=2)
    _assert_parity(old, new)
    wire = dict(new.select("doc_id", "syndication_wire").iter_rows())
    assert wire == {"w0": "Reuters", "w1": "Reuters", "w2": "Reuters", "w3": None, "x0": None}
    spun = new.filter(pl.col("doc_id") == "w3").row(0, named=True)
    assert spun["adjust_syndication"] < 0


def test_ray_coherence_maps_run_on_workers_and_match_the_driver(
    ray_local: None, tmp_path: Path
) -> None:
    """Coherence's maps as Ray tasks (`RayExecutor._batch_map`, offered by the Ray corpus map as
    `batch_map`): they run in worker processes, in the driver's batch order, and give the scores of
    the driver's own loop (`stages.corpus_coherence`). (Here, not in tests/run, to share the
    module's Ray instance.)"""
    from trustaudit.run.ray import RayExecutor

    policy = build_policy(
        {
            "engine": {"distributed_corpus_min_pages": 10, "corpus_batch_pages": 4},
            "embeddings": {"static_model": "hashing-64", "disk_cache": False},
        }
    )
    pages = _claim_pages()
    assert pages.height >= 10
    source = FramePages(pages, pl.DataFrame())
    embedder = get_embedder(policy.embeddings)
    want = corpus_coherence(source, policy, embedder)

    def where(batch: pl.DataFrame, _policy: Any, emb: Embedder, extra: str) -> tuple:
        return os.getpid(), batch.get_column("doc_id").to_list(), emb.dim, extra

    with RayExecutor.connect(None, num_cpus=2) as executor:
        cmap = executor.corpus_map(policy, tmp_path / "work")
        assert cmap.batch_map(9) is None  # below the threshold: coherence on the driver
        batch_map = cmap.batch_map(pages.height)
        assert batch_map is not None
        halves = [pages.head(5), pages.tail(7)]
        ran = batch_map(where, halves, "x")
        assert [r[1] for r in ran] == [h.get_column("doc_id").to_list() for h in halves]
        assert all(pid != os.getpid() for pid, *_ in ran)  # worker processes, not the driver
        assert {(dim, extra) for _, _, dim, extra in ran} == {(64, "x")}
        got = corpus_coherence(source, policy, embedder, batch_map=batch_map)
        status = corpus_status(policy, corpus_map=cmap, pages=pages.height)
    assert_frame_equal(got, want)
    assert got.get_column("paragraphs_used").sum() > 0
    assert status == "distributed (syndication, claims, coherence)"
