"""`trustaudit eval`: the planted-source eval; `trustaudit eval build`: make its queries file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
import typer.core

from trustaudit.cli._common import err_console, guarded, out_console
from trustaudit.errors import UsageError
from trustaudit.exit_codes import ExitCode
from trustaudit.policy import load_policy


class _DefaultRun(typer.core.TyperGroup):
    """`eval QUERIES ...` runs the eval; `eval build ...` builds queries (click has no default
    subcommand, so anything that is not a subcommand name is handed to `run`)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


eval_app = typer.Typer(
    cls=_DefaultRun,
    help="Planted-source eval: how many planted sources the trust layer lets into the context.\n\n"
    "Example: trustaudit eval queries.jsonl --run runs/demo --out runs/demo/eval",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@eval_app.command("run")
@guarded
def eval_run(
    queries: Annotated[
        Path, typer.Argument(help="JSONL: query, results [{url|doc_id, relevance, planted}].")
    ],
    run: Annotated[
        Path, typer.Option("--run", "-r", help="Run directory written by `trustaudit audit`.")
    ],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for eval.parquet, eval.md, eval.html.")
    ],
    transcripts: Annotated[
        Path | None,
        typer.Option(
            "--transcripts",
            "-t",
            help="Agent transcripts (the `citations` format): cited or not.",
        ),
    ] = None,
    policy: Annotated[
        Path | None,
        typer.Option("--policy", "-p", help="Policy TOML (fusion and gate tables)."),
    ] = None,
    max_planted_in_context: Annotated[
        float | None,
        typer.Option("--max-planted-in-context", help="Override gate.max_planted_in_context."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print eval.json on stdout.")] = False,
) -> None:
    """Run QUERIES' results through `fuse` with RUN's trust: per planted kind, how many are kept in
    context untagged, tagged medium, or filtered; how many the transcripts cite; clean results lost.

    Writes OUT/eval.parquet (query, url, planted, outcome, cited, ...), eval_summary.parquet,
    eval.json, eval.md, eval.html. Exit 0 ran, 1 an eval gate rule failed (gate.max_planted_in_context,
    gate.max_planted_cited, gate.max_clean_lost), 2 usage error.

    Example: trustaudit eval queries.jsonl --run runs/demo --out runs/demo/eval
    """
    from trustaudit.evals.report import write_eval
    from trustaudit.evals.run import evaluate
    from trustaudit.gate.rules import eval_rules

    overrides: dict[str, Any] = {}
    if max_planted_in_context is not None:
        overrides = {"gate": {"max_planted_in_context": max_planted_in_context}}
    pol = load_policy(policy, overrides=overrides or None)
    result = evaluate(queries, run, pol, transcripts=transcripts)
    rules = eval_rules(result.summary, pol)
    paths = write_eval(result, rules, out)
    err = err_console()
    for w in result.warnings:
        err.print(f"warning: {w}", markup=False)
    if as_json:
        typer.echo(paths[2].read_text(encoding="utf-8"))
    else:
        con = out_console()
        for r in result.summary.to_dicts():
            cited = (
                "" if r["cited_rate"] is None else f", cited {r['cited']}/{r['with_transcript']}"
            )
            con.print(
                f"{r['kind']:<12} {r['results']:>5} results: in context {r['in_context_rate']:.1%},"
                f" tagged medium {r['tagged_medium_rate']:.1%}, filtered {r['filtered_rate']:.1%}"
                + cited,
                markup=False,
            )
        for rule in rules:
            con.print(f"{rule.status.upper():<5} {rule.name}: {rule.message}", markup=False)
    err.print(f"wrote {', '.join(str(p) for p in paths)}", markup=False)
    if any(r.status == "fail" for r in rules):
        raise typer.Exit(int(ExitCode.GATE_FAILED))


@eval_app.command("build")
@guarded
def eval_build(
    run: Annotated[
        Path, typer.Option("--run", "-r", help="Run directory written by `trustaudit audit`.")
    ],
    labels: Annotated[
        Path, typer.Option("--labels", help="CSV url|doc_id,label[,kind] of the run's pages.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Queries JSONL to write.")],
    n: Annotated[int, typer.Option("--n", help="Queries to build.")] = 120,
    seed: Annotated[int, typer.Option("--seed", help="Random seed (same seed, same file).")] = 0,
    policy: Annotated[
        Path | None, typer.Option("--policy", "-p", help="Policy TOML (eval table).")
    ] = None,
) -> None:
    """Build a planted-source queries file from RUN and LABELS: each query plants one untrusted page
    (kinds affiliate, new_blog, llm_review, injection, cycled) among trusted-labelled results.

    Example: trustaudit eval build --run runs/demo --labels labels.csv --out queries.jsonl --n 120
    """
    from trustaudit.evals.build import build_queries, write_queries

    if n < 1:
        raise UsageError("--n must be >= 1")
    pol = load_policy(policy)
    queries, available, warnings = build_queries(run, labels, pol, n=n, seed=seed)
    write_queries(out, queries)
    err = err_console()
    for w in warnings:
        err.print(f"warning: {w}", markup=False)
    err.print(
        f"wrote {len(queries)} queries to {out}; planted pages per kind: {json.dumps(available)}",
        markup=False,
    )


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")
