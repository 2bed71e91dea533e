"""One wording for reasons in every format."""

from __future__ import annotations

from trustaudit.report.reason_text import (
    label_for,
    reason_text,
    reasons_markdown,
    reasons_rich,
    split_reason,
)


def test_known_and_family_codes() -> None:
    assert reason_text("AFFILIATE_DENSE_NO_DISCLOSURE: 14.2 links per 1k words") == (
        "Affiliate-dense, no disclosure — 14.2 links per 1k words"
    )
    assert reason_text("TEXT_THIN") == "Thin text"
    assert label_for("INJECTION_HIDDEN_TEXT") == "Prompt injection: hidden text"
    assert (
        reason_text("INJECTION_HIDDEN: display_none (score 0.9)")
        == "Prompt injection, hidden — display_none (score 0.9)"
    )
    assert label_for("SYNDICATED") == "Syndicated copy"
    assert label_for("SOMETHING_NEW") == "Something new"
    assert split_reason("A: b: c") == ("A", "b: c")


def test_invisible_characters_and_newlines_removed() -> None:
    assert reason_text("TEXT_THIN: 12\u200b words\n\u202eevil") == "Thin text — 12 words evil"


def test_markdown_and_rich_escape() -> None:
    md = reasons_markdown(["X_Y: <b>|[link](javascript:x)", "TEXT_THIN: 3 words"])
    assert "<b>" not in md and "\\|" in md and "\\[link\\]" in md and md.count("<br>") == 1
    assert reasons_rich(["X_Y: [red]boom[/red]"]) == "X y — \\[red]boom\\[/red]"
