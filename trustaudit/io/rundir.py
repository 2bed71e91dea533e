"""The run directory: paths, manifest (the commit point resume reads), lock, and readers.

Layout (DESIGN §2): manifest.json, pages.parquet, links.parquet, errors.parquet, signals.parquet,
domains.parquet, scores.parquet, reports/, and parts/ (committed map-stage batches while ingesting).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import polars as pl

from trustaudit.errors import RunDirError
from trustaudit.io.atomic import write_json

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class RunDir:
    """Every path of a run, in one place."""

    root: Path

    @classmethod
    def at(cls, path: str | Path) -> RunDir:
        return cls(Path(path))

    manifest = property(lambda self: self.root / "manifest.json")
    pages = property(lambda self: self.root / "pages.parquet")
    links = property(lambda self: self.root / "links.parquet")
    errors = property(lambda self: self.root / "errors.parquet")
    signals = property(lambda self: self.root / "signals.parquet")
    domains = property(lambda self: self.root / "domains.parquet")
    scores = property(lambda self: self.root / "scores.parquet")
    reports = property(lambda self: self.root / "reports")
    parts = property(lambda self: self.root / "parts")
    lock_file = property(lambda self: self.root / ".lock")

    def report(self, name: str) -> Path:
        return self.reports / name

    def read_manifest(self) -> dict[str, Any]:
        try:
            return json.loads(self.manifest.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RunDirError(
                f"{self.manifest} is corrupt: {exc}", hint="re-run with --fresh"
            ) from None

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json(self.manifest, manifest)

    def require(self, *names: str) -> None:
        """Fail with a one-line hint when a run lacks the files a command needs."""
        if not self.root.is_dir():
            raise RunDirError(
                f"run directory not found: {self.root}",
                hint="run `trustaudit audit INPUT --out RUN`",
            )
        missing = [n for n in names if not (self.root / n).exists()]
        if missing:
            raise RunDirError(
                f"{self.root} is incomplete: missing {', '.join(missing)}",
                hint="re-run `trustaudit audit` with the same --out to finish it",
            )

    def read(self, name: str, columns: list[str] | None = None) -> pl.DataFrame:
        """Read one table (`pages`, `scores`, …); accepts `<name>.parquet` or `<name>/part-*.parquet`."""
        single = self.root / f"{name}.parquet"
        if single.exists():
            return pl.read_parquet(single, columns=columns)
        folder = self.root / name
        if folder.is_dir():
            return pl.read_parquet(str(folder / "part-*.parquet"), columns=columns)
        raise RunDirError(
            f"{self.root} has no {name}.parquet", hint="re-run `trustaudit audit` to produce it"
        )

    def scan(self, name: str) -> pl.LazyFrame:
        single = self.root / f"{name}.parquet"
        if single.exists():
            return pl.scan_parquet(single)
        return pl.scan_parquet(str(self.root / name / "part-*.parquet"))

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive advisory lock: two processes never write the same run (cron overlap)."""
        self.root.mkdir(parents=True, exist_ok=True)
        fh: IO[str] = open(self.lock_file, "a+", encoding="utf-8")  # noqa: SIM115 - held for the lock's life
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            fh.close()
            raise RunDirError(
                f"{self.root} is being written by {holder}",
                hint="wait for it to finish, or use another --out",
            ) from None
        try:
            fh.seek(0)
            fh.truncate()
            fh.write(f"pid {os.getpid()}")
            fh.flush()
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            fh.close()
