"""bench/gate_negatives.py: where in the HTML an asked passage lives (the listing the gate's rules
are chosen from)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _load() -> ModuleType:
    """bench/gate_negatives.py with the repository's bench/ folder first (tests/bench is a test
    package of the same name)."""
    saved = sys.modules.pop("bench", None)
    path = sys.path[:]
    sys.path[:] = [str(ROOT)] + [p for p in path if Path(p or ".").resolve() != ROOT / "tests"]
    try:
        spec = importlib.util.spec_from_file_location(
            "gate_negatives", ROOT / "bench" / "gate_negatives.py"
        )
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path[:] = path
        if saved is not None:
            sys.modules["bench"] = saved


_G = _load()

PAGE = (
    '<html><body><div id="box" class="newsletter form-wrap"><form role="form">'
    '<span class="js-email-error" aria-live="polite" style="display:none">Please enter a valid '
    'email address</span></form></div><img alt="A harbour at dawn with three fishing boats"></body></html>'
)


def test_the_innermost_element_and_its_ancestors_are_named() -> None:
    where = _G.html_location(PAGE, "Please enter a valid email address")
    assert where.split(" < ") == [
        "span.js-email-error[aria-live]",
        "form[role=form]",
        "div#box.newsletter.form-wrap",
    ]


def test_an_attribute_value_is_found_on_its_element() -> None:
    assert _G.html_location(PAGE, "A harbour at dawn with three fishing boats") == "img"


def test_a_passage_not_in_the_page_is_unknown() -> None:
    assert _G.html_location(PAGE, "Nothing of this sentence is on the page at all") == "?"
