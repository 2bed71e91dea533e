"""The Ray executor: the same extraction stage as `map_batches` over Arrow on a Ray cluster.

Ray tasks read the sources and extract them, in one streaming dataset (`shard_reader`,
`run/ray_read.py`); the driver lists the sources and commits parts. Where a worker cannot read a
source (a crawl's run directory, local files behind a `ray://` driver) or the cache must be planned
per record (`--cache`), the driver reads and Ray extracts windows of batches (`run`). Either way one
dataset row is one part-to-be (Arrow IPC inside), so however Ray re-blocks the rows each result comes
back whole and is committed as one part: resume and accounting are the run directory's, whichever
engine wrote it. Every node needs trustaudit (and this Python's dependencies) installed; only the
driver touches the run directory.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any, cast

import polars as pl
import pyarrow as pa

from trustaudit.errors import UsageError
from trustaudit.io.extract import ExtractResult, extract_records
from trustaudit.io.fs import is_uri
from trustaudit.io.readers import Source
from trustaudit.io.records import ErrorRow, errors_table
from trustaudit.policy import Policy
from trustaudit.run.executor import ReadPart, Shard, ShardReader
from trustaudit.run.ray_read import (
    WORKER_KINDS,
    extract_read,
    from_ipc,
    read_part,
    read_shards,
    shard_rows,
    to_ipc,
)
from trustaudit.stages import BatchMap, CorpusMap, Encode, PageMap, page_signals

__all__ = ["RayExecutor", "extract_packed", "from_ipc", "signals_packed", "to_ipc", "unpack"]

# a local instance on a shared machine: a small object store (records travel a window at a time)
LOCAL_OBJECT_STORE_BYTES = 256 * 1024 * 1024
_PACKED = pa.schema(
    [
        pa.field("key", pa.int64()),
        pa.field("pages", pa.binary()),
        pa.field("links", pa.binary()),
        pa.field("errors", pa.binary()),
        pa.field("kept", pa.list_(pa.int64())),
    ]
)
# what the batched corpus steps read of a page (`corpus_stages`); never links or paragraphs
_CORPUS_PAGE_COLUMNS = (
    "doc_id", "text", "registered_domain", "published", "fetched_at", "title", "entity",
)  # fmt: skip


def extract_packed(batch: pa.Table, policy: Policy) -> pa.Table:
    """The `map_batches` function: rows of (key, records IPC) -> rows of (key, pages, links,
    errors IPC, kept). Errors travel as rows of the errors table, never as Python objects."""
    out: dict[str, list[Any]] = {name: [] for name in _PACKED.names}
    for key, blob in zip(
        batch.column("key").to_pylist(), batch.column("records").to_pylist(), strict=True
    ):
        result = extract_records(from_ipc(blob), policy)
        out["key"].append(key)
        out["pages"].append(to_ipc(result.pages))
        out["links"].append(to_ipc(result.links))
        out["errors"].append(to_ipc(errors_table(result.errors)))
        out["kept"].append(result.kept)
    return pa.table(out, schema=_PACKED)


def signals_packed(batch: pa.Table, policy: Policy) -> pa.Table:
    """The `map_batches` function of the signal stage's map part: rows of (key, pages IPC, links
    IPC) -> rows of (key, `stages.page_signals` frame IPC)."""
    keys, frames = [], []
    for key, pages, links in zip(
        batch.column("key").to_pylist(),
        batch.column("pages").to_pylist(),
        batch.column("links").to_pylist(),
        strict=True,
    ):
        frame = page_signals(pl.DataFrame(from_ipc(pages)), pl.DataFrame(from_ipc(links)), policy)
        keys.append(key)
        frames.append(to_ipc(frame.to_arrow()))
    return pa.table({"key": pa.array(keys, pa.int64()), "frame": pa.array(frames, pa.binary())})


def unpack(row: dict[str, Any]) -> ExtractResult:
    """One packed row back into the ExtractResult the run layer commits."""
    errors = [ErrorRow(**r) for r in from_ipc(row["errors"]).to_pylist()]
    return ExtractResult(from_ipc(row["pages"]), from_ipc(row["links"]), errors, list(row["kept"]))


def _remote(source: Source) -> bool:
    """Whether a source names an object-store key or prefix (every node reaches it), not a file."""
    return is_uri(str(getattr(source, "path", "")))


def _reachable(address: str, timeout_s: float = 5.0) -> None:
    """Refuse a `host:port` nobody listens on at once: ray.init retries such an address for many
    minutes before it gives up. `auto`, `ray://` and other forms are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise UsageError(
            f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}",
            hint="--ray-address is the head's host:port (`ray start --head --port PORT`)",
        ) from None


