"""KB card checks: a card written from a source must be grounded in it.

A card passes when its source is a page of the run and not quarantined, every figure in it (numbers,
amounts, dates, IDs, percentages) appears in the source text in some format, and it is semantically
close to the source's best-matching paragraphs. Borderline similarities may go to the optional judge.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import polars as pl

from trustaudit.citations.judge import Judge
from trustaudit.citations.numbers import source_facts, unsupported_facts
from trustaudit.citations.run import RunIndex, table_files, valid_band, valid_score
from trustaudit.citations.schema import is_http_url
from trustaudit.io.records import ErrorRow
from trustaudit.policy.citations import CitationsPolicy

STAGE = "cards"
MAX_PARAGRAPHS = 400  # bound the embedding cost of one very long source

# Reason codes that make a card fail (the others are notes).
FAILING = frozenset(
    {
        "CARD_EMPTY",
        "SOURCE_MISSING",
        "SOURCE_NOT_IN_RUN",
        "SOURCE_QUARANTINED",
        "SOURCE_NO_TEXT",
        "UNSUPPORTED_FACT",
        "LOW_SIMILARITY",
        "JUDGE_UNSUPPORTED",
    }
)

CARD_SCHEMA: dict[str, Any] = {
    "card_id": pl.String,
    "line": pl.Int64,
    "source_ref": pl.String,
    "run_doc_id": pl.String,
    "source_url": pl.String,
    "band": pl.String,
    "trust_score": pl.Float64,
    "passed": pl.Boolean,
    "reasons": pl.List(pl.String),
    "reason_details": pl.List(pl.String),
    "unsupported": pl.List(pl.String),
    "n_facts": pl.Int64,
    "similarity": pl.Float64,
    "borderline": pl.Boolean,
    "judge_verdict": pl.String,
    "judge_status": pl.String,
}


class Embedder(Protocol):
    """What `trustaudit.embed.get_embedder` returns: L2-normalised float32 rows."""

    def encode(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Card:
    card_id: str
    line: int
    text: str
    source_ref: str | None  # URL or run doc_id, as the card file gives it


def _err(source: str, line: int, code: str, msg: str) -> ErrorRow:
    return ErrorRow(source=source, offset=line, url=None, stage=STAGE, code=code, message=msg)


def read_cards(path: str | Path) -> tuple[list[Card], list[ErrorRow]]:
    """Cards JSONL (`card_id`, `text`, `source_url`; aliases id/content/url/source/doc_id)."""
    p = Path(path)
    cards: list[Card] = []
    errors: list[ErrorRow] = []
    seen: set[str] = set()
    text = p.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            errors.append(_err(str(p), n, "JSON_DECODE", f"not JSON: {exc}"[:200]))
            continue
        if not isinstance(obj, dict):
            errors.append(
                _err(str(p), n, "NOT_AN_OBJECT", f"expected an object, got {type(obj).__name__}")
            )
            continue
        cid = next((obj[k] for k in ("card_id", "id") if isinstance(obj.get(k), str | int)), None)
        card_id = str(cid) if cid is not None and not isinstance(cid, bool) else f"line-{n}"
        if card_id in seen:
            errors.append(
                _err(str(p), n, "DUPLICATE_CARD_ID", f"card id {card_id!r} repeated; renamed")
            )
            card_id = f"{card_id}@{n}"
        seen.add(card_id)
        body = next(
            (obj[k] for k in ("text", "content", "body") if isinstance(obj.get(k), str)), ""
        )
        ref = next(
            (
                obj[k].strip()
                for k in ("source_url", "url", "source", "doc_id", "source_id")
                if isinstance(obj.get(k), str) and obj[k].strip()
            ),
            None,
        )
        cards.append(Card(card_id, n, body, ref))
    return cards, errors


def paragraphs_of(page: dict[str, Any]) -> list[str]:
    """The page's paragraphs (pages.paragraphs), else its text split on blank lines / newlines."""
    paras = page.get("paragraphs")
    out: list[str] = []
    if isinstance(paras, list | tuple):
        out = [p.strip() for p in paras if isinstance(p, str) and p.strip()]
    if not out and isinstance(page.get("text"), str):
        text = page["text"]
        parts = re.split(r"\n\s*\n", text) if "\n\n" in text else text.split("\n")
        out = [p.strip() for p in parts if p.strip()]
    return out[:MAX_PARAGRAPHS]


