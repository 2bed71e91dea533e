"""What agents did with the sources: citation provenance, run enrichment, grounded KB cards.

Library entry points (the CLI is a thin layer over these):
- `audit_citations(transcripts, policy.citations, run_dir=None)` -> CitationAudit; `write_citations`.
- `audit_cards(cards, run_dir, policy.citations, embedder=...)` -> CardAudit; `write_cards`.
- `card_results_summary(run_dir)` / `citation_results_summary(run_dir)`: counts for the gate.
"""

from __future__ import annotations

from trustaudit.citations.audit import (
    CardAudit,
    CitationAudit,
    audit_cards,
    audit_citations,
    citation_results_summary,
    write_cards,
    write_citations,
)
from trustaudit.citations.cards import Embedder, card_results_summary, check_cards
from trustaudit.citations.enrich import enrich_rows
from trustaudit.citations.judge import Judge
from trustaudit.citations.provenance import audit_turn, audit_turns, edit_distance
from trustaudit.citations.run import RunIndex
from trustaudit.citations.schema import Turn, parse_turn, read_turns

__all__ = [
    "CardAudit",
    "CitationAudit",
    "Embedder",
    "Judge",
    "RunIndex",
    "Turn",
    "audit_cards",
    "audit_citations",
    "audit_turn",
    "audit_turns",
    "card_results_summary",
    "check_cards",
    "citation_results_summary",
    "edit_distance",
    "enrich_rows",
    "parse_turn",
    "read_turns",
    "write_cards",
    "write_citations",
]