class RayExecutor:
    """Schedules reading and extraction on Ray Data: one streaming dataset for the whole ingest
    (`shard_reader`), or, when the driver reads, a window of batches per dataset (`run`).

    Why windows: the readers are a Python generator on the driver; a window bounds what sits in the
    object store at once, and results stream back (any order) to be committed as they finish.
    """

    def __init__(self, *, window: int, nodes: int = 1, cpus: int = 1, client: bool = False) -> None:
        self.window = max(1, window)
        self.nodes, self.cpus = nodes, cpus
        self.client = client  # a `ray://` driver runs outside the cluster: no node sees its files
        self.killed = 0  # Ray retries a crashed task; no per-record kill as in the local pool
        self._owned = False  # this run called ray.init: release() shuts it down
        self.reads = "driver"  # "workers" once the sources are read by Ray tasks (shard_reader)
        self._stopping: threading.Thread | None = None

    @classmethod
    @contextlib.contextmanager
    def connect(cls, address: str | None, *, num_cpus: int = 2) -> Iterator[RayExecutor]:
        """Connect to the cluster at `address`, or start a local instance of `num_cpus` CPUs
        (stopped on exit); a cluster given by address is only disconnected from."""
        import ray
        import ray.data

        # Ray Data configures its loggers on import: quiet them after it, not before
        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.ERROR)
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
        started = not ray.is_initialized()
        if started:
            common: dict[str, Any] = {
                "log_to_driver": False,
                "logging_level": logging.ERROR,
                "include_dashboard": False,
            }
            if address:
                _reachable(address)
                try:
                    ray.init(address=address, **common)
                except (ConnectionError, RuntimeError, ValueError) as exc:
                    raise UsageError(
                        f"cannot join the Ray cluster at {address}: {exc}"[:400],
                        hint="--ray-address is the head's host:port (or ray://host:10001); with"
                        " token authentication, set RAY_AUTH_TOKEN to the cluster's token",
                    ) from None
            else:  # "local": never join a cluster some other process started on this machine
                cpus = max(1, min(num_cpus, os.cpu_count() or 1))
                ray.init(
                    address="local",
                    num_cpus=cpus,
                    object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                    **common,
                )
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.print_on_execution_start = False
        cpus = int(ray.cluster_resources().get("CPU", 1))
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        client = bool(address and address.startswith("ray://"))
        executor = cls(window=4 * cpus, nodes=nodes, cpus=cpus, client=client)
        executor._owned = started
        try:
            yield executor
        finally:
            executor.release()
            if executor._stopping is not None:
                executor._stopping.join()

    def release(self) -> None:
        """Stop the Ray instance this run started (a cluster is only disconnected from) in a
        background thread: Ray waits for each of its processes to exit (about a second), which
        the driver's own stages then hide. Nothing may use Ray after this."""
        if self._owned and self._stopping is None:
            import ray

            self._stopping = threading.Thread(target=ray.shutdown, name="ray-shutdown")
            self._stopping.start()

    def describe(self) -> dict[str, Any]:
        """For the manifest; `reads`: whether Ray tasks read the sources or the driver did."""
        return {"name": "ray", "nodes": self.nodes, "cpus": self.cpus, "reads": self.reads}

    def shard_reader(self, sources: Sequence[Source], policy: Policy) -> ShardReader | None:
        """Read the sources on the workers too (`run.ray_read`), or None: the driver reads them.

        Files (not object-store keys) are read on the driver's node, where their paths are valid;
        the extraction runs anywhere. A `ray://` driver is on no node, so it reads its own files.
        """
        if any(src.kind not in WORKER_KINDS for src in sources):
            return None
        if self.client and not all(_remote(src) for src in sources):
            return None

        def read(shards: Sequence[Shard]) -> Iterator[ReadPart]:
            return self._read_and_extract(shards, policy)

        return read

    def _read_and_extract(self, shards: Sequence[Shard], policy: Policy) -> Iterator[ReadPart]:
        """One streaming dataset for the whole ingest: read tasks feed extraction tasks, the parts
        come back as they finish. Reads hold no CPU (they wait on I/O and on the extraction that
        consumes them, Ray's backpressure); the extraction takes one CPU per task."""
        import ray
        import ray.data

        self.reads = "workers"
        if not shards:
            return
        rows = shard_rows(shards)
        ds = ray.data.from_arrow([rows.slice(i, 1) for i in range(rows.num_rows)])
        # one row is one part: emit each as its own block, as soon as it is made
        ds.context.target_max_block_size = 1
        pin = None
        if not all(_remote(s.source) for s in shards):  # Ray's default label of each node
            pin = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}
        read = ds.map_batches(
            functools.partial(read_shards, policy=policy),
            batch_size=1,
            batch_format="pyarrow",
            zero_copy_batch=True,
            num_cpus=0,
            concurrency=max(1, min(len(shards), self.cpus)),
            label_selector=pin,
        )
        done = read.map_batches(
            functools.partial(extract_read, policy=policy),
            batch_size=1,
            batch_format="pyarrow",
            zero_copy_batch=True,
        )
        for out in done.iter_batches(batch_size=None, batch_format="pyarrow"):
            for row in cast(pa.Table, out).to_pylist():
                yield read_part(row)

    def page_map(self, policy: Policy) -> PageMap:
        """`stages.page_signals` over the batches of pages (each with its own links) on the
        workers, a window of batches at a time; below `engine.distributed_corpus_min_pages` pages
        in the driver's process, as the corpus steps are: a dataset costs more than it saves."""

        def mapped(
            batches: Iterable[tuple[pl.DataFrame, pl.DataFrame]], pages: int
        ) -> list[pl.DataFrame]:
            if pages < policy.engine.distributed_corpus_min_pages:
                # the corpus steps are below the same threshold: nothing else runs on Ray
                self.release()
                return [page_signals(p, links, policy) for p, links in batches]
            return self._page_signals(batches, policy)

        return mapped

    def corpus_map(self, policy: Policy, work: Path) -> CorpusMap:
        """Syndication and claims as map -> group-by -> map on the workers
        (`run.ray_corpus.corpus_signals_ray`), their keys spilled under `work`."""
        return _RayCorpusMap(self, policy, work)

    def _corpus_columns(
        self, pages: pl.DataFrame | list[Path], policy: Policy, encode: Encode | None, work: Path
    ) -> pl.DataFrame:
        import ray
        import ray.data

        from trustaudit.run.ray_corpus import corpus_signals_ray

        if self._stopping is not None:  # page_map released Ray below the same threshold
            raise RuntimeError("the corpus steps need Ray, released after the page signals")
        tables = _corpus_tables(pages, policy.engine.corpus_batch_pages)
        # one object per batch of pages, put as it is read: the driver never holds them all
        refs = [ray.put(t) for t in tables]
        n = max(1, min(self.window, _height(pages)))
        ds = ray.data.from_arrow_refs(refs).repartition(n)  # type: ignore[arg-type]
        out = work / "out"
        try:
            corpus_signals_ray(
                ds,
                policy,
                out=out,
                partitions=max(2, 2 * self.cpus),
                spill=work / "spill",
                encode=encode,
            )
            return pl.read_parquet(sorted(out.glob("*.parquet")), glob=False)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _batch_map(
        self, policy: Policy, step: Callable[..., Any], batches: Iterable[pl.DataFrame], extra: Any
    ) -> list[Any]:
        """`stages.BatchMap` as Ray tasks: `step` over each batch of pages on the workers, each
        with the policy's embedder (`_embedded_step`), a window of batches in flight; the outputs
        come back in batch order (coherence's counts, words and scored pages)."""
        import ray

        if self._stopping is not None:  # page_map released Ray below the same threshold
            raise RuntimeError("the coherence maps need Ray, released after the page signals")
        task = ray.remote(_embedded_step)
        shared = ray.put((policy, extra))  # once, not once per task
        out: list[Any] = []
        source = iter(batches)
        while window := list(islice(source, self.window)):
            out += ray.get([task.remote(step, b, shared) for b in window])
        return out

    def _page_signals(
        self, batches: Iterable[tuple[pl.DataFrame, pl.DataFrame]], policy: Policy
    ) -> list[pl.DataFrame]:
        """The per-page signal families, one Ray task per batch of pages, in input order."""
        frames: list[pl.DataFrame] = []
        source = iter(batches)
        while window := list(islice(source, self.window)):
            rows = pa.table(
                {
                    "key": pa.array(range(len(window)), pa.int64()),
                    "pages": pa.array([to_ipc(p.to_arrow()) for p, _ in window], pa.binary()),
                    "links": pa.array([to_ipc(lk.to_arrow()) for _, lk in window], pa.binary()),
                }
            )
            del window
            got = {
                row["key"]: pl.DataFrame(from_ipc(row["frame"]))
                for row in _task_per_row(rows, functools.partial(signals_packed, policy=policy))
            }
            frames += [got[i] for i in range(rows.num_rows)]
        return frames

    def run(
        self, tasks: Iterator[tuple[Any, pa.Table]], policy: Policy
    ) -> Iterator[tuple[Any, ExtractResult]]:
        """(key, records) in -> (key, ExtractResult) out, as batches finish (not in input order)."""
        source = iter(tasks)
        while window := list(islice(source, self.window)):
            keys = [key for key, _ in window]
            rows = pa.table(
                {
                    "key": pa.array(range(len(window)), pa.int64()),
                    "records": pa.array([to_ipc(records) for _, records in window], pa.binary()),
                }
            )
            del window
            for row in _task_per_row(rows, functools.partial(extract_packed, policy=policy)):
                yield keys[row["key"]], unpack(row)


