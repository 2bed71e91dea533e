"""What report.html shows of the trust layer: the tail judge's counts and the planted-source eval.

Both are read from what their stages wrote, never recomputed: `manifest.json` → `stages.score.judge`
(and `stages.signals.families.behaviour`), and an eval folder (`eval.json`, `eval.parquet`). The eval
folder is the one given (`eval_dir`), else `RUN/eval/` — where `trustaudit eval ... --out RUN/eval`
puts it. Numbers and our own codes come back as plain values for the server-rendered tables; page
strings (queries, URLs) only as rows for the JSON data block, which the script renders as text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.io.rundir import RunDir
from trustaudit.report.escape import one_line, safe_href

JUDGE_COUNTS = (
    ("selected", "tail pages selected"),
    ("sent_or_cached", "sent or recalled from the cache (at most judge.max_pages)"),
    ("calls", "requests made"),
    ("cache_hits", "verdicts from the cache"),
    ("failed", "failed (JUDGE_FAILED, no adjustment)"),
    ("skipped_budget", "over the budget (JUDGE_SKIPPED_BUDGET)"),
    ("skipped_injection", "not sent: flagged for injection"),
    ("named_not_in_run", "--judge-url pages the run lacks"),
    ("max_pages", "judge.max_pages"),
)
EVAL_COLUMNS = (
    ("kind", "kind"),
    ("results", "results"),
    ("in_context", "in context (untagged)"),
    ("tagged_medium", "tagged medium"),
    ("filtered", "filtered"),
    ("in_context_rate", "in-context rate"),
    ("cited", "cited"),
    ("with_transcript", "with transcript"),
)
LEAK_ORDER = {"in_context": 0, "tagged_medium": 1}


def judge_rows(manifest: dict[str, Any]) -> list[list[Any]]:
    """[count, meaning, value] rows of the tail judge's manifest counts; [] when it did not run."""
    counts = (manifest.get("stages") or {}).get("score", {}).get("judge")
    if not isinstance(counts, dict):
        return []
    return [
        [key, meaning, counts[key]]
        for key, meaning in JUDGE_COUNTS
        if isinstance(counts.get(key), int | float) and not isinstance(counts.get(key), bool)
    ]


def behaviour_status(manifest: dict[str, Any]) -> str | None:
    """`computed` or why not, as the signal stage recorded it (None for runs older than it)."""
    families = ((manifest.get("stages") or {}).get("signals") or {}).get("families") or {}
    value = families.get("behaviour") if isinstance(families, dict) else None
    return str(value) if value else None


@dataclass
class EvalView:
    """An eval folder as the report shows it."""

    path: Path
    queries: int | None = None
    results: int | None = None
    summary: list[dict[str, Any]] = field(default_factory=list)
    gate: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    leaks: dict[str, Any] | None = None


def find_eval(run: RunDir, eval_dir: str | Path | None = None) -> Path | None:
    """The eval folder to show: `eval_dir` when given, else RUN/eval when it holds an eval.json."""
    if eval_dir is not None:
        return Path(eval_dir)
    default = run.root / "eval"
    return default if (default / "eval.json").is_file() else None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def read_eval(run: RunDir, path: Path, manifest: dict[str, Any], cap: int) -> EvalView:
    """eval.json's summary and gate, notes when it is another run's or older than the scores, and
    the planted results that reached the context (kept untagged first) as a table for the script."""
    view = EvalView(path)
    try:
        data = json.loads((path / "eval.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        view.notes.append(f"no readable eval.json in {path} ({type(exc).__name__})")
        return view
    if not isinstance(data, dict):
        view.notes.append(f"{path}/eval.json is not an eval")
        return view
    view.queries, view.results = _int(data.get("queries")), _int(data.get("results"))
    view.summary = [r for r in data.get("summary") or [] if isinstance(r, dict)]
    view.gate = [r for r in data.get("gate") or [] if isinstance(r, dict)]
    view.notes += [one_line(str(w), 300) for w in (data.get("warnings") or [])[:10]]
    theirs, ours = data.get("run_id"), manifest.get("run_id")
    if theirs and ours and str(theirs) != str(ours):
        view.notes.insert(0, f"this eval was made with run {theirs}, not this run ({ours})")
    try:
        if run.scores.stat().st_mtime > (path / "eval.json").stat().st_mtime:
            view.notes.insert(0, "the run was scored again after this eval: re-run trustaudit eval")
    except OSError:
        pass
    view.leaks = _leaks(path / "eval.parquet", cap)
    return view


def _leaks(path: Path, cap: int) -> dict[str, Any] | None:
    """Planted results fuse did not filter: kind, outcome, trust, band, url (query under it)."""
    try:
        rows = pl.read_parquet(path, glob=False)
    except (OSError, pl.exceptions.PolarsError):
        return None
    need = {"planted", "outcome", "url", "query"}
    if not need <= set(rows.columns):
        return None
    for name, dtype in (("trust_score", pl.Float64), ("band", pl.String), ("cited", pl.Boolean)):
        if name not in rows.columns:
            rows = rows.with_columns(pl.lit(None, dtype).alias(name))
    leaks = rows.filter(
        pl.col("planted").is_not_null() & pl.col("outcome").is_in(list(LEAK_ORDER))
    ).sort(
        [pl.col("outcome").replace_strict(LEAK_ORDER, default=2), "trust_score", "url"],
        descending=[False, True, False],
        nulls_last=True,
    )
    cols = [
        {"label": "kind", "type": "tag"},
        {"label": "outcome", "type": "tag"},
        {"label": "trust", "type": "num"},
        {"label": "band", "type": "band"},
        {"label": "url / query", "type": "url"},
        {"label": "cited", "type": "tag"},
    ]
    out = []
    for r in leaks.head(cap).iter_rows(named=True):
        cited = "" if r["cited"] is None else ("cited" if r["cited"] else "not cited")
        out.append(
            [
                one_line(r["planted"], 60),
                r["outcome"],
                r["trust_score"],
                r["band"] if r["band"] in ("quarantine", "medium", "trusted") else None,
                [one_line(r["url"], 300), safe_href(r["url"]), one_line(r["query"], 200)],
                cited,
            ]
        )
    return {"cols": cols, "rows": out, "total": leaks.height}
