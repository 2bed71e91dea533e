"""Anthropic Messages transcripts (recorded shapes written from the public API documentation)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from trustaudit.citations.schema import parse_turn, read_turns
from trustaudit.cli.main import app
from trustaudit.io.records import doc_id_for
from trustaudit.policy.citations import CitationsPolicy

from .conftest import DATA

POLICY = CitationsPolicy()
FILE = DATA / "anthropic_transcripts.jsonl"
GOOD = "https://headphone-notes.com/acme-x200-wireless-headphones-review"
SHILL = "https://acme-review-hub.com/headphones/acme-x200-review/"


def _turns() -> dict[str, object]:
    turns, errors = read_turns(FILE, POLICY)
    assert errors == []
    return {t.turn_id: t for t in turns}


def test_search_result_blocks_and_search_result_location_citations() -> None:
    t = _turns()["anthropic-search-result"]
    assert t.question.startswith("How long is the warranty")  # type: ignore[attr-defined]
    assert t.answer == (  # type: ignore[attr-defined]
        "According to the review, the X200 has a two-year warranty. One shop claims more."
    )
    got = [(r.doc_id, r.kind, r.tool, r.url, r.title) for r in t.retrievals]  # type: ignore[attr-defined]
    assert got == [
        (GOOD, "search", "search_knowledge_base", GOOD, "Acme X200 review"),
        (SHILL, "search", "search_knowledge_base", SHILL, "Acme X200: best headphones ever"),
    ]
    # the second citation has no `source`: resolved through search_result_index 1
    assert [(c.doc_id, c.span) for c in t.citations] == [  # type: ignore[attr-defined]
        (GOOD, "blocks 0-1"),
        (SHILL, "blocks 0-1"),
    ]


def test_web_search_and_document_locations() -> None:
    turns = _turns()
    web = turns["anthropic-web-search"]
    assert [r.tool for r in web.retrievals] == ["web_search", "web_search"]  # type: ignore[attr-defined]
    assert [c.doc_id for c in web.citations] == [  # type: ignore[attr-defined]
        "https://www.sciencealert.com/nasa-finds-water-plumes-above-europa"
    ]
    docs = turns["anthropic-documents"]
    assert [(r.doc_id, r.kind) for r in docs.retrievals] == [  # type: ignore[attr-defined]
        ("Colours", "fetch"),
        ("https://www.example-pdfs.org/report.pdf", "fetch"),
        ("Blocks", "fetch"),
    ]
    assert [(c.doc_id, c.span) for c in docs.citations] == [  # type: ignore[attr-defined]
        ("Colours", "0-20"),
        ("https://www.example-pdfs.org/report.pdf", "pages 3-4"),
        ("Blocks", "blocks 1-2"),
    ]


def test_unresolvable_citation_and_unknown_blocks_warn_not_fail() -> None:
    turn, errors = parse_turn(
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "q"}, {"type": "image"}]},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": "a",
                            "citations": [
                                {"type": "search_result_location", "search_result_index": 7},
                                {"type": "future_location", "x": 1},
                            ],
                        }
                    ],
                },
            ]
        },
        source="t",
        line=1,
        policy=POLICY,
    )
    assert turn is not None and turn.question == "q" and turn.answer == "a"
    assert turn.citations == [] and [e.code for e in errors] == ["BAD_CITATION"]


def test_openai_shape_is_unchanged_by_the_anthropic_reader() -> None:
    turn, _ = parse_turn(
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "search"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": '[{"id": "d1"}]'},
                {"role": "assistant", "content": "a", "citations": [{"id": "d1"}]},
            ]
        },
        source="t",
        line=1,
        policy=POLICY,
    )
    assert turn is not None and [r.doc_id for r in turn.retrievals] == ["d1"]
    assert [c.doc_id for c in turn.citations] == ["d1"]


def test_citations_cli_on_anthropic_transcripts(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    urls = [GOOD, SHILL]
    pq.write_table(
        pa.table(
            {
                "doc_id": [doc_id_for(u, "", None) for u in urls],
                "url": urls,
                "trust_score": [0.8, 0.2],
                "band": ["trusted", "quarantine"],
                "reasons": [[], ["AFFILIATE_DENSE_NO_DISCLOSURE"]],
            }
        ),
        run / "scores.parquet",
    )
    res = CliRunner().invoke(app, ["citations", str(FILE), "--run", str(run), "--json"])
    assert res.exit_code == 0, res.output
    cdf = pl.read_parquet(run / "citations.parquet")
    shill = cdf.filter(pl.col("doc_id") == SHILL).row(0, named=True)
    assert shill["cited"] and shill["band"] == "quarantine"
    assert "CITED_QUARANTINED" in shill["reasons"]
    good = cdf.filter(pl.col("doc_id") == GOOD).row(0, named=True)
    assert good["cited"] and good["band"] == "trusted" and good["source_url"] == GOOD
