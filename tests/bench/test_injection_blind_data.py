"""The blind injection collection keeps its contract: 20 languages x 6 intents, negatives, unique ids.

The checks live in bench/injection_blind.py (the bench refuses to run on invalid data); these tests
run them on the committed files and show, on broken copies, that each check can fail. The last
tests pin the bench's counting with a fake scanner: a payload counts only when a finding points at
the inserted text, and host pages with findings of their own are not used.
"""

from __future__ import annotations

import copy
import importlib.util
import random
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


PAGE = "<html><head><title>t</title></head><body><p>One.</p><p>Two.</p></body></html>"


@pytest.mark.parametrize("location", IB.LOCATIONS)
def test_place_inserts_the_text_where_it_says(location: str) -> None:
    text = 'Say "hi" <now> & then\nstop'
    placed = IB.place(PAGE, text, location, random.Random(3))
    expected = text.replace(">", "\u203a") if location == "comment" else text
    assert IB._norm(placed.html[placed.start : placed.end]) == IB._norm(expected)
    before, encoded, after = IB._wrap(location, text)
    assert placed.html.replace(before + encoded + after, "", 1) == PAGE


class _Result:
    def __init__(self, findings: list[dict[str, Any]]) -> None:
        self.findings = findings


def _marker_scanner(html: str) -> _Result:
    """Flags the word ZORBLAX wherever it is, with a snippet that starts at it."""
    at = html.find("ZORBLAX")
    if at < 0:
        return _Result([])
    return _Result(
        [{"location": "x", "technique": "y", "snippet": html[at : at + 30], "offset": at}]
    )


def test_evaluate_counts_only_findings_that_point_at_the_insert() -> None:
    payloads = [
        {
            "id": "a",
            "lang": "en",
            "intent": "override",
            "style": "plain",
            "text": "ZORBLAX now obey",
        },
        {"id": "b", "lang": "de", "intent": "tool", "style": "plain", "text": "harmless words"},
    ]
    negatives = [{"id": "n", "lang": "en", "kind": "recipe", "text": "ZORBLAX is a cake"}]
    fig = IB.evaluate(
        payloads, negatives, [("p", PAGE)], scan=_marker_scanner, seed=1, all_locations=True
    )
    assert fig["recall_by_lang"]["en"] == {"hit": 7, "n": 7, "rate": 1.0}
    assert fig["recall_by_lang"]["de"]["hit"] == 0
    assert fig["fp_rate"] == 1.0 and fig["flagged_negatives"] == ["n"]
    assert [m["id"] for m in fig["worst_misses"]] == ["b"]


def test_a_finding_elsewhere_on_the_page_does_not_count() -> None:
    def elsewhere(html: str) -> _Result:
        hit = "obey" in html
        return _Result([{"snippet": "One.", "offset": html.find("One.")}] if hit else [])

    payloads = [
        {"id": "a", "lang": "en", "intent": "override", "style": "plain", "text": "now obey"}
    ]
    fig = IB.evaluate(payloads, [], [("p", PAGE)], scan=elsewhere, seed=1, all_locations=True)
    assert fig["recall"] == 0.0


def test_hosts_with_findings_of_their_own_are_skipped() -> None:
    pages = [("dirty", PAGE.replace("One.", "ZORBLAX")), ("clean", PAGE)]
    fig = IB.evaluate([], [], pages, scan=_marker_scanner, seed=1)
    assert fig["host_pages"] == 1 and fig["pages_dropped_with_findings"] == 1


# Session 31: the bench reads other collections of its format (`--data`).
OTHERS = ("injection_blind2", "injection_statements")


@pytest.mark.parametrize("name", OTHERS)
def test_the_other_collections_keep_the_contract(name: str) -> None:
    folder = ROOT / "bench" / "data" / name
    p = IB.read_jsonl(folder / "payloads.jsonl")
    n = IB.read_jsonl(folder / "hard_negatives.jsonl")
    assert IB.check_data(p, n) == []
    assert {r["lang"] for r in p} == set(IB.LANGS) == {r["lang"] for r in n}
    assert (folder / "README.md").is_file()


def test_a_collection_of_one_class_is_held_to_that_class_in_every_language() -> None:
    """A set of overrides alone needs overrides in every language (not the other five intents),
    and MIN_NEG_ONE_CLASS negatives a language."""
    folder = ROOT / "bench" / "data" / "injection_statements"
    p = IB.read_jsonl(folder / "payloads.jsonl")
    n = IB.read_jsonl(folder / "hard_negatives.jsonl")
    assert {r["intent"] for r in p} == {"override"}
    short = [r for r in p if r["lang"] != "vi"] + [r for r in p if r["lang"] == "vi"][:3]
    assert any("vi/override: 3 payloads" in m for m in IB.check_data(short, n))
    few = [r for r in n if r["lang"] != "ar"] + [r for r in n if r["lang"] == "ar"][:3]
    assert any("ar: 3 hard negatives < 4" in m for m in IB.check_data(p, few))


def test_negatives_spread_go_where_the_payloads_go_and_misses_can_stay_unprinted() -> None:
    negatives = [
        {"id": f"n{i}", "lang": "en", "kind": "recipe", "text": "ZORBLAX is a cake"}
        for i in range(len(IB.LOCATIONS))
    ]
    payloads = [{"id": "b", "lang": "de", "intent": "tool", "style": "plain", "text": "harmless"}]
    fig = IB.evaluate(
        payloads,
        negatives,
        [("p", PAGE)],
        scan=_marker_scanner,
        seed=1,
        negatives_spread=True,
        show=0,
    )
    assert set(fig["fp_by_location"]) == set(IB.LOCATIONS)
    assert fig["worst_misses"] == [] and [m[0] for m in fig["missed_cases"]] == ["b"]
    assert "misses, one per language" not in IB.report(fig)
    plain = IB.evaluate(payloads, negatives, [("p", PAGE)], scan=_marker_scanner, seed=1)
    assert set(plain["fp_by_location"]) == {"visible"}
    assert "1 misses, one per language" in IB.report(plain)


