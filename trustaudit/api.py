"""The supported Python API: thin wrappers over the pipeline's own stages, re-exported by `trustaudit`.

A notebook, an Airflow task or a Dagster asset needs one entry point per job, not ten imports from
seven modules in an undocumented order. Each function here wires existing stage functions the way the
pipeline does; none holds logic of its own, so the CLI and the API cannot disagree.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl
import pyarrow as pa

from trustaudit.errors import RunDirError, UsageError
from trustaudit.policy import Policy
from trustaudit.policy import load_policy as _load_policy

if TYPE_CHECKING:
    from trustaudit.embed.base import Embedder
    from trustaudit.progress import Progress

__all__ = [
    "Extracted",
    "Run",
    "audit",
    "compute_signals",
    "extract_pages",
    "load_policy",
    "read_run",
    "score_pages",
]

PathLike = str | Path


# ------------------------------------------------------------------ policy
def load_policy(path: PathLike | None = None, **overrides: Any) -> Policy:
    """The effective policy: defaults < `path` (or ./trustaudit.toml) < environment < `overrides`.

    Overrides are given per section, as the TOML would nest them:
    `load_policy(bands={"quarantine_below": 0.5}, profile="strict")`. A wrong key or type raises
    `PolicyError` naming it, exactly as a typo in trustaudit.toml does.
    """
    return _load_policy(path, overrides=overrides or None)


def _policy(policy: Policy | PathLike | None) -> Policy:
    return policy if isinstance(policy, Policy) else _load_policy(policy)


def _date(value: date | str | None) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"now must be an ISO date (YYYY-MM-DD), got {value!r}") from None


# ------------------------------------------------------------------ the whole job
def _called_at_script_top_level() -> bool:
    """True when `python script.py` is running this call from the script's unguarded top level.

    Extraction workers start through multiprocessing's forkserver, which re-imports that script
    in every worker: an unguarded top-level `audit(...)` would run again there (and find its own
    run locked). A notebook, `python -c`, or a call under `if __name__ == "__main__":` is safe.
    """
    import ast
    import inspect
    import sys

    main = sys.modules.get("__main__")
    main_file = getattr(main, "__file__", None)
    if not main_file or not str(main_file).endswith(".py"):
        return False
    frame = inspect.currentframe()
    while frame is not None and not (
        frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)
    ):
        frame = frame.f_back
    if frame is None:
        return False
    line = frame.f_lineno
    try:
        tree = ast.parse(Path(main_file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return False
    for node in tree.body:
        if (
            isinstance(node, ast.If)
            and "__main__" in ast.unparse(node.test)
            and node.lineno <= line <= (node.end_lineno or node.lineno)
        ):
            return False
    return True


def _workers(workers: int) -> int:
    """`workers=0`: one process per core, or this process alone when worker processes would
    re-run the calling script; an explicit `workers > 1` there is refused with the fix."""
    if workers == 1 or not _called_at_script_top_level():
        return workers if workers > 0 else (os.cpu_count() or 1)
    if workers > 1:
        raise UsageError(
            f"audit(workers={workers}) at the top level of a script: every worker process would "
            'run the script again; put the call under `if __name__ == "__main__":`',
            hint='put the call under `if __name__ == "__main__":`, or pass workers=1',
        )
    import warnings

    warnings.warn(
        "trustaudit.audit() called at the top level of a script: extracting in this process; "
        'put it under `if __name__ == "__main__":` for one worker per core',
        RuntimeWarning,
        stacklevel=3,
    )
    return 1


def _list_overrides(
    allowlist: Sequence[PathLike] | None,
    blocklist: Sequence[PathLike] | None,
    domain_info: PathLike | None,
    anchors: Sequence[PathLike] | None,
) -> dict[str, Any]:
    """Lists given as arguments are the top layer of the policy, as the CLI's flags are."""
    given = [*(allowlist or ()), *(blocklist or ()), *(anchors or ())]
    given += [domain_info] if domain_info else []
    for p in given:
        if not Path(p).is_file():
            raise UsageError(f"file not found: {p}")
    out: dict[str, Any] = {}
    domain: dict[str, Any] = {}
    if allowlist:
        domain["allowlist_files"] = [str(p) for p in allowlist]
    if blocklist:
        domain["blocklist_files"] = [str(p) for p in blocklist]
    if domain_info:
        domain["domain_info_file"] = str(domain_info)
    if domain:
        out["domain"] = domain
    if anchors:
        out["anchors"] = {"anchor_files": [str(p) for p in anchors]}
    return out