def source_text(page: dict[str, Any]) -> str:
    text = page.get("text")
    if isinstance(text, str) and text.strip():
        return text
    return "\n\n".join(paragraphs_of(page))


def _unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1, norms)


def card_similarity(
    card: str, paragraphs: list[str], embedder: Embedder, top_k: int
) -> tuple[float, list[str]]:
    """Best of (card vs its best paragraph, card vs its top-k paragraphs joined); also those paragraphs.

    Cards often condense two neighbouring paragraphs, which neither matches alone; the joined view
    covers that without letting one strong paragraph hide an unrelated card.
    """
    vecs = _unit(embedder.encode([card, *paragraphs]))
    c, p = vecs[0], vecs[1:]
    sims = p @ c
    order = np.argsort(-sims, kind="stable")[:top_k]
    best = [paragraphs[i] for i in order]
    score = float(sims[order[0]])
    if len(best) > 1:
        joined = _unit(embedder.encode(["\n\n".join(best)]))[0]
        score = max(score, float(joined @ c))
    return score, best


def check_cards(
    cards: Iterable[Card],
    index: RunIndex,
    policy: CitationsPolicy,
    *,
    embedder: Embedder | None,
    judge: Judge | None = None,
) -> list[dict[str, Any]]:
    """One result row per card (see CARD_SCHEMA); `passed` is False when a FAILING reason holds."""
    rows = []
    facts_cache: dict[str, Any] = {}
    for card in cards:
        rows.append(_check_one(card, index, policy, embedder, judge, facts_cache))
    return rows


def _check_one(
    card: Card,
    index: RunIndex,
    policy: CitationsPolicy,
    embedder: Embedder | None,
    judge: Judge | None,
    facts_cache: dict[str, Any],
) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(CARD_SCHEMA)
    row.update(card_id=card.card_id, line=card.line, source_ref=card.source_ref, borderline=False)
    codes: list[str] = []
    details: list[str] = []

    def add(code: str, detail: str) -> None:
        codes.append(code)
        details.append(f"{code}: {detail}")

    text = card.text.strip()
    if not text:
        add("CARD_EMPTY", "the card has no text")
    rid = None
    if card.source_ref is None:
        add("SOURCE_MISSING", "the card names no source_url")
    else:
        rid = index.match(card.source_ref)
        if rid is None:
            add("SOURCE_NOT_IN_RUN", f"{card.source_ref!r} is not a page of the run")
    page = index.pages.get(rid, {}) if rid else {}
    score = index.scores.get(rid, {}) if rid else {}
    row["run_doc_id"] = rid
    url = page.get("url")
    row["source_url"] = url if is_http_url(url) else None
    row["band"], row["trust_score"] = (
        valid_band(score.get("band")),
        valid_score(score.get("trust_score")),
    )
    if rid is not None:
        if row["band"] == "quarantine":
            add(
                "SOURCE_QUARANTINED", f"the run quarantined the source (trust {row['trust_score']})"
            )
        elif row["band"] == "medium":
            add("SOURCE_MEDIUM", "the source is medium-trust; verify before publishing")
        elif row["band"] is None:
            add("BAND_UNKNOWN", "the run has no valid score for the source")
    src_text = source_text(page) if rid else ""
    paragraphs = paragraphs_of(page) if rid else []
    if rid is not None and not src_text.strip():
        add("SOURCE_NO_TEXT", "the run holds no text for the source")

    if text and src_text.strip():
        facts = facts_cache.get(rid) if rid else None
        if facts is None:
            facts = facts_cache[rid or ""] = source_facts(src_text)
        missing, n = unsupported_facts(text, facts)
        row["n_facts"] = n
        row["unsupported"] = [f.surface for f in missing]
        for f in missing:
            add("UNSUPPORTED_FACT", f"{f.kind} {f.surface!r} does not appear in the source")

    best: list[str] = paragraphs[: policy.card_top_paragraphs]
    if text and paragraphs:
        if embedder is None:
            add("SIMILARITY_NOT_COMPUTED", "no embedder available")
        else:
            try:
                sim, best = card_similarity(text, paragraphs, embedder, policy.card_top_paragraphs)
                if math.isfinite(sim):
                    row["similarity"] = round(sim, 4)
            except Exception as exc:  # an embedder failure must not lose the other checks
                add("SIMILARITY_NOT_COMPUTED", f"{type(exc).__name__}: {str(exc)[:80]}")
    sim = row["similarity"]
    thr = policy.card_min_similarity
    if sim is not None:
        row["borderline"] = abs(sim - thr) < policy.judge_margin
        low = sim < thr
        deterministic_fail = any(c in FAILING for c in codes)
        if judge is not None and row["borderline"] and not deterministic_fail:
            res = judge.judge(text, best)
            row["judge_verdict"], row["judge_status"] = res.verdict, res.status
            if res.verdict == "supported":
                add("JUDGE_SUPPORTED", f"judge: {res.reason or 'card supported'}")
                low = False
            elif res.verdict == "unsupported":
                add("JUDGE_UNSUPPORTED", f"judge: {res.reason or 'card not supported'}")
                low = False  # reported as JUDGE_UNSUPPORTED, not twice
        if low:
            add("LOW_SIMILARITY", f"similarity {sim:.3f} < {thr:.2f} to the best source paragraphs")
    failing = set(FAILING)
    if policy.card_fail_on_medium:
        failing.add("SOURCE_MEDIUM")
    row["passed"] = not any(c in failing for c in codes)
    row["reasons"], row["reason_details"] = codes, details
    return row