class _RayCorpusMap:
    """The Ray engine's corpus steps: from `engine.distributed_corpus_min_pages` pages on the
    workers; below it, from `engine.local_corpus_min_pages`, the local engine's spilled batches
    (`run.local.LocalCorpusMap`), so a mid-sized corpus does not hold every page's shingles in the
    driver either (same columns whichever runs)."""

    def __init__(self, executor: RayExecutor, policy: Policy, work: Path) -> None:
        self.executor, self.policy, self.work = executor, policy, work
        self.min_pages = min(
            policy.engine.local_corpus_min_pages, policy.engine.distributed_corpus_min_pages
        )

    def __call__(self, pages: pl.DataFrame | list[Path], encode: Encode | None) -> pl.DataFrame:
        if _height(pages) >= self.policy.engine.distributed_corpus_min_pages:
            return self.executor._corpus_columns(pages, self.policy, encode, self.work)
        from trustaudit.run.local import LocalCorpusMap

        return LocalCorpusMap(self.policy, self.work)(pages, encode)

    def batch_map(self, pages: int) -> BatchMap | None:
        """Coherence's maps as Ray tasks from `engine.distributed_corpus_min_pages` pages (the
        threshold of the page families and the corpus steps); below it, None: the driver."""
        if pages < self.policy.engine.distributed_corpus_min_pages:
            return None
        return functools.partial(self.executor._batch_map, self.policy)


