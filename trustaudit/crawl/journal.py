"""Resumable crawl state: committed part files plus an append-only journal of commits.

Why two steps per commit: the part file is written to a temp name and renamed (atomic), *then* one
fsynced journal line names it. The journal is the only truth on resume, so `kill -9` at any moment
leaves either a committed part (journal line present) or an orphan that the next run deletes and
whose URLs it fetches again. A torn last journal line (killed mid-write) is cut off on open.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trustaudit.io.atomic import write_parquet

__all__ = ["CRAWL_SCHEMA", "CrawlJournal", "JournalState"]

# One row per input URL line: either a page (body set) or an error (error_code set).
CRAWL_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string()),
        pa.field("offset", pa.int64()),
        pa.field("url", pa.string()),
        pa.field("final_url", pa.string()),
        pa.field("fetched_at", pa.timestamp("us", tz="UTC")),
        pa.field("status", pa.int32()),
        pa.field("content_type", pa.string()),
        pa.field("body", pa.binary()),
        pa.field("charset", pa.string()),
        pa.field("charset_source", pa.string()),
        pa.field("error_stage", pa.string()),
        pa.field("error_code", pa.string()),
        pa.field("error_message", pa.string()),
        pa.field("attempts", pa.int32()),
        pa.field("redirects", pa.int32()),
        pa.field("elapsed_ms", pa.int32()),
    ]
)
JOURNAL = "journal.jsonl"
PARTS = "parts"


@dataclass
class JournalState:
    """What the journal says is committed."""

    done: dict[tuple[str, int], str] = field(default_factory=dict)  # (source, offset) -> url
    parts: list[str] = field(default_factory=list)
    next_part: int = 0
    warc_bytes: int | None = None
    hits: dict[str, int] = field(default_factory=dict)


class CrawlJournal:
    """Owns `RUN/crawl/`: `parts/part-NNNNNN.parquet` and `journal.jsonl`. One writer at a time."""

    def __init__(self, crawl_dir: Path) -> None:
        self.dir = Path(crawl_dir)
        self.parts_dir = self.dir / PARTS
        self.path = self.dir / JOURNAL
        self.state = JournalState()

    def open(self, *, fresh: bool = False) -> JournalState:
        """Load committed state (or wipe it when `fresh`); delete orphan parts."""
        if fresh and self.dir.exists():
            for child in (self.parts_dir, self.path):
                if child.is_dir():
                    shutil.rmtree(child)
                elif child.exists():
                    child.unlink()
        self.parts_dir.mkdir(parents=True, exist_ok=True)
        self.state = JournalState()
        if self.path.exists():
            self._repair_tail()
            with open(self.path, encoding="utf-8") as fh:
                for line in fh:
                    try:
                        entry = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    self._apply(entry)
        committed = set(self.state.parts)
        for p in self.parts_dir.iterdir():
            if p.name not in committed:
                p.unlink()  # orphan of a killed run (or a temp file): its URLs are refetched
        return self.state

    def _repair_tail(self) -> None:
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            with open(self.path, "r+b") as fh:
                fh.truncate(cut)
                fh.flush()
                os.fsync(fh.fileno())

    def _apply(self, entry: dict[str, Any]) -> None:
        name = entry.get("part")
        if not name or not (self.parts_dir / name).exists():
            return
        self.state.parts.append(name)
        for src, off, url in entry.get("keys", []):
            self.state.done[(src, int(off))] = url
        self.state.next_part = max(self.state.next_part, int(entry.get("index", 0)) + 1)
        if entry.get("warc_bytes") is not None:
            self.state.warc_bytes = int(entry["warc_bytes"])

    def commit(self, rows: Sequence[dict[str, Any]], *, warc_bytes: int | None = None) -> str:
        """Write `rows` as the next part, then journal it; returns the part name."""
        index = self.state.next_part
        name = f"part-{index:06d}.parquet"
        table = pa.Table.from_pylist(list(rows), schema=CRAWL_SCHEMA)
        write_parquet(self.parts_dir / name, table)
        entry = {
            "index": index,
            "part": name,
            "rows": len(rows),
            "keys": [[r["source"], r["offset"], r["url"]] for r in rows],
            "warc_bytes": warc_bytes,
        }
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        self._apply(entry)
        return name

    def part_paths(self) -> list[Path]:
        return [self.parts_dir / n for n in self.state.parts]


def read_committed(crawl_dir: Path) -> Iterator[pa.Table]:
    """Committed part tables in commit order (read-only: no repair, no orphan deletion)."""
    path = Path(crawl_dir) / JOURNAL
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            part = Path(crawl_dir) / PARTS / str(entry.get("part", ""))
            if entry.get("part") and part.exists():
                yield pq.read_table(part, schema=CRAWL_SCHEMA)
