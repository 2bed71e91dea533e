"""Per turn: which documents were retrieved, cited and actually consulted, and what is wrong.

Rules (issue 5):
- retrieved = any tool returned it; cited = the answer cites it;
- consulted = the model read its text: returned by a `fetch` (a source even if not cited), or returned
  by a `search` and cited; a document only seen as a title in a `listing` is never a source;
- a citation that no tool returned is fabricated; we name the retrieved ID at edit distance
  1..typo_max_distance it most likely meant (one-character transcription errors are common);
- a concrete question answered with no consulted source goes to the documentation-gap queue;
- citing (or reading) a page the run quarantined or marked medium is flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from trustaudit.citations.schema import Turn, doc_key, is_http_url
from trustaudit.io.records import doc_id_for
from trustaudit.policy.citations import CitationsPolicy


def edit_distance(a: str, b: str, limit: int | None = None) -> int:
    """Levenshtein distance; returns `limit + 1` early once it must exceed `limit` (cheap pruning)."""
    if a == b:
        return 0
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        if limit is not None and min(cur) > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def nearest_id(cited: str, candidates: list[str], max_distance: int) -> tuple[str, int] | None:
    """The candidate at the smallest edit distance in 1..max_distance (first in order on ties)."""
    best: tuple[str, int] | None = None
    for cand in candidates:
        d = edit_distance(cited, cand, max_distance)
        if 1 <= d <= max_distance and (best is None or d < best[1]):
            best = (cand, d)
    return best


def is_concrete(question: str | None, policy: CitationsPolicy) -> bool:
    """A question that deserves a sourced answer: not small talk, and long enough or with a digit."""
    if not question or not question.strip():
        return False
    q = question.strip()
    for pat in policy.smalltalk_patterns:
        try:
            if re.search(pat, q, re.IGNORECASE):
                return False
        except re.error:
            continue
    return bool(re.search(r"\d", q)) or len(q.split()) >= policy.concrete_min_words


@dataclass
class _Doc:
    """Everything one turn did with one document (keyed by its canonical key)."""

    doc_id: str
    kinds: list[str]
    tools: list[str]
    cited_as: list[str]
    spans: list[str]
    url: str | None = None
    score: float | None = None
    score_scale: str | None = None


def identities(doc_id: str, url: str | None = None) -> list[str]:
    """Every key that names the same document: the ID, its URL's normal form, and the URL's
    trustaudit doc_id (a hash of the normalised URL), so `https://x/a` and its run ID unify."""
    out = [doc_key(doc_id)]
    for u in (doc_id, url):
        if u and is_http_url(u):
            out += [doc_key(u), doc_id_for(u.strip(), "", None)]
    return list(dict.fromkeys(out))


def audit_turn(turn: Turn, policy: CitationsPolicy) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One turn -> (one row per retrieved-or-cited document, one turn row). Pure, no run data."""
    docs: dict[str, _Doc] = {}
    lookup: dict[str, str] = {}  # any identity of a retrieved document -> its key in `docs`
    for r in turn.retrievals:
        ids = identities(r.doc_id, r.url)
        key = next((lookup[i] for i in ids if i in lookup), ids[0])
        d = docs.get(key)
        if d is None:
            d = docs[key] = _Doc(r.doc_id, [], [], [], [])
        for i in ids:
            lookup.setdefault(i, key)
        if r.kind not in d.kinds:
            d.kinds.append(r.kind)
        if r.tool not in d.tools:
            d.tools.append(r.tool)
        if d.url is None and r.url:
            d.url = r.url
        if d.score is None and r.score is not None:
            # First score wins: direction differs per scale (rank vs similarity), so never max().
            d.score, d.score_scale = r.score, r.score_scale
    retrieved_keys = list(docs)
    fabricated: dict[str, _Doc] = {}
    fab_lookup: dict[str, str] = {}
    for c in turn.citations:
        ids = identities(c.doc_id)
        found: str | None = next((lookup[i] for i in ids if i in lookup), None)
        if found is not None:
            key = found
            d = docs[key]
        else:
            key = next((fab_lookup[i] for i in ids if i in fab_lookup), ids[0])
            d = fabricated.setdefault(key, _Doc(c.doc_id, [], [], [], []))
            for i in ids:
                fab_lookup.setdefault(i, key)
        if c.doc_id not in d.cited_as:
            d.cited_as.append(c.doc_id)
        if c.span:
            d.spans.append(c.span)

    # A typo is looked for among every identity of the retrieved documents (ID, URL, run ID).
    alias_to_id = {i: docs[k].doc_id for i, k in lookup.items()}
    candidates = list(alias_to_id)
    rows: list[dict[str, Any]] = []
    consulted: list[str] = []
    cited: list[str] = []
    fabricated_ids: list[str] = []
    for key, d in [*docs.items(), *fabricated.items()]:
        is_retrieved = key in docs
        is_cited = bool(d.cited_as)
        only_listing = is_retrieved and set(d.kinds) == {"listing"}
        is_consulted = "fetch" in d.kinds or ("search" in d.kinds and is_cited)
        codes: list[str] = []
        details: list[str] = []
        likely: str | None = None
        dist: int | None = None
        if is_cited and not is_retrieved:
            hit = nearest_id(doc_key(d.doc_id), candidates, policy.typo_max_distance)
            if hit is not None:
                likely = alias_to_id.get(hit[0], hit[0])
                dist = hit[1]
                details.append(
                    f"FABRICATED_CITATION: {d.doc_id!r} was never retrieved; "
                    f"likely meant {likely!r} (edit distance {dist})"
                )
            else:
                details.append(f"FABRICATED_CITATION: {d.doc_id!r} was never retrieved")
            codes.append("FABRICATED_CITATION")
            fabricated_ids.append(d.doc_id)
        if is_cited and only_listing:
            codes.append("LISTING_ONLY_CITED")
            details.append(
                f"LISTING_ONLY_CITED: {d.doc_id!r} was only seen as a title in a listing; not a source"
            )
        if is_consulted and not is_cited:
            codes.append("CONSULTED_NOT_CITED")
            details.append(f"CONSULTED_NOT_CITED: {d.doc_id!r} was read in full but not cited")
        if is_cited:
            cited.append(d.doc_id)
        if is_consulted:
            consulted.append(d.doc_id)
        rows.append(
            {
                "turn_id": turn.turn_id,
                "line": turn.line,
                "doc_id": d.doc_id,
                "cited_as": d.cited_as,
                "retrieved": is_retrieved,
                "cited": is_cited,
                "consulted": is_consulted,
                "kinds": d.kinds,
                "tools": d.tools,
                "span": ";".join(d.spans) or None,
                "fabricated": is_cited and not is_retrieved,
                "likely_meant": likely,
                "likely_meant_distance": dist,
                "reasons": codes,
                "reason_details": details,
                # Internal hints for enrichment; only tool output, never the model's text.
                "_tool_url": d.url if is_retrieved and is_http_url(d.url) else None,
                "_score": d.score,
                "_score_scale": d.score_scale,
            }
        )

    concrete = turn.concrete if turn.concrete is not None else is_concrete(turn.question, policy)
    t_codes = [n.split(":", 1)[0] for n in turn.notes]
    t_details = list(turn.notes)
    doc_gap = concrete and not consulted
    if doc_gap:
        t_codes.append("NO_CONSULTED_SOURCE")
        why = "nothing was retrieved" if not docs else "no retrieved document was read"
        t_details.append(f"NO_CONSULTED_SOURCE: concrete question answered but {why}")
    if fabricated_ids:
        t_codes.append("FABRICATED_CITATION")
        t_details.append(f"FABRICATED_CITATION: {len(fabricated_ids)} citation(s) never retrieved")
    turn_row = {
        "turn_id": turn.turn_id,
        "line": turn.line,
        "question": turn.question,
        "answer_chars": len(turn.answer) if turn.answer is not None else None,
        "retrieved": [docs[k].doc_id for k in retrieved_keys],
        "cited": cited,
        "consulted": consulted,
        "fabricated": fabricated_ids,
        "n_retrieved": len(retrieved_keys),
        "n_cited": len(cited),
        "n_consulted": len(consulted),
        "concrete": bool(concrete),
        "doc_gap": bool(doc_gap),
        "reasons": t_codes,
        "reason_details": t_details,
    }
    return rows, turn_row


def audit_turns(
    turns: list[Turn], policy: CitationsPolicy
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """All turns -> (document rows, turn rows) in input order."""
    rows: list[dict[str, Any]] = []
    turn_rows: list[dict[str, Any]] = []
    for t in turns:
        r, tr = audit_turn(t, policy)
        rows.extend(r)
        turn_rows.append(tr)
    return rows, turn_rows