def cards_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return (
        pl.DataFrame(rows, schema=CARD_SCHEMA, orient="row")
        if rows
        else pl.DataFrame(schema=CARD_SCHEMA)
    )


def cards_summary(rows: list[dict[str, Any]], n_errors: int = 0) -> dict[str, Any]:
    """Counts for summary.json["cards"] and for the gate."""
    by_reason: dict[str, int] = {}
    for r in rows:
        for c in dict.fromkeys(r.get("reasons") or []):
            by_reason[c] = by_reason.get(c, 0) + 1
    failing = sum(1 for r in rows if r.get("passed") is False)
    return {
        "present": True,
        "cards": len(rows),
        "passed": len(rows) - failing,
        "failing": failing,
        "input_errors": n_errors,
        "borderline": sum(1 for r in rows if r.get("borderline")),
        "judged": sum(1 for r in rows if r.get("judge_verdict") is not None),
        "by_reason": dict(sorted(by_reason.items())),
        "failing_card_ids": [r["card_id"] for r in rows if r.get("passed") is False][:100],
    }


def card_results_summary(run_dir: str | Path) -> dict[str, Any]:
    """Card results of a run for the gate: `present` False (and zeros) when `cards` never ran.

    Reads RUN/cards.parquet (the source of truth, not summary.json, so a stale summary cannot pass a
    gate). Never raises on a missing or unreadable file: `error` then says why and `present` is False.
    """
    files = table_files(Path(run_dir), "cards")
    empty = {"present": False, "cards": 0, "passed": 0, "failing": 0, "input_errors": 0,
             "borderline": 0, "judged": 0, "by_reason": {}, "failing_card_ids": []}  # fmt: skip
    if not files:
        return empty
    try:
        df = pl.read_parquet([str(f) for f in files], glob=False)
        rows = df.select([c for c in CARD_SCHEMA if c in df.columns]).to_dicts()
    except Exception as exc:
        return {**empty, "error": f"cards.parquet unreadable: {type(exc).__name__}"}
    out = cards_summary(rows)
    out.pop("input_errors")
    return out