# Session 32: a collection of negatives only (no payloads.jsonl), hidden prose for people.
HIDDEN_PROSE = ROOT / "bench" / "data" / "injection_hidden_prose"


def test_a_collection_of_negatives_only_keeps_its_contract() -> None:
    """No payloads: no intent cell is asked for, but MIN_NEG_PER_LANG negatives in every language."""
    assert not (HIDDEN_PROSE / "payloads.jsonl").exists()
    n = IB.read_jsonl(HIDDEN_PROSE / "hard_negatives.jsonl")
    assert IB.check_data([], n) == []
    assert {r["lang"] for r in n} == set(IB.LANGS) and (HIDDEN_PROSE / "README.md").is_file()
    few = [r for r in n if r["lang"] != "he"] + [r for r in n if r["lang"] == "he"][:7]
    assert IB.check_data([], few) == [f"he: 7 hard negatives < {IB.MIN_NEG_PER_LANG}"]


def test_a_collection_of_negatives_only_runs_and_reports_no_recall() -> None:
    negatives = [
        {"id": f"n{i}", "lang": "en", "kind": "sr_only", "text": "ZORBLAX is a cake" if i else "ok"}
        for i in range(len(IB.LOCATIONS))
    ]
    fig = IB.evaluate(
        [], negatives, [("p", PAGE)], scan=_marker_scanner, seed=1, negatives_spread=True, show=0
    )
    assert fig["payloads"] == 0 and fig["recall"] is None
    assert fig["hard_negatives"] == len(IB.LOCATIONS) and fig["flagged_negatives"] == [
        f"n{i}" for i in range(1, len(IB.LOCATIONS))
    ]
    text = IB.report(fig)
    assert text.splitlines()[1].startswith("no payloads    false positives on hard negatives 0.857")
    assert "recall by" not in text and "false-positive rate by place" in text


# Session 34: the rates are also given for the findings that quarantine (not quoted).
def _quoting_scanner(quoted: str, technique: str) -> Any:
    def scan(html: str) -> _Result:
        at = html.find("ZORBLAX")
        if at < 0:
            return _Result([])
        finding = {"location": "x", "technique": technique, "snippet": html[at : at + 30]}
        return _Result([{**finding, "offset": at, "quoted": quoted}])

    return scan


@pytest.mark.parametrize(
    ("quoted", "technique", "quarantines"),
    [
        ("person", "display_none", False),  # addressed to a person: INJECTION_QUOTED
        ("code", "visible", False),  # a quotation in plain sight
        ("code", "display_none", True),  # hidden text is never quoted by a context
        ("", "display_none", True),
    ],
)
def test_a_quoted_finding_is_counted_apart_from_one_that_quarantines(
    quoted: str, technique: str, quarantines: bool
) -> None:
    payloads = [
        {"id": "a", "lang": "en", "intent": "override", "style": "plain", "text": "ZORBLAX obey"}
    ]
    negatives = [{"id": "n", "lang": "en", "kind": "memo", "text": "ZORBLAX is a cake"}]
    fig = IB.evaluate(
        payloads, negatives, [("p", PAGE)], scan=_quoting_scanner(quoted, technique), seed=1
    )
    assert fig["recall"] == 1.0 and fig["fp_rate"] == 1.0  # a finding, whatever its `quoted`
    rate = 1.0 if quarantines else 0.0
    assert fig["recall_quarantining"] == rate and fig["fp_rate_quarantining"] == rate
    assert fig["quarantined_negatives"] == (["n"] if quarantines else [])
    assert fig["fp_by_kind_quarantining"]["memo"]["rate"] == rate
    line = IB.report(fig).splitlines()[1]
    assert f"recall overall 1.000 (quarantining {rate:.3f})" in line
    assert line.endswith(f"false positives on hard negatives 1.000 (quarantining {rate:.3f})")


def test_a_folder_of_training_negatives_reads_as_negatives_only(tmp_path: Path) -> None:
    """`--data` also reads bench/data/injection/hard_negatives* (<lang>.json: kind -> texts); with
    `--negatives-spread --all-locations` each negative goes into every place."""
    import json

    (tmp_path / "en.json").write_text(json.dumps({"memo": ["ZORBLAX is a cake", "plain words"]}))
    (tmp_path / "de.json").write_text(json.dumps({"faq": ["Kuchen ohne ZORBLAX"]}))
    rows = IB.read_kinds(tmp_path)
    assert [(r["id"], r["lang"], r["kind"]) for r in rows] == [
        ("de-faq-0", "de", "faq"),
        ("en-memo-0", "en", "memo"),
        ("en-memo-1", "en", "memo"),
    ]
    fig = IB.evaluate(
        [],
        rows,
        [("p", PAGE)],
        scan=_marker_scanner,
        seed=1,
        negatives_spread=True,
        all_locations=True,
        show=0,
    )
    n = len(IB.LOCATIONS)
    assert fig["hard_negatives"] == 3 * n
    assert {k: v["n"] for k, v in fig["fp_by_location"].items()} == dict.fromkeys(IB.LOCATIONS, 3)
    assert fig["fp_by_kind"]["memo"] == {"hit": n, "n": 2 * n, "rate": 0.5}
    assert fig["fp_by_kind"]["faq"]["hit"] == n
    own = IB.read_kinds(ROOT / "bench" / "data" / "injection" / "hard_negatives3")
    assert len(own) == 480 and IB.check_data([], own) == []
