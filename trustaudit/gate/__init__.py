"""The CI gate: rules over a finished run -> verdict, gate.json, JUnit XML, GitHub annotations.

Library entry points (the CLI is a thin layer over these):
- `evaluate_gate(run_dir, policy, labels=None, strict=False)` -> GateResult (`.exit_code`: 0 or 1)
- `write_gate_json(result, path)`, `junit_xml(result)` / `write_junit`, `github_annotations(result)`
"""

from __future__ import annotations

from pathlib import Path

from trustaudit.gate.annotations import github_annotations, in_github_actions
from trustaudit.gate.junit import junit_xml, write_junit
from trustaudit.gate.model import GateResult, RuleResult
from trustaudit.gate.rules import evaluate_gate, load_run
from trustaudit.io.atomic import write_json

__all__ = [
    "GateResult",
    "RuleResult",
    "evaluate_gate",
    "github_annotations",
    "in_github_actions",
    "junit_xml",
    "load_run",
    "write_gate_json",
    "write_junit",
]


def write_gate_json(result: GateResult, path: str | Path) -> Path:
    """Write gate.json atomically; its `exit_code` and `passed` mirror the process exit status."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_json(p, result.to_dict())
    return p
