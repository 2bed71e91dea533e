"""`trustaudit crawl`: fetch URL lists politely and safely into a run directory.

Thin by design: parse flags into policy overrides, call `crawl_urls`, then the pipeline's ingest to
turn the committed crawl into pages/links/errors, and render progress on stderr.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from trustaudit.cli._common import err_console, guarded
from trustaudit.errors import UsageError
from trustaudit.io.atomic import json_text
from trustaudit.io.rundir import check_out, input_paths
from trustaudit.policy import load_policy


def crawl_overrides(
    *,
    allow_private: bool,
    ignore_robots: bool,
    timeout: float | None,
    delay: float | None,
    concurrency: int | None,
    user_agent: str | None,
) -> dict[str, Any]:
    """Flags are the top policy layer; only flags actually given override the file/env."""
    crawl: dict[str, Any] = {}
    if allow_private:
        crawl["allow_private"] = True
    if ignore_robots:
        crawl["ignore_robots"] = True
    if timeout is not None:
        if timeout <= 0:
            raise UsageError("--timeout must be > 0 seconds")
        crawl["timeout_s"] = timeout
    if delay is not None:
        if delay < 0:
            raise UsageError("--delay must be >= 0 seconds")
        crawl["delay_s"] = delay
    if concurrency is not None:
        if concurrency < 1:
            raise UsageError("--concurrency must be >= 1")
        crawl["concurrency"] = concurrency
    if user_agent:
        crawl["user_agent"] = user_agent
    return {"crawl": crawl} if crawl else {}


class _CrawlBar:
    """Rich progress on stderr: pages/s, errors so far, hosts in flight."""

    def __init__(self, quiet: bool) -> None:
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]crawl"),
            BarColumn(),
            TextColumn("{task.completed:>6,.0f}/{task.fields[of]}"),
            TextColumn("{task.fields[rate]:>7} pages/s"),
            TextColumn("{task.fields[errors]} errors"),
            TextColumn("{task.fields[hosts]} hosts in flight"),
            TimeElapsedColumn(),
            console=err_console(),
            disable=quiet,
        )
        self.task = self.bar.add_task("crawl", total=None, rate="-", errors=0, hosts=0, of="?")

    def __call__(self, p: Any) -> None:
        self.bar.update(
            self.task,
            completed=p.done,
            total=p.total,
            of=f"{p.total:,}",
            rate=f"{p.pages_per_s:,.1f}",
            errors=p.errors,
            hosts=p.hosts_in_flight,
        )


@guarded
def crawl_cmd(
    urls: Annotated[list[str], typer.Argument(help="URL lists: .txt (one a line, # comments), .csv (url column), - for stdin.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run directory (resumed when it exists).")],
    allow_private: Annotated[bool, typer.Option("--allow-private", help="Allow private/loopback addresses (intranets, tests); link-local stays blocked.")] = False,
    timeout: Annotated[float | None, typer.Option("--timeout", help="Total deadline per fetch in seconds (default 30).")] = None,
    delay: Annotated[float | None, typer.Option("--delay", help="Seconds between requests to one host (default 1).")] = None,
    concurrency: Annotated[int | None, typer.Option("--concurrency", "-c", help="Global concurrent fetches (default 8).")] = None,
    ignore_robots: Annotated[bool, typer.Option("--ignore-robots", help="Do not read robots.txt (only with permission).")] = False,
    user_agent: Annotated[str | None, typer.Option("--user-agent", help="User-Agent with a contact (default from policy).")] = None,
    warc: Annotated[Path | None, typer.Option("--warc", help="Also write every HTTP exchange to this WARC file (gzip).")] = None,
    rdap: Annotated[bool, typer.Option("--rdap", help="Look up domain registration dates via RDAP (cached).")] = False,
    fresh: Annotated[bool, typer.Option("--fresh", help="Start over instead of resuming.")] = False,
    policy: Annotated[Path | None, typer.Option("--policy", "-p", help="Policy TOML (default ./trustaudit.toml).")] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Extraction processes (0 = one per core).")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the fetch summary as JSON on stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:  # fmt: skip
    """Fetch URL lists (robots.txt, per-host politeness, SSRF guard, resumable) into RUN.

    Writes RUN/pages.parquet (url, text, ...), RUN/errors.parquet (url, code, ...), RUN/crawl/.

    Every URL line ends as a page or an error row. Exit 0 when it ran.

    Re-running the same command resumes without refetching finished URLs; --fresh starts over.

    Example: trustaudit crawl urls.txt --out runs/nightly --delay 2 --warc runs/nightly.warc.gz
    """
    from trustaudit.crawl import crawl_urls

    for u in urls:
        if u != "-" and not Path(u).is_file():
            raise UsageError(f"URL list not found: {u}", hint="pass .txt/.csv files or - for stdin")
    overrides = crawl_overrides(
        allow_private=allow_private,
        ignore_robots=ignore_robots,
        timeout=timeout,
        delay=delay,
        concurrency=concurrency,
        user_agent=user_agent,
    )
    pol = load_policy(policy, overrides=overrides)
    check_out(out, "crawl", list(urls), fresh=fresh)
    quiet = quiet or as_json
    bar = _CrawlBar(quiet)
    with bar.bar:
        stats = crawl_urls(list(urls), out, pol, fresh=fresh, warc_path=warc, progress=bar)
    summary: dict[str, Any] = {"crawl": stats.to_dict()}
    if rdap:
        summary["rdap"] = _rdap(out, pol, quiet)
    n_workers = workers if workers > 0 else (os.cpu_count() or 1)
    summary["ingest"] = _ingest_crawl(
        out, pol, workers=n_workers, fresh=fresh, quiet=quiet, inputs=list(urls)
    )
    from trustaudit.io.atomic import write_json

    write_json(
        out / "crawl" / "summary.json",
        {**stats.to_dict(), **{k: v for k, v in summary.items() if k != "crawl"}},
    )
    if as_json:
        typer.echo(json_text(summary))
    elif not quiet:
        t = stats.totals
        err_console().print(
            f"crawl: {stats.pages} pages, {stats.errors} errors this run "
            f"({stats.resumed} resumed); run totals {t.get('pages', 0)} pages, "
            f"{t.get('errors', 0)} errors; {stats.pages_per_s} pages/s -> {out}"
        )


def _rdap(out: Path, pol: Any, quiet: bool) -> dict[str, Any]:
    from trustaudit.crawl.crawler import make_guard
    from trustaudit.crawl.rdap import lookup_run_domains, rdap_client

    client = rdap_client(pol, guard=make_guard(pol))
    return lookup_run_domains(out, client)


def _ingest_crawl(
    out: Path, pol: Any, *, workers: int, fresh: bool, quiet: bool, inputs: list[str]
) -> dict[str, Any]:
    """Extract the committed crawl into pages/links/errors through the pipeline's map stage.

    Ingest resumes by batch index; CrawlSource batches never span parts, so indices stay valid
    when a resumed crawl appends parts. `--fresh` wipes the ingest parts with the crawl.
    """
    from trustaudit.crawl.source import CrawlSource
    from trustaudit.io.rundir import RunDir
    from trustaudit.pipeline import ingest, merge_parts

    run = RunDir.at(out)
    t0 = time.perf_counter()
    with run.locked():
        if fresh:
            shutil.rmtree(run.parts, ignore_errors=True)
        stats = ingest([CrawlSource(out)], run, pol, workers=workers)
        counts = merge_parts(run)
        manifest = run.read_manifest()
        manifest.update(command="crawl", input_paths=input_paths(inputs))
        manifest.setdefault("stages", {})["crawl"] = {
            "status": "done",
            "summary": str(out / "crawl" / "summary.json"),
            **counts,
        }
        run.write_manifest(manifest)
    return {**counts, "batches": stats.batches, "seconds": round(time.perf_counter() - t0, 3)}


def register(app: typer.Typer) -> None:
    app.command("crawl")(crawl_cmd)
