"""Attach the run's facts to each citation row: source_url, source_license, trust_score, band, relevance.

Contract: a field is absent (None) when its data is missing or broken, one bad record never fails the
batch, and `enrich_rows` never raises. `source_url` comes from the run or from a tool's output, never
from the model's text. A relevance score is attached only when every score in the batch shares one
declared scale (`score_scale`): reranker logits, RRF ranks and cosines are not comparable numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from trustaudit.citations.run import RunIndex, valid_band, valid_license, valid_score
from trustaudit.citations.schema import clean_url

ENRICHED_FIELDS = ("run_doc_id", "source_url", "source_license", "trust_score", "band")


def relevance_scale(rows: Iterable[Mapping[str, Any]]) -> tuple[str | None, str]:
    """(the one scale every scored row shares, or None; a note saying why)."""
    scales: set[str | None] = set()
    n = 0
    for r in rows:
        try:
            score = r.get("_score")
            if isinstance(score, bool) or not isinstance(score, int | float):
                continue
            s = r.get("_score_scale")
            scales.add(s if isinstance(s, str) and s.strip() else None)
            n += 1
        except Exception:
            scales.add(None)
    if n == 0:
        return None, "no retrieval scores in the batch"
    if None in scales:
        return None, "some scores do not declare score_scale; relevance omitted"
    if len(scales) > 1:
        return (
            None,
            f"scores from different scales ({', '.join(sorted(s for s in scales if s))}); relevance omitted",
        )
    (scale,) = scales
    return scale, f"all {n} scores share scale {scale!r}"


def _enrich_one(row: dict[str, Any], index: RunIndex | None, scale: str | None) -> None:
    out: dict[str, Any] = dict.fromkeys((*ENRICHED_FIELDS, "relevance", "score_scale"))
    tool_url = clean_url(row.get("_tool_url"))
    if index is not None:
        rid = index.match(row.get("doc_id"), tool_url)
        if rid is None:
            for alt in row.get("cited_as") or ():
                rid = index.match(alt)
                if rid is not None:
                    break
        if rid is not None:
            out["run_doc_id"] = rid
            page = index.pages.get(rid) or {}
            score = index.scores.get(rid) or {}
            out["source_url"] = clean_url(page.get("url")) or clean_url(score.get("url"))
            out["source_license"] = valid_license(page.get("license"))
            out["trust_score"] = valid_score(score.get("trust_score"))
            out["band"] = valid_band(score.get("band"))
    if out["source_url"] is None and tool_url is not None:
        out["source_url"] = tool_url
    rel = row.get("_score")
    if scale is not None and isinstance(rel, int | float) and not isinstance(rel, bool):
        f = float(rel)
        if f == f and f not in (float("inf"), float("-inf")):
            out["relevance"], out["score_scale"] = f, scale
    row.update(out)


def _flag(row: dict[str, Any], index: RunIndex | None) -> None:
    """Band-based flags; needs the enriched fields."""
    codes = list(row.get("reasons") or [])
    details = list(row.get("reason_details") or [])
    band, doc = row.get("band"), row.get("doc_id")
    trust = row.get("trust_score")
    trust_s = f" (trust {trust:.3f})" if isinstance(trust, float) else ""
    if row.get("cited") is True and band in ("quarantine", "medium"):
        code = "CITED_QUARANTINED" if band == "quarantine" else "CITED_MEDIUM"
        codes.append(code)
        details.append(f"{code}: {doc!r} is in band {band}{trust_s}")
    elif row.get("consulted") is True and band == "quarantine":
        codes.append("CONSULTED_QUARANTINED")
        details.append(f"CONSULTED_QUARANTINED: {doc!r} was read though quarantined{trust_s}")
    if index is not None and row.get("run_doc_id") is None and row.get("retrieved") is True:
        codes.append("NOT_IN_RUN")
        details.append(f"NOT_IN_RUN: {doc!r} is not a page of the run; trust unknown")
    row["reasons"], row["reason_details"] = codes, details


def enrich_rows(
    rows: list[dict[str, Any]], index: RunIndex | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Enrich citation rows in place (also returned) and say what happened; never raises.

    A row whose enrichment fails keeps every enriched field None and counts in `enrich_errors`.
    """
    info: dict[str, Any] = {"relevance_scale": None, "relevance_note": "", "enrich_errors": 0}
    try:
        scale, note = relevance_scale(r for r in rows if isinstance(r, Mapping))
    except Exception:
        scale, note = None, "scores unreadable; relevance omitted"
    info["relevance_scale"], info["relevance_note"] = scale, note
    for row in rows:
        if not isinstance(row, dict):
            info["enrich_errors"] += 1
            continue
        try:
            _enrich_one(row, index, scale)
            _flag(row, index)
        except Exception:
            info["enrich_errors"] += 1
            row.update(dict.fromkeys((*ENRICHED_FIELDS, "relevance", "score_scale")))
    return rows, info
