"""The second, independent set of written positives (bench/data/injection/intent_classes2.json, the
training family ``own-class2``): loaded by the same code as own-class, every language and class
present, its boundary negatives parallel across languages (the language subspace reads them)."""

from __future__ import annotations

import sys
from collections import Counter

from injection.bench_module import bench_imports, load

_T = load("train_intent")
_LOFO = sys.modules[_T.load_families.__module__]  # bench/injection_lofo.py, as train_intent read it
CLASSES = {"steer_ai", "tool", "exfiltration", "persona"}


def test_own_class2_has_every_language_and_class_with_slots_filled() -> None:
    a = _LOFO.class_payloads(family="own-class2")
    assert a == _LOFO.class_payloads(family="own-class2")  # seeded
    assert _LOFO.class_payloads(seed=14, family="own-class2") != a
    pairs = Counter((p.lang, p.intent) for p in a)
    assert set(pairs) == {(lang, c) for lang in _LOFO.LANGS for c in CLASSES}
    assert min(Counter(p.lang for p in a).values()) >= 10
    assert all(p.family == "own-class2" and "{" not in p.text and "}" not in p.text for p in a)
    assert len({p.text for p in a}) == len(a)


def test_own_class2_is_another_set_than_own_class() -> None:
    first = {p.text for p in _LOFO.class_payloads()}
    second = {p.text for p in _LOFO.class_payloads(family="own-class2")}
    assert not first & second
    assert {p.family for p in _LOFO.class_payloads()} == {"own-class"}


def test_own_class2_boundary_negatives_are_parallel_and_no_payload() -> None:
    neg = _LOFO.boundary_negatives("own-class2")
    per_lang = Counter(lang for _, lang in neg)
    assert set(per_lang) == set(_LOFO.LANGS)
    assert len(set(per_lang.values())) == 1  # the same texts in every language
    payloads = {p.text for f in _LOFO.CLASS_SETS for p in _LOFO.class_payloads(family=f)}
    assert not payloads & {t for t, _ in neg}
    assert not {t for t, _ in _LOFO.boundary_negatives()} & {t for t, _ in neg}


def test_extra_training_families_are_template_sets_outside_the_cases() -> None:
    assert set(_T.EXTRA) <= set(_LOFO.CLASS_SETS) - {"own-class"}
    with bench_imports():  # load_families imports bench.injection_families_extra when called
        fams = _LOFO.load_families()  # own-class2 trains the head; it is never a case family
    assert "own-class" in fams and "own-class2" not in fams


def test_a_fold_holding_own_class_out_holds_its_sibling_out_too() -> None:
    import numpy as np

    fam = np.array(["own-class", "own-class2", "bipia-text", "own-class2", "own-heldout"])
    assert _T.kept(fam, "own-class").tolist() == [False, False, True, False, True]
    assert _T.kept(fam, "bipia-text").tolist() == [True, True, False, True, True]
    # every sibling is a written set that can train the head (CLASS_SETS), never a case family
    assert all(set(s) <= set(_LOFO.CLASS_SETS) - {"own-class"} for s in _T.SIBLINGS.values())


def test_own_class3_is_a_third_set_trained_and_held_out_with_own_class() -> None:
    """own-class3 (intent_classes3.json): every language with steering, tool and data classes, its
    slots filled, no text shared with the other sets, no negatives of its own, in EXTRA (trained
    with the exact solver: docs/injection-history.md, seventh round), and held out with own-class."""
    c = _LOFO.class_payloads(family="own-class3")
    pairs = Counter((p.lang, p.intent) for p in c)
    assert set(pairs) == {(lang, k) for lang in _LOFO.LANGS for k in CLASSES - {"persona"}}
    assert all(p.family == "own-class3" and "{" not in p.text and "}" not in p.text for p in c)
    others = {p.text for f in ("own-class", "own-class2") for p in _LOFO.class_payloads(family=f)}
    assert not others & {p.text for p in c}
    assert _LOFO.boundary_negatives("own-class3") == []
    assert "own-class3" in _T.EXTRA
    assert "own-class3" in _T.SIBLINGS["own-class"]
