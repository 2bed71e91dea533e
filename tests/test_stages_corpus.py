"""stages.corpus_family: syndication and claims from an engine's batched steps, coherence in the
driver, joined into exactly `corpus_signals`' frame (the split `audit --engine ray` runs)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scoring.test_corpus_stages import _claim_pages

from trustaudit.api import audit
from trustaudit.corpus_stages import run_local
from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.corpus import corpus_signals
from trustaudit.stages import BatchMap, CorpusMap, Encode, corpus_family, corpus_status

REPO = Path(__file__).resolve().parents[1]
P = Policy().with_overrides({"engine": {"distributed_corpus_min_pages": 0}})


@pytest.fixture(scope="module")
def demo_pages(tmp_path_factory: pytest.TempPathFactory) -> pl.DataFrame:
    out = tmp_path_factory.mktemp("demo") / "run"
    corpus = REPO / "fixtures" / "corpus"
    audit([corpus / "pages", corpus / "extra.jsonl"], out, workers=1, fresh=True, now="2026-11-01")
    # with groups of product pages whose prices disagree: cross_consistency has values to carry
    return pl.concat(
        [pl.read_parquet(out / "pages.parquet"), _claim_pages()], how="diagonal_relaxed"
    )


def _batched(work: Path, policy: Policy, calls: list[int]) -> CorpusMap:
    """The batched steps without Ray (`corpus_stages.run_local`), in batches of 7 pages."""

    def mapped(pages: pl.DataFrame, encode: Encode | None) -> pl.DataFrame:
        calls.append(pages.height)
        src = work / "pages.parquet"
        pages.write_parquet(src)
        run = run_local([src], policy, work=work / "w", batch_rows=7, partitions=3, encode=encode)
        return pl.read_parquet(run.output).sample(fraction=1.0, shuffle=True, seed=1)

    return mapped


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"claims": {"enabled": False}},
        {"syndication": {"enabled": False}},
        {"coherence": {"enabled": False}},
    ],
    ids=["all", "no-claims", "no-syndication", "no-coherence"],
)
def test_corpus_family_equals_corpus_signals(
    demo_pages: pl.DataFrame, tmp_path: Path, overrides: dict
) -> None:
    policy = P.with_overrides(overrides)
    calls: list[int] = []
    embedder = HashingEmbedder(64)
    new = corpus_family(demo_pages, policy, embedder, corpus_map=_batched(tmp_path, policy, calls))
    assert calls == [demo_pages.height]  # the batched steps really ran
    assert_frame_equal(new, corpus_signals(demo_pages, None, policy, embedder))
    if policy.claims.enabled and policy.coherence.enabled:  # coherence was fed the batched claims
        assert new.get_column("cross_consistency").drop_nulls().len() >= 8


def test_corpus_family_without_batched_steps_is_corpus_signals(demo_pages: pl.DataFrame) -> None:
    policy = P.with_overrides({"syndication": {"enabled": False}, "claims": {"enabled": False}})
    calls: list[int] = []
    never = _batched(Path("unused"), policy, calls)
    out = corpus_family(demo_pages, policy, HashingEmbedder(64), corpus_map=never)
    assert calls == []  # nothing to batch: the driver computes coherence alone
    assert_frame_equal(out, corpus_signals(demo_pages, None, policy, HashingEmbedder(64)))


def test_corpus_status_names_the_distributed_steps() -> None:
    def fake(pages: pl.DataFrame, encode: Encode | None) -> pl.DataFrame:
        return pages

    assert corpus_status(P, corpus_map=None, pages=50) == "computed"
    assert corpus_status(P, corpus_map=fake, pages=50) == "distributed (syndication, claims)"
    no_synd = P.with_overrides({"syndication": {"enabled": False}})
    assert corpus_status(no_synd, corpus_map=fake, pages=50) == "distributed (claims)"


def test_a_small_corpus_keeps_the_corpus_family_on_the_driver(demo_pages: pl.DataFrame) -> None:
    """Below engine.distributed_corpus_min_pages the engine's batched steps are not used."""
    policy = Policy().with_overrides(
        {"engine": {"distributed_corpus_min_pages": demo_pages.height + 1}}
    )
    calls: list[int] = []
    out = corpus_family(
        demo_pages, policy, HashingEmbedder(64), corpus_map=_batched(Path("unused"), policy, calls)
    )
    assert calls == []
    assert_frame_equal(out, corpus_signals(demo_pages, None, policy, HashingEmbedder(64)))
    fake = _batched(Path("unused"), policy, calls)
    assert corpus_status(policy, corpus_map=fake, pages=demo_pages.height) == "computed"
    assert corpus_status(policy, corpus_map=fake, pages=demo_pages.height + 1).startswith(
        "distributed"
    )


class _WithBatchMap:
    """A corpus map that offers coherence's maps (`batch_map`), run here with `embedder`, each
    step's batch sizes recorded: the seam the Ray engine's tasks use (`run/ray.py`)."""

    def __init__(self, inner: CorpusMap, policy: Policy, embedder: HashingEmbedder) -> None:
        self.inner, self.policy, self.embedder = inner, policy, embedder
        self.steps: list[tuple[str, list[int]]] = []

    def __call__(self, pages: pl.DataFrame | list[Path], encode: Encode | None) -> pl.DataFrame:
        return self.inner(pages, encode)  # type: ignore[arg-type]

    def batch_map(self, pages: int) -> BatchMap | None:
        def mapped(step: Callable[..., Any], batches: Iterable[pl.DataFrame], extra: Any) -> list:
            held = list(batches)
            self.steps.append((step.__name__, [b.height for b in held]))
            # out of order and back: the merges must not depend on where a batch ran first
            done = {
                i: step(b, self.policy, self.embedder, extra)
                for i, b in reversed(list(enumerate(held)))
            }
            return [done[i] for i in range(len(held))]

        return mapped


@pytest.mark.parametrize("batch_pages", [1_000, 9], ids=["one-batch", "batches"])
def test_corpus_family_runs_coherence_through_the_engines_batch_map(
    demo_pages: pl.DataFrame, tmp_path: Path, batch_pages: int
) -> None:
    policy = P.with_overrides({"engine": {"corpus_batch_pages": batch_pages}})
    embedder = HashingEmbedder(64)
    cmap = _WithBatchMap(_batched(tmp_path, policy, []), policy, embedder)
    out = corpus_family(demo_pages, policy, embedder, corpus_map=cmap)
    assert_frame_equal(out, corpus_signals(demo_pages, None, policy, embedder))
    names = [name for name, _ in cmap.steps]
    if batch_pages >= demo_pages.height:  # one batch is its own corpus: one apply
        assert cmap.steps == [("coherence_apply_step", [demo_pages.height])]
    else:
        assert names == ["coherence_counts_step", "coherence_words_step", "coherence_apply_step"]
        sizes = cmap.steps[0][1]
        assert len(sizes) >= 2 and sum(sizes) == demo_pages.height
        assert all(s == sizes for _, s in cmap.steps)  # the same page_bounds batches each map
    assert out.get_column("coherence_score").drop_nulls().len() > 0
    assert corpus_status(policy, corpus_map=cmap, pages=demo_pages.height) == (
        "distributed (syndication, claims, coherence)"
    )
    off = policy.with_overrides({"coherence": {"enabled": False}})
    assert corpus_status(off, corpus_map=cmap, pages=demo_pages.height) == (
        "distributed (syndication, claims)"
    )
