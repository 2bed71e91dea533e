"""Readers as Ray read tasks (`run.ray_read`): the functions the read and extraction tasks run,
called here without Ray, give the driver's own batches, parts and accounting."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from helpers import article_html

from trustaudit.crawl.source import CrawlSource
from trustaudit.io.extract import extract_records
from trustaudit.io.readers import FolderSource, WarcSource
from trustaudit.policy import build_policy
from trustaudit.run.executor import Shard
from trustaudit.run.ingest import source_batches
from trustaudit.run.ray import RayExecutor
from trustaudit.run.ray_read import extract_read, read_part, read_shards, shard_rows


def _folder(root: Path, n: int) -> Path:
    root.mkdir()
    for i in range(n):
        (root / f"p{i:02d}.html").write_text(
            article_html(f"Page {i}", url=f"https://site{i % 3}.example/p{i}")
        )
    (root / "zz-empty.html").write_bytes(b"")  # a read error row (EMPTY_FILE), not a record
    return root


def test_read_and_extract_tasks_give_the_drivers_batches_and_skip_committed_ones(
    tmp_path: Path,
) -> None:
    policy = build_policy({"extract": {"batch_size": 3}})
    source = FolderSource(_folder(tmp_path / "c", 7))
    local = list(source_batches(source, policy))  # what the driver's loop would commit
    assert len(local) == 3
    rows = shard_rows([Shard(4, source, frozenset({1}))])
    read = pa.concat_tables(read_shards(rows, policy))
    assert read.num_rows == len(local)  # one row per batch, in the reader's order
    parts = [read_part(r) for r in extract_read(read, policy).to_pylist()]
    assert [(p.shard, p.batch) for p in parts] == [(4, 0), (4, 1), (4, 2)]
    assert [p.records for p in parts] == [b.records.num_rows for b in local]
    assert [p.read_errors for p in parts] == [b.errors for b in local]
    assert sum(p.records + len(p.read_errors) for p in parts) == 8  # 7 pages + the empty file
    assert parts[1].result is None  # committed by an earlier run: read past, not extracted
    for part, batch in zip(parts, local, strict=True):
        if part.result is None:
            continue
        want = extract_records(batch.records, policy)
        assert part.result.pages.equals(want.pages)
        assert part.result.links.equals(want.links)
        assert part.result.kept == want.kept
        assert part.result.pages.num_rows + len(part.result.errors) == part.records


def test_ray_reads_on_workers_only_what_a_worker_can_open(tmp_path: Path) -> None:
    policy = build_policy({})
    folder = FolderSource(_folder(tmp_path / "c", 1))
    on_cluster = RayExecutor(window=1)
    assert on_cluster.shard_reader([folder], policy) is not None
    # the crawl's source reads the run directory, which only the driver touches
    assert on_cluster.shard_reader([folder, CrawlSource(tmp_path / "run")], policy) is None
    # a ray:// driver is on no node of the cluster: it reads its own files, not object-store keys
    client = RayExecutor(window=1, client=True)
    assert client.shard_reader([folder], policy) is None
    remote = WarcSource("s3://bucket/crawl/a.warc.gz")  # type: ignore[arg-type]
    assert client.shard_reader([remote], policy) is not None


class Broken(FolderSource):
    """A reader with a bug (module level: a source travels pickled)."""

    def batches(self, batch_size: int):  # type: ignore[no-untyped-def]
        raise RecursionError("reader bug")
        yield  # pragma: no cover


def test_a_broken_source_costs_one_error_row_on_a_worker_too(tmp_path: Path) -> None:
    """The guard of the driver's loop (SOURCE_FAILED) holds in a read task."""
    policy = build_policy({})
    rows = shard_rows([Shard(0, Broken(_folder(tmp_path / "c", 1)), frozenset())])
    read = pa.concat_tables(read_shards(rows, policy))
    parts = [read_part(r) for r in extract_read(read, policy).to_pylist()]
    assert len(parts) == 1 and parts[0].records == 0
    assert [e.code for e in parts[0].read_errors] == ["SOURCE_FAILED"]
    assert parts[0].result is not None and parts[0].result.pages.num_rows == 0
