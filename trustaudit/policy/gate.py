"""Policy section for the CI gate (owned by the gate)."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class GatePolicy:
    max_quarantined_share: float = opt(1.0, "fail when more than this share of pages is quarantined")
    fail_on_injection: bool = opt(True, "fail when any page carries an injection finding")
