"""`trustaudit fuse`: attach a run's trust to retrieval results and re-rank them for an LLM context."""

from __future__ import annotations

import dataclasses
import sys
import zlib
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from trustaudit.cli._common import err_console, guarded
from trustaudit.errors import UsageError
from trustaudit.exit_codes import ExitCode
from trustaudit.fusion import (
    FuseOutcome,
    ParsedResults,
    anthropic_search_results,
    fuse_results,
    fused_jsonl,
)
from trustaudit.io.atomic import atomic_open, json_text
from trustaudit.io.lists import check_regular_file
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy, load_policy
from trustaudit.report.escape import terminal

SHOWN_ERRORS = 20  # bad lines printed on stderr; the --json summary lists up to JSON_ERRORS
JSON_ERRORS = 1000
SHOWN_QUERIES = 20


def inert(text: Any, width: int = 70) -> str:
    """Untrusted text (URLs, queries) made safe for a rich terminal (`report.escape.terminal`)."""
    return terminal(text, width)


def read_results_text(path: str) -> tuple[str, str]:
    """(text, display name) of RESULTS: a file, `-` for stdin, gzip when the name ends in .gz."""
    if path == "-":
        data = typer.get_binary_stream("stdin").read(MAX_RESULTS_BYTES + 1)
        name = "<stdin>"
    else:
        p = Path(path)
        if p.is_dir():
            raise UsageError(
                f"RESULTS is a directory: {p}", hint="pass a JSONL file or - for stdin"
            )
        if p.exists():
            check_regular_file(p, "results file")  # a FIFO hung, /dev/zero never ended
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise UsageError(f"results file not found: {p}") from None
        except OSError as exc:
            raise UsageError(f"cannot read {p}: {exc.strerror or exc}") from None
        name = str(p)
    if path.endswith(".gz") or data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip_capped(data, name)
        except (OSError, EOFError, zlib.error) as exc:
            raise UsageError(f"{name} is not valid gzip: {exc}") from None
    if len(data) > MAX_RESULTS_BYTES:
        raise UsageError(
            f"{name} is larger than {MAX_RESULTS_BYTES} bytes (after decompression)",
            hint="split the results into smaller files",
        )
    # one undecodable byte spoils one line (replacement character), not the batch
    return data.decode("utf-8", errors="replace"), name


# A 1 MB .jsonl.gz expanding to 1 GiB took 3.3 GB of memory: results are read whole, so capped.
MAX_RESULTS_BYTES = 256 << 20


def _gunzip_capped(data: bytes, name: str) -> bytes:
    """gzip members of `data` decompressed, stopping one byte past MAX_RESULTS_BYTES."""
    out: list[bytes] = []
    size = 0
    while data and size <= MAX_RESULTS_BYTES:
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        out.append(d.decompress(data, MAX_RESULTS_BYTES + 1 - size))
        size += len(out[-1])
        if not d.eof:
            if d.unconsumed_tail or size > MAX_RESULTS_BYTES:
                break  # over the cap: the caller refuses it
            raise EOFError(f"{name}: compressed data ends early")
        data = d.unused_data
    return b"".join(out)


def _overrides(**flags: Any) -> dict[str, Any]:
    given = {k: v for k, v in flags.items() if v is not None}
    return {"fusion": given} if given else {}


def summary_dict(
    outcome: FuseOutcome, pol: Policy, *, run: Path, results: str, out: str | None
) -> dict[str, Any]:
    """The machine summary (`--json`): totals, per-query rows, bad lines, the effective policy."""
    parsed, per_query = outcome.parsed, outcome.summary
    fused = outcome.fused
    fusion = dataclasses.asdict(pol.fusion) | {
        "medium_tag": pol.fusion.medium_tag or pol.bands.medium_tag
    }
    return {
        "run": str(run),
        "results_file": results,
        "out": out,
        "policy": fusion,
        "seen": parsed.seen,
        "results": fused.height,
        "bad_lines": len(parsed.bad),
        "errors": [{parsed.unit: b.line, "message": b.message} for b in parsed.bad[:JSON_ERRORS]],
        "queries": per_query.height,
        "in_context": int(fused.get_column("in_context").sum()),
        "dropped": int((~fused.get_column("in_context")).sum()),
        "quarantined": int(per_query.get_column("quarantined").sum()),
        "unscored": int(per_query.get_column("unscored").sum()),
        "research_advised": int(per_query.get_column("research_advised").sum()),
        "per_query": per_query.to_dicts(),
    }


