"""`report.escape.terminal`: the one sanitiser for input-derived strings on the terminal."""

from __future__ import annotations

import pytest

from trustaudit.report.escape import csv_cell, md, strip_invisible, terminal

HOSTILE = {
    "clear screen": ("a\x1b[2J\x1b[Hb", "ab"),
    "osc 8 link": ("x\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\y", "xclicky"),
    "osc 52 clipboard": ("\x1b]52;c;cm0gLXJmIH4=\x07ok", "ok"),
    "osc with C1 ST": ("\x9d0;title\x9cok", "ok"),
    "C1 CSI": ("red\x9b31mtext", "redtext"),
    "C1 NEL": ("a\x85b", "ab"),
    "carriage return": ("safe\rEVIL", "safe EVIL"),
    "bidi override": ("file\u202egnp.exe", "filegnp.exe"),
    "bidi isolate": ("a\u2067b\u2069c", "abc"),
    "zero width": ("ad\u200bmin", "admin"),
    "bell and backspace": ("a\x07\x08b", "ab"),
    "lone ESC": ("a\x1bb", "a"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_terminal_removes_sequences(name: str) -> None:
    raw, want = HOSTILE[name]
    out = terminal(raw)
    assert out == want
    assert not any(0x80 <= ord(c) <= 0x9F or ord(c) < 0x20 for c in out)


def test_terminal_escapes_rich_markup() -> None:
    from rich.console import Console

    console = Console(record=True, width=200, color_system=None)
    console.print(terminal("[bold red]hi[/] [link=https://x.example]l[/link] [gate]"))
    assert (
        console.export_text().strip() == "[bold red]hi[/] [link=https://x.example]l[/link] [gate]"
    )


def test_terminal_cut_and_multiline() -> None:
    assert terminal("abcdefgh", 5) == "abcd…"
    assert terminal("a\n  b\r\nc", multiline=True) == "a\nb\nc"
    assert terminal(None) == ""
    assert terminal(0.5) == "0.5"


def test_c1_controls_never_reach_csv_or_markdown() -> None:
    for fn in (csv_cell, md):
        out = fn("title\x9b2J\x85 \x1b]8;;http://e/\x07x")
        assert not any(0x80 <= ord(c) <= 0x9F or c == "\x1b" for c in out), fn.__name__
    assert strip_invisible("keep\ttab\nline") == "keep\ttab\nline"
