"""One wording for reasons, shared by report.html, quarantine.md, `explain` and the terminal summary.

Scoring writes reasons as `"CODE: detail with numbers"`. People read a label plus the numbers
("Affiliate-dense, no disclosure — 14.2 links per 1k words"); machines keep the code. The text made
here is plain and unescaped: each renderer escapes it for its own format (`escape.md`,
`escape.html_text`, `rich.markup.escape`), so one wording never carries format-specific markup.
"""

from __future__ import annotations

import functools

from trustaudit.report.escape import md, one_line

# Labels for the codes the scoring families emit today; unknown codes fall back to the family
# prefix below, then to the code itself, so a new family shows up readable without a change here.
LABELS: dict[str, str] = {
    "ACTIVITY_MISSING": "No publication date on the domain",
    "AFFILIATE_DENSE_NO_DISCLOSURE": "Affiliate-dense, no disclosure",
    "AFFILIATE_DISCLOSED": "Affiliate links, disclosed",
    "AFFILIATE_HIGH_DENSITY": "Many affiliate links",
    "AFFILIATE_TOO_FEW_WORDS": "Too short to judge affiliate density",
    "AFFILIATE_UNDISCLOSED": "Affiliate links, no disclosure",
    "ANCHOR_PRESENCE": "Linked from anchor sites",
    "BEHAVIOUR_BURST": "Review burst",
    "BEHAVIOUR_CAMPAIGN_LIKE": "Looks like a review campaign",
    "BEHAVIOUR_LOW_RATING_ENTROPY": "Uniform ratings for the entity",
    "BEHAVIOUR_NEW_REVIEWER": "Brand-new reviewer account",
    "BEHAVIOUR_NOT_APPLICABLE": "Review behaviour not applicable",
    "BEHAVIOUR_RATING_DEVIATION": "Rating far from the consensus",
    "BEHAVIOUR_SINGLE_REVIEW_REVIEWER": "Reviewer's only review",
    "CLAIM_OUTLIER": "Claims disagree with other sources",
    "COHERENCE_LOW": "Incoherent text",
    "COHERENCE_NOT_COMPUTED": "Coherence not computed",
    "COHERENCE_INTERLEAVED": "Interleaved topics",
    "COHERENCE_LANGUAGE_MIX": "Paragraphs in several languages",
    "COHERENCE_LOOSE_PARAGRAPHS": "Paragraphs that share no vocabulary (stitched?)",
    "COHERENCE_TOPIC_MIX": "Paragraphs from unrelated topics",
    "COHERENCE_TOPIC_SHIFT": "Topic shift mid-page",
    "COHERENCE_UNSUPPORTED_SCRIPT": "Coherence not judged: script the model does not read",
    "COHERENCE_REPETITIVE": "Repetitive text",
    "COHERENCE_TOO_FEW_PARAGRAPHS": "Too few paragraphs for coherence",
    "DOMAIN_AGE_MISSING": "Domain age unknown",
    "DOMAIN_ALLOWLISTED": "Domain on the allowlist",
    "DOMAIN_BLOCKLISTED": "Domain on the blocklist",
    "DOMAIN_INACTIVE": "Domain inactive",
    "ACTIVITY_ARCHIVAL": "Only old pages of the domain (activity neutral)",
    "REPUTATION_PRIOR": "Domain reputation prior",
    "DOMAIN_YOUNG": "Young domain",
    "INJECTION_HIDDEN": "Prompt injection, hidden",
    "INJECTION_NOT_COMPUTED": "Injection scan not computed",
    "INJECTION_QUOTED": "Prompt injection quoted or addressed to a person (not aimed at the reader)",
    "INJECTION_VISIBLE": "Prompt injection, visible",
    "JUDGE_FAILED": "Tail judge failed (no adjustment)",
    "JUDGE_SCORE": "Tail judge verdict",
    "JUDGE_SKIPPED_BUDGET": "Tail judge skipped: over budget",
    "JUDGE_SKIPPED_INJECTION": "Tail judge skipped: injection flagged",
    "JUDGE_SUPPORTED": "Card supported (judge)",
    "JUDGE_UNSUPPORTED": "Card not supported (judge)",
    "SYNDICATED_ACROSS_N_DOMAINS": "Syndicated copy",
    "SYNDICATION_SOURCE": "Earliest copy of syndicated text",
    "SYNDICATION_FARM": "Content farm copy (no copy has trust evidence)",
    "SYNDICATED_WIRE": "Licensed wire copy",
    "SYNDICATION_PRESUMED_COPY": "Copy of a source with trust evidence",
    "TEXT_LOW_LEXICAL_DENSITY": "Low lexical density",
    "TEXT_REPETITIVE": "Repeated lines",
    "TEXT_SUPERLATIVE_HEAVY": "Superlative-heavy",
    "TEXT_THIN": "Thin text",
    "PAGINATED_PAGE": "Slideshow or paginated page",
    "HEADLINE_BAIT": "Clickbait headline",
    "GENERIC_BYLINE": "Generic byline",
    "AD_HEAVY": "Many ad-network links",
    "LINK_FARM": "Mostly outbound links",
}
FAMILY_LABELS: dict[str, str] = {
    "INJECTION": "Prompt injection",
    "SYNDICATED": "Syndicated copy",
    "SYNDICATION": "Syndicated copy",
    "CLAIMS": "Claims disagree with other sources",
    "CLAIM": "Claims",
    "CROSS_SOURCE": "Claims disagree with other sources",
    "COHERENCE": "Coherence",
    "AFFILIATE": "Affiliate",
    "DOMAIN": "Domain",
    "TEXT": "Text",
    "ANCHOR": "Anchors",
    "BEHAVIOUR": "Review behaviour",
    "JUDGE": "Tail judge",
}
SEPARATOR = " — "


def split_reason(detail: str | None) -> tuple[str, str]:
    """`"CODE: detail"` -> `("CODE", "detail")`; a bare code has an empty detail."""
    if not detail:
        return "", ""
    code, _, rest = str(detail).partition(":")
    return code.strip(), rest.strip()


def label_for(code: str) -> str:
    """The human label of a reason code (family prefix, then the code itself as a fallback)."""
    if code in LABELS:
        return LABELS[code]
    for family, label in FAMILY_LABELS.items():
        if code == family:
            return label
        if code.startswith(family + "_"):
            return f"{label}: {code[len(family) + 1 :].replace('_', ' ').lower()}"
    return code.replace("_", " ").capitalize() if code else ""


@functools.lru_cache(maxsize=1 << 16)  # pages repeat the same reasons: render each text once
def reason_text(detail: str | None, limit: int = 300) -> str:
    """One reason as display text: `label — detail`, one line, invisible characters removed."""
    code, rest = split_reason(detail)
    label = label_for(code)
    text = f"{label}{SEPARATOR}{rest}" if rest else label
    return one_line(text, limit)


def reason_texts(details: list[str] | None, limit: int = 300) -> list[str]:
    """Every reason of a page as display text, in the order scoring wrote them."""
    return [reason_text(d, limit) for d in (details or []) if d]


def reasons_markdown(details: list[str] | None, limit: int = 200) -> str:
    """Reasons for one Markdown table cell (quarantine.md): escaped, joined with `<br>`."""
    return "<br>".join(md(t, limit) for t in reason_texts(details, limit))


def reasons_rich(details: list[str] | None, limit: int = 200) -> str:
    """Reasons for a rich table cell (terminal): markup-escaped, one per line."""
    from rich.markup import escape

    return "\n".join(escape(t) for t in reason_texts(details, limit))