def print_summary(data: dict[str, Any], console: Console) -> None:
    """Per-query table (escaped: queries and URLs are untrusted text) and a totals line."""
    rows = data["per_query"]
    k = data["policy"]["top_k"]
    table = Table(title="trustaudit fuse", header_style="bold")
    table.add_column("query", max_width=24)
    for col in ("results", "kept", "dropped", "unscored", f"trust@{k}", "re-search"):
        table.add_column(col, justify="right")
    table.add_column("top result", overflow="fold", min_width=16)
    for r in rows[:SHOWN_QUERIES]:
        mean = r["mean_trust_top_k"]
        research = "[bold red]yes[/]" if r["research_advised"] else "[green]no[/]"
        table.add_row(
            inert(r["query"], 40),
            str(r["results"]),
            str(r["kept"]),
            str(r["dropped"]),
            str(r["unscored"]),
            "-" if mean is None else f"{mean:.3f}",
            research,
            inert(r["top_url"]) if r["top_url"] else "[dim]none kept[/]",
        )
    if rows:
        console.print(table)
    if len(rows) > SHOWN_QUERIES:
        console.print(f"… {len(rows) - SHOWN_QUERIES} more queries (--json lists all)")
    console.print(
        f"{data['results']} results in {data['queries']} queries: {data['in_context']} in context,"
        f" {data['dropped']} dropped ({data['quarantined']} quarantined), {data['unscored']}"
        f" unscored; re-search advised for {data['research_advised']} queries"
        + (f"; {data['bad_lines']} bad lines skipped" if data["bad_lines"] else "")
    )
    if data["out"]:
        console.print(f"results: {inert(data['out'], 200)}")


def _report_bad(parsed: ParsedResults, name: str) -> None:
    for b in parsed.bad[:SHOWN_ERRORS]:
        typer.echo(f"trustaudit: warning: {name}:{parsed.unit} {b.line}: {b.message}", err=True)
    if len(parsed.bad) > SHOWN_ERRORS:
        more = len(parsed.bad) - SHOWN_ERRORS
        typer.echo(f"trustaudit: warning: … and {more} more bad {parsed.unit}s", err=True)


