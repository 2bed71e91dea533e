"""Policy section for prompt-injection detection (owned by the injection scanner)."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class InjectionPolicy:
    enabled: bool = opt(True, "scan raw HTML for instructions aimed at an AI")
    min_score: float = opt(0.5, "detector score at or above which a segment is a finding")
    quarantine: bool = opt(True, "any finding quarantines the page whatever its score")
    extra_patterns: tuple[str, ...] = opt((), "extra regexes (case-insensitive) that count as instructions")
