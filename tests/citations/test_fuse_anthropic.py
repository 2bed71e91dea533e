"""`fuse --format anthropic`: kept results as Anthropic search_result blocks with a trust badge."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tests.report.fakerun import make_run, page
from trustaudit.citations.schema import parse_turn
from trustaudit.cli.main import app
from trustaudit.policy.citations import CitationsPolicy

MEDIUM = "[MEDIUM-TRUST SOURCE — verify before asserting]"
URLS = {
    "good": "https://good.example.org/a",
    "mid": "https://mid.example.net/b",
    "bad": "https://bad.example.com/c",
}


def _run(tmp_path: Path) -> Path:
    make_run(
        tmp_path / "run",
        [
            page(URLS["good"], 0.85, title="Good"),
            page(URLS["mid"], 0.55, title="Mid"),
            page(URLS["bad"], 0.2, title="Bad"),
        ],
    )
    return tmp_path / "run"


def _results(tmp_path: Path) -> Path:
    rows = [
        {"query": "q1", "url": URLS["bad"], "score": 0.99, "snippet": "Buy now!"},
        {"query": "q1", "url": URLS["mid"], "score": 0.8, "title": "Mid page", "text": "Mid text."},
        {"query": "q1", "url": URLS["good"], "score": 0.7, "snippet": "Good text."},
        {"query": "q2", "url": URLS["bad"], "score": 0.9},
        {"query": "q3", "url": "https://never.example/x", "score": 0.5},
    ]
    p = tmp_path / "hits.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def test_fuse_writes_search_result_blocks_with_trust_badges(tmp_path: Path) -> None:
    run, hits, out = _run(tmp_path), _results(tmp_path), tmp_path / "blocks.jsonl"
    args = ["fuse", str(hits), "--run", str(run), "--out", str(out), "--format", "anthropic", "-q"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["query"] for x in lines] == ["q1", "q2", "q3"]
    q1 = lines[0]["content"]
    assert [b["source"] for b in q1] == [URLS["good"], URLS["mid"]]  # quarantined one left out
    for b in q1:
        assert b["type"] == "search_result" and b["citations"] == {"enabled": True}
        assert all(c["type"] == "text" and isinstance(c["text"], str) for c in b["content"])
    good, mid = q1
    assert good["title"] == f"[trust 0.85 · trusted] {URLS['good']}"
    assert good["content"][0]["text"] == "trustaudit: trust 0.85, band trusted."
    assert good["content"][1]["text"] == "Good text."
    assert mid["title"] == f"[trust 0.55 · medium] Mid page {MEDIUM}"
    assert mid["content"][0]["text"].endswith(MEDIUM) and mid["content"][1]["text"] == "Mid text."
    assert lines[1]["content"] == []
    unscored = lines[2]["content"][0]
    assert unscored["title"].startswith("[unscored]") and "UNSCORED SOURCE" in unscored["title"]


def test_blocks_round_trip_through_the_anthropic_transcript_reader(tmp_path: Path) -> None:
    """What fuse writes is what `citations` reads back as an Anthropic tool result."""
    run, hits, out = _run(tmp_path), _results(tmp_path), tmp_path / "blocks.jsonl"
    args = ["fuse", str(hits), "--run", str(run), "--out", str(out), "--format", "anthropic"]
    assert CliRunner().invoke(app, [*args, "-q"]).exit_code == 0
    content = json.loads(out.read_text().splitlines()[0])["content"]
    turn, errors = parse_turn(
        {
            "messages": [
                {"role": "user", "content": "q1"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "search", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": content}]},
                {"role": "assistant", "content": [{"type": "text", "text": "x", "citations": [
                    {"type": "search_result_location", "search_result_index": 1,
                     "start_block_index": 1, "end_block_index": 2, "cited_text": "Mid text."}]}]},
            ]
        },
        source="t",
        line=1,
        policy=CitationsPolicy(),
    )  # fmt: skip
    assert errors == [] and turn is not None
    assert [r.doc_id for r in turn.retrievals] == [URLS["good"], URLS["mid"]]
    assert [c.doc_id for c in turn.citations] == [URLS["mid"]]


def test_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    run, hits = _run(tmp_path), _results(tmp_path)
    res = CliRunner().invoke(app, ["fuse", str(hits), "--run", str(run), "--format", "xml"])
    assert res.exit_code == 2
