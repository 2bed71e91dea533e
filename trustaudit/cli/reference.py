"""The generated references in docs/: the CLI's commands and the policy's keys, rendered from the code.

`python -m trustaudit.cli.reference --write` refreshes `docs/cli.md` and `docs/policy.md` between
their markers; tests fail when a page differs from what the code would render, so neither can drift
from the CLI's `--help` or from `trustaudit policy show`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import typer

START = "<!-- cli-reference:start -->"
END = "<!-- cli-reference:end -->"
POLICY_START = "<!-- policy-reference:start -->"
POLICY_END = "<!-- policy-reference:end -->"

DOCS = Path(__file__).resolve().parents[2] / "docs"
CLI_PAGE = DOCS / "cli.md"
POLICY_PAGE = DOCS / "policy.md"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _command_md(path: str, cmd: Any) -> list[str]:
    out = [f"### `{path}`", ""]
    doc = (cmd.help or "").strip()
    if doc:
        out += [_cell(doc.split("\n\n")[0]), ""]
        example = next((p for p in doc.split("\n\n") if p.strip().startswith("Example")), None)
        if example:
            out += ["```", example.split(":", 1)[1].strip(), "```", ""]
    rows = []
    for p in cmd.params:
        if getattr(p, "param_type_name", "") == "argument":
            rows.append(
                (
                    f"`{p.name.upper()}`" + ("…" if p.nargs == -1 else ""),
                    _cell(getattr(p, "help", None) or ""),
                    "argument",
                )
            )
        elif getattr(p, "param_type_name", "") == "option":
            if "--help" in p.opts:
                continue
            names = ", ".join(f"`{o}`" for o in (*p.opts, *p.secondary_opts))
            default = (
                "" if p.is_flag or p.default in (None, (), [], False) else f" (default {p.default})"
            )
            rows.append((names, _cell((p.help or "") + default), "required" if p.required else ""))
    if rows:
        out += ["| parameter | meaning | |", "|---|---|---|"]
        out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
        out.append("")
    return out


def render(app: typer.Typer | None = None) -> str:
    """Markdown for every command and sub-command, in a stable order."""
    if app is None:
        from trustaudit.cli.main import app as _app

        app = _app
    root = typer.main.get_command(app)
    lines: list[str] = []
    for name in sorted(root.commands):  # type: ignore[attr-defined]
        cmd = root.commands[name]  # type: ignore[attr-defined]
        if hasattr(cmd, "commands"):  # typer vendors click: duck-type groups
            for sub in sorted(cmd.commands):
                lines += _command_md(f"trustaudit {name} {sub}", cmd.commands[sub])
        else:
            lines += _command_md(f"trustaudit {name}", cmd)
    return "\n".join(lines).rstrip() + "\n"


def _literal(value: Any) -> str:
    """A default as it would be written in trustaudit.toml (tuples are TOML arrays)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_literal(v)}" for k, v in value.items()) + " }"
    return repr(value)


def _code(text: str) -> str:
    """A table cell in backticks; a default holding a backtick gets a longer fence."""
    fence = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    body = text.replace("|", "\\|")
    return f"{fence}{pad}{body}{pad}{fence}"


def _section_md(name: str, obj: Any) -> list[str]:
    rows: list[str] = []
    subs: list[tuple[str, Any]] = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value):
            subs.append((f"{name}.{f.name}" if name else f.name, value))
            continue
        rows.append(
            f"| `{f.name}` | {_code(_literal(value))} | {_cell(f.metadata.get('doc', ''))} |"
        )
    out: list[str] = []
    if rows:
        out += [f"### `[{name}]`" if name else "### top level", ""]
        doc = (type(obj).__doc__ or "").strip().split("\n\n")[0]
        if doc and name and not doc.startswith(type(obj).__name__ + "("):  # not the dataclass repr
            out += [_cell(doc), ""]
        out += ["| key | default | meaning |", "|---|---|---|", *rows, ""]
    for sub_name, sub in subs:
        out += _section_md(sub_name, sub)
    return out


def render_policy() -> str:
    """Markdown for every policy key: its TOML table, default and documented meaning."""
    from trustaudit.policy import Policy

    return "\n".join(_section_md("", Policy())).rstrip() + "\n"


def section_of(text: str, start: str = START, end: str = END) -> str | None:
    """The generated part of a page, between its markers (None when a marker is missing)."""
    if start not in text or end not in text:
        return None
    return text.split(start, 1)[1].split(end, 1)[0].strip("\n") + "\n"


def write(page: Path, body: str, start: str = START, end: str = END) -> None:
    """Replace what lies between the markers of `page` with `body`."""
    text = page.read_text(encoding="utf-8")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    page.write_text(f"{head}{start}\n{body}{end}{tail}", encoding="utf-8")


def write_all(docs: Path = DOCS) -> None:
    """Refresh both generated references."""
    write(docs / "cli.md", render())
    write(docs / "policy.md", render_policy(), POLICY_START, POLICY_END)


if __name__ == "__main__":
    if "--write" in sys.argv:
        write_all(Path(sys.argv[2]) if len(sys.argv) > 2 else DOCS)
    elif "--policy" in sys.argv:
        sys.stdout.write(render_policy())
    else:
        sys.stdout.write(render())
