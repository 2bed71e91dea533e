"""Extraction cache for incremental runs (`audit --cache DIR`).

A page whose raw bytes, URL and extraction policy are unchanged is not extracted again: its page row
and links come back from a SQLite file keyed by a hash of those inputs. SQLite because nightly runs
hold millions of keys, need one writer and many point look-ups, and it ships with Python. Values are
Arrow IPC bytes (no pickle: a cache on disk must not be able to run code).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa

from trustaudit import __version__
from trustaudit.io.extract import LINK_SCHEMA, PAGE_SCHEMA
from trustaudit.policy import Policy


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(
        sink, table.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")
    ) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def _table(blob: bytes) -> pa.Table:
    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all()


def policy_key(policy: Policy) -> str:
    """What invalidates cached extractions: the code version and the extraction/injection settings."""
    return hashlib.sha256(
        repr((__version__, policy.extract, policy.injection)).encode()
    ).hexdigest()[:16]


def record_keys(records: pa.Table, policy: Policy) -> list[str | None]:
    """One key per record (None when the record has no content to key on)."""
    pk = policy_key(policy)
    bodies = records.column("body").to_pylist()
    texts = records.column("given_text").to_pylist()
    urls = records.column("url").to_pylist()
    origins = (
        records.column("url_origin").to_pylist()
        if "url_origin" in records.column_names
        else [None] * len(urls)
    )
    keys: list[str | None] = []
    for body, text, url, origin in zip(bodies, texts, urls, origins, strict=True):
        content = (
            body if body is not None else (text.encode("utf-8", "surrogatepass") if text else None)
        )
        if not content:
            keys.append(None)
            continue
        h = hashlib.sha256(content)
        h.update(f"\0{url or ''}\0{origin or ''}\0{pk}".encode("utf-8", "surrogatepass"))
        keys.append(h.hexdigest())
    return keys


class ExtractCache:
    """Page rows and links by record key; safe to share across runs (one writer at a time)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.folder / "extract.sqlite", timeout=60, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS pages (key TEXT PRIMARY KEY, page BLOB, links BLOB)"
        )
        self.hits = 0
        self.misses = 0

    def get_many(self, keys: Sequence[str | None]) -> dict[int, tuple[pa.Table, pa.Table]]:
        """Index in `keys` -> (one-row page table, its links) for every key found."""
        wanted = {k: i for i, k in enumerate(keys) if k}
        found: dict[int, tuple[pa.Table, pa.Table]] = {}
        items = list(wanted)
        for start in range(0, len(items), 500):
            chunk = items[start : start + 500]
            q = f"SELECT key, page, links FROM pages WHERE key IN ({','.join('?' * len(chunk))})"
            for key, page, links in self.db.execute(q, chunk):
                try:
                    found[wanted[key]] = (_table(page), _table(links))
                except (pa.ArrowInvalid, OSError):  # a damaged entry is a miss, never an error
                    continue
        self.hits += len(found)
        self.misses += len(wanted) - len(found)
        return found

    def put_many(self, entries: Iterable[tuple[str, pa.Table, pa.Table]]) -> None:
        rows = [
            (
                key,
                _ipc(page.select(PAGE_SCHEMA.names).cast(PAGE_SCHEMA)),
                _ipc(links.select(LINK_SCHEMA.names).cast(LINK_SCHEMA)),
            )
            for key, page, links in entries
        ]
        if rows:
            self.db.execute("BEGIN")
            try:
                self.db.executemany("INSERT OR REPLACE INTO pages VALUES (?, ?, ?)", rows)
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()
