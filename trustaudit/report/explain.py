"""Why one page got its score: the data behind `trustaudit explain` (terminal and --json).

Everything is read back from the run (scores, signals, pages, domains) and the policy recorded in its
manifest, so the explanation matches what the run decided even if trustaudit.toml changed since.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

import polars as pl

from trustaudit.errors import UsageError
from trustaudit.io.rundir import RunDir
from trustaudit.io.urlmatch import match_doc_ids
from trustaudit.policy import Policy
from trustaudit.report.reason_text import reason_text, split_reason

SUB_SCORES = ("domain", "affiliate", "coherence")
_PAGE_FIELDS = ("title", "final_url", "host", "published", "lang", "word_count", "source", "offset")


def find_page(run: RunDir, key: str) -> str:
    """doc_id of the page named by `key`: an exact URL, a URL equal after normalization, or a doc_id."""
    run.require("scores.parquet")
    key = key.strip()
    hit = match_doc_ids(pl.Series([key], dtype=pl.String), run.scan("scores"))[0]
    if hit is None:
        raise UsageError(
            f"no page matches {key!r} in {run.root}",
            hint="pass the page URL as audited, or its doc_id (see scores.parquet / quarantine.csv)",
        )
    return str(hit)


def _plain(v: Any) -> Any:
    """JSON-ready value: dates as ISO text, NaN as None, nested lists/structs kept."""
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, date | datetime):
        return v.isoformat()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def _one(run: RunDir, name: str, doc_id: str) -> dict[str, Any]:
    path = run.root / f"{name}.parquet"
    if not path.exists() and not (run.root / name).is_dir():
        return {}
    rows = run.scan(name).filter(pl.col("doc_id") == doc_id).head(1).collect()
    return rows.to_dicts()[0] if rows.height else {}


def explain_page(run: RunDir, key: str, policy: Policy) -> dict[str, Any]:
    """Score, band, each sub-score with weight and contribution, adjustments, every raw signal and
    the reasons (code, detail and display text) of one page."""
    doc_id = find_page(run, key)
    score_row = _one(run, "scores", doc_id)
    signals = _one(run, "signals", doc_id)
    page_cols = set(run.scan("pages").collect_schema().names()) if run.pages.exists() else set()
    page: dict[str, Any] = {}
    if page_cols:
        wanted = [c for c in ("doc_id", *_PAGE_FIELDS, "injection_findings") if c in page_cols]
        rows = run.scan("pages").filter(pl.col("doc_id") == doc_id).select(wanted).head(1).collect()
        page = rows.to_dicts()[0] if rows.height else {}
    w = policy.weights
    weights = {"domain": w.domain, "affiliate": w.affiliate, "coherence": w.coherence}
    sub_scores = []
    for fam in SUB_SCORES:
        value = score_row.get(f"{fam}_score")
        sub_scores.append(
            {
                "name": f"{fam}_score",
                "value": value,
                "weight": weights[fam],
                "contribution": None if value is None else round(weights[fam] * value, 4),
                "computed": signals.get(f"{fam}_score") is not None,
            }
        )
    adjustments = [
        {"name": k, "value": v} for k, v in sorted(score_row.items()) if k.startswith("adjust_")
    ]
    hard = sorted(k for k, v in signals.items() if k.startswith("quarantine_") and v)
    details = score_row.get("reason_details") or []
    reasons = []
    for d in details:
        code, detail = split_reason(d)
        reasons.append({"code": code, "detail": detail, "text": reason_text(d)})
    skip = {"doc_id", "url", "registered_domain"}
    raw = {
        k: _plain(v)
        for k, v in sorted(signals.items())
        if k not in skip and not k.startswith("reasons_")
    }
    domain = score_row.get("registered_domain")
    domain_row: dict[str, Any] = {}
    if domain is not None and run.domains.exists():
        rows = run.scan("domains").filter(pl.col("registered_domain") == domain).head(1).collect()
        domain_row = {k: _plain(v) for k, v in (rows.to_dicts()[0] if rows.height else {}).items()}
    b = policy.bands
    return {
        "doc_id": doc_id,
        "url": score_row.get("url"),
        "registered_domain": domain,
        "trust_score": score_row.get("trust_score"),
        "trust_score_base": score_row.get("trust_score_base"),
        # the uncapped reference formula; trust_score = min(it, hard_rule_cap) when a hard rule fired
        "reference_score": score_row.get("reference_score", score_row.get("trust_score")),
        "hard_rule_cap": policy.scoring.hard_rule_cap,
        "capped": bool(score_row.get("hard_quarantine"))
        and score_row.get("reference_score") is not None
        and score_row.get("reference_score") != score_row.get("trust_score"),
        "band": score_row.get("band"),
        "hard_quarantine": bool(score_row.get("hard_quarantine")),
        "hard_rules": hard,
        # the domain's reputation prior (bundled public list or the user's file) and its source
        "reputation": {
            k: signals.get(f"reputation_{k}") for k in ("prior", "label", "source", "anchor")
        }
        if signals.get("reputation_prior") is not None
        else None,
        "bands": {"quarantine_below": b.quarantine_below, "trusted_from": b.trusted_from},
        "formula": "reference = round(sum(weight*sub_score), 3) + sum(adjust_*), clipped to [0, 1]; "
        "trust = min(reference, hard_rule_cap) when a hard rule fired, else reference",
        "sub_scores": sub_scores,
        "adjustments": adjustments,
        "reasons": reasons,
        "signals": raw,
        "page": {k: _plain(v) for k, v in page.items() if k != "doc_id"},
        "domain": domain_row,
    }
