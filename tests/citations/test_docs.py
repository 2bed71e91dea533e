"""docs/citations.md: its examples parse as documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

from trustaudit.citations.provenance import audit_turn
from trustaudit.citations.schema import parse_turn
from trustaudit.policy.citations import CitationsPolicy

DOC = Path(__file__).parents[2] / "docs" / "citations.md"


def _section() -> str:
    return DOC.read_text(encoding="utf-8")


def test_documented_examples_parse() -> None:
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", _section(), re.S)]
    turns = [b for b in blocks if "card_id" not in b]
    assert len(turns) == 2
    canonical, openai = (
        parse_turn(b, source="doc", line=1, policy=CitationsPolicy()) for b in turns
    )
    assert canonical[1] == [] and openai[1] == []
    _, trow = audit_turn(canonical[0], CitationsPolicy())
    assert trow["consulted"] == ["doc-7f3a"] and trow["retrieved"] == [
        "doc-7f3a",
        "doc-22b1",
        "doc-9",
    ]
    _, trow = audit_turn(openai[0], CitationsPolicy())
    assert trow["fabricated"] == [] and trow["consulted"] == [
        "doc-7f3a"
    ]  # the tool's url aliases the ID


def test_documented_policy_keys_exist() -> None:
    text = _section()
    for name in CitationsPolicy.__dataclass_fields__:
        assert f"`{name}`" in text, name
