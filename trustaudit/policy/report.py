"""Policy section for calibration and allow/blocklist suggestions (owned by reports)."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class ReportPolicy:
    target_recall: float = opt(0.90, "calibrate: recommended threshold reaches this recall of 'untrusted'")
    suggest_min_pages: int = opt(3, "pages a domain needs before it is suggested for a list")
