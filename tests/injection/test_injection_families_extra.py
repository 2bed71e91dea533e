"""Payload families read from packages installed from a registry (bench/injection_families_extra.py):
what they hold, and that the benches run without them."""

from __future__ import annotations

import importlib.util

import pytest
from injection.bench_module import load

_X = load("injection_families_extra")
needs_package = pytest.mark.skipif(
    importlib.util.find_spec("bastioncorpus") is None, reason="bastioncorpus not installed"
)


@needs_package
def test_bastion_family_holds_its_attacks_with_slots_filled_and_no_encodings() -> None:
    rows = _X.registry_families()["bastioncorpus"]
    assert len(rows) > 50
    texts = [t for t, _, _ in rows]
    assert not any("{canary}" in t for t in texts)
    assert {lang for _, lang, _ in rows} >= {"en", "de", "fr", "es", "it"}
    assert {intent for _, _, intent in rows} <= {"override", "persona", "extraction", "tool"}
    # the encoded rows (base64, hex, morse…) are the normalisation benches' business
    assert not any("SWdub3Jl" in t or "49676e6f" in t for t in texts)
    assert rows == _X.registry_families()["bastioncorpus"]  # seeded: the same tokens every run


def test_without_the_package_the_benches_get_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_X, "find_spec", lambda name: None)
    assert _X.registry_families() == {}
