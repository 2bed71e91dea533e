"""bench/gate_negatives.py: where in the HTML an asked passage lives (the listing the gate's rules
are chosen from)."""

from __future__ import annotations

from injection.bench_module import load

_G = load("gate_negatives")

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
