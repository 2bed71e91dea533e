"""Extraction cache for incremental runs (`audit --cache DIR`), at two grains.

- Per source: an input file (WARC, JSONL, Parquet) or folder of HTML whose bytes, path and
  extraction policy are unchanged is not even read: its committed parts (pages, links, errors) are
  kept under `DIR/sources/<key>/` and copied into the new run. This is the nightly common case
  (yesterday's shards did not change), and it costs one hash of the file.
- Per page: a record whose raw bytes, URL and extraction policy are unchanged is not extracted
  again: its page row and links come back from a SQLite file keyed by a hash of those inputs.
  SQLite because nightly runs hold millions of keys, need one writer and many point look-ups, and it
  ships with Python. Values are Arrow IPC bytes (no pickle: a cache on disk must not be able to run
  code).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from trustaudit import __version__
from trustaudit.io.atomic import write_parquet, write_text
from trustaudit.io.extract import LINK_SCHEMA, PAGE_SCHEMA
from trustaudit.io.readers import FolderSource, JsonlSource, ParquetSource, WarcSource
from trustaudit.policy import Policy

PART_KINDS = ("pages", "links", "errors")
_BUNDLE_PART = "part"  # a bundle holds one part: part.pages.parquet, part.links.parquet, …


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(
        sink, table.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")
    ) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def _table(blob: bytes) -> pa.Table:
    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all()


# The modules whose output the cache keeps: any change to them (a new column, a better scanner)
# invalidates cached extractions even when the version number did not move.
_EXTRACTION_CODE = ("io/extract.py", "io/decode.py", "io/readers.py", "io/records.py", "injection")


def policy_key(policy: Policy) -> str:
    """What invalidates cached extractions: the extraction code and the extraction/injection settings."""
    return hashlib.sha256(
        repr(
            (
                __version__,
                code_digest(_EXTRACTION_CODE),
                policy.extract,
                policy.injection,
                policy.inputs,
            )
        ).encode()
    ).hexdigest()[:16]


@functools.lru_cache(maxsize=8)
def code_digest(parts: tuple[str, ...] = ("",)) -> str:
    """sha256 of the package's source and data files under `parts` (paths relative to the package)."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for part in parts:
        base = root / part
        files = [base] if base.is_file() else sorted(base.rglob("*"))
        for f in files:
            if f.is_file() and f.suffix in (".py", ".json", ".txt", ".csv"):
                h.update(f.relative_to(root).as_posix().encode() + b"\0")
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


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

    # ------------------------------------------------------------ per source
    def _bundle(self, key: str) -> Path:
        return self.folder / "sources" / key

    def restore_source(self, key: str, base: Path) -> tuple[int, int] | None:
        """Copy a cached source's parts to `base.*.parquet`; (records, read errors) or None on a miss.

        The caller writes the `.done` marker: like any part, a restored one counts once committed.
        """
        folder = self._bundle(key)
        try:
            meta = json.loads((folder / "meta.json").read_text())
            counts = int(meta["records"]), int(meta["read_errors"]), int(meta["pages"])
            for kind in PART_KINDS:
                src = folder / f"{_BUNDLE_PART}.{kind}.parquet"
                dst = base.with_suffix(f".{kind}.parquet")
                tmp = dst.with_name(f".tmp-{dst.name}.{uuid.uuid4().hex[:8]}")
                shutil.copyfile(src, tmp)
                os.replace(tmp, dst)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            # damaged: the source is read again (never an error) and the bundle rebuilt
            shutil.rmtree(folder, ignore_errors=True)
            return None
        self.hits += counts[2]
        return counts[0], counts[1]

    def store_source(self, key: str, bases: Sequence[Path], records: int, read_errors: int) -> None:
        """Keep a fully ingested source's parts as one bundle (published by one atomic rename)."""
        folder = self._bundle(key)
        if folder.exists() or not bases:
            return
        tmp = folder.with_name(f".tmp-{key}-{uuid.uuid4().hex[:8]}")
        try:
            pages = concat_parts(bases, tmp / _BUNDLE_PART)
            meta = {"records": records, "read_errors": read_errors, "pages": pages}
            write_text(tmp / "meta.json", json.dumps(meta))
            os.rename(tmp, folder)
        except OSError:
            pass  # another run published it first, or the disk is full: the cache is optional
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def close(self) -> None:
        self.db.close()


def source_key(source: Any, policy: Policy, known: Mapping[str, str] | None = None) -> str | None:
    """Key of a whole source's output, or None for sources that are not reused whole.

    `known` maps file paths to their sha256 when the caller hashed them already.
    """
    digest = source_digest(source, known)
    if digest is None:
        return None
    return hashlib.sha256(
        f"{type(source).__name__}\0{source.name}\0{digest}\0{policy_key(policy)}".encode(
            "utf-8", "surrogatepass"
        )
    ).hexdigest()[:32]


def concat_parts(bases: Sequence[Path], target: Path) -> int:
    """Concatenate committed parts (`base.{pages,links,errors}.parquet`) into `target.*`; pages."""
    pages = 0
    for kind in PART_KINDS:
        frames = [pl.read_parquet(b.with_suffix(f".{kind}.parquet"), glob=False) for b in bases]
        frames = [f for f in frames if f.width]
        table = pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()
        if kind == "pages":
            pages = table.height
        write_parquet(target.with_suffix(f".{kind}.parquet"), table)
    return pages


def _hash_file(h: Any, path: Path) -> None:
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)


def source_digest(source: Any, known: Mapping[str, str] | None = None) -> str | None:
    """Content digest of a source's inputs (what its records depend on), None when not cacheable.

    Folders hash every file's relative name, mtime (it becomes `fetched_at`) and bytes, plus the
    urls.csv sidecar; files hash their bytes. Unreadable inputs and crawls are not cached whole.
    """
    h = hashlib.sha256()  # ≈1 GB/s with the CPU's SHA extensions (blake2b ≈0.4 here)
    try:
        if isinstance(source, FolderSource):
            for f in source.files:
                st = f.stat()
                name = f"{f.relative_to(source.base).as_posix()}\0{st.st_mtime_ns}\0"
                h.update(name.encode("utf-8", "surrogateescape"))
                _hash_file(h, f)
            sidecar = source.base / "urls.csv"
            if sidecar.is_file():
                h.update(b"\0urls.csv\0")
                _hash_file(h, sidecar)
            if source.url_map:  # --url-map decides the pages' URLs as the sidecar does
                mapped = repr(sorted(source.url_map.items()))
                h.update(b"\0url-map\0" + mapped.encode("utf-8", "surrogatepass"))
        elif isinstance(source, WarcSource | JsonlSource | ParquetSource):
            done = (known or {}).get(str(source.path))
            if done is not None:
                return done
            _hash_file(h, source.path)
        else:
            return None
    except OSError:
        return None
    return h.hexdigest()
