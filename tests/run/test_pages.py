"""run.pages.ParquetPages: the signal stage over a run's Parquet files, a batch of pages and of
links at a time, gives exactly the tables of the same stage over the frames in memory."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from trustaudit.api import audit
from trustaudit.embed import HashingEmbedder
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy
from trustaudit.run.ingest import merge_to_disk
from trustaudit.run.local import LocalExecutor
from trustaudit.run.pages import ParquetPages
from trustaudit.stages import (
    HEAVY_COLUMNS,
    DomainEvidence,
    merge_anchor_presence,
    signal_tables,
    source_signal_tables,
)

REPO = Path(__file__).resolve().parents[2]
NOW = date(2026, 11, 1)
# anchors the demo's pages link to, so the anchor table has rows to merge across link batches
EVIDENCE = DomainEvidence(extra_anchors={"reviewhub.example", "wikipedia.org", "example.com"})


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "run"
    corpus = REPO / "fixtures" / "corpus"
    audit([corpus / "pages", corpus / "extra.jsonl"], out, workers=1, fresh=True, now="2026-11-01")
    return out


def test_parquet_pages_in_small_batches_give_the_tables_of_the_frames(
    demo_run: Path, tmp_path: Path
) -> None:
    pages = pl.read_parquet(demo_run / "pages.parquet")
    links = pl.read_parquet(demo_run / "links.parquet")
    embedder = HashingEmbedder(64)
    whole = signal_tables(
        pages, links, Policy(), now=NOW, evidence=EVIDENCE, embedder=lambda: embedder
    )
    # batches of 5 pages and 500 links; syndication and claims through run_local from the file
    small = Policy().with_overrides(
        {"engine": {"corpus_batch_pages": 5, "local_corpus_min_pages": 1}}
    )
    out = tmp_path / "links.parquet"
    source = ParquetPages(
        demo_run / "pages.parquet", demo_run / "links.parquet", out, link_rows=500
    )
    assert source.height == pages.height
    assert not set(HEAVY_COLUMNS) & set(source.meta().columns)
    streamed = source_signal_tables(
        source,
        small,
        now=NOW,
        evidence=EVIDENCE,
        embedder=lambda: embedder,
        corpus_map=LocalExecutor(1).corpus_map(small, tmp_path / "corpus"),
    )
    assert streamed.families["corpus"].startswith("distributed")
    assert streamed.links is None  # written to its file, batch by batch
    assert_frame_equal(streamed.signals, whole.signals)
    assert_frame_equal(streamed.domains, whole.domains)
    assert whole.links is not None
    assert_frame_equal(pl.read_parquet(out), whole.links)
    assert whole.domains["anchor_count"].sum() > 0  # the merged anchors were really exercised


def test_slices_cut_the_pages_at_any_bounds(demo_run: Path, tmp_path: Path) -> None:
    pages = pl.read_parquet(demo_run / "pages.parquet")
    source = ParquetPages(demo_run / "pages.parquet", demo_run / "links.parquet", tmp_path / "l")
    bounds = [(0, 3), (3, 30), (33, pages.height - 33)]
    got = list(source.slices(bounds))
    assert [f.height for f in got] == [3, 30, pages.height - 33]
    assert_frame_equal(pl.concat(got), pages)
    assert source.text_bytes() == pages["text"].str.len_bytes().fill_null(0).to_list()


def test_anchor_presence_merges_across_batches() -> None:
    a = pl.DataFrame(
        {"registered_domain": ["x.com", "y.com"], "anchor_domains": [["a"], ["b"]]},
        schema_overrides={"anchor_domains": pl.List(pl.String)},
    ).with_columns(anchor_count=pl.col("anchor_domains").list.len().cast(pl.Int32))
    b = pl.DataFrame(
        {"registered_domain": ["x.com"], "anchor_domains": [["c", "a"]]},
    ).with_columns(anchor_count=pl.lit(2, pl.Int32))
    merged = merge_anchor_presence([b, a])
    assert merged.to_dicts() == [
        {"registered_domain": "x.com", "anchor_domains": ["a", "c"], "anchor_count": 2},
        {"registered_domain": "y.com", "anchor_domains": ["b"], "anchor_count": 1},
    ]


def test_merge_streams_parts_and_drops_duplicates_with_their_links(
    demo_run: Path, tmp_path: Path
) -> None:
    run = RunDir.at(tmp_path / "run")
    shutil.copytree(demo_run / "parts", run.parts)
    # the first committed part again, read at other offsets: every page in it is a duplicate URL
    first = sorted(run.parts.glob("*.done"))[0].with_suffix("")
    again = run.parts / "s9999-b0000000"
    shift = pl.col("offset") + 1_000_000
    pl.read_parquet(first.with_suffix(".pages.parquet")).with_columns(shift).write_parquet(
        again.with_suffix(".pages.parquet")
    )
    record = pl.col("_record").str.split("#")
    pl.read_parquet(first.with_suffix(".links.parquet")).with_columns(
        _record=pl.concat_str(
            record.list.first(), pl.lit("#"), (record.list.last().cast(pl.Int64) + 1_000_000)
        )
    ).write_parquet(again.with_suffix(".links.parquet"))
    shutil.copy(first.with_suffix(".errors.parquet"), again.with_suffix(".errors.parquet"))
    (run.parts / "s9999-b0000000.done").write_text("0 0\n")
    dup_pages = pl.read_parquet(first.with_suffix(".pages.parquet")).height
    before = pl.read_parquet(demo_run / "errors.parquet")
    dup_pages += int((before["code"] == "DUPLICATE_URL").sum())  # the demo's own duplicates
    aside = tmp_path / "aside.parquet"
    counts = merge_to_disk(run, links_to=aside)
    assert counts["duplicates"] == dup_pages
    pages = pl.read_parquet(run.pages)
    assert_frame_equal(pages, pl.read_parquet(demo_run / "pages.parquet"))
    assert counts["pages"] == pages.height
    assert not run.links.exists()  # the signal stage writes it, with the flags
    links = pl.read_parquet(aside)
    assert counts["links"] == links.height
    assert_frame_equal(
        links, pl.read_parquet(demo_run / "links.parquet").drop("is_affiliate", "is_sponsored")
    )
    errors = pl.read_parquet(run.errors)
    assert (errors["code"] == "DUPLICATE_URL").sum() == dup_pages


def test_merge_of_no_parts_writes_empty_tables(tmp_path: Path) -> None:
    run = RunDir.at(tmp_path / "run")
    run.parts.mkdir(parents=True)
    counts = merge_to_disk(run)
    assert counts == {"pages": 0, "links": 0, "errors": 0, "duplicates": 0}
    pages = pl.read_parquet(run.pages)
    assert pages.height == 0
    assert {"doc_id", "url", "text", "registered_domain"} <= set(pages.columns)
    assert pl.read_parquet(run.links).height == 0
