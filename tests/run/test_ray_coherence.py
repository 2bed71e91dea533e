"""Coherence's maps as Ray tasks (`RayExecutor._batch_map`, offered by the Ray corpus map as
`batch_map`): they run in worker processes, in the driver's batch order, and give the scores of
the driver's own loop (`stages.corpus_coherence`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scoring.test_corpus_stages import _claim_pages

from trustaudit.embed import Embedder, get_embedder
from trustaudit.policy import build_policy
from trustaudit.stages import FramePages, corpus_coherence, corpus_status


def test_ray_coherence_maps_run_on_workers_and_match_the_driver(tmp_path: Path) -> None:
    pytest.importorskip("ray")
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
