"""Rich progress for the pipeline's Progress protocol: one line per stage with pages/s, on stderr."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn


class RichProgress:
    """Render stage progress; disabled (silent) when `quiet` or stderr is not a terminal."""

    def __init__(self, console: Console, *, quiet: bool = False) -> None:
        self.console = console
        self.enabled = not quiet
        self._bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description:<8}"),
            BarColumn(),
            TextColumn("{task.completed:>7,.0f} items"),
            TextColumn("{task.fields[rate]:>8} /s"),
            TextColumn("{task.fields[errors]} errors"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            disable=quiet,
        )
        self._tasks: dict[str, Any] = {}
        self._t0: dict[str, float] = {}
        self._errors: dict[str, int] = {}
        self._started = False

    def __enter__(self) -> RichProgress:
        self._bar.__enter__()
        self._started = True
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)

    def start(self, stage: str, total: int | None = None) -> None:
        self._t0[stage] = time.perf_counter()
        self._errors[stage] = 0
        self._tasks[stage] = self._bar.add_task(stage, total=total, rate="-", errors=0)

    def advance(self, stage: str, n: int = 1, *, errors: int = 0) -> None:
        task = self._tasks.get(stage)
        if task is None:
            self.start(stage)
            task = self._tasks[stage]
        self._errors[stage] += errors
        done = self._bar.tasks[task].completed + n
        elapsed = max(time.perf_counter() - self._t0[stage], 1e-6)
        self._bar.update(task, advance=n, rate=f"{done / elapsed:,.1f}", errors=self._errors[stage])

    def done(self, stage: str, info: str = "") -> None:
        task = self._tasks.get(stage)
        if task is None:
            return
        t = self._bar.tasks[task]
        self._bar.update(task, total=t.completed or 1, completed=t.completed or 1)