def _task_per_row(rows: pa.Table, fn: Callable[[pa.Table], pa.Table]) -> Iterator[dict[str, Any]]:
    """Each row of `rows` (a window of packed batches) as its own Ray task through `fn`; the output
    rows as the tasks finish, not in input order (callers key them)."""
    import ray

    ds = ray.data.from_arrow(rows).repartition(rows.num_rows)
    done = ds.map_batches(fn, batch_size=1, batch_format="pyarrow", zero_copy_batch=True)
    for out in done.iter_batches(batch_size=None, batch_format="pyarrow"):
        yield from cast(pa.Table, out).to_pylist()


def _embedded_step(step: Callable[..., Any], pages: pl.DataFrame, shared: Any) -> Any:
    """A Ray task of `RayExecutor._batch_map`: `step(pages, policy, embedder, extra)` with this
    worker's process-wide embedder (`embed.get_embedder`, loaded once per worker process; the
    same model and float16 disk cache as the driver's, so the vectors are the driver's)."""
    from trustaudit.embed import get_embedder

    policy, extra = shared
    return step(pages, policy, get_embedder(policy.embeddings), extra)


def _height(pages: pl.DataFrame | list[Path]) -> int:
    """Pages in a frame or in Parquet files (their footers)."""
    import pyarrow.parquet as pq

    if isinstance(pages, pl.DataFrame):
        return pages.height
    return sum(pq.ParquetFile(p).metadata.num_rows for p in pages)


def _corpus_tables(pages: pl.DataFrame | list[Path], rows: int) -> Iterator[pa.Table]:
    """The corpus steps' columns of the pages (`_CORPUS_PAGE_COLUMNS`), `rows` pages a table."""
    import pyarrow.parquet as pq

    if isinstance(pages, pl.DataFrame):
        columns = [c for c in _CORPUS_PAGE_COLUMNS if c in pages.columns]
        table = pages.select(columns).to_arrow()
        for start in range(0, max(table.num_rows, 1), rows):
            yield table.slice(start, rows)
        return
    for path in pages:
        with pq.ParquetFile(path) as pf:
            columns = [c for c in _CORPUS_PAGE_COLUMNS if c in pf.schema_arrow.names]
            for batch in pf.iter_batches(batch_size=rows, columns=columns):
                yield pa.Table.from_batches([batch])
