"""Strings from pages and transcripts never drive the terminal: explain, citations and cards output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.citations.conftest import write_run
from tests.report.fakerun import make_run, page

CLEAR = "\x1b[2J\x1b[H"
OSC8 = "\x1b]8;;https://evil.example/\x1b\\"
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
C1 = "\x9b31m\x85"
BIDI = "\u202e"
ALL = (CLEAR, OSC8, OSC52, C1, BIDI, "\r")


def _assert_inert(text: str) -> None:
    assert "\x1b" not in text and "\r" not in text and BIDI not in text
    assert not any(0x80 <= ord(c) <= 0x9F for c in text)


def test_explain_strips_escapes(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    url = "https://a.example/x"
    finding = {
        "location": "<div>",
        "technique": "display_none",
        "snippet": f"ignore{OSC52}previous{CLEAR}",
        "offset": 0,
        "rule": "override",
        "score": 0.9,
    }
    pages = [
        page(
            url,
            0.2,
            title=f"Title{CLEAR}{OSC8}link{C1}\rFAKE [red]x[/red]{BIDI}",
            reasons=[f"TEXT_THIN: {OSC52}12 words"],
            findings=[finding],
        )
    ]
    run = make_run(tmp_path / "run", pages).root
    res = runner.invoke(app, ["explain", str(run), url])
    assert res.exit_code == 0, res.output
    _assert_inert(res.output)
    assert "Title" in res.output and "FAKE [red]x[/red]" in res.output
    assert "ignoreprevious" in res.output
    assert "52;c;" not in res.output and "evil.example" not in res.output  # removed whole


@pytest.fixture
def cit_run(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run")


def test_citations_strip_escapes(runner, app, cit_run: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad_id = f"doc-7f3b{CLEAR}{OSC52}"
    turn = {
        "turn_id": f"t{OSC8}x{C1}",
        "question": "How much does the Pro plan cost per year?",
        "tool_calls": [
            {"tool": "kb_search", "kind": "search", "results": [{"id": "doc-7f3a", "score": 0.8}]}
        ],
        "answer": {"text": "It costs $490.", "citations": [{"id": bad_id}]},
    }
    src = tmp_path / "t.jsonl"
    src.write_text(json.dumps(turn) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["citations", str(src), "--run", str(cit_run)])
    assert res.exit_code == 0, res.output
    _assert_inert(res.output)
    assert "tx" in res.stdout


def test_cards_strip_escapes(runner, app, cit_run: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from trustaudit.cli.commands import citations as cmd

    monkeypatch.setattr(cmd, "make_embedder", lambda policy: None)
    card = {"card_id": f"c{CLEAR}{OSC52}{BIDI}1", "text": "A claim.", "source_url": f"nope{C1}"}
    src = tmp_path / "cards.jsonl"
    src.write_text(json.dumps(card) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["cards", str(src), "--run", str(cit_run)])
    assert res.exit_code == 0, res.output
    _assert_inert(res.output)
    assert res.stdout.startswith("c1 ")


def test_emoji_codes_in_page_strings_stay_text(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """rich turns `:white_check_mark:` into ✅ unless the console says not to; a page must not be
    able to print a check mark or a padlock next to its own title."""
    url = "https://a.example/:lock:x"
    title = ":white_check_mark: :lock: verified safe"
    run = make_run(tmp_path / "run", [page(url, 0.2, title=title)]).root
    res = runner.invoke(app, ["explain", str(run), url])
    assert res.exit_code == 0, res.output
    assert f"title: {title}" in res.stdout
    assert f"{url}  (doc_id" in res.stdout
    assert "\u2705" not in res.output and "\U0001f512" not in res.output


def test_error_line_stays_one_line(runner, app, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An exception text can quote input (a cell, a path): a CR must not return the cursor to
    print "all good" over the error, and a line break must not forge a second line."""
    import trustaudit.report.explain as explain_module

    def boom(*a: object, **k: object) -> None:
        raise ValueError(f"bad cell 'x\rall good{CLEAR}\ntrustaudit: gate PASS'")

    url = "https://a.example/x"
    run = make_run(tmp_path / "run", [page(url, 0.9)]).root
    monkeypatch.setattr(explain_module, "explain_page", boom)
    res = runner.invoke(app, ["explain", str(run), url])
    assert res.exit_code == 3
    lines = res.stderr.splitlines()
    assert len(lines) == 2 and lines[1].startswith("hint: ")
    assert lines[0] == (
        "trustaudit: error: internal error: ValueError: bad cell 'x all good trustaudit: gate PASS'"
    )
    assert "\r" not in res.stderr and "\x1b" not in res.stderr
