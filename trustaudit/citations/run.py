"""Read what citations/cards need from a run directory, and merge counts into summary.json.

Only the pages the transcripts or cards name are loaded (Parquet predicate push-down on doc_id), so
auditing a handful of turns against a million-page run stays cheap. A URL is matched through the
run's own doc_id (hash of the normalised URL), so no URL column needs normalising at read time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.citations.schema import doc_key, is_http_url
from trustaudit.errors import RunDirError
from trustaudit.io.atomic import write_json
from trustaudit.io.records import doc_id_for

BANDS = ("quarantine", "medium", "trusted")
SUMMARY = Path("reports") / "summary.json"


def table_files(run_dir: Path, name: str) -> list[Path]:
    """`name.parquet`, or the parts under `name/` that large runs write."""
    single = run_dir / f"{name}.parquet"
    if single.is_file():
        return [single]
    folder = run_dir / name
    return sorted(folder.glob("*.parquet")) if folder.is_dir() else []


def check_run_dir(run_dir: str | Path) -> Path:
    """The run folder, or a RunDirError that says what is missing."""
    p = Path(run_dir)
    if not p.is_dir():
        raise RunDirError(
            f"run directory not found: {p}", hint="pass the --out folder of `trustaudit audit`"
        )
    if not table_files(p, "pages") and not table_files(p, "scores"):
        raise RunDirError(
            f"{p} has neither pages.parquet nor scores.parquet",
            hint="run `trustaudit audit INPUT --out RUN` first",
        )
    return p


def candidate_ids(doc_id: str, url_hint: str | None = None) -> list[str]:
    """Run doc_ids a transcript/card reference may denote: itself, and the hash of its URL form."""
    out = [doc_id.strip()]
    for u in (doc_id, url_hint):
        if u and is_http_url(u):
            out.append(doc_id_for(u.strip(), "", None))
    return list(dict.fromkeys(x for x in out if x))


def _read(
    files: list[Path], wanted: Iterable[str], ids: list[str], urls: list[str], warnings: list[str]
) -> pl.DataFrame | None:
    """Rows whose doc_id is in `ids` or whose url/final_url is in `urls`; None when unreadable."""
    if not files or not (ids or urls):
        return None
    try:
        lf = pl.scan_parquet([str(f) for f in files], glob=False)
        names = lf.collect_schema().names()
        if "doc_id" not in names:
            warnings.append(f"{files[0].name}: no doc_id column")
            return None
        cond = pl.col("doc_id").cast(pl.String).is_in(ids)
        for col in ("url", "final_url"):
            if col in names and urls:
                cond = cond | pl.col(col).cast(pl.String).is_in(urls)
        cols = ["doc_id", *[c for c in wanted if c in names and c != "doc_id"]]
        return (
            lf.filter(cond)
            .select(cols)
            .unique("doc_id", keep="first", maintain_order=True)
            .collect()
        )
    except Exception as exc:  # a corrupt run file degrades enrichment, never the batch
        warnings.append(f"{files[0].name}: unreadable ({type(exc).__name__}: {str(exc)[:120]})")
        return None


@dataclass
class RunIndex:
    """The run's facts about the pages a batch references, keyed by run doc_id."""

    pages: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def from_records(
        cls, pages: Iterable[Mapping[str, Any]] = (), scores: Iterable[Mapping[str, Any]] = ()
    ) -> RunIndex:
        """Build from plain dicts (tests, callers that already hold the tables)."""
        idx = cls()
        for rows, target in ((pages, idx.pages), (scores, idx.scores)):
            for r in rows:
                if isinstance(r, Mapping) and isinstance(r.get("doc_id"), str):
                    target.setdefault(r["doc_id"], dict(r))
        return idx

    @classmethod
    def load(
        cls, run_dir: str | Path, refs: Iterable[tuple[str, str | None]], *, with_text: bool = False
    ) -> RunIndex:
        """Load the pages/scores rows that any (doc_id, url_hint) in `refs` may denote."""
        run = Path(run_dir)
        refs = list(refs)
        ids = {c for d, u in refs for c in candidate_ids(d, u)}
        # Pages stored under another doc_id scheme are still found by URL (raw or normalised form).
        urls = {x.strip() for d, u in refs for x in (d, u) if x and is_http_url(x)}
        urls |= {doc_key(u) for u in urls}
        idx = cls()
        page_cols = ["url", "final_url", "license", "title"]
        if with_text:
            page_cols += ["text", "paragraphs"]
        df = _read(table_files(run, "pages"), page_cols, sorted(ids), sorted(urls), idx.warnings)
        if df is not None:
            idx.pages = {str(r["doc_id"]): r for r in df.to_dicts()}
        ids |= set(idx.pages)
        cols = ["url", "trust_score", "band", "reasons"]
        df = _read(table_files(run, "scores"), cols, sorted(ids), sorted(urls), idx.warnings)
        if df is not None:
            idx.scores = {str(r["doc_id"]): r for r in df.to_dicts()}
        return idx

    def match(self, doc_id: Any, url_hint: Any = None) -> str | None:
        """The run doc_id this reference denotes, or None."""
        if not isinstance(doc_id, str) or not doc_id.strip():
            return None
        hint = url_hint if isinstance(url_hint, str) else None
        for c in candidate_ids(doc_id, hint):
            if c in self.pages or c in self.scores:
                return c
        # A page stored under another doc_id scheme: compare normalised URLs.
        key = doc_key(doc_id)
        keys = {key, doc_key(hint)} if hint and is_http_url(hint) else {key}
        for table in (self.pages, self.scores):
            for did, row in table.items():
                for col in ("url", "final_url"):
                    u = row.get(col)
                    if isinstance(u, str) and doc_key(u) in keys:
                        return did
        return None


def valid_score(v: Any) -> float | None:
    """A trust score in [0, 1], else None (corrupt values never leak into outputs)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) and 0.0 <= f <= 1.0 else None


def valid_band(v: Any) -> str | None:
    return v if isinstance(v, str) and v in BANDS else None


def valid_license(v: Any) -> str | None:
    if not isinstance(v, str):
        return None
    s = v.strip()
    return s if s and len(s) <= 500 and s.isprintable() else None


def merge_summary(run_dir: str | Path, key: str, counts: dict[str, Any]) -> Path:
    """Read-modify-write RUN/reports/summary.json, replacing only `key` (tolerates it missing/bad)."""
    path = Path(run_dir) / SUMMARY
    data: dict[str, Any] = {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict):
            data = loaded
    except (OSError, ValueError):
        pass
    data[key] = counts
    write_json(path, data)
    return path
