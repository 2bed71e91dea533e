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

from trustaudit.progress import Progress, skip


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
        self._finished: set[int] = set()
        self.fresh = False  # whether the last position() was measured, not the throttled value

    def finish(self, index: int) -> int:
        """Source `index` is done without being read (restored from the run, the cache or the
        --since run): its bytes count now, not when the next source starts. Returns its size."""
        if index in self._finished or not 0 <= index < len(self._sources):
            return 0
        self._finished.add(index)
        self._at = -float("inf")  # the next position() counts it
        pos = getattr(self._sources[index], "read_position", lambda: None)()
        return 0 if pos is None else pos[1]

    def position(self) -> tuple[int, int] | None:
        now = self._clock()
        self.fresh = now - self._at >= self._every_s
        if not self.fresh:
            return self._last
        self._at = now
        done = total = 0
        later_started = False
        for i in range(len(self._sources) - 1, -1, -1):
            pos = getattr(self._sources[i], "read_position", lambda: None)()
            if pos is None:
                self._last = None
                return None
            read, size = pos
            total += size
            done += size if later_started or i in self._finished else read
            later_started = later_started or read > 0
        self._last = (done, total) if total > 0 else None
        return self._last


class _Metered:
    """A Progress that also reports the bytes read after each step of `stage`, and how many of
    them belong to work a resumed run skipped (`skip`): a restored source's size, and of the other
    bytes read since the last report the share of skipped records among the records reported."""

    def __init__(self, inner: Any, meter: ReadMeter, stage: str) -> None:
        self._inner, self._meter, self._stage = inner, meter, stage
        self._prev = 0  # bytes done at the last change
        self._skipped = 0  # of those, bytes skipped
        self._restored = 0  # restored sources' bytes not yet seen in a change
        self._worked = self._passed = 0  # records reported since the last change

    def start(self, stage: str, total: int | None = None) -> None:
        self._inner.start(stage, total)

    def advance(self, stage: str, n: int = 1, *, errors: int = 0) -> None:
        self._inner.advance(stage, n, errors=errors)
        if stage == self._stage:
            self._worked += n
            self._report(stage)

    def skip(self, stage: str, n: int, *, errors: int = 0, source: int | None = None) -> None:
        """Records already done; `source`: the index of a whole source restored without reading."""
        skip(self._inner, stage, n, errors=errors)
        if stage == self._stage:
            self._passed += n
            if source is not None:
                self._restored += self._meter.finish(source)
            self._report(stage)

    def _report(self, stage: str) -> None:
        pos = self._meter.position()
        if pos is None:
            return
        done, total = pos
        if done != self._prev:
            delta = done - self._prev
            restored = min(self._restored, max(delta, 0))
            steps = self._worked + self._passed
            share = self._passed / steps if steps else 0.0
            self._skipped += restored + round((delta - restored) * share)
            self._prev, self._restored, self._worked, self._passed = done, 0, 0, 0
        elif self._meter.fresh:  # measured, and nothing read since: these steps read nothing
            self._worked = self._passed = 0
        self._inner.position(stage, done, total, skipped=self._skipped)

    def done(self, stage: str, info: str = "") -> None:
        self._inner.done(stage, info)


def with_read_position(
    progress: Progress, sources: Sequence[Any], stage: str = "extract"
) -> Progress:
    """`progress`, told after each step of `stage` how many bytes of `sources` were read, when it
    can show that (it has a `position(stage, done, total, *, skipped)` method, as the CLI's bar
    has: `skipped` is the bytes of sources restored without reading); the
    same object otherwise."""
    if not callable(getattr(progress, "position", None)):
        return progress
    return _Metered(progress, ReadMeter(sources), stage)
