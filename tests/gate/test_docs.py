"""docs/gate-and-ci.md documents every gate policy key, rule name and --fail-on condition."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from trustaudit.diff import FAIL_ON_DEFAULTS
from trustaudit.policy.gate import GATE_RULES, GatePolicy

DOC = Path(__file__).resolve().parents[2] / "docs" / "gate-and-ci.md"


def test_doc_mentions_every_key_rule_and_condition() -> None:
    text = DOC.read_text(encoding="utf-8")
    names = [f.name for f in dataclasses.fields(GatePolicy)]
    missing = [n for n in [*names, *GATE_RULES, *FAIL_ON_DEFAULTS] if f"`{n}`" not in text]
    assert not missing, f"docs/gate-and-ci.md lacks {missing}"
