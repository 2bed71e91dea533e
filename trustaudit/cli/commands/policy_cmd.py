"""`trustaudit policy show`: the effective policy with its documented defaults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from trustaudit.cli._common import guarded
from trustaudit.policy import load_policy, policy_hash, policy_toml

policy_app = typer.Typer(
    help="Inspect the policy (weights, bands, lists, rules).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@policy_app.command("show")
@guarded
def show(
    policy: Annotated[
        Path | None, typer.Option("--policy", "-p", help="Policy TOML (default ./trustaudit.toml).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON instead of commented TOML.")
    ] = False,
) -> None:
    """Print the effective policy: defaults < trustaudit.toml < TRUSTAUDIT_* env.

    Example: trustaudit policy show --policy trustaudit.toml > effective.toml
    """
    p = load_policy(policy)
    if as_json:
        typer.echo(
            json.dumps(
                {"hash": policy_hash(p), "policy": p.to_dict()}, indent=2, ensure_ascii=False
            )
        )
    else:
        typer.echo(f"# effective trustaudit policy (hash {policy_hash(p)})")
        typer.echo(policy_toml(p), nl=False)


def register(app: typer.Typer) -> None:
    app.add_typer(policy_app, name="policy")
