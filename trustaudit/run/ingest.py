"""The ingest (map) stage over a run directory: read sources in batches, plan the cache, hand the
records an executor extracts, commit one part per batch, then merge and dedupe the parts.

The executor only schedules (`run.local.LocalExecutor`, `run.ray.RayExecutor`): every one runs the
same pure `stages.extract_batch` on the same batches, so both engines commit identical parts and a
killed run resumes from its committed parts whichever engine wrote them.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from trustaudit.io.atomic import BackgroundWrites, atomic_path, write_parquet, write_text
from trustaudit.io.cache import ExtractCache, record_keys, source_key
from trustaudit.io.extract import ExtractResult, attach_extras
from trustaudit.io.fs import fingerprint_uri, is_uri
from trustaudit.io.meter import with_read_position
from trustaudit.io.readers import Source, special_file, walk_files
from trustaudit.io.records import ErrorRow, RecordBatch, display_text, errors_table, records_table
from trustaudit.io.rundir import RunDir
from trustaudit.io.since import PreviousRun
from trustaudit.policy import Policy
from trustaudit.progress import NullProgress, Progress, skip
from trustaudit.run.executor import Executor, Shard, shard_reader
from trustaudit.schema import ERROR_SCHEMA, LINK_SCHEMA, PAGE_SCHEMA
from trustaudit.scoring.domain import with_registered_domain


# ------------------------------------------------------------------ fingerprints
def fingerprint_input(path: str) -> dict[str, Any]:
    """Identity of one input for the manifest and for resume: sha256 of files, listing hash of folders;
    for an object-store URI (s3://, gs://) its key, size and mtime (the bytes are not read twice)."""
    if is_uri(path):
        return fingerprint_uri(path)
    p = Path(path)
    h = hashlib.sha256()
    if p.is_dir():
        n = 0
        files, unreadable = walk_files(p)
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            # surrogateescape: a file name with non-UTF-8 bytes is hashed as its bytes
            line = f"{f.relative_to(p).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n"
            h.update(line.encode("utf-8", "surrogateescape"))
            n += 1
        h.update(f"unreadable:{len(unreadable)}".encode())
        return {"path": display_text(str(p)), "kind": "folder", "files": n, "sha256": h.hexdigest()}
    what = special_file(p)
    if what is not None:  # never opened: a FIFO would block, a device never end
        return {"path": display_text(str(p)), "kind": "special", "bytes": 0, "sha256": None}
    size = 0
    try:
        with open(p, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
                size += len(chunk)
    except OSError:
        return {"path": display_text(str(p)), "kind": "missing", "bytes": 0, "sha256": None}
    return {"path": display_text(str(p)), "kind": "file", "bytes": size, "sha256": h.hexdigest()}


# ------------------------------------------------------------------ ingest (map stage)
class _SyncWrites:
    """The BackgroundWrites interface, writing at once (stages run alone, e.g. `score RUN`)."""

    write_parquet = staticmethod(write_parquet)


_SYNC = _SyncWrites()


@dataclass
class IngestStats:
    records: int = 0
    read_errors: int = 0
    batches: int = 0
    batches_skipped: int = 0
    seconds: float = 0.0
    cache_hits: int = 0
    cache_misses: int = 0
    workers_killed: int = 0
    sources: list[dict[str, Any]] = field(default_factory=list)


def _part_base(run: RunDir, source_idx: int, batch_idx: int) -> Path:
    return run.parts / f"s{source_idx:04d}-b{batch_idx:07d}"


def _cached_base(run: RunDir, source_idx: int) -> Path:
    """A whole source restored from the cache: one part ('c' sorts after its 'b' batch parts)."""
    return run.parts / f"s{source_idx:04d}-cached"


def _commit_part(
    base: Path, result: ExtractResult, read_errors: list[ErrorRow], n_records: int
) -> None:
    """Write one batch's three tables, then its marker: the marker is the commit point.

    Registered domains are added here (once per distinct host of the batch) so that parts, and the
    cache bundles made of them, carry them: a re-run does not call tldextract again.
    """
    pages = with_registered_domain(pl.from_arrow(result.pages))  # type: ignore[arg-type]
    links = with_registered_domain(pl.from_arrow(result.links))  # type: ignore[arg-type]
    write_parquet(base.with_suffix(".pages.parquet"), pages)
    write_parquet(base.with_suffix(".links.parquet"), links)
    write_parquet(base.with_suffix(".errors.parquet"), errors_table(read_errors + result.errors))
    write_text(base.with_suffix(".done"), f"{n_records} {len(read_errors)}\n")


@dataclass
class _Planned:
    """A batch on its way through the pool, with what the cache already answered."""

    base: Path
    batch: Any
    keys: list[str | None]
    hits: dict[int, tuple[pa.Table, pa.Table]]
    miss_idx: list[int]


def _plan(base: Path, batch: Any, cache: ExtractCache | None, policy: Policy) -> _Planned:
    n = batch.records.num_rows
    if cache is None or n == 0:
        return _Planned(base, batch, [None] * n, {}, list(range(n)))
    keys = record_keys(batch.records, policy)
    hits = cache.get_many(keys)
    return _Planned(base, batch, keys, hits, [i for i in range(n) if i not in hits])


def _combine(
    plan: _Planned, miss: ExtractResult | None, cache: ExtractCache | None
) -> ExtractResult:
    """Cached pages (with this record's identity patched in) + freshly extracted ones, in input order."""
    if not plan.hits:
        result = (
            miss
            if miss is not None
            else ExtractResult(PAGE_SCHEMA.empty_table(), LINK_SCHEMA.empty_table())
        )
        if cache is not None and miss is not None:
            _store(plan, miss, cache)
        return result
    records = plan.batch.records
    rows = records.select(["source", "offset", "fetched_at", "status", "content_type"]).to_pylist()
    page_parts: list[pa.Table] = []
    link_parts: list[pa.Table] = []
    order: list[int] = []
    for idx, (page, links) in sorted(plan.hits.items()):
        rec = rows[idx]
        for name in ("source", "offset", "fetched_at", "status", "content_type"):
            col = page.schema.get_field_index(name)
            page = page.set_column(
                col, name, pa.array([rec[name]], type=PAGE_SCHEMA.field(name).type)
            )
        key = f"{rec['source']}#{rec['offset']}"
        links = links.set_column(
            links.schema.get_field_index("_record"),
            "_record",
            pa.array([key] * links.num_rows, pa.string()),
        )
        page_parts.append(page)
        link_parts.append(links)
        order.append(idx)
    hit_pages = attach_extras(pa.concat_tables(page_parts), records, order)
    errors: list[ErrorRow] = []
    kept = list(order)
    if miss is not None:
        if cache is not None:
            _store(plan, miss, cache)
        kept += [plan.miss_idx[i] for i in miss.kept]
        hit_pages = pa.concat_tables([hit_pages, miss.pages], promote_options="permissive")
        link_parts.append(miss.links)
        errors = miss.errors
    perm = sorted(range(len(kept)), key=lambda i: kept[i])
    pages = hit_pages.take(pa.array(perm, type=pa.int64()))
    return ExtractResult(pages, pa.concat_tables(link_parts), errors, [kept[i] for i in perm])


def _store(plan: _Planned, miss: ExtractResult, cache: ExtractCache) -> None:
    if not miss.kept:
        return
    import pyarrow.compute as pc

    entries = []
    for row, sub_idx in enumerate(miss.kept):
        key = plan.keys[plan.miss_idx[sub_idx]]
        if key is None:
            continue
        page = miss.pages.slice(row, 1)
        rec_key = f"{page.column('source')[0].as_py()}#{page.column('offset')[0].as_py()}"
        own = miss.links.filter(pc.equal(miss.links.column("_record"), rec_key))
        entries.append((key, page, own))
    cache.put_many(entries)


def record_bytes(records: pa.Table) -> list[int]:
    """Bytes of each record's body and given text: what extracting it will hold in memory."""
    import pyarrow.compute as pc

    sizes = [0] * records.num_rows
    for name in ("body", "given_text"):
        if name in records.column_names:
            col = pc.fill_null(pc.binary_length(records.column(name)), 0).to_pylist()
            sizes = [a + b for a, b in zip(sizes, col, strict=True)]
    return sizes


def split_by_bytes(batch: RecordBatch, max_bytes: int) -> Iterator[RecordBatch]:
    """Cut one reader batch into consecutive batches of at most `max_bytes` of record bodies (a
    record larger than that is a batch of its own); the reader's error rows go with the first.

    Why: readers cut batches by record count, so 64 records of 45 MB each went to one worker
    (and through the driver) together. The cut is deterministic, so part names, and resume, hold.
    """
    records = batch.records
    sizes = record_bytes(records)
    if sum(sizes) <= max_bytes:
        yield batch
        return

    def rows(lo: int, hi: int) -> pa.Table:
        # a copy, not a slice: a pickled slice (to a worker) carries the whole batch's buffers
        return records.take(pa.array(range(lo, hi), type=pa.int64()))

    start, held = 0, 0
    errors = batch.errors
    for i, size in enumerate(sizes):
        if i > start and held + size > max_bytes:
            yield RecordBatch(rows(start, i), errors)
            start, held, errors = i, 0, []
        held += size
    yield RecordBatch(rows(start, len(sizes)), errors)


def _guarded_batches(src: Source, batch_size: int) -> Iterator[RecordBatch]:
    """src.batches(), where an exception from the reader ends this source with one error row.

    Why: a reader bug or an input no reader foresaw (ArrowTypeError, RecursionError…) must cost one
    source, not the run; the exception class is in the message so the row can be traced.
    """
    it = iter(src.batches(batch_size))
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except Exception as exc:
            msg = display_text(f"{type(exc).__name__}: {exc}")[:300]
            row = ErrorRow(src.name, None, None, "read", "SOURCE_FAILED", f"reading stopped: {msg}")
            yield RecordBatch(records_table([]), [row])
            return
        yield batch


def source_batches(src: Source, policy: Policy) -> Iterator[RecordBatch]:
    """The batches of one source as ingest cuts them (part `sNNNN-bNNNNNNN` is the Nth): the one
    definition for the driver's loop and for an engine that reads on its workers (`run/ray.py`),
    so part names, and resume, are the same whoever reads. Reader batches are cut by count, then by
    bytes (`split_by_bytes`), so a few huge records never travel together."""
    read = _guarded_batches(src, policy.extract.batch_size)
    return (b for rb in read for b in split_by_bytes(rb, policy.inputs.batch_max_bytes))


def ingest(
    sources: list[Source],
    run: RunDir,
    policy: Policy,
    *,
    workers: int = 1,
    progress: Progress | None = None,
    cache: ExtractCache | None = None,
    known_digests: dict[str, str] | None = None,
    since: PreviousRun | None = None,
    executor: Executor | None = None,
) -> IngestStats:
    """Map stage: read every source in batches, extract them with `executor` (default: the local
    one with `workers` processes), commit one part per batch.

    Committed parts (those with a `.done` marker) are skipped, so a re-run resumes; with a cache,
    records whose content was extracted before (any earlier run) are not extracted again.
    """
    progress = with_read_position(progress or NullProgress(), sources)  # bytes: WARC, .jsonl.gz
    stats = IngestStats()
    t0 = time.perf_counter()
    run.parts.mkdir(parents=True, exist_ok=True)
    progress.start("extract")

    def finish(plan: _Planned, miss: ExtractResult | None) -> None:
        result = _combine(plan, miss, cache)
        _commit_part(plan.base, result, plan.batch.errors, plan.batch.records.num_rows)
        stats.batches += 1
        progress.advance(
            "extract",
            plan.batch.records.num_rows + len(plan.batch.errors),
            errors=len(result.errors) + len(plan.batch.errors),
        )

    to_bundle: list[tuple[int, str, int, int]] = []  # (source, key, records, read errors)

    def restored(si: int, src: Source) -> bool:
        """A source whose output is already in the run, the cache or the --since run is not read."""
        marker = _cached_base(run, si).with_suffix(".done")
        key = source_key(src, policy, known_digests)
        stats.sources.append({"index": si, "name": src.name, "key": key})
        if marker.exists():
            n_rec, n_err = (int(x) for x in marker.read_text().split())
            stats.batches_skipped += 1
        else:
            if key is None:
                return False
            # half done before: finish it batch by batch (never twice), then keep it whole
            started = any(run.parts.glob(f"s{si:04d}-b*.done"))
            got = None
            if not started and cache is not None:
                got = cache.restore_source(key, _cached_base(run, si))
            if got is None and not started and since is not None:
                got = since.restore(key, _cached_base(run, si))
            if got is None:
                if cache is not None:
                    to_bundle.append((si, key, 0, 0))
                return False
            n_rec, n_err = got
            write_text(marker, f"{n_rec} {n_err}\n")
            stats.batches += 1
        stats.records += n_rec
        stats.read_errors += n_err
        skip(progress, "extract", n_rec + n_err, source=si)
        return True

    def planned() -> Iterator[_Planned]:
        for si, src in enumerate(sources):
            if restored(si, src):
                continue
            for bi, batch in enumerate(source_batches(src, policy)):
                base = _part_base(run, si, bi)
                stats.records += batch.records.num_rows
                stats.read_errors += len(batch.errors)
                if to_bundle and to_bundle[-1][0] == si:
                    _, key, n_rec, n_err = to_bundle[-1]
                    to_bundle[-1] = (
                        si,
                        key,
                        n_rec + batch.records.num_rows,
                        n_err + len(batch.errors),
                    )
                if base.with_suffix(".done").exists():
                    stats.batches_skipped += 1
                    skip(progress, "extract", batch.records.num_rows + len(batch.errors))
                    continue
                yield _plan(base, batch, cache, policy)

    def todo(plan: _Planned) -> pa.Table | None:
        if not plan.miss_idx:
            return None
        if len(plan.miss_idx) == plan.batch.records.num_rows:
            return plan.batch.records
        return plan.batch.records.take(pa.array(plan.miss_idx, type=pa.int64()))

    if executor is None:
        from trustaudit.run.local import LocalExecutor

        executor = LocalExecutor(workers)

    def tasks() -> Iterator[tuple[_Planned, pa.Table]]:
        for plan in planned():
            sub = todo(plan)
            if sub is None:  # every record answered by the cache
                finish(plan, None)
                continue
            yield plan, sub

    reader = shard_reader(executor, sources, policy) if cache is None else None
    if reader is not None:  # the engine's workers read the sources too (docs/engines.md)
        done = {m.stem for m in run.parts.glob("s*-b*.done")}
        shards = [
            Shard(si, src, frozenset(_batch_indexes(done, si)))
            for si, src in enumerate(sources)
            if not restored(si, src)
        ]
        for part in reader(shards):
            n_read = part.records + len(part.read_errors)
            stats.records += part.records
            stats.read_errors += len(part.read_errors)
            if part.result is None:
                stats.batches_skipped += 1
                skip(progress, "extract", n_read)
                continue
            base = _part_base(run, part.shard, part.batch)
            _commit_part(base, part.result, part.read_errors, part.records)
            stats.batches += 1
            n_err = len(part.result.errors) + len(part.read_errors)
            progress.advance("extract", n_read, errors=n_err)
    else:
        for plan, result in executor.run(tasks(), policy):
            finish(plan, result)
    stats.workers_killed = executor.killed
    if cache is not None:
        for si, key, n_rec, n_err in to_bundle:
            bases = [m.with_suffix("") for m in sorted(run.parts.glob(f"s{si:04d}-b*.done"))]
            cache.store_source(key, bases, n_rec, n_err)
    stats.seconds = time.perf_counter() - t0
    if cache is not None:
        stats.cache_hits, stats.cache_misses = cache.hits, cache.misses
    progress.done("extract")
    return stats


def _batch_indexes(done: set[str], source_idx: int) -> Iterator[int]:
    """Batch indexes of `source_idx` among committed part names (`sNNNN-bNNNNNNN`)."""
    prefix = f"s{source_idx:04d}-b"
    return (int(name[len(prefix) :]) for name in done if name.startswith(prefix))


@dataclass
class Merged:
    """What the merge wrote, and the tables themselves for a caller that wants them in memory."""

    counts: dict[str, int]
    pages: pl.DataFrame
    links: pl.DataFrame


# rows per Parquet row group of the merged tables: a reader of one batch of pages (the signal
# stage, `run.pages.ParquetPages`) decodes about that much, never the whole table
PAGE_ROW_GROUP = 256
LINK_ROW_GROUP = 65_536


def merge_parts(run: RunDir) -> dict[str, int]:
    """Concatenate committed parts into pages/links/errors; duplicate URLs keep the first record."""
    return merge_to_disk(run)


def merge_tables(
    run: RunDir, *, defer_links: bool = False, background: BackgroundWrites | None = None
) -> Merged:
    """merge_parts, keeping the tables (read back: the merge itself streams, `merge_to_disk`).
    `defer_links` and `background` are accepted for older callers; the links are written."""
    del defer_links, background
    counts = merge_to_disk(run)
    return Merged(
        counts, pl.read_parquet(run.pages, glob=False), pl.read_parquet(run.links, glob=False)
    )


def _part_files(bases: list[Path], kind: str) -> list[Path]:
    """The parts' `kind` files that have columns (an empty part may be a schema-less file)."""
    import pyarrow.parquet as pq

    files = [b.with_suffix(f".{kind}.parquet") for b in bases]
    return [f for f in files if len(pq.read_schema(f).names)]


def _scan_parts(files: list[Path]) -> pl.LazyFrame:
    return pl.concat([pl.scan_parquet(f, glob=False) for f in files], how="diagonal_relaxed")


def merge_to_disk(run: RunDir, *, links_to: Path | None = None) -> dict[str, int]:
    """Concatenate committed parts into pages/links/errors Parquet files, streaming: duplicate
    URLs keep the first record (their links go too, each becomes a DUPLICATE_URL error row).

    Why streaming: holding the merged pages and links was the driver's peak (+485 MB at 7,970
    pages, issue 16). Only the keys (doc_id, source, offset, url, host) are read whole; the pages
    and links go part by part from the parts to the merged files through Polars' streaming sink,
    in row groups of `PAGE_ROW_GROUP` pages and `LINK_ROW_GROUP` links, so the signal stage can
    read them a batch at a time. `links_to` writes the links elsewhere (the signal stage rewrites
    them into links.parquet with affiliate flags), and links.parquet is removed meanwhile.
    """
    markers = sorted(run.parts.glob("*.done"))
    bases = [m.with_suffix("") for m in markers]
    page_files = _part_files(bases, "pages")
    link_files = _part_files(bases, "links")
    error_files = _part_files(bases, "errors")
    keys = ["doc_id", "source", "offset", "url", "host", "registered_domain"]
    if page_files:
        pages = _scan_parts(page_files).with_row_index("_row")
    else:
        empty = pl.from_arrow(PAGE_SCHEMA.empty_table())
        assert isinstance(empty, pl.DataFrame)
        pages = empty.lazy().with_row_index("_row")
    have = pages.collect_schema().names()
    ids = pages.select([k for k in ["_row", *keys] if k in have]).collect()
    first = ids.select(pl.col("_row").first().over("doc_id").alias("_first"))["_first"]
    dups = ids.filter(ids["_row"] != first)
    errors = (
        pl.concat([pl.read_parquet(f, glob=False) for f in error_files], how="diagonal_relaxed")
        if error_files
        else pl.from_arrow(ERROR_SCHEMA.empty_table())
    )
    assert isinstance(errors, pl.DataFrame)
    if dups.height:
        firsts = ids.select("doc_id", "source", "offset").unique("doc_id", keep="first")
        dup_errors = (
            dups.select("doc_id", "source", "offset", "url")
            .join(firsts.rename({"source": "first_source", "offset": "first_offset"}), on="doc_id")
            .select(
                "source",
                "offset",
                "url",
                stage=pl.lit("dedupe"),
                code=pl.lit("DUPLICATE_URL"),
                message=pl.concat_str(
                    [
                        pl.lit("same URL as the record at "),
                        pl.col("first_source"),
                        pl.lit("#"),
                        pl.col("first_offset").cast(pl.String),
                    ]
                ),
            )
        )
        errors = pl.concat([errors, dup_errors], how="diagonal_relaxed")
        pages = pages.filter(~pl.col("_row").is_in(dups["_row"].implode()))
    fill = _registered_domains(ids)
    pages = _with_domains(pages.drop("_row"), fill)
    run.pages.unlink(missing_ok=True)  # never a stale copy while the new one is written
    with atomic_path(run.pages) as tmp:
        pages.sink_parquet(tmp, compression="zstd", row_group_size=PAGE_ROW_GROUP)
    if link_files:
        links = _scan_parts(link_files)
    else:
        links = pl.from_arrow(LINK_SCHEMA.empty_table()).lazy()  # type: ignore[union-attr]
    if dups.height:
        dup_keys = dups.select(
            _record=pl.concat_str([pl.col("source"), pl.lit("#"), pl.col("offset").cast(pl.String)])
        )
        links = links.join(dup_keys.lazy(), on="_record", how="anti", maintain_order="left")
    link_fill = None
    if _missing_domains(links):
        link_fill = _registered_domains(links.select("host").unique().collect(), force=True)
    links = _with_domains(links.drop("_record"), link_fill)
    out = links_to or run.links
    if links_to is not None:
        run.links.unlink(missing_ok=True)
    with atomic_path(out) as tmp:
        links.sink_parquet(tmp, compression="zstd", row_group_size=LINK_ROW_GROUP)
    n_links = pl.scan_parquet(out, glob=False).select(pl.len()).collect().item()
    write_parquet(run.errors, errors)
    return {
        "pages": ids.height - dups.height,
        "links": n_links,
        "errors": errors.height,
        "duplicates": dups.height,
    }


def _registered_domains(ids: pl.DataFrame, *, force: bool = False) -> pl.DataFrame | None:
    """host -> registered_domain for every host, or None where the parts carry them already
    (parts from older runs may not: `with_registered_domain` fills those in, as before)."""
    if (
        not force
        and "registered_domain" in ids.columns
        and ids.select(
            (pl.col("registered_domain").is_null() & pl.col("host").is_not_null()).any()
        ).item()
        is not True
    ):
        return None
    hosts = ids.select(pl.col("host").cast(pl.String)).unique()
    return with_registered_domain(hosts).select("host", "registered_domain")


def _missing_domains(frame: pl.LazyFrame) -> bool:
    """Whether some row has a host but no registered domain (computed streaming)."""
    if "registered_domain" not in frame.collect_schema().names():
        return True
    gap = pl.col("registered_domain").is_null() & pl.col("host").is_not_null()
    return frame.select(gap.any()).collect().item() is True


def _with_domains(frame: pl.LazyFrame, fill: pl.DataFrame | None) -> pl.LazyFrame:
    """`frame` with registered_domain from `fill` (host -> domain), as with_registered_domain."""
    if fill is None:
        return frame
    if "registered_domain" in frame.collect_schema().names():
        frame = frame.drop("registered_domain")
    return frame.join(fill.lazy(), on="host", how="left", maintain_order="left")
