"""The `trustaudit` typer app.

Commands live one per module in `trustaudit.cli.commands`; each exposes `register(app)`. Errors become
one line on stderr plus a hint, mapped to the named exit codes; tracebacks only with TRUSTAUDIT_DEBUG=1.
"""

from __future__ import annotations

import importlib
import os
import pkgutil

import typer

from trustaudit import __version__

app = typer.Typer(
    name="trustaudit",
    help="Score how far each web source deserves to be trusted before an LLM reads it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"trustaudit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Score how far each web source deserves to be trusted before an LLM reads it."""


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
    app()
