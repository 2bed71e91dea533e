"""Atomic file writes: temp file in the same folder, fsync, os.replace.

A reader never sees a half-written file; a killed writer leaves only a `.tmp-*` file that the next
run ignores and overwrites.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to `path`; on success fsync it and rename it into place."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".tmp-{target.name}.", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)  # mkstemp makes 0600; outputs are ordinary files
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, target)
        _fsync_dir(target.parent)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


@contextlib.contextmanager
def atomic_open(
    path: str | Path, mode: str = "w", encoding: str | None = "utf-8"
) -> Iterator[IO[Any]]:
    """Open a temp file for writing that replaces `path` only when the block succeeds."""
    with atomic_path(path) as tmp:
        enc = None if "b" in mode else encoding
        with open(tmp, mode, encoding=enc) as fh:
            yield fh


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_text(path: str | Path, text: str) -> None:
    with atomic_open(path) as fh:
        fh.write(text)


def finite(obj: Any) -> Any:
    """`obj` with every NaN/±inf float replaced by None: JSON has no NaN, and a file CI parses with
    a strict reader (jq, JavaScript, Go) must stay valid whatever a tampered table held."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj


# Characters a terminal may act on that json.dumps(ensure_ascii=False) leaves raw: DEL, C1 controls
# (U+009B is CSI), line/paragraph separators and bidi overrides. They only occur inside strings, so
# writing them as \uXXXX keeps the same JSON value and makes `--json` on a terminal inert.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(obj: Any, *, indent: int | None = 2) -> str:
    """Strict JSON (non-finite numbers become null) for files and `--json` output alike."""
    text = json.dumps(finite(obj), indent=indent, ensure_ascii=False, default=str, allow_nan=False)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_json(path: str | Path, obj: Any) -> None:
    with atomic_open(path) as fh:
        fh.write(json_text(obj))
        fh.write("\n")


def write_parquet(path: str | Path, data: pl.DataFrame | pa.Table) -> None:
    """Write a DataFrame/Table as Parquet (zstd) atomically.

    DataFrames go through Polars' writer: on the run's big tables (page text, links) it is ≈1.7x
    faster than pyarrow's and its files are about half the size.
    """
    with atomic_path(path) as tmp:
        if isinstance(data, pl.DataFrame):
            data.write_parquet(tmp, compression="zstd")
        else:
            pq.write_table(data, tmp, compression="zstd")


def write_csv(path: str | Path, df: pl.DataFrame) -> None:
    with atomic_path(path) as tmp:
        df.write_csv(tmp)


class BackgroundWrites:
    """Parquet writes on one background thread, so a big table is written while the next stage
    computes (Polars releases the GIL while it encodes). `wait()` (or leaving the `with` block)
    blocks until every write is on disk and re-raises the first failure."""

    def __init__(self) -> None:
        import concurrent.futures as cf

        self._pool = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="trustaudit-write")
        self._pending: list[Any] = []

    def write_parquet(self, path: str | Path, data: pl.DataFrame | pa.Table) -> None:
        self._pending.append(self._pool.submit(write_parquet, path, data))

    def wait(self) -> None:
        pending, self._pending = self._pending, []
        for fut in pending:
            fut.result()

    def __enter__(self) -> BackgroundWrites:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.wait()
        finally:
            self._pool.shutdown(wait=True)
