"""Every figure in a card must be in the source, whatever the format."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trustaudit.citations.numbers import extract_facts, number_values, unsupported_facts


def missing(card: str, source: str) -> list[str]:
    return [f.surface for f in unsupported_facts(card, source)[0]]


@pytest.mark.parametrize(
    ("card", "source"),
    [
        ("It costs 1,234.56.", "It costs 1.234,56."),
        ("It costs 1234.56.", "It costs 1 234,56."),
        ("It costs $1,200.", "It costs 1200 USD."),
        ("It costs €1.200,50.", "It costs 1,200.50 EUR."),
        ("Preço R$ 49,90.", "Price BRL 49.90."),
        ("It costs $1,200.", "It costs 1,200 a year."),  # the source states the bare value
        ("Released 2024-03-05.", "Released March 5, 2024."),
        ("Released March 5th, 2024.", "Released 5 March 2024."),
        ("Lançado em 5 de março de 2024.", "Released 2024-03-05."),
        ("Released 05/03/2024.", "Released 2024-05-03."),  # either reading of an ambiguous date
        ("In March 2024 prices rose.", "On 2024-03-05 prices rose."),
        ("Since 2024.", "On 2024-03-05."),
        ("On March 5 we shipped.", "On 2024-03-05 we shipped."),
        ("Growth was 12.5%.", "Growth was 12.5 percent."),
        ("Growth was 12,5 %.", "Growth was 12.5%."),
        ("1.2 million users.", "1,200,000 users."),
        ("Ticket OPS-4417.", "see ops_4417 for details"),
        ("Version v2.3.1.", "Version v2.3.1 shipped."),
        ("Opens at 10:30 AM.", "Opens at 10:30."),
        ("Opens at 2:15 pm.", "Opens at 14:15."),
        ("3 seats.", "three seats"),
        ("Costs 5kg.", "Weighs 5 kg."),
    ],
)
def test_same_fact_in_other_format_is_supported(card: str, source: str) -> None:
    assert missing(card, source) == []


@pytest.mark.parametrize(
    ("card", "source", "surface"),
    [
        ("It costs $1,490 per year.", "It costs $490 per year.", "$1,490"),
        ("It costs $490.", "It costs 490 EUR.", "$490"),  # wrong currency
        ("Released 2024-03-06.", "Released March 5, 2024.", "2024-03-06"),
        ("Growth was 13%.", "Growth was 12.5%.", "13%"),
        ("Growth was 12%.", "Growth was 0.12.", "12%"),
        ("Ticket OPS-4418.", "Ticket OPS-4417.", "OPS-4418"),
        ("Up to 250 requests.", "Up to 100 requests.", "250"),
        ("In April 2024.", "On 2024-03-05.", "April 2024"),
    ],
)
def test_hallucinated_figure_is_flagged(card: str, source: str, surface: str) -> None:
    assert missing(card, source) == [surface]


def test_kinds() -> None:
    kinds = {
        f.kind for f in extract_facts("On 2024-03-05, SKU-1 cost $5 (10%) at 10:30 for 3 users.")
    }
    assert kinds == {"date", "id", "amount", "percent", "time", "number"}


def test_ambiguous_separators_keep_both_readings() -> None:
    assert number_values("1,234") == {"1234", "1.234"}
    assert number_values("1.234.567") == {"1234567"}
    assert number_values("0,5") == {"0.5"}
    assert number_values("2", "k") == {"2000"}


def test_card_without_figures_has_nothing_to_check() -> None:
    assert unsupported_facts("Prices are fair.", "Nothing.") == ([], 0)


@given(st.text(max_size=200))
def test_extraction_never_raises(text: str) -> None:
    for f in extract_facts(text):
        assert f.values
