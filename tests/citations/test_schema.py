"""Transcript shapes: canonical, OpenAI messages, flat lists; corrupted lines become error rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trustaudit.citations.schema import parse_turn, read_turns, tool_kind
from trustaudit.policy.citations import CitationsPolicy

from .conftest import DATA

POLICY = CitationsPolicy()


def parse(obj: object) -> tuple:
    return parse_turn(obj, source="t.jsonl", line=1, policy=POLICY)


def test_canonical_shape() -> None:
    turn, errors = parse(
        {
            "turn_id": "a",
            "question": "q?",
            "tool_calls": [
                {
                    "tool": "kb",
                    "kind": "search",
                    "score_scale": "cosine",
                    "results": [{"id": "d1", "score": 0.5}],
                },
                {"name": "x", "kind": "fetch", "doc_ids": ["d2"]},
            ],
            "answer": {"text": "ans", "citations": [{"doc_id": "d1", "span": [3, 9]}]},
        }
    )
    assert errors == []
    assert turn.turn_id == "a" and turn.answer == "ans"
    assert [(r.doc_id, r.kind, r.score, r.score_scale) for r in turn.retrievals] == [
        ("d1", "search", 0.5, "cosine"),
        ("d2", "fetch", None, None),
    ]
    assert [(c.doc_id, c.span) for c in turn.citations] == [("d1", "3-9")]


def test_openai_messages_shape() -> None:
    turn, errors = parse(
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "When?"}]},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c1", "function": {"name": "read_page", "arguments": "{}"}}
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": json.dumps({"results": [{"id": "p1"}]}),
                },
                {
                    "role": "assistant",
                    "content": "Then.",
                    "annotations": [
                        {"type": "url_citation", "url_citation": {"url": "https://a.example/x"}},
                        {"type": "file_path", "file_path": {"file_id": "f"}},
                    ],
                },
            ]
        }
    )
    assert errors == []
    assert turn.question == "When?" and turn.answer == "Then."
    assert [(r.doc_id, r.kind, r.tool) for r in turn.retrievals] == [("p1", "fetch", "read_page")]
    assert [c.doc_id for c in turn.citations] == ["https://a.example/x"]


def test_flat_shape() -> None:
    turn, _ = parse(
        {
            "id": 7,
            "query": "q",
            "retrieved": ["a"],
            "fetched": ["b"],
            "listed": ["c"],
            "cited": ["a"],
        }
    )
    assert turn.turn_id == "7"
    assert {(r.doc_id, r.kind) for r in turn.retrievals} == {
        ("a", "search"),
        ("b", "fetch"),
        ("c", "listing"),
    }
    assert [c.doc_id for c in turn.citations] == ["a"]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("kb_search", "search"),
        ("retrieveDocuments", "search"),
        ("fetch_document", "fetch"),
        ("read_file", "fetch"),
        ("list_docs", "listing"),
        ("search_index", "search"),  # the first word decides
        ("list_search_results", "listing"),
    ],
)
def test_tool_kind_from_name(name: str, kind: str) -> None:
    assert tool_kind(name, None, POLICY) == (kind, False)


def test_unknown_tool_kind_is_guessed_and_noted() -> None:
    assert tool_kind("weather", None, POLICY) == ("search", True)
    turn, _ = parse({"tool_calls": [{"tool": "weather", "results": ["w1"]}]})
    assert turn.notes and turn.notes[0].startswith("TOOL_KIND_GUESSED")


def test_explicit_kind_aliases_win_over_name() -> None:
    assert tool_kind("search", "titles", POLICY) == ("listing", False)
    assert tool_kind("list", "full", POLICY) == ("fetch", False)


def test_tool_output_as_plain_text_is_a_warning() -> None:
    turn, errors = parse(
        {"question": "q", "tool_calls": [{"tool": "kb_search", "content": "just prose"}]}
    )
    assert turn is not None and turn.retrievals == []
    assert [e.code for e in errors] == ["TOOL_OUTPUT_UNPARSED"]


def test_fixture_corrupted_lines_are_rows_not_exceptions() -> None:
    turns, errors = read_turns(DATA / "transcripts.jsonl", POLICY)
    codes = [e.code for e in errors]
    for code in (
        "JSON_DECODE",
        "NOT_AN_OBJECT",
        "EMPTY_TURN",
        "BAD_RESULT",
        "BAD_TOOL_CALL",
        "BAD_CITATION",
    ):
        assert code in codes
    assert "DUPLICATE_TURN_ID" in codes
    ids = [t.turn_id for t in turns]
    assert len(ids) == len(set(ids)) and "t-typo@12" in ids
    assert all(e.stage == "citations" and e.offset for e in errors)


def test_json_array_file_and_bom(tmp_path: Path) -> None:
    p = tmp_path / "t.json"
    p.write_text(
        "\ufeff" + json.dumps([{"turn_id": "x", "cited": ["a"]}, {"turn_id": "y", "answer": "b"}])
    )
    turns, errors = read_turns(p, POLICY)
    assert [t.turn_id for t in turns] == ["x", "y"] and errors == []


@pytest.mark.parametrize(
    "obj",
    [None, 3, "s", [], {"tool_calls": 5}, {"citations": 5}, {"messages": [None, 1, {"role": "tool"}]},
     {"answer": {"citations": [[], {"id": True}]}}, {"tool_calls": [{"results": {"no": "ids"}}]}],
)  # fmt: skip
def test_garbage_never_raises(obj: object) -> None:
    turn, errors = parse(obj)
    assert turn is not None or errors


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.sampled_from(["id", "turn_id", "tool_calls", "results", "kind", "tool", "citations", "answer",
                             "messages", "role", "content", "span", "url", "score", "question", "fetched"]),
            children, max_size=5,
        ),
    ),
    max_leaves=25,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(_json)
def test_any_json_value_parses_or_errors(obj: object) -> None:
    from trustaudit.citations.provenance import audit_turn

    turn, errors = parse(obj)
    assert turn is not None or errors
    if turn is not None:
        audit_turn(turn, POLICY)  # whatever parsed is auditable
