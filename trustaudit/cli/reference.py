"""The README's command reference, rendered from the CLI itself so the two cannot drift apart.

`python -m trustaudit.cli.reference --write` refreshes README.md between the markers; a test fails
when the README section differs from what the code would render.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

START = "<!-- cli-reference:start -->"
END = "<!-- cli-reference:end -->"


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


def section_of(readme: str) -> str | None:
    if START not in readme or END not in readme:
        return None
    return readme.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def write(readme_path: Path) -> None:
    text = readme_path.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme_path.write_text(f"{head}{START}\n{render()}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("README.md")
    if "--write" in sys.argv:
        write(target)
    else:
        sys.stdout.write(render())
