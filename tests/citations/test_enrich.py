"""Enrichment: fields absent when missing or broken, relevance only on one scale, never raises."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trustaudit.citations.enrich import enrich_rows, relevance_scale
from trustaudit.citations.provenance import audit_turn
from trustaudit.citations.run import RunIndex
from trustaudit.citations.schema import Citation, Retrieval, Turn
from trustaudit.policy.citations import CitationsPolicy

from .conftest import PAGES, SCORES, SPAM_ID, SPAM_URL, write_run

POLICY = CitationsPolicy()
INDEX = RunIndex.from_records(
    PAGES, [{"doc_id": d, "trust_score": s, "band": b} for d, s, b in SCORES]
)


def rows_for(
    retrievals: list[Retrieval], cited: list[str], index: RunIndex | None = INDEX
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    rows, _ = audit_turn(Turn("t", 1, "q?", "a", retrievals, [Citation(c) for c in cited]), POLICY)
    rows, info = enrich_rows(rows, index)
    return {r["doc_id"]: r for r in rows}, info


def test_fields_from_the_run() -> None:
    rows, _ = rows_for([Retrieval("doc-7f3a", "search", "s", 0)], ["doc-7f3a"])
    r = rows["doc-7f3a"]
    assert r["source_url"] == "https://docs.example.com/pricing"
    assert (r["source_license"], r["trust_score"], r["band"]) == ("CC-BY-4.0", 0.82, "trusted")


def test_empty_license_is_absent_and_quarantine_flags() -> None:
    rows, _ = rows_for(
        [Retrieval("doc-22b1", "search", "s", 0), Retrieval(SPAM_URL, "fetch", "f", 1)],
        ["doc-22b1", SPAM_URL],
    )
    assert rows["doc-22b1"]["source_license"] is None
    assert "CITED_MEDIUM" in rows["doc-22b1"]["reasons"]
    assert "CITED_QUARANTINED" in rows[SPAM_URL]["reasons"]
    assert rows[SPAM_URL]["run_doc_id"] == SPAM_ID


def test_consulted_quarantined_page_is_flagged() -> None:
    rows, _ = rows_for([Retrieval(SPAM_URL, "fetch", "f", 0)], [])
    assert "CONSULTED_QUARANTINED" in rows[SPAM_URL]["reasons"]


def test_model_text_never_becomes_a_url() -> None:
    rows, _ = rows_for([], ["https://made-up.example/page"])
    assert rows["https://made-up.example/page"]["source_url"] is None
    rows, _ = rows_for([], ["https://made-up.example/page"], index=None)
    assert rows["https://made-up.example/page"]["source_url"] is None


def test_tool_returned_url_is_used_without_a_run() -> None:
    rows, _ = rows_for([Retrieval("x1", "search", "s", 0, url="https://tool.example/x1")], [], None)
    assert rows["x1"]["source_url"] == "https://tool.example/x1"
    assert rows["x1"]["trust_score"] is None and "NOT_IN_RUN" not in rows["x1"]["reasons"]


def test_not_in_run_is_noted() -> None:
    rows, _ = rows_for([Retrieval("nope", "search", "s", 0)], [])
    assert rows["nope"]["reasons"] == ["NOT_IN_RUN"] and rows["nope"]["band"] is None


def test_relevance_only_on_one_declared_scale() -> None:
    same = [Retrieval("a", "search", "s", 0, score=0.9, score_scale="cosine"),
            Retrieval("b", "search", "s", 0, score=0.2, score_scale="cosine")]  # fmt: skip
    rows, info = rows_for(same, [])
    assert info["relevance_scale"] == "cosine"
    assert (rows["a"]["relevance"], rows["a"]["score_scale"]) == (0.9, "cosine")

    mixed = [Retrieval("a", "search", "s", 0, score=0.9, score_scale="cosine"),
             Retrieval("b", "search", "r", 1, score=7.1, score_scale="rerank_logit")]  # fmt: skip
    rows, info = rows_for(mixed, [])
    assert info["relevance_scale"] is None and "different scales" in info["relevance_note"]
    assert all(r["relevance"] is None and r["score_scale"] is None for r in rows.values())

    undeclared = [Retrieval("a", "search", "s", 0, score=0.9)]
    rows, info = rows_for(undeclared, [])
    assert rows["a"]["relevance"] is None and "declare" in info["relevance_note"]


def test_relevance_scale_over_the_whole_batch() -> None:
    assert relevance_scale([{"_score": 1.0, "_score_scale": "rrf"}, {"_score": None}])[0] == "rrf"
    assert relevance_scale([])[0] is None


def test_corrupt_run_values_are_absent() -> None:
    bad = RunIndex.from_records(
        [{"doc_id": "d", "url": "javascript:alert(1)", "license": "\x00bad"},
         {"doc_id": "e", "url": 42, "license": 7}],
        [{"doc_id": "d", "trust_score": float("nan"), "band": "excellent"},
         {"doc_id": "e", "trust_score": 1.7, "band": None}],
    )  # fmt: skip
    rows, info = rows_for(
        [Retrieval("d", "search", "s", 0), Retrieval("e", "search", "s", 0)], ["d"], bad
    )
    for r in rows.values():
        assert r["run_doc_id"] in ("d", "e")
        assert r["source_url"] is None and r["source_license"] is None
        assert r["trust_score"] is None and r["band"] is None
    assert info["enrich_errors"] == 0


def test_unreadable_run_files_degrade_to_warnings(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    (run / "scores.parquet").write_bytes(b"PAR1 not really parquet")
    idx = RunIndex.load(run, [("doc-7f3a", None)])
    assert "doc-7f3a" in idx.pages and idx.scores == {}
    assert idx.warnings and "scores.parquet" in idx.warnings[0]


def test_pages_found_by_url_when_doc_ids_differ(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run")
    idx = RunIndex.load(run, [("https://DOCS.example.com/pricing", None)])
    assert idx.match("https://DOCS.example.com/pricing") == "doc-7f3a"
    assert idx.scores["doc-7f3a"]["band"] == "trusted"


_junk = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.lists(st.text(max_size=5), max_size=3),
    st.sampled_from(["https://ok.example/a", "doc-7f3a", "quarantine", "medium", "http://"]),
)  # fmt: skip
_row = st.dictionaries(
    st.sampled_from(["doc_id", "cited", "consulted", "retrieved", "cited_as", "reasons",
                     "reason_details", "_tool_url", "_score", "_score_scale", "band"]),
    _junk,
)  # fmt: skip
_record = st.dictionaries(
    st.sampled_from(["doc_id", "url", "license", "trust_score", "band", "final_url"]), _junk
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(st.one_of(_row, _junk), max_size=6),
    pages=st.lists(_record, max_size=4),
    scores=st.lists(_record, max_size=4),
    with_index=st.booleans(),
)
def test_enrichment_never_raises(
    rows: list[Any], pages: list[Any], scores: list[Any], with_index: bool
) -> None:
    idx = RunIndex.from_records(pages, scores) if with_index else None
    out, info = enrich_rows(rows, idx)
    assert out is rows and isinstance(info["enrich_errors"], int)
    for r in out:
        if not isinstance(r, dict):
            continue
        url = r.get("source_url")
        assert url is None or (isinstance(url, str) and url.startswith(("http://", "https://")))
        t = r.get("trust_score")
        assert t is None or (isinstance(t, float) and math.isfinite(t) and 0 <= t <= 1)
        assert r.get("band") in (None, "quarantine", "medium", "trusted")
        lic = r.get("source_license")
        assert lic is None or (isinstance(lic, str) and lic.strip())
        rel = r.get("relevance")
        assert rel is None or (math.isfinite(rel) and isinstance(r.get("score_scale"), str))