def audit(
    inputs: PathLike | Iterable[PathLike],
    out: PathLike,
    *,
    policy: Policy | PathLike | None = None,
    allowlist: Sequence[PathLike] | None = None,
    blocklist: Sequence[PathLike] | None = None,
    domain_info: PathLike | None = None,
    anchors: Sequence[PathLike] | None = None,
    workers: int = 0,
    progress: Progress | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run `trustaudit audit` in-process and return its summary (the content of summary.json).

    `options` are the pipeline's other audit options (`fresh`, `now`, `labels`, `cache`, `since`, and
    any it gains), named as on the command line; an unknown one is a TypeError, never ignored.
    `workers=0` means one extraction process per core (one process in all when called from the
    top level of a script, which worker processes would re-run). Bad inputs raise
    `TrustAuditError`.
    """
    from trustaudit.pipeline import AuditOptions
    from trustaudit.pipeline import audit as _audit

    known = {f.name for f in dataclasses.fields(AuditOptions)} - {"inputs", "out", "workers"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"audit() got unknown option(s) {unknown}; known: {sorted(known)}")
    if "now" in options:
        options["now"] = _date(options["now"])
    for key in ("labels", "cache", "since"):
        if options.get(key) is not None:
            options[key] = Path(options[key])
    if options.get("labels") is not None and not options["labels"].is_file():
        raise UsageError(f"labels file not found: {options['labels']}")
    paths = [inputs] if isinstance(inputs, str | Path) else list(inputs)
    layers = _list_overrides(allowlist, blocklist, domain_info, anchors)
    if isinstance(policy, Policy):
        pol = policy.with_overrides(layers) if layers else policy
    else:
        pol = _load_policy(policy, overrides=layers or None)
    if options.get("judge_urls") and not pol.judge.configured:  # as `audit --judge-url` does
        raise UsageError(
            "judge_urls needs a judge: set [judge] endpoint and model",
            hint="load_policy(judge={'endpoint': 'http://127.0.0.1:8000/v1', 'model': '...'})",
        )
    opts = AuditOptions(
        inputs=[os.fspath(p) for p in paths],
        out=Path(out),
        workers=_workers(workers),
        **options,
    )
    return _audit(opts, pol, progress=progress)


# ------------------------------------------------------------------ reading a run
@dataclasses.dataclass(frozen=True)
class Run:
    """A finished run directory's tables as eager Polars frames (columns: docs/run-directory.md)."""

    path: Path
    manifest: dict[str, Any]
    pages: pl.DataFrame
    links: pl.DataFrame
    signals: pl.DataFrame
    scores: pl.DataFrame
    domains: pl.DataFrame
    errors: pl.DataFrame


_TABLES = ("pages", "links", "signals", "scores", "domains", "errors")


def read_run(path: PathLike) -> Run:
    """Read a finished run; raises RunDirError (with a hint) when `path` is not one."""
    from trustaudit.io.rundir import RunDir

    run = RunDir.at(path)
    run.require("manifest.json")
    manifest = run.read_manifest()
    if not manifest.get("completed_at"):
        raise RunDirError(
            f"{run.root} is not a finished run (no completed_at in its manifest)",
            hint="re-run `trustaudit audit` with the same --out to finish it",
        )
    frames = {name: run.read(name) for name in _TABLES}
    return Run(path=run.root, manifest=manifest, **frames)


# ------------------------------------------------------------------ frames in, frames out
class Extracted(NamedTuple):
    """What extraction makes of a batch of records (unpacks as `pages, links, errors`)."""

    pages: pl.DataFrame
    links: pl.DataFrame
    errors: pl.DataFrame


_ALIASES = {"html": "body", "text": "given_text"}


