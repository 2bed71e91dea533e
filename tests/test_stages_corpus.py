"""stages.corpus_family: syndication and claims from an engine's batched steps, coherence in the
driver, joined into exactly `corpus_signals`' frame (the split `audit --engine ray` runs)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scoring.test_corpus_stages import _claim_pages

from trustaudit.api import audit
from trustaudit.corpus_stages import run_local
from trustaudit.embed import HashingEmbedder
from trustaudit.policy import Policy
from trustaudit.scoring.corpus import corpus_signals
from trustaudit.stages import CorpusMap, Encode, corpus_family, corpus_status

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
