"""Rich progress for the pipeline's Progress protocol: one line per stage on stderr, with real counts,
and a percentage and ETA wherever the total is known: records when the inputs say how many they hold,
else bytes of the inputs read (WARC, compressed JSONL: `position`, fed by io/meter.py)."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)

# The stages after extraction work on the pages it produced: their count is known from the start.
PAGE_STAGES = ("signals", "score", "report")


_COUNT_LINES_MAX = 1 << 30  # plain JSONL up to 1 GiB is counted (a newline scan, ~1 s a GiB)


def _records_in(f: Path) -> int | None:
    """Records one input file holds when that is cheap to know: an HTML file is one, a Parquet
    file says so in its footer, a plain JSONL file is one per non-empty line (counted up to
    `_COUNT_LINES_MAX` bytes). Compressed JSONL and WARC archives: None (unknown; the bar then
    shows bytes read, see `RichProgress.position`)."""
    from trustaudit.io.readers import HTML_SUFFIXES, JSONL_SUFFIXES, PARQUET_SUFFIXES

    name = f.name.lower()
    try:
        if not f.is_file():  # FIFOs and devices are never opened here
            return None
        if name.endswith(HTML_SUFFIXES):
            return 1
        if name.endswith(PARQUET_SUFFIXES):
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(f).metadata.num_rows)
        if name.endswith(JSONL_SUFFIXES) and name.endswith((".jsonl", ".json", ".ndjson")):
            if f.stat().st_size > _COUNT_LINES_MAX:
                return None
            n = 0
            last = b"\n"
            with open(f, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 22), b""):
                    n += chunk.count(b"\n") - chunk.count(b"\n\n")
                    last = chunk[-1:]
            return n + (last != b"\n")
    except Exception:  # a damaged file is the reader's to report, as an error row
        return None
    return None


def expected_records(inputs: list[str]) -> int | None:
    """How many records the inputs hold, when the files say so without parsing them: one per HTML
    file, a Parquet file's row count, a plain JSONL file's lines. Archives, compressed JSONL and URL
    lists hold an unknown number (None: progress then shows counts and rates, no percentage)."""
    from trustaudit.io.readers import (
        HTML_SUFFIXES,
        JSONL_SUFFIXES,
        PARQUET_SUFFIXES,
        WARC_SUFFIXES,
        walk_files,
    )

    containers = WARC_SUFFIXES + JSONL_SUFFIXES + PARQUET_SUFFIXES
    total = 0
    for raw in inputs:
        p = Path(raw)
        if p.is_file():
            n = _records_in(p)
            if n is None:
                return None
            total += n
            continue
        if not p.is_dir():
            return None
        files, unreadable = walk_files(p)  # the files the readers will read, links followed
        total += len(unreadable)  # each an error row
        for f in files:
            name = f.name.lower()
            if name.endswith(containers):
                n = _records_in(f)
                if n is None:
                    return None
                total += n
            elif name.endswith(HTML_SUFFIXES):
                total += 1
    return total


class RichProgress:
    """Render stage progress on `console` (stderr); silent when `quiet`.

    `records` (see `expected_records`) gives the extract stage a total, hence a percentage and an
    ETA; `pages` gives the later stages their page count up front (`trustaudit score` knows it from
    the run), else it is taken from what the extract stage produced.
    """

    def __init__(
        self,
        console: Console,
        *,
        quiet: bool = False,
        records: int | None = None,
        pages: int | None = None,
    ) -> None:
        self.console = console
        self.enabled = not quiet
        self._bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description:<8}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[count]:>14}"),
            TextColumn("{task.fields[rate]:>8} /s"),
            TextColumn("{task.fields[errors]} errors"),
            TimeElapsedColumn(),
            TextColumn("ETA {task.fields[eta]}"),
            console=console,
            transient=False,
            disable=quiet,
        )
        self._totals = {"extract": records} if records else {}
        self._pages = pages
        self._tasks: dict[str, Any] = {}
        self._t0: dict[str, float] = {}
        self._errors: dict[str, int] = {}
        self._count: dict[str, int] = {}  # records (the bar may measure bytes instead)
        self._by_bytes: set[str] = set()
        # What a resumed run finds already done (`skip`) counts towards completion, not speed: the
        # records and bar units it added, and the time spent restoring it.
        self._skipped: dict[str, int] = {}
        self._skipped_units: dict[str, float] = {}
        self._idle: dict[str, float] = {}
        self._last: dict[str, float] = {}

    def __enter__(self) -> RichProgress:
        self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)

    def start(self, stage: str, total: int | None = None) -> None:
        self._t0[stage] = self._last[stage] = time.perf_counter()
        self._errors[stage] = 0
        self._count[stage] = 0
        self._skipped[stage] = 0
        self._skipped_units[stage] = 0.0
        self._idle[stage] = 0.0
        total = total if total is not None else self._totals.get(stage)
        count = "0 items"
        if stage in PAGE_STAGES and self._pages is not None:
            count = f"{self._pages:,} pages"  # the stage works on all of them at once
        self._tasks[stage] = self._bar.add_task(
            stage, total=total, rate="-", errors=0, count=count, eta="-:--:--"
        )

    def advance(self, stage: str, n: int = 1, *, errors: int = 0) -> None:
        self._step(stage, n, errors, skipped=False)

    def skip(self, stage: str, n: int, *, errors: int = 0) -> None:
        """Records already done (a resumed run's committed parts, a restored source): counted and
        shown as done, but kept out of the rate and the ETA, which would otherwise promise the
        speed of skipping."""
        self._step(stage, n, errors, skipped=True)

    def _step(self, stage: str, n: int, errors: int, *, skipped: bool) -> None:
        task = self._tasks.get(stage)
        if task is None:
            self.start(stage)
            task = self._tasks[stage]
        now = time.perf_counter()
        if skipped:  # the time since the last report went into restoring, not working
            self._idle[stage] += now - self._last[stage]
            self._skipped[stage] += n
        self._last[stage] = now
        self._errors[stage] += errors
        self._count[stage] += n
        done = self._count[stage]
        t = self._bar.tasks[task]
        by_bytes = stage in self._by_bytes
        if not by_bytes and t.total is not None and done > t.total:
            t.total = None  # the estimate was low: no percentage past 100 (update() cannot unset)
        if skipped and not by_bytes:
            self._skipped_units[stage] += n
        self._bar.update(
            task,
            advance=0 if by_bytes else n,
            errors=self._errors[stage],
            count=f"{done:,.0f} items",
        )
        self._speed(stage)

    def position(self, stage: str, done: int, total: int, *, skipped: int = 0) -> None:
        """Bytes of the inputs read so far: the percentage and ETA of a stage whose record count
        was not known up front (WARC, compressed JSONL); ignored when it was. `skipped`: the bytes
        of inputs restored without reading (kept out of the ETA)."""
        task = self._tasks.get(stage)
        if task is None or total <= 0:
            return
        t = self._bar.tasks[task]
        if stage not in self._by_bytes:
            if t.total is not None:  # a record total is known: it is the better measure
                return
            self._by_bytes.add(stage)
        self._skipped_units[stage] = float(min(skipped, total))
        self._bar.update(task, total=total, completed=min(done, total))
        self._speed(stage)

    def _speed(self, stage: str) -> None:
        """Rate and ETA from the work done in this run: what was skipped, and the time spent
        skipping it, are left out of both."""
        task = self._tasks[stage]
        t = self._bar.tasks[task]
        worked = max(time.perf_counter() - self._t0[stage] - self._idle[stage], 1e-6)
        records = self._count[stage] - self._skipped[stage]
        units = t.completed - self._skipped_units[stage]
        eta = "-:--:--"
        if t.total is not None and units > 0 and records > 0:
            eta = str(timedelta(seconds=round(max(t.total - t.completed, 0) * worked / units)))
        rate = f"{records / worked:,.1f}" if records > 0 else "-"
        self._bar.update(task, rate=rate, eta=eta)

    def done(self, stage: str, info: str = "") -> None:
        task = self._tasks.get(stage)
        if task is None:
            return
        t = self._bar.tasks[task]
        if stage == "extract":
            self._pages = self._count.get(stage, 0) - self._errors.get(stage, 0)
        fields: dict[str, Any] = {}
        if info:
            fields["count"] = info
        self._bar.update(
            task, total=t.completed or 1, completed=t.completed or 1, eta="0:00:00", **fields
        )
