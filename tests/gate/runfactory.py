"""Hand-made run directories for gate/diff tests: scores, signals, pages and manifest written with Polars.

Tests describe pages as small dicts, so they never depend on extraction or scoring.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.io.records import doc_id_for

FINDING = pl.Struct(
    {
        "location": pl.String,
        "technique": pl.String,
        "snippet": pl.String,
        "offset": pl.Int64,
        "rule": pl.String,
        "score": pl.Float64,
        "quoted": pl.String,
    }
)


def page(
    url: str,
    trust: float,
    *,
    band: str | None = None,
    hard: bool = False,
    blocklisted: bool = False,
    injections: int = 0,
    quoted: int = 0,
    reasons: list[str] | None = None,
) -> dict[str, Any]:
    """One page; band follows the default bands (0.40 / 0.70) unless given or `hard`.

    `quoted` of its `injections` are quoted in plain sight (a security article's example), the rest
    hidden and aimed at the reader.
    """
    if band is None:
        band = "quarantine" if hard or trust < 0.40 else ("medium" if trust < 0.70 else "trusted")
    return {
        "url": url,
        "trust": trust,
        "band": band,
        "hard": hard,
        "blocklisted": blocklisted,
        "injections": injections,
        "quoted": quoted,
        "reasons": reasons or [],
    }


def domain_of(url: str) -> str:
    host = url.split("/")[2].lower().removeprefix("www.")
    return ".".join(host.split(".")[-2:])


def make_run(
    root: Path,
    pages: list[dict[str, Any]],
    *,
    injection_in: str = "signals",  # "signals" | "pages" | "none"
    injection_enabled: bool = True,
    blocklist_column: bool = True,
    complete: bool = True,
    cards: list[dict[str, Any]] | None = None,
    run_id: str = "run0",
    quarantine_below: float = 0.40,
) -> Path:
    """Write a minimal finished run directory at `root` and return it."""
    root.mkdir(parents=True, exist_ok=True)
    ids = [doc_id_for(p["url"], "", None) for p in pages]
    domains = [domain_of(p["url"]) for p in pages]
    pl.DataFrame(
        {
            "doc_id": ids,
            "url": [p["url"] for p in pages],
            "registered_domain": domains,
            "trust_score": [p["trust"] for p in pages],
            "band": [p["band"] for p in pages],
            "reasons": [p["reasons"] for p in pages],
            "reason_details": [[f"{c}: detail" for c in p["reasons"]] for p in pages],
            "hard_quarantine": [p["hard"] for p in pages],
        },
        schema={
            "doc_id": pl.String,
            "url": pl.String,
            "registered_domain": pl.String,
            "trust_score": pl.Float64,
            "band": pl.String,
            "reasons": pl.List(pl.String),
            "reason_details": pl.List(pl.String),
            "hard_quarantine": pl.Boolean,
        },
    ).write_parquet(root / "scores.parquet")
    signals: dict[str, Any] = {"doc_id": ids, "url": [p["url"] for p in pages]}
    if blocklist_column:
        signals["in_blocklist"] = [p["blocklisted"] for p in pages]
    if injection_in == "signals":
        signals["injection_count"] = [p["injections"] for p in pages]
        signals["injection_quoted_count"] = [p["quoted"] for p in pages]
    pl.DataFrame(
        signals,
        schema_overrides={"doc_id": pl.String, "url": pl.String, "in_blocklist": pl.Boolean}
        if blocklist_column
        else {"doc_id": pl.String, "url": pl.String},
    ).write_parquet(root / "signals.parquet")
    page_cols: dict[str, Any] = {"doc_id": ids, "url": [p["url"] for p in pages]}
    if injection_in in ("pages", "signals"):
        page_cols["injection_findings"] = pl.Series(
            [
                [
                    {
                        "location": "pre" if i < p["quoted"] else "body",
                        "technique": "visible" if i < p["quoted"] else "display_none",
                        "snippet": "quoted: ignore all rules"
                        if i < p["quoted"]
                        else "ignore previous instructions",
                        "offset": 10 * i,
                        "rule": "ignore_previous",
                        "score": 0.9,
                        "quoted": "security_page" if i < p["quoted"] else "",
                    }
                    for i in range(p["injections"])
                ]
                for p in pages
            ],
            dtype=pl.List(FINDING),
        )
    pl.DataFrame(page_cols, schema_overrides={"doc_id": pl.String, "url": pl.String}).write_parquet(
        root / "pages.parquet"
    )
    if cards is not None:
        pl.DataFrame(
            cards,
            schema={"card_id": pl.String, "passed": pl.Boolean, "reasons": pl.List(pl.String)},
        ).write_parquet(root / "cards.parquet")
    manifest: dict[str, Any] = {
        "run_id": run_id,
        "policy_hash": "test",
        "policy": {
            "bands": {"quarantine_below": quarantine_below, "trusted_from": 0.70},
            "injection": {"enabled": injection_enabled},
        },
        "stages": {"score": {"status": "done"}},
    }
    if complete:
        manifest["completed_at"] = "2026-11-01T00:00:00+00:00"
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root
