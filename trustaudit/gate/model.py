"""What a gate evaluation returns: one RuleResult per rule, and the verdict that maps to an exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from trustaudit.exit_codes import ExitCode

Status = Literal["pass", "warn", "fail", "skip"]
GATE_JSON_SCHEMA = 1


@dataclass
class RuleResult:
    """One rule's verdict with the number behind it, so CI output says *why* and *how far*.

    `offenders` are dicts with at least a `text` key (one human line); the other keys are structured
    fields (doc_id, url, trust_score, …) for gate.json consumers.
    """

    name: str
    status: Status
    message: str
    measured: float | int | None = None
    limit: float | int | None = None
    warn_limit: float | int | None = None
    comparison: str = ""  # how `measured` must relate to `limit` to pass, e.g. "<=" or ">="
    offenders: list[dict[str, Any]] = field(default_factory=list)
    offender_count: int = 0
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "message": self.message,
            "measured": self.measured,
            "limit": self.limit,
            "warn_limit": self.warn_limit,
            "comparison": self.comparison,
            "offender_count": self.offender_count,
            "offenders": self.offenders,
            "details": self.details,
        }


@dataclass
class GateResult:
    """The gate's verdict over one run; `exit_code` is the CI contract (0 pass, 1 failed)."""

    run_dir: str
    run_id: str | None
    policy_hash: str
    strict: bool
    rules: list[RuleResult]
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[RuleResult]:
        return [r for r in self.rules if r.status == "fail"]

    @property
    def warnings(self) -> list[RuleResult]:
        return [r for r in self.rules if r.status == "warn"]

    @property
    def passed(self) -> bool:
        # --strict is applied when rules are evaluated (warn -> fail), so only failures count here.
        return not self.failed

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK if self.passed else ExitCode.GATE_FAILED

    def counts(self) -> dict[str, int]:
        out = {"pass": 0, "warn": 0, "fail": 0, "skip": 0}
        for r in self.rules:
            out[r.status] += 1
        return out

    def summary_line(self) -> str:
        c = self.counts()
        verdict = "PASSED" if self.passed else "FAILED"
        parts = [f"{c['fail']} failed", f"{c['warn']} warning(s)", f"{c['pass']} passed"]
        if c["skip"]:
            parts.append(f"{c['skip']} skipped")
        strict = " [strict]" if self.strict else ""
        return f"trustaudit gate: {verdict}{strict} ({', '.join(parts)}) -> {self.run_dir}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": GATE_JSON_SCHEMA,
            "passed": self.passed,
            "exit_code": int(self.exit_code),
            "strict": self.strict,
            "run_dir": self.run_dir,
            "run_id": self.run_id,
            "policy_hash": self.policy_hash,
            "counts": self.counts(),
            "rules": [r.to_dict() for r in self.rules],
            "notes": self.notes,
        }
