"""Readers as Ray read tasks: the sources are read, then extracted, on the cluster's workers.

The driver lists the shards (one per source: a WARC, JSONL or Parquet file, a folder of pages, an
object-store key or prefix) and commits what comes back; it never holds a record. One streaming
Ray Data dataset runs the whole ingest:

    from_items(shards) -> map_batches(read_shards)    a generator: one row per record batch
                       -> map_batches(extract_read)   `extract_records` on each batch
                       -> the driver commits each row as part `sNNNN-bNNNNNNN`

A reader cuts a source into batches with `run.ingest.source_batches`, the function the driver's own
loop uses, so the part names, and a resume, are the same whoever reads. A batch a previous run
committed is read past (counted, not extracted), as the driver's loop does.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from trustaudit.io.extract import ExtractResult, extract_records
from trustaudit.io.records import ErrorRow, errors_table
from trustaudit.policy import Policy
from trustaudit.run.executor import ReadPart, Shard

# sources a worker can open from what the driver hands it (a path or an object-store URI); the
# crawl's source reads the run directory, which only the driver touches
WORKER_KINDS = frozenset({"folder", "jsonl", "warc", "parquet", "unreadable", "special"})

_SHARDS = pa.schema(
    [
        pa.field("shard", pa.int64()),
        pa.field("source", pa.binary()),  # the pickled Source
        pa.field("committed", pa.list_(pa.int64())),
    ]
)
_READ = pa.schema(
    [
        pa.field("shard", pa.int64()),
        pa.field("batch", pa.int64()),
        pa.field("records", pa.int64()),  # how many records the batch holds
        pa.field("read_errors", pa.binary()),  # the reader's error rows (errors table, IPC)
        pa.field("body", pa.binary()),  # the records (IPC); null: committed before, read past
    ]
)
_PARTS = pa.schema(
    [
        *(_READ.field(n) for n in ("shard", "batch", "records", "read_errors")),
        pa.field("pages", pa.binary()),  # null (with links, errors, kept): committed before
        pa.field("links", pa.binary()),
        pa.field("errors", pa.binary()),
        pa.field("kept", pa.list_(pa.int64())),
    ]
)


def to_ipc(table: pa.Table) -> bytes:
    """One table as an Arrow IPC stream: a part's tables travel whole inside one dataset row."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def from_ipc(blob: bytes) -> pa.Table:
    """The table `to_ipc` wrote."""
    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all()


def error_rows(blob: bytes) -> list[ErrorRow]:
    """The error rows `errors_table` packed, back as the objects the run layer commits."""
    return [ErrorRow(**r) for r in from_ipc(blob).to_pylist()]


def shard_rows(shards: Sequence[Shard]) -> pa.Table:
    """The dataset's input: one row per shard, its source pickled (the classes of
    `trustaudit.io.readers`, importable on every node that has trustaudit installed)."""
    return pa.table(
        {
            "shard": [s.index for s in shards],
            "source": [pickle.dumps(s.source) for s in shards],
            "committed": [sorted(s.committed) for s in shards],
        },
        schema=_SHARDS,
    )


def read_shards(batch: pa.Table, policy: Policy) -> Iterator[pa.Table]:
    """The read task: each shard's record batches, one row each, as the reader yields them
    (Ray streams them to the extraction tasks while the reader goes on)."""
    from trustaudit.run.ingest import source_batches  # the driver's own cut into batches

    for shard, blob, committed in zip(
        batch.column("shard").to_pylist(),
        batch.column("source").to_pylist(),
        batch.column("committed").to_pylist(),
        strict=True,
    ):
        source, done = pickle.loads(blob), set(committed)
        for index, records in enumerate(source_batches(source, policy)):
            body = None if index in done else to_ipc(records.records)
            row = {
                "shard": [shard],
                "batch": [index],
                "records": [records.records.num_rows],
                "read_errors": [to_ipc(errors_table(records.errors))],
                "body": [body],
            }
            yield pa.table(row, schema=_READ)


def extract_read(batch: pa.Table, policy: Policy) -> pa.Table:
    """The extraction task: rows of read batches -> rows of extracted parts (errors as rows of
    the errors table, never Python objects); a batch committed before passes through empty."""
    out: dict[str, list[Any]] = {name: [] for name in _PARTS.names}
    for row in batch.to_pylist():
        for name in ("shard", "batch", "records", "read_errors"):
            out[name].append(row[name])
        if row["body"] is None:
            for name in ("pages", "links", "errors", "kept"):
                out[name].append(None)
            continue
        result = extract_records(from_ipc(row["body"]), policy)
        out["pages"].append(to_ipc(result.pages))
        out["links"].append(to_ipc(result.links))
        out["errors"].append(to_ipc(errors_table(result.errors)))
        out["kept"].append(result.kept)
    return pa.table(out, schema=_PARTS)


def read_part(row: dict[str, Any]) -> ReadPart:
    """One row of `extract_read` back into what the run layer commits."""
    result = None
    if row["pages"] is not None:
        result = ExtractResult(
            from_ipc(row["pages"]),
            from_ipc(row["links"]),
            error_rows(row["errors"]),
            list(row["kept"]),
        )
    return ReadPart(
        row["shard"], row["batch"], row["records"], error_rows(row["read_errors"]), result
    )