@guarded
def fuse_cmd(
    results: Annotated[
        str,
        typer.Argument(
            metavar="RESULTS",
            help="Retrieval results: JSONL (or a JSON array; .gz ok), `-` for stdin.",
        ),
    ],
    run_dir: Annotated[
        Path, typer.Option("--run", "-r", help="Run directory written by `trustaudit audit`.")
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the fused JSONL here (atomic); default stdout."),
    ] = None,
    policy: Annotated[
        Path | None,
        typer.Option(
            "--policy", "-p", help="Policy TOML with a [fusion] table (default ./trustaudit.toml)."
        ),
    ] = None,
    alpha: Annotated[
        float | None, typer.Option("--alpha", help="Relevance weight (fusion.alpha).")
    ] = None,
    beta: Annotated[
        float | None, typer.Option("--beta", help="Trust weight (fusion.beta).")
    ] = None,
    top_k: Annotated[
        int | None, typer.Option("--top-k", "-k", help="Context size per query (fusion.top_k).")
    ] = None,
    research_below: Annotated[
        float | None,
        typer.Option("--research-below", help="Advise a re-search below this top-k mean trust."),
    ] = None,
    unscored_trust: Annotated[
        float | None,
        typer.Option("--unscored-trust", help="Trust used for URLs the run never scored."),
    ] = None,
    min_trust: Annotated[
        float | None,
        typer.Option(
            "--min-trust", help="Also drop from the context results trusted less than this."
        ),
    ] = None,
    drop_unscored: Annotated[
        bool | None,
        typer.Option(
            "--drop-unscored/--keep-unscored", help="Keep unscored URLs out of the context."
        ),
    ] = None,
    normalize: Annotated[
        str | None,
        typer.Option(
            "--normalize", help="Relevance scaling per query: auto, minmax, sigmoid, none."
        ),
    ] = None,
    score_field: Annotated[
        str | None,
        typer.Option(
            "--score-field",
            help="Use only this field as relevance (default: rerank_score, score, relevance, rank).",
        ),
    ] = None,
    output_format: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl: every result with the fusion fields; anthropic: per query, the kept results"
            " as Anthropic `search_result` blocks with the trust badge in title and first text block.",
        ),
    ] = "jsonl",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON on stdout (needs --out).")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No summary table; warnings only.")
    ] = False,
    strict: Annotated[
        bool, typer.Option("--strict", help="Any bad line is an error (exit 2).")
    ] = False,
    fail_on_research: Annotated[
        bool,
        typer.Option("--fail-on-research", help="Exit 1 when any query is advised a re-search."),
    ] = False,
) -> None:
    """Attach the run's trust to retrieval results and re-rank: final = alpha*relevance +
    beta*trust; quarantined pages leave the context, medium pages are tagged, a re-search is
    advised when the top-k mean trust is low. Every result is kept in the output, marked.

    Each JSONL line needs `query` or `query_id`, `url`, and `rerank_score`, `score`, `relevance`
    or `rank`; other fields pass through (a clashing name becomes `input_<name>`). Added: rank,
    final_score, relevance_norm, relevance_from, trust_score, trust_used, band, tag, in_context,
    in_top_k, drop_reason, reasons, run_doc_id. Exit 0 ok, 1 with --fail-on-research when a
    query needs a re-search, 2 usage/input error.

    With --format anthropic each output line is {"query", "content": a list of search_result blocks} for
    the kept results, ready to be a tool_result's content (citations enabled; trust, band and the
    medium-trust tag in each block's title and first text block).

    Example: trustaudit fuse hits.jsonl --run runs/demo --out fused.jsonl --top-k 5
    """
    if as_json and out is None:
        raise UsageError(
            "--json prints the summary on stdout, where the results go without --out",
            hint="add --out FILE (or drop --json: the summary table goes to stderr)",
        )
    if output_format not in ("jsonl", "anthropic"):
        raise UsageError(f"--format must be jsonl or anthropic, not {output_format!r}")
    if out is not None and out.is_dir():
        raise UsageError(f"--out is a directory: {out}", hint="pass a file path for the JSONL")
    pol = load_policy(
        policy,
        overrides=_overrides(
            alpha=alpha,
            beta=beta,
            top_k=top_k,
            research_below=research_below,
            unscored_trust=unscored_trust,
            min_trust=min_trust,
            drop_unscored=drop_unscored,
            normalize=normalize,
        ),
    )
    run = RunDir.at(run_dir)
    run.require("scores.parquet")
    text, name = read_results_text(results)
    outcome = fuse_results(
        text,
        run.scan("scores"),
        pol.fusion,
        medium_tag=pol.bands.medium_tag,
        score_field=score_field,
        errors=run.scan("errors") if run.errors.exists() else None,
    )
    parsed = outcome.parsed
    _report_bad(parsed, name)
    if parsed.bad and (strict or outcome.fused.height == 0):
        why = "--strict" if strict else "no usable result"
        raise UsageError(
            f"{why}: {len(parsed.bad)} of {parsed.seen} {parsed.unit}s in {name} are not usable",
            hint="each result needs query|query_id, url and rerank_score|score|relevance|rank",
        )
    if output_format == "anthropic":
        lines = anthropic_search_results(outcome.fused)
    else:
        lines = fused_jsonl(outcome.fused)
    body = "\n".join(lines.to_list()) + ("\n" if lines.len() else "")
    if out is not None:
        with atomic_open(out) as fh:
            fh.write(body)
    else:
        sys.stdout.write(body)
        sys.stdout.flush()
    data = summary_dict(
        outcome, pol, run=run.root, results=name, out=None if out is None else str(out)
    )
    if as_json:
        typer.echo(json_text(data))
    elif not quiet:
        print_summary(data, err_console())
    if fail_on_research and data["research_advised"]:
        raise typer.Exit(int(ExitCode.GATE_FAILED))


def register(app: typer.Typer) -> None:
    app.command("fuse")(fuse_cmd)
