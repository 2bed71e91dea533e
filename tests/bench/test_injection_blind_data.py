"""The blind injection collection keeps its contract: 20 languages x 6 intents, negatives, unique ids.

The checks live in bench/injection_blind.py (the bench refuses to run on invalid data); these tests
run them on the committed files and show, on broken copies, that each check can fail.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "injection_blind", ROOT / "bench" / "injection_blind.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


IB = _bench()
PAYLOADS: list[dict[str, Any]] = IB.read_jsonl(IB.DATA / "payloads.jsonl")
NEGATIVES: list[dict[str, Any]] = IB.read_jsonl(IB.DATA / "hard_negatives.jsonl")


def test_committed_files_are_valid() -> None:
    assert IB.check_data(PAYLOADS, NEGATIVES) == []


def test_every_language_and_intent_is_covered() -> None:
    cells = {(p["lang"], p["intent"]) for p in PAYLOADS}
    assert len(IB.LANGS) == 20 and len(IB.INTENTS) == 6
    assert cells == {(lang, intent) for lang in IB.LANGS for intent in IB.INTENTS}
    assert {n["lang"] for n in NEGATIVES} == set(IB.LANGS)


def test_native_script_where_the_language_has_one() -> None:
    scripts = {
        "ru": ("\u0400", "\u04ff"), "uk": ("\u0400", "\u04ff"), "ar": ("\u0600", "\u06ff"),
        "fa": ("\u0600", "\u06ff"), "he": ("\u0590", "\u05ff"), "hi": ("\u0900", "\u097f"),
        "zh": ("\u4e00", "\u9fff"), "ja": ("\u3040", "\u30ff"), "ko": ("\uac00", "\ud7af"),
    }  # fmt: skip
    for row in [*PAYLOADS, *NEGATIVES]:
        if row["lang"] in scripts:
            lo, hi = scripts[row["lang"]]
            assert any(lo <= ch <= hi for ch in row["text"]), row["id"]


def _drop_cell(p: list[dict[str, Any]], n: list[dict[str, Any]]) -> None:
    cell = [r for r in p if r["lang"] == "ko" and r["intent"] == "tool"]
    p[:] = [r for r in p if r not in cell[3:]]


def _dup_id(p: list[dict[str, Any]], n: list[dict[str, Any]]) -> None:
    n[1]["id"] = p[0]["id"]


def _blank(p: list[dict[str, Any]], n: list[dict[str, Any]]) -> None:
    p[5]["text"] = "  \n"


def _few_negatives(p: list[dict[str, Any]], n: list[dict[str, Any]]) -> None:
    n[:] = [r for r in n if r["lang"] != "he"] + [r for r in n if r["lang"] == "he"][:7]


def _bad_intent(p: list[dict[str, Any]], n: list[dict[str, Any]]) -> None:
    p[0]["intent"] = "jailbreak"


def _bad_schema(p: list[dict[str, Any]], n: list[dict[str, Any]]) -> None:
    del n[0]["kind"]


@pytest.mark.parametrize(
    ("breaker", "expect"),
    [
        (_drop_cell, "ko/tool: 3 payloads"),
        (_dup_id, "duplicate id"),
        (_blank, "empty text"),
        (_few_negatives, "he: 7 hard negatives"),
        (_bad_intent, "unknown intent"),
        (_bad_schema, "keys"),
    ],
)
def test_each_check_catches_its_breakage(breaker: Any, expect: str) -> None:
    p, n = copy.deepcopy(PAYLOADS), copy.deepcopy(NEGATIVES)
    breaker(p, n)
    problems = IB.check_data(p, n)
    assert any(expect in msg for msg in problems), problems
