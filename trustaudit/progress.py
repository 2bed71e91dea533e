"""Progress reporting protocol: the library reports, the CLI renders (rich), tests record."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def start(self, stage: str, total: int | None = None) -> None: ...

    def advance(self, stage: str, n: int = 1, *, errors: int = 0) -> None: ...

    def done(self, stage: str, info: str = "") -> None: ...


class NullProgress:
    """Reports nothing (library default, tests)."""

    def start(self, stage: str, total: int | None = None) -> None:
        pass

    def advance(self, stage: str, n: int = 1, *, errors: int = 0) -> None:
        pass

    def done(self, stage: str, info: str = "") -> None:
        pass


def skip(
    progress: Progress, stage: str, n: int, *, errors: int = 0, source: int | None = None
) -> None:
    """Report `n` records of `stage` that were already done (a resumed run's committed parts, a
    source restored from the cache): they count towards completion but were not worked on now, so
    a progress that estimates speed (the CLI's bar) keeps them out of its rate and ETA. A progress
    without a `skip` method (the protocol does not require one) sees an ordinary `advance`.
    `source`: the index of an input restored whole, for a progress that measures bytes read."""
    method = getattr(progress, "skip", None)
    if callable(method):
        method(stage, n, errors=errors, **({} if source is None else {"source": source}))
    else:
        progress.advance(stage, n, errors=errors)
