"""The `trustaudit` typer app.

Commands live one per module in `trustaudit.cli.commands`; each exposes `register(app)`. Errors become
one line on stderr plus a hint, mapped to the named exit codes; tracebacks only with TRUSTAUDIT_DEBUG=1.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from typing import Annotated

import typer

from trustaudit import __version__
from trustaudit.cli._common import WIDTH, closed_stdout

app = typer.Typer(
    name="trustaudit",
    help="Score how far each web source deserves to be trusted before an LLM reads it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: rich markup would eat `[gate]` and `[fusion]` (TOML tables quoted in help)
    # and typer's rich panels label every flag `<bool>`.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"trustaudit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    width: Annotated[
        int | None,
        typer.Option(
            "--width",
            min=20,
            help="Columns for tables (default: the terminal's; 1000 when output is not a "
            "terminal, so URLs are never cut; $COLUMNS also works).",
        ),
    ] = None,
) -> None:
    """Score how far each web source deserves to be trusted before an LLM reads it."""
    WIDTH["width"] = width


def _register_commands() -> None:
    from trustaudit.cli import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register_commands()


def run() -> None:
    """Console-script entry point."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        app()
    except BrokenPipeError:  # outside a command (help, usage errors): same quiet exit
        closed_stdout()
        raise SystemExit(0) from None
