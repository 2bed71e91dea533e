"""Policy section for the CI gate (owned by the gate): the `[gate]` table of trustaudit.toml.

Each rule has a stable name (used in `warn_rules`, gate.json, JUnit and annotations). A limit at its
permissive end (share 1.0, minimum 0.0) never fails, but the rule still reports its measured value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trustaudit.policy._field import opt

# Stable rule names; order is the order of reports.
GATE_RULES: tuple[str, ...] = (
    "quarantined_share",
    "medium_share",
    "mean_trust",
    "injection",
    "unscanned",
    "blocklisted_domain",
    "label_precision",
    "label_recall",
    "cards",
    # `trustaudit eval` (planted-source eval), when an eval is given
    "planted_in_context",
    "planted_cited",
    "clean_lost",
)


@dataclass(frozen=True)
class GatePolicy:
    max_quarantined_share: float = opt(
        1.0, "fail when more than this share of pages is quarantined (rule quarantined_share)"
    )
    warn_quarantined_share: float = opt(
        1.0, "warn (not fail) when more than this share of pages is quarantined"
    )
    max_medium_share: float = opt(
        1.0, "fail when more than this share of pages is medium trust (rule medium_share)"
    )
    warn_medium_share: float = opt(1.0, "warn when more than this share of pages is medium trust")
    min_mean_trust: float = opt(
        0.0, "fail when the mean trust score of all pages is below this (rule mean_trust)"
    )
    warn_mean_trust: float = opt(0.0, "warn when the mean trust score is below this")
    fail_on_injection: bool = opt(
        True, "fail when any page carries an injection finding (rule injection)"
    )
    unscanned: Literal["fail", "pass"] = opt(
        "fail",
        "an input record whose content was never scanned (binary, too large, extraction timeout,"
        " unreadable: see docs/limits.md) fails the gate unless 'pass' (rule unscanned)",
    )
    fail_on_blocklisted: bool = opt(
        True, "fail when any page comes from a blocklisted domain (rule blocklisted_domain)"
    )
    min_precision: float = opt(
        0.0,
        "with --labels: fail when precision of the quarantine decision (trust < bands.quarantine_below"
        " or hard rule) on 'untrusted' labels is below this (rule label_precision)",
    )
    min_recall: float = opt(
        0.0,
        "with --labels: fail when recall of the quarantine decision on 'untrusted' labels is below"
        " this (rule label_recall)",
    )
    max_failed_card_share: float = opt(
        0.0,
        "when RUN/cards.parquet exists: fail when more than this share of KB cards fail (rule cards)",
    )
    max_planted_in_context: float = opt(
        0.10,
        "trustaudit eval: fail when more than this share of any planted kind's results stays in"
        " the context untagged (rule planted_in_context)",
    )
    max_planted_cited: float = opt(
        1.0,
        "trustaudit eval with transcripts: fail when more than this share of planted results the"
        " agent saw is cited (rule planted_cited)",
    )
    max_clean_lost: float = opt(
        1.0,
        "trustaudit eval: fail when more than this share of clean results is filtered out of the"
        " context (rule clean_lost)",
    )
    warn_rules: tuple[str, ...] = opt(
        (), "rule names that only warn instead of failing (--strict makes them fail again)"
    )
    strict: bool = opt(False, "treat warnings as failures (same as --strict)")
    max_offenders: int = opt(10, "worst offenders listed per rule in outputs")

    def __post_init__(self) -> None:
        shares = ("max_quarantined_share", "warn_quarantined_share", "max_medium_share")
        evals = ("max_planted_in_context", "max_planted_cited", "max_clean_lost")
        for name in (*shares, "warn_medium_share", "max_failed_card_share", *evals):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"gate.{name} must be a share in [0, 1]")
        for name in ("min_mean_trust", "warn_mean_trust", "min_precision", "min_recall"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"gate.{name} must be in [0, 1]")
        unknown = sorted(set(self.warn_rules) - set(GATE_RULES))
        if unknown:
            # A typo must not silently turn a failing rule into a hard one (or vice versa).
            raise ValueError(
                f"gate.warn_rules: unknown rule(s) {', '.join(unknown)} (known: {', '.join(GATE_RULES)})"
            )
        if self.max_offenders < 0:
            raise ValueError("gate.max_offenders must be >= 0")
