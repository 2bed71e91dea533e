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
