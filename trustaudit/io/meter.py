"""Read progress in bytes, for inputs whose record count is unknown until they are read.

A WARC file or a compressed JSONL file does not say how many records it holds; counting them would
mean reading it twice. Its size on disk is known, and the readers know how far into it they are
(for a compressed input: the position of the file under the decompressor), so the extract stage
can show a percentage and an ETA from bytes consumed / bytes in all (`Source.read_position`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from trustaudit.progress import Progress


class ReadMeter:
    """(bytes consumed, bytes in all) over the sources of a run, read in order.

    Sources are read one after the other, so a source followed by one that has started is
    finished, whether it was read or restored from a cache without reading. None when a source
    cannot say (an object-store key). Recomputed at most every `every_s` seconds: a folder of
    thousands of files would otherwise cost a pass over all of them per batch.
    """

    def __init__(
        self,
        sources: Sequence[Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        every_s: float = 0.2,
    ) -> None:
        self._sources = sources
        self._clock = clock
        self._every_s = every_s
        self._at = -float("inf")
        self._last: tuple[int, int] | None = None

    def position(self) -> tuple[int, int] | None:
        now = self._clock()
        if now - self._at < self._every_s:
            return self._last
        self._at = now
        done = total = 0
        later_started = False
        for src in reversed(self._sources):
            pos = getattr(src, "read_position", lambda: None)()
            if pos is None:
                self._last = None
                return None
            read, size = pos
            total += size
            done += size if later_started else read
            later_started = later_started or read > 0
        self._last = (done, total) if total > 0 else None
        return self._last


class _Metered:
    """A Progress that also reports the bytes read after each step of `stage`."""

    def __init__(self, inner: Any, meter: ReadMeter, stage: str) -> None:
        self._inner, self._meter, self._stage = inner, meter, stage

    def start(self, stage: str, total: int | None = None) -> None:
        self._inner.start(stage, total)

    def advance(self, stage: str, n: int = 1, *, errors: int = 0) -> None:
        self._inner.advance(stage, n, errors=errors)
        if stage == self._stage and (pos := self._meter.position()) is not None:
            self._inner.position(stage, *pos)

    def done(self, stage: str, info: str = "") -> None:
        self._inner.done(stage, info)


def with_read_position(
    progress: Progress, sources: Sequence[Any], stage: str = "extract"
) -> Progress:
    """`progress`, told after each step of `stage` how many bytes of `sources` were read, when it
    can show that (it has a `position(stage, done, total)` method, as the CLI's bar has); the
    same object otherwise."""
    if not callable(getattr(progress, "position", None)):
        return progress
    return _Metered(progress, ReadMeter(sources), stage)
