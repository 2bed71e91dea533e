"""Hand-made run directories for report tests: exact scores, no extraction, milliseconds to build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.io.atomic import write_parquet
from trustaudit.io.records import doc_id_for
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy, policy_hash

FINDING = pl.Struct(
    {
        "location": pl.String,
        "technique": pl.String,
        "snippet": pl.String,
        "offset": pl.Int64,
        "rule": pl.String,
        "score": pl.Float64,
    }
)


def page(
    url: str | None,
    trust: float,
    *,
    domain: str | None = None,
    hard: bool = False,
    reasons: list[str] | None = None,
    title: str = "A page",
    findings: list[dict[str, Any]] | None = None,
    doc_id: str | None = None,
    **signals: Any,
) -> dict[str, Any]:
    """One page of a fake run; `domain` defaults to the URL's host without `www.`."""
    if domain is None and url and "://" in url:
        domain = url.split("://", 1)[1].split("/", 1)[0].removeprefix("www.")
    return {
        "url": url,
        "trust": trust,
        "domain": domain,
        "hard": hard,
        "reasons": reasons or [],
        "title": title,
        "findings": findings or [],
        "doc_id": doc_id or doc_id_for(url, "src", 0),
        "signals": signals,
    }


def make_run(
    root: Path,
    pages: list[dict[str, Any]],
    *,
    policy: Policy | None = None,
    errors: list[dict[str, Any]] | None = None,
    injection_count: bool = False,
) -> RunDir:
    """Write manifest, pages, signals, scores, domains and errors tables for `pages`."""
    policy = policy or Policy()
    run = RunDir.at(root)
    root.mkdir(parents=True, exist_ok=True)
    b = policy.bands
    ids = [p["doc_id"] for p in pages]

    def band(p: dict[str, Any]) -> str:
        if p["hard"] or p["trust"] < b.quarantine_below:
            return "quarantine"
        return "medium" if p["trust"] < b.trusted_from else "trusted"

    details = [p["reasons"] for p in pages]
    scores = pl.DataFrame(
        {
            "doc_id": ids,
            "url": [p["url"] for p in pages],
            "registered_domain": [p["domain"] for p in pages],
            "trust_score": [float(p["trust"]) for p in pages],
            "band": [band(p) for p in pages],
            "reasons": [[d.split(":")[0] for d in ds] for ds in details],
            "reason_details": details,
            "hard_quarantine": [p["hard"] for p in pages],
            "trust_score_base": [float(p["trust"]) for p in pages],
            "domain_score": [0.5] * len(pages),
            "affiliate_score": [1.0] * len(pages),
            "coherence_score": [0.5] * len(pages),
            "adjust_textual": [0.0] * len(pages),
        },
        schema_overrides={"reasons": pl.List(pl.String), "reason_details": pl.List(pl.String)},
    )
    sig: dict[str, Any] = {
        "doc_id": ids,
        "url": [p["url"] for p in pages],
        "registered_domain": [p["domain"] for p in pages],
        "word_count": [p["signals"].get("word_count", 500) for p in pages],
        "in_allowlist": [p["signals"].get("in_allowlist", False) for p in pages],
        "in_blocklist": [p["signals"].get("in_blocklist", False) for p in pages],
        "domain_score": [0.5] * len(pages),
        "affiliate_score": [1.0] * len(pages),
        "affiliate_per_1k_words": [
            float(p["signals"].get("affiliate_per_1k_words", 0.0)) for p in pages
        ],
        "quarantine_affiliate": [p["hard"] for p in pages],
        "reasons_affiliate": details,
    }
    if injection_count:
        sig["injection_count"] = [len(p["findings"]) for p in pages]
        sig["injection_quoted_count"] = [
            sum(1 for f in p["findings"] if f.get("quoted")) for p in pages
        ]
    signals = pl.DataFrame(
        sig,
        schema_overrides={
            "reasons_affiliate": pl.List(pl.String),
            "in_allowlist": pl.Boolean,
            "in_blocklist": pl.Boolean,
        },
    )
    pages_df = pl.DataFrame(
        {
            "doc_id": ids,
            "url": [p["url"] for p in pages],
            "host": [p["domain"] for p in pages],
            "registered_domain": [p["domain"] for p in pages],
            "title": [p["title"] for p in pages],
            "word_count": [500] * len(pages),
            "injection_findings": [p["findings"] for p in pages],
        },
        schema_overrides={"injection_findings": pl.List(FINDING)},
    )
    domains = (
        scores.group_by("registered_domain")
        .agg(pages=pl.len().cast(pl.UInt32), mean_trust=pl.col("trust_score").mean())
        .sort("registered_domain", nulls_last=True)
    )
    errs = pl.DataFrame(
        errors or [],
        schema={
            "source": pl.String,
            "offset": pl.Int64,
            "url": pl.String,
            "stage": pl.String,
            "code": pl.String,
            "message": pl.String,
        },
    )
    write_parquet(run.scores, scores)
    write_parquet(run.signals, signals)
    write_parquet(run.pages, pages_df)
    write_parquet(run.domains, domains)
    write_parquet(run.errors, errs)
    run.write_manifest(
        {
            "run_id": "fake0001",
            "trustaudit_version": "test",
            "policy": policy.to_dict(),
            "policy_hash": policy_hash(policy),
            "stages": {
                "ingest": {
                    "accounting": {
                        "inputs": len(pages) + len(errs),
                        "pages": len(pages),
                        "errors": len(errs),
                    }
                }
            },
        }
    )
    return run
