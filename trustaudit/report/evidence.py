"""The evidence behind each reason of a page, for report.html's per-page panel.

A reason code says *what* was decided ("AFFILIATE_DENSE_NO_DISCLOSURE: 31.1 links per 1k words"); a
reader deciding whether to trust that decision wants to see *what triggered it*: the affiliate links,
the hidden snippet, the paragraphs on either side of a topic shift, the paragraph that states the
outlying price. This module picks those from the run's tables for the pages a report shows.

Everything returned is raw page text cut to one line on a word boundary, without a partial tag at
either end (`escape.cut_text`); the renderer puts it into the DOM as text.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from trustaudit.io.rundir import RunDir
from trustaudit.report.escape import cut_text, one_line, safe_href
from trustaudit.report.reason_text import split_reason

MAX_ITEMS = 3  # evidence items per reason: enough to judge, small enough for 15,000 rows
MAX_LINKS = 5
TEXT_CHARS = 300
_SIGNAL_FACTS = {
    "DOMAIN": ("domain_age_days", "last_publish_days", "dated_pages", "anchor_count"),
    "ACTIVITY": ("last_publish_days", "dated_pages"),
    "TEXT": (
        "word_count",
        "lexical_density",
        "dup_line_char_frac",
        "superlatives_per_100_words",
    ),
    "SYNDICATED": ("syndication_other_domains", "syndication_earliest_domain"),
    "SYNDICATION": ("syndication_other_domains", "syndication_cluster_size"),
    "CLAIM": ("claim_group_pages", "claims_compared", "claim_max_robust_z"),
    "COHERENCE": ("intra_coherence", "coherence_split_gap", "coherence_interleave"),
    # behaviour reasons by code (a whole code wins over its family prefix)
    "BEHAVIOUR_CAMPAIGN_LIKE": (
        "behaviour_campaign",
        "behaviour_verified",
        "behaviour_entity_verified_share",
    ),
    "BEHAVIOUR_BURST": ("behaviour_burst_score", "behaviour_entity_reviews"),
    "BEHAVIOUR_NEW_REVIEWER": ("behaviour_reviewer_tenure_days", "behaviour_verified"),
    "BEHAVIOUR_SINGLE_REVIEW_REVIEWER": ("behaviour_entity_single_review_share",),
    "BEHAVIOUR_RATING_DEVIATION": ("behaviour_rating_deviation_z", "behaviour_entity_reviews"),
    "BEHAVIOUR_LOW_RATING_ENTROPY": (
        "behaviour_entity_rating_entropy",
        "behaviour_entity_reviews",
    ),
}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def _item(kind: str, text: Any, *, where: str = "", href: str | None = None) -> dict[str, Any]:
    return {"k": kind, "t": cut_text(text, TEXT_CHARS), "w": one_line(where, 80), "h": href}


def _read(run: RunDir, name: str, wanted: tuple[str, ...], ids: pl.Series) -> pl.DataFrame:
    """The `wanted` columns the table has, for `ids` only (large text columns never read in full)."""
    if not (run.root / f"{name}.parquet").exists() and not (run.root / name).is_dir():
        return pl.DataFrame({"doc_id": []}, schema={"doc_id": pl.String})
    names = run.scan(name).collect_schema().names()
    cols = ["doc_id", *(c for c in wanted if c in names and c != "doc_id")]
    return run.scan(name).select(cols).filter(pl.col("doc_id").is_in(ids.implode())).collect()


def _affiliate_links(run: RunDir, ids: pl.Series) -> dict[str, list[dict[str, Any]]]:
    links = _read(run, "links", ("href", "anchor_text", "is_affiliate", "is_sponsored"), ids)
    if "is_affiliate" not in links.columns or links.height == 0:
        return {}
    top = (
        links.filter(pl.col("is_affiliate").fill_null(False))
        .group_by("doc_id", maintain_order=True)
        .head(MAX_LINKS)
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for r in top.iter_rows(named=True):
        label = r.get("anchor_text") or r["href"]
        where = "rel=sponsored" if r.get("is_sponsored") else "affiliate link"
        out.setdefault(r["doc_id"], []).append(
            _item(
                "link",
                label,
                where=f"{where}: {one_line(r['href'], 120)}",
                href=safe_href(r["href"]),
            )
        )
    return out


def _topical(paragraphs: list[str], signals: dict[str, Any]) -> list[int]:
    """Positions in `paragraphs` of the prose paragraphs the topic statistics saw (split,
    interleave: the title, navigation, bylines and list items are left out by the scorer), in
    order; every paragraph for runs made before the scorer recorded `coherence_topic_paragraphs`."""
    seen = signals.get("coherence_topic_paragraphs")
    if seen is None:
        return list(range(len(paragraphs)))
    return [int(i) for i in seen if 0 <= int(i) < len(paragraphs)]


def _paragraphs_for(
    code: str, detail: str, paragraphs: list[str], signals: dict[str, Any]
) -> list[dict[str, Any]]:
    """The paragraphs a coherence, syndication or claim reason is about."""
    if not paragraphs:
        return []
    picked: list[tuple[int, str]] = []
    if code in ("COHERENCE_TOPIC_SHIFT", "COHERENCE_INTERLEAVED"):
        prose = _topical(paragraphs, signals)
        at = signals.get("coherence_split_at")
        if code == "COHERENCE_TOPIC_SHIFT" and at and 0 < int(at) < len(prose):
            # the last prose paragraph before the split and the first after it
            picked = [(prose[int(at) - 1], "before the split"), (prose[int(at)], "after the split")]
        elif code == "COHERENCE_TOPIC_SHIFT":  # alternating halves: neighbours differ
            picked = list(zip(prose[:2], ("even paragraphs", "odd paragraphs"), strict=False))
        else:  # A B A: neighbours unrelated, every second paragraph belongs together
            labels = ("topic A", "topic B", "topic A again")
            picked = list(zip(prose[:3], labels, strict=False))
    elif code.startswith("COHERENCE_"):
        picked = [(0, "paragraph 1"), (1, "paragraph 2")]
    elif code.startswith("SYNDICAT"):
        picked = [(0, "shared text starts")]
    elif code == "CLAIM_OUTLIER":
        value = next(iter(_NUMBER.findall(detail)), None)
        if value:
            forms = {value, value.replace(".", ","), value.replace(",", ".")}
            for i, p in enumerate(paragraphs):
                if any(f in p for f in forms):
                    picked.append((i, f"states {value}"))
                    if len(picked) == MAX_ITEMS:
                        break
    return [
        _item("paragraph", paragraphs[i], where=f"¶{i + 1} · {label}")
        for i, label in picked
        if 0 <= i < len(paragraphs)
    ][:MAX_ITEMS]


_SCORE = re.compile(r"\(score (\d+(?:\.\d+)?)\)")


def _findings(findings: list[dict[str, Any]] | None, detail: str) -> list[dict[str, Any]]:
    """The finding an injection reason names (its technique and score), else the best few."""
    findings = findings or []
    technique = detail.split(" ", 1)[0]
    score = next(iter(_SCORE.findall(detail)), None)
    named = [
        f
        for f in findings
        if f.get("technique") == technique
        and (score is None or f"{f.get('score') or 0:.{len(score.split('.')[-1])}f}" == score)
    ]
    if named:
        findings = named[:1]
    out = []
    for f in findings[:MAX_ITEMS]:
        tech = str(f.get("technique") or "")
        kind = "visible" if tech == "visible" else "hidden"
        where = f"{tech} @ {one_line(f.get('location'), 60)} · score {f.get('score') or 0:.2f}"
        out.append({**_item(kind, "", where=where), "t": cut_text(f.get("snippet"), 220)})
    if findings and len(findings) > MAX_ITEMS:
        out.append(_item("fact", f"… {len(findings) - MAX_ITEMS} more finding(s)"))
    return out


def _facts(code: str, signals: dict[str, Any]) -> list[dict[str, Any]]:
    names = _SIGNAL_FACTS.get(code) or _SIGNAL_FACTS.get(code.split("_", 1)[0], ())
    out = []
    for n in names:
        v = signals.get(n)
        if v is None:
            continue
        out.append(_item("fact", f"{n} = {round(v, 3) if isinstance(v, float) else v}"))
    return out[:MAX_ITEMS]


def page_evidence(run: RunDir, rows: pl.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """doc_id -> one entry per reason of `rows` (scores rows): code, detail and evidence items.

    Evidence kinds: `hidden` / `visible` (an injection snippet and where it was hidden), `link` (an
    affiliate link with its anchor text), `paragraph` (the text a coherence, syndication or claim
    reason is about), `fact` (the raw signals behind a domain or text reason).
    """
    if rows.height == 0:
        return {}
    ids = rows["doc_id"]
    pages = {
        r["doc_id"]: r
        for r in _read(run, "pages", ("paragraphs", "injection_findings"), ids).iter_rows(
            named=True
        )
    }
    wanted = tuple(
        {n for names in _SIGNAL_FACTS.values() for n in names}
        | {"coherence_split_at", "coherence_topic_paragraphs"}
    )
    signals = {r["doc_id"]: r for r in _read(run, "signals", wanted, ids).iter_rows(named=True)}
    links = _affiliate_links(run, ids)
    out: dict[str, list[dict[str, Any]]] = {}
    for doc_id, details in rows.select("doc_id", "reason_details").iter_rows():
        page = pages.get(doc_id, {})
        sig = signals.get(doc_id, {})
        entries = []
        for d in details or []:
            code, detail = split_reason(d)
            if code.startswith("INJECTION_"):
                ev = _findings(page.get("injection_findings"), detail)
            elif code.startswith("AFFILIATE_") and code != "AFFILIATE_TOO_FEW_WORDS":
                ev = links.get(doc_id, [])
            else:
                ev = _paragraphs_for(code, detail, page.get("paragraphs") or [], sig)
                ev = ev or _facts(code, sig)
            entries.append({"code": code, "detail": one_line(detail, 240), "ev": ev})
        out[doc_id] = entries
    return out
