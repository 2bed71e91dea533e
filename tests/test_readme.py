"""The README stays true: the two commands on top, and a command reference equal to the CLI's own."""

from __future__ import annotations

from pathlib import Path

from trustaudit.cli.reference import render, section_of

README = Path(__file__).resolve().parents[1] / "README.md"


def test_two_commands_are_at_the_top() -> None:
    head = "\n".join(README.read_text(encoding="utf-8").splitlines()[:30])
    assert "make demo" in head and "make test" in head


def test_command_reference_matches_the_cli() -> None:
    section = section_of(README.read_text(encoding="utf-8"))
    assert section is not None, "README lacks the cli-reference markers"
    assert section == render(), (
        "README command reference is stale: python -m trustaudit.cli.reference --write"
    )


def test_every_command_is_documented_with_an_example() -> None:
    text = README.read_text(encoding="utf-8")
    for name in (
        "audit",
        "crawl",
        "score",
        "report",
        "calibrate",
        "gate",
        "diff",
        "explain",
        "citations",
        "cards",
        "policy show",
    ):
        assert f"### `trustaudit {name}`" in text
        assert f"trustaudit {name} " in text.split("## Command reference")[0] or name in (
            "policy show",
        )


def test_ci_entry_runs_make_test_only() -> None:
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci
