"""Prompt-injection scanner: instructions aimed at an AI, visible or hidden, found in raw HTML or text.

`scan_html` runs once per document inside the extraction workers, before any text extractor drops hidden
nodes; `scan_text` does the same for inputs that carry text only. Both never raise: a page that cannot
be scanned yields an empty result (the absence of findings is not a verdict of safety, only of no hit).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from trustaudit.injection.detect import Hit, detect_text, reveal_invisible, strip_invisible
from trustaudit.injection.html_scan import PRIORS, Segment, collect_segments
from trustaudit.policy.injection import InjectionPolicy

__all__ = [
    "FINDING_FIELDS",
    "HIDDEN_TECHNIQUES",
    "Hit",
    "ScanResult",
    "detect_text",
    "scan_html",
    "scan_text",
]

# Arrow/Polars struct of one finding: location str, technique str, snippet str, offset int64, rule str,
# score float64. Kept here so extraction builds `injection_findings` with a stable schema.
FINDING_FIELDS: tuple[tuple[str, str], ...] = (
    ("location", "str"),
    ("technique", "str"),
    ("snippet", "str"),
    ("offset", "int64"),
    ("rule", "str"),
    ("score", "float64"),
    (
        "intent",
        "str",
    ),  # override, extraction, exfiltration, persona, tool, steer_ai ("" if unknown)
    ("lang", "str"),  # ISO 639-1 of the passage when known, else ""
)
# Every technique except "visible" hides text from a human reader.
HIDDEN_TECHNIQUES: frozenset[str] = frozenset(t for t in PRIORS if t != "visible")


@dataclass(slots=True)
class ScanResult:
    """Findings (dicts with FINDING_FIELDS keys, best first) and all hidden text of the page (capped)."""

    findings: list[dict[str, Any]] = field(default_factory=list)
    hidden_text: str = ""


@lru_cache(maxsize=32)
def _compile_extra(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    out = []
    for p in patterns:
        try:
            out.append(re.compile(p, re.IGNORECASE))
        except re.error:
            continue  # the policy loader validates; a bad pattern must not break a worker
    return tuple(out)


def _finding(location: str, technique: str, hit: Hit, offset: int) -> dict[str, Any]:
    return {
        "location": location,
        "technique": technique,
        "snippet": hit.snippet,
        "offset": int(offset),
        "rule": hit.rule,
        "score": float(hit.score),
        "intent": hit.intent,
        "lang": hit.lang,
    }


def _detect_segments(
    segs: Sequence[Segment],
    policy: InjectionPolicy,
    extra: Sequence[re.Pattern[str]],
    source: str = "",
) -> list[dict[str, Any]]:
    """Detect over segments grouped by technique: one concatenated pass per group, never across segments."""
    # One concatenated pass over every segment (each keeps its own prior): a detector call per page
    # instead of one per technique.
    sep = "\n\n"
    # The same text hidden the same way twice (menus repeated for mobile, one title on many links) is
    # read once: it would score the same and _finalize keeps one finding per snippet anyway.
    seen: set[tuple[str, str]] = set()
    unique: list[Segment] = []
    for s in segs:
        key = (s.technique, s.text)
        if key not in seen:
            seen.add(key)
            unique.append(s)
    segs = unique
    texts: list[str] = []
    leads: list[int] = []
    for s in segs:
        t = strip_invisible(s.text)
        stripped = t.lstrip()
        leads.append(len(t) - len(stripped))  # so the offset still points at the first word
        texts.append(stripped.rstrip())
    starts: list[int] = []
    pos = 0
    for t in texts:
        starts.append(pos)
        pos += len(t) + len(sep)
    out: list[dict[str, Any]] = []
    if not texts:
        return out
    hits = detect_text(
        sep.join(texts),
        min_score=policy.min_score,
        extra=extra,
        boundaries=starts,
        priors=[PRIORS.get(s.technique, 0.2) for s in segs],
    )
    for h in hits:
        i = max(0, _bisect(starts, h.start))
        seg = segs[i]
        rel = h.start - starts[i]
        if seg.offset < 0:
            off = _offset_of(source, h.snippet)
        elif seg.exact:
            off = seg.offset + leads[i] + rel
        else:
            # Decoded, unescaped or tag-stripped text: the matched passage where the source has it
            # verbatim; else a base64 blob's start, or the position as decoded (tag characters map
            # one to one, zero-width windows within the characters removed).
            found = _passage_in(source, texts[i][rel : rel + 40], seg.offset, len(seg.text))
            if found != -1:
                off = found
            elif seg.technique == "base64":
                off = seg.offset
            else:
                off = seg.offset + leads[i] + rel
        out.append(_finding(seg.location, seg.technique, h, off))
    return out


def _bisect(starts: Sequence[int], pos: int) -> int:
    lo, hi = 0, len(starts)
    while lo < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= pos:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def _finalize(findings: list[dict[str, Any]], policy: InjectionPolicy) -> list[dict[str, Any]]:
    """Drop duplicates (nested hiding, same text found twice), best score first, capped."""
    findings.sort(key=lambda f: (-f["score"], f["technique"] == "visible", f["offset"]))
    seen: set[str] = set()
    out = []
    for f in findings:
        key = " ".join(f["snippet"].lower().split())[:80]
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
        if len(out) >= policy.max_findings:
            break
    return out


def scan_html(html: str, policy: InjectionPolicy | None = None, *, tree: Any = None) -> ScanResult:
    """Scan one page's raw HTML (already decoded to str) for instructions aimed at an AI.

    Returns findings with where the text lived (location), how it was hidden (technique, "visible" for
    plain sight), a raw snippet (≤200 chars; escape it when rendering), its character offset in `html`
    (-1 when the DOM text could not be located), the detector features (rule) and score; plus all the
    page's hidden text. Never raises: unparseable input yields an empty result. `tree`: the same
    HTML already parsed with lexbor (saves a parse; the scan consumes it).
    """
    policy = policy or InjectionPolicy()
    try:
        if not policy.enabled or not isinstance(html, str) or not html:
            return ScanResult()
        if len(html) > policy.max_html_chars:
            html, tree = html[: policy.max_html_chars], None  # the caller's tree saw more
        extra = _compile_extra(tuple(policy.extra_patterns))
        segs, visible = collect_segments(html, tree=tree)
        if not policy.scan_scripts:
            segs = [s for s in segs if s.technique != "script"]
        findings = _detect_segments(segs, policy, extra, html)
        if policy.scan_visible and visible:
            for h in detect_text(visible, prior=0.0, min_score=policy.min_score, extra=extra):
                findings.append(_finding("body text", "visible", h, _offset_of(html, h.snippet)))
        hidden_parts: list[str] = []
        size = 0
        for s in segs:
            if s.technique == "script":
                continue  # script literals are mostly code strings; keep hidden_text readable
            t = " ".join(strip_invisible(s.text).split())
            if not t:
                continue
            hidden_parts.append(t)
            size += len(t) + 1
            if size >= policy.max_hidden_chars:
                break
        return ScanResult(
            _finalize(findings, policy), "\n".join(hidden_parts)[: policy.max_hidden_chars]
        )
    except Exception:  # a worker must never die on one document
        return ScanResult()


def _offset_of(html: str, snippet: str) -> int:
    """Where a snippet's text starts in the source, best effort (-1 when entities or markup differ)."""
    if not html:
        return -1
    for n in (40, 20, 10):
        probe = snippet[:n]
        if len(probe) >= 6:
            i = html.find(probe, 0)
            if i != -1:
                return i
    return -1


def _passage_in(html: str, passage: str, start: int, size: int) -> int:
    """Where `passage` (a match's first characters) is verbatim in html[start:], near a segment of
    `size` characters that begins at `start`; -1 when it is not (decoded or unescaped text)."""
    end = start + 2 * size + 64
    for n in (40, 16):
        probe = passage[:n]
        if len(probe) >= 8:
            i = html.find(probe, start, end + n)
            if i != -1:
                return i
    return -1


def scan_text(text: str, policy: InjectionPolicy | None = None) -> ScanResult:
    """Scan plain text (inputs without HTML): visible text plus what invisible Unicode carries.

    Same result shape as `scan_html`; offsets are character offsets in `text`. Never raises.
    """
    policy = policy or InjectionPolicy()
    try:
        if not policy.enabled or not isinstance(text, str) or not text:
            return ScanResult()
        text = text[: policy.max_html_chars]
        extra = _compile_extra(tuple(policy.extra_patterns))
        segs = [
            Segment(
                inv.technique,
                f"invisible unicode ({inv.technique})",
                inv.text,
                inv.offset,
                exact=False,
            )
            for inv in reveal_invisible(text)
        ]
        findings = _detect_segments(segs, policy, extra)
        for h in detect_text(text, prior=0.0, min_score=policy.min_score, extra=extra):
            findings.append(_finding("text", "visible", h, h.start))
        hidden = "\n".join(" ".join(s.text.split()) for s in segs)
        return ScanResult(_finalize(findings, policy), hidden[: policy.max_hidden_chars])
    except Exception:
        return ScanResult()