def _records(records: pl.DataFrame | Sequence[Mapping[str, Any]]) -> pa.Table:
    """User rows (url + html|text, optional record fields, extra columns) -> the record table."""
    from trustaudit.io.records import RECORD_COLUMNS, records_table

    frame = records if isinstance(records, pl.DataFrame) else pl.DataFrame(list(records))
    if "url" not in frame.columns or not ({"html", "text", "body"} & set(frame.columns)):
        raise UsageError(
            "records need a `url` column and an `html` (or `text`) column",
            hint="pl.DataFrame({'url': [...], 'html': [...]})",
        )
    rows = frame.rename({k: v for k, v in _ALIASES.items() if k in frame.columns}).to_dicts()
    for i, row in enumerate(rows):
        if isinstance(row.get("body"), str):
            row["body"] = row["body"].encode("utf-8")
        row.setdefault("source", "api")
        row["source"] = row["source"] or "api"
        if row.get("offset") is None:
            row["offset"] = i
    extra = [c for c in rows[0] if c not in RECORD_COLUMNS] if rows else []
    return records_table(rows, extra_columns=extra)


def extract_pages(
    records: pl.DataFrame | Sequence[Mapping[str, Any]], policy: Policy | PathLike | None = None
) -> Extracted:
    """The map stage on records held in memory: pages, links and error rows, as a run would make.

    Like a run, a second record of the same URL becomes a DUPLICATE_URL error row (the first is kept)
    and every record ends as exactly one page row or one error row.
    """
    from trustaudit.io.extract import extract_records
    from trustaudit.io.records import errors_table
    from trustaudit.scoring.domain import with_registered_domain

    pol = _policy(policy)
    table = _records(records)
    result = extract_records(table, pol)
    pages = with_registered_domain(pl.from_arrow(result.pages))  # type: ignore[arg-type]
    links = with_registered_domain(pl.from_arrow(result.links))  # type: ignore[arg-type]
    errors: pl.DataFrame = pl.from_arrow(errors_table(result.errors))  # type: ignore[assignment]
    first = pages.select(pl.col("doc_id").is_first_distinct()).to_series()
    if not first.all():
        dups = pages.filter(~first)
        errors = pl.concat(
            [
                errors,
                dups.select(
                    "source",
                    "offset",
                    "url",
                    stage=pl.lit("dedupe"),
                    code=pl.lit("DUPLICATE_URL"),
                    message=pl.lit("same URL as an earlier record"),
                ),
            ],
            how="diagonal_relaxed",
        )
        keys = dups.select(
            _record=pl.concat_str([pl.col("source"), pl.lit("#"), pl.col("offset").cast(pl.String)])
        )
        links = links.join(keys, on="_record", how="anti")
        pages = pages.filter(first)
    links = links.drop("_record", strict=False)
    return Extracted(pages, links, errors)


def compute_signals(
    pages: pl.DataFrame,
    links: pl.DataFrame,
    policy: Policy | PathLike | None = None,
    *,
    now: date | str | None = None,
    embedder: Embedder | None = None,
) -> pl.DataFrame:
    """Every signal family over a batch of pages: one row per doc_id, as in signals.parquet.

    The same families, in the same order, as a run's signal stage, reading the allow/blocklists,
    domain-info CSV and anchor files the policy names. `now` (default today) dates domain age and
    activity. Corpus families compare the pages with each other: pass the whole batch at once.
    """
    from trustaudit.embed import get_embedder
    from trustaudit.stages import read_domain_evidence, signal_tables

    pol = _policy(policy)
    tables = signal_tables(
        pages,
        links,
        pol,
        now=_date(now) or datetime.now(UTC).date(),
        evidence=read_domain_evidence(pol),
        embedder=lambda: embedder or get_embedder(pol.embeddings),
    )
    return tables.signals


def score_pages(signals: pl.DataFrame, policy: Policy | PathLike | None = None) -> pl.DataFrame:
    """Trust score, band, reasons and sub-scores per page: the function `trustaudit score` runs."""
    from trustaudit.scoring.score import score

    return score(signals, _policy(policy))
