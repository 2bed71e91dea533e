"""trustaudit.fusion: parsing retrieval results, the fusion formula, context decisions, summaries.

Trust tables are hand-made here so every number is exact; tests/cli/test_fuse.py runs the command on a
real audited run.
"""

from __future__ import annotations

import json
import math
from typing import Any

import polars as pl
import pytest

from trustaudit.fusion import (
    ADDED_FIELDS,
    TRUST_SCHEMA,
    fuse,
    fuse_results,
    fused_jsonl,
    parse_results,
    summarize,
    trust_of,
)
from trustaudit.io.records import doc_id_for
from trustaudit.io.urlmatch import match_doc_ids
from trustaudit.policy import PolicyError, load_policy
from trustaudit.policy.fusion import FusionPolicy

MEDIUM = "[MEDIUM-TRUST SOURCE — verify before asserting]"


def jsonl(*rows: dict[str, Any]) -> str:
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def trust_table(rows: dict[str, tuple[float, str, bool]]) -> pl.DataFrame:
    """url -> (trust, band, hard) as trust_of would return it."""
    return pl.DataFrame(
        [
            {
                "url": u,
                "run_doc_id": doc_id_for(u, "", None),
                "trust_score": t,
                "band": b,
                "reasons": [f"CODE_{b.upper()}"],
                "hard_quarantine": h,
            }
            for u, (t, b, h) in rows.items()
        ],
        schema=TRUST_SCHEMA,
    )


def run_fuse(text: str, trust: pl.DataFrame, **policy: Any) -> pl.DataFrame:
    parsed = parse_results(text)
    assert not parsed.bad, parsed.bad
    return fuse(parsed.frame, trust, FusionPolicy(**policy), medium_tag=MEDIUM)


def by_url(fused: pl.DataFrame) -> dict[str, dict[str, Any]]:
    return {r["url"]: r for r in fused.to_dicts()}


# --- parsing -----------------------------------------------------------------------------------


def test_parse_fields_and_precedence() -> None:
    text = jsonl(
        {"query": "q", "url": " https://a.example/ ", "rerank_score": 2.5, "score": 0.1},
        {"query": "q", "url": "https://b.example/", "score": 0.4, "relevance": 0.9},
        {"query_id": 7, "query": "text", "url": "https://c.example/", "relevance": 1},
        {"query": "q", "url": "https://d.example/", "rank": 3},
    )
    p = parse_results(text)
    assert p.bad == [] and p.seen == 4 and p.unit == "line"
    rows = p.frame.to_dicts()
    assert [r["score_field"] for r in rows] == ["rerank_score", "score", "relevance", "rank"]
    assert [r["score"] for r in rows] == [2.5, 0.4, 1.0, None]
    assert rows[3]["rank_in"] == 3
    assert rows[0]["url"] == "https://a.example/"  # stripped
    assert rows[2]["query"] == "7"  # query_id wins and an integer id becomes text


def test_bad_lines_are_one_error_each_and_never_stop_the_batch() -> None:
    lines = [
        json.dumps({"query": "q", "url": "https://ok.example/1", "score": 0.5}),
        "{not json",
        "[1, 2]",
        json.dumps({"url": "https://x.example/", "score": 1}),
        json.dumps({"query": "q", "score": 1}),
        json.dumps({"query": "q", "url": "https://x.example/", "score": "high"}),
        json.dumps({"query": "q", "url": "https://x.example/", "score": True}),
        json.dumps({"query": "q", "url": "https://x.example/", "rank": 0}),
        json.dumps({"query": "q", "url": "https://x.example/", "rank": 1.5}),
        json.dumps({"query": "q", "url": "https://x.example/"}),
        json.dumps({"query": {"a": 1}, "url": "https://x.example/", "score": 1}),
        '{"query": "q", "url": "https://x.example/", "score": NaN}',
        "",
        json.dumps({"query": "q", "url": "https://ok.example/2", "score": 0.7}),
    ]
    p = parse_results("\n".join(lines))
    assert p.frame.height == 2 and p.frame["_line"].to_list() == [1, 14]
    msgs = {b.line: b.message for b in p.bad}
    assert sorted(msgs) == list(range(2, 13))
    assert msgs[2].startswith("not JSON:")
    assert msgs[3] == "not a JSON object (got list)"
    assert msgs[4].startswith("no query") and msgs[5].startswith("no url")
    assert msgs[6] == "`score` is not a finite number: 'high'"
    assert msgs[7] == "`score` is not a finite number: True"
    assert msgs[8].startswith("`rank` must be an integer >= 1") and msgs[9].startswith("`rank`")
    assert msgs[10].startswith("no relevance")
    assert msgs[11].startswith("`query` must be a string or an integer")
    assert msgs[12] == "`score` is not a finite number: nan"
    assert all("\n" not in m for m in msgs.values())
    assert p.seen == 13  # blank lines are not results


def test_json_array_input_and_bom() -> None:
    arr = [{"query": "q", "url": "https://a.example/", "score": 0.2}, 5]
    p = parse_results("\ufeff" + json.dumps(arr))
    assert p.unit == "item" and p.frame.height == 1
    assert [(b.line, b.message) for b in p.bad] == [(2, "not a JSON object (got int)")]


def test_line_separator_inside_a_string_is_not_a_line_break() -> None:
    p = parse_results(jsonl({"query": "a\u2028b", "url": "https://a.example/", "score": 0.5}))
    assert p.bad == [] and p.frame["query"].to_list() == ["a\u2028b"]


def test_score_field_forces_one_field() -> None:
    text = jsonl(
        {"query": "q", "url": "https://a.example/", "rerank_score": 9, "bm25": 12.5},
        {"query": "q", "url": "https://b.example/", "rerank_score": 3},
    )
    p = parse_results(text, score_field="bm25")
    assert p.frame["score"].to_list() == [12.5]
    assert [b.message for b in p.bad] == ["no `bm25` (chosen with --score-field)"]
    ranked = parse_results(
        jsonl({"query": "q", "url": "https://a.example/", "rank": 2}), score_field="rank"
    )
    assert ranked.frame["rank_in"].to_list() == [2]


# --- formula and normalisation ----------------------------------------------------------------


def test_formula_with_scores_already_in_unit_range() -> None:
    trust = trust_table({"https://a.example/": (0.9, "trusted", False)})
    text = jsonl(
        {"query": "q", "url": "https://a.example/", "score": 0.8},
        {"query": "q", "url": "https://b.example/", "score": 0.6},
    )
    rows = by_url(run_fuse(text, trust))
    a, b = rows["https://a.example/"], rows["https://b.example/"]
    assert a["relevance_norm"] == 0.8 and a["final_score"] == pytest.approx(0.7 * 0.8 + 0.3 * 0.9)
    assert b["final_score"] == pytest.approx(0.7 * 0.6 + 0.3 * 0.5)  # unscored: neutral trust
    custom = by_url(run_fuse(text, trust, alpha=0.5, beta=0.5, unscored_trust=0.2))
    assert custom["https://a.example/"]["final_score"] == pytest.approx(0.5 * 0.8 + 0.5 * 0.9)
    assert custom["https://b.example/"]["final_score"] == pytest.approx(0.5 * 0.6 + 0.5 * 0.2)


def test_trust_reorders_results() -> None:
    trust = trust_table(
        {
            "https://low.example/": (0.45, "medium", False),
            "https://hi.example/": (0.95, "trusted", False),
        }
    )
    text = jsonl(
        {"query": "q", "url": "https://low.example/", "score": 0.80},
        {"query": "q", "url": "https://hi.example/", "score": 0.70},
    )
    fused = run_fuse(text, trust)
    # 0.7*0.80+0.3*0.45 = 0.695 < 0.7*0.70+0.3*0.95 = 0.775
    assert fused["url"].to_list() == ["https://hi.example/", "https://low.example/"]
    assert fused["rank"].to_list() == [1, 2]


def _rel(text: str, **policy: Any) -> list[float]:
    fused = run_fuse(text, trust_table({}), **policy).sort("_row")
    return fused["relevance_norm"].to_list()


LOGITS = jsonl(
    {"query": "a", "url": "https://1.example/", "rerank_score": -2.0},
    {"query": "a", "url": "https://2.example/", "rerank_score": 6.0},
    {"query": "a", "url": "https://3.example/", "rerank_score": 2.0},
    {"query": "b", "url": "https://4.example/", "rerank_score": 0.2},
    {"query": "b", "url": "https://5.example/", "rerank_score": 0.6},
)


def test_normalize_auto_is_per_query() -> None:
    # query a has logits -> min-max; query b is inside [0, 1] -> untouched
    assert _rel(LOGITS) == [0.0, 1.0, 0.5, 0.2, 0.6]


def test_normalize_minmax_none_sigmoid() -> None:
    assert _rel(LOGITS, normalize="minmax") == [0.0, 1.0, 0.5, 0.0, 1.0]
    assert _rel(LOGITS, normalize="none") == [-2.0, 6.0, 2.0, 0.2, 0.6]
    sig = _rel(LOGITS, normalize="sigmoid")
    assert sig == pytest.approx(
        [1 / (1 + math.exp(-x)) for x in (-2.0, 6.0, 2.0, 0.2, 0.6)], abs=1e-6
    )


def test_equal_scores_get_full_relevance_under_minmax() -> None:
    text = jsonl(
        {"query": "q", "url": "https://1.example/", "rerank_score": 4.0},
        {"query": "q", "url": "https://2.example/", "rerank_score": 4.0},
        {"query": "solo", "url": "https://3.example/", "rerank_score": -3.0},
    )
    assert _rel(text) == [1.0, 1.0, 1.0]


def test_rank_only_results() -> None:
    text = jsonl(*({"query": "q", "url": f"https://{r}.example/", "rank": r} for r in (1, 2, 4)))
    assert _rel(text) == [1.0, 0.75, 0.25]  # linear: 1 - (rank-1)/max_rank
    assert _rel(text, rank_score="reciprocal") == [1.0, 0.5, 0.25]


# --- context decisions --------------------------------------------------------------------------

TRUST = {
    "https://trusted.example/": (0.9, "trusted", False),
    "https://medium.example/": (0.55, "medium", False),
    "https://quar.example/": (0.2, "quarantine", False),
    "https://hard.example/": (0.95, "quarantine", True),
}


def _all(**policy: Any) -> pl.DataFrame:
    text = jsonl(
        {"query": "q", "url": "https://hard.example/", "score": 1.0, "rank": 1},
        {"query": "q", "url": "https://quar.example/", "score": 0.99},
        {"query": "q", "url": "https://medium.example/", "score": 0.5},
        {"query": "q", "url": "https://trusted.example/", "score": 0.3},
        {"query": "q", "url": "https://unknown.example/", "score": 0.1},
    )
    return run_fuse(text, trust_table(TRUST), **policy)


def test_quarantined_leave_the_context_but_stay_in_the_output() -> None:
    fused = _all()
    assert fused.height == 5
    rows = by_url(fused)
    for u in ("https://hard.example/", "https://quar.example/"):
        assert rows[u]["in_context"] is False and rows[u]["drop_reason"] == "QUARANTINED"
        assert rows[u]["in_top_k"] is False
    # the hard-quarantined page has the best relevance and trust, and still ranks after the kept ones
    assert rows["https://hard.example/"]["final_score"] == pytest.approx(0.7 + 0.3 * 0.95)
    assert [r["in_context"] for r in fused.to_dicts()] == [True, True, True, False, False]
    assert fused["rank"].to_list() == [1, 2, 3, 4, 5]


def test_tags_reasons_and_unscored() -> None:
    rows = by_url(_all())
    assert rows["https://medium.example/"]["tag"] == MEDIUM
    assert rows["https://trusted.example/"]["tag"] is None
    assert rows["https://trusted.example/"]["reasons"] == ["CODE_TRUSTED"]
    u = rows["https://unknown.example/"]
    assert u["trust_score"] is None and u["band"] is None and u["trust_used"] == 0.5
    assert u["reasons"] == ["UNSCORED"] and u["tag"].startswith("[UNSCORED SOURCE")
    assert u["in_context"] is True and u["run_doc_id"] is None
    tagged = by_url(_all(medium_tag="[CHECK]", unscored_tag="[?]"))
    assert tagged["https://medium.example/"]["tag"] == "[CHECK]"
    assert tagged["https://unknown.example/"]["tag"] == "[?]"


def test_min_trust_and_drop_unscored() -> None:
    rows = by_url(_all(min_trust=0.6))
    assert rows["https://medium.example/"]["drop_reason"] == "BELOW_MIN_TRUST"
    assert rows["https://unknown.example/"]["drop_reason"] == "BELOW_MIN_TRUST"
    assert rows["https://trusted.example/"]["in_context"] is True
    rows = by_url(_all(drop_unscored=True))
    assert rows["https://unknown.example/"]["drop_reason"] == "UNSCORED"
    assert rows["https://unknown.example/"]["in_context"] is False


def test_summary_top_k_mean_and_research_advice() -> None:
    pol = FusionPolicy(top_k=2)
    fused = _all(top_k=2)
    s = summarize(fused, pol).to_dicts()[0]
    # kept by final score: medium 0.7*0.5+0.3*0.55=0.515, unknown 0.07+0.15=0.22, trusted 0.21+0.27=0.48
    assert [r["url"] for r in fused.to_dicts() if r["in_top_k"]] == [
        "https://medium.example/",
        "https://trusted.example/",
    ]
    assert s["results"] == 5 and s["kept"] == 3 and s["dropped"] == 2 and s["quarantined"] == 2
    assert s["unscored"] == 1 and s["top_k"] == 2 and s["medium_in_top_k"] == 1
    assert s["mean_trust_top_k"] == pytest.approx((0.55 + 0.9) / 2)
    assert s["research_advised"] is False  # 0.725 >= 0.6
    assert summarize(fused, FusionPolicy(top_k=2, research_below=0.8)).row(0, named=True)[
        "research_advised"
    ]


def test_nothing_kept_advises_research() -> None:
    text = jsonl({"query": "q", "url": "https://hard.example/", "score": 1.0})
    fused = run_fuse(text, trust_table(TRUST))
    s = summarize(fused, FusionPolicy()).row(0, named=True)
    assert s["kept"] == 0 and s["mean_trust_top_k"] is None and s["research_advised"] is True
    assert s["top_url"] is None


def test_queries_keep_their_input_order_and_rank_independently() -> None:
    text = jsonl(
        {"query": "z", "url": "https://1.example/", "score": 0.1},
        {"query": "a", "url": "https://2.example/", "score": 0.9},
        {"query": "z", "url": "https://3.example/", "score": 0.8},
    )
    fused = run_fuse(text, trust_table({}))
    assert fused.select("query", "rank", "url").rows() == [
        ("z", 1, "https://3.example/"),
        ("z", 2, "https://1.example/"),
        ("a", 1, "https://2.example/"),
    ]
    assert summarize(fused, FusionPolicy())["query"].to_list() == ["z", "a"]


# --- output ---------------------------------------------------------------------------------------


def test_jsonl_keeps_input_fields_and_renames_clashes() -> None:
    raw = '{"query": "q", "url": "https://trusted.example/", "score": 0.5, "rank": 9, "meta": {"k": [1, "x"]}}'
    parsed = parse_results(raw + "\n")
    fused = fuse(parsed.frame, trust_table(TRUST), FusionPolicy(), medium_tag=MEDIUM)
    (line,) = fused_jsonl(fused).to_list()
    obj = json.loads(line)
    assert obj["meta"] == {"k": [1, "x"]} and obj["input_rank"] == 9 and obj["rank"] == 1
    assert list(obj)[-len(ADDED_FIELDS) :] == list(ADDED_FIELDS)
    plain = '{"query": "q", "url": "https://trusted.example/", "score": 0.5, "note": "a  b"}'
    fused = fuse(parse_results(plain).frame, trust_table(TRUST), FusionPolicy(), medium_tag=MEDIUM)
    assert fused_jsonl(fused)[0].startswith(plain[:-1] + ",")  # the input's own bytes, untouched


# --- joining to the run ---------------------------------------------------------------------------


def test_urls_match_like_explain() -> None:
    urls = ["https://www.example.org/a?x=1", "http://plain.example/b"]
    scores = pl.LazyFrame(
        {
            "doc_id": [doc_id_for(u, "", None) for u in urls],
            "url": urls,
            "trust_score": [0.8, 0.3],
            "band": ["trusted", "quarantine"],
            "reasons": [["A"], ["B"]],
        }
    )
    refs = pl.Series(
        [
            "https://WWW.Example.org:443/a?x=1#top",
            " http://plain.example/b ",
            doc_id_for(urls[0], "", None),
            "https://www.example.org/a?x=2",
            None,
            "",
        ]
    )
    ids = match_doc_ids(refs, scores).to_list()
    a, b = (doc_id_for(u, "", None) for u in urls)
    assert ids == [a, b, a, None, None, None]
    t = trust_of(pl.Series(["https://WWW.example.org/a?x=1", "https://nope.example/"]), scores)
    assert t["trust_score"].to_list() == [0.8, None]
    assert t["hard_quarantine"].to_list() == [None, None]  # an old run without the column


def test_exact_url_wins_over_normalised_form() -> None:
    # two pages whose URLs normalise alike (an odd run): the exact spelling picks its own page
    scores = pl.LazyFrame(
        {"doc_id": ["id-one", "id-two"], "url": ["https://A.example/", "https://a.example/"]}
    )
    assert match_doc_ids(pl.Series(["https://A.example/"]), scores).to_list() == ["id-one"]


# --- policy ---------------------------------------------------------------------------------------


def test_policy_defaults_and_validation(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = load_policy(environ={}).fusion
    assert (f.alpha, f.beta, f.top_k, f.research_below, f.unscored_trust, f.normalize) == (
        0.7,
        0.3,
        5,
        0.6,
        0.5,
        "auto",
    )
    toml = tmp_path / "p.toml"
    toml.write_text('[fusion]\nalpha = 0.5\nnormalize = "minmax"\n')
    f = load_policy(toml, environ={}, overrides={"fusion": {"alpha": 0.9}}).fusion
    assert (f.alpha, f.normalize) == (0.9, "minmax")  # flags beat the file
    for bad in ({"alpha": -1}, {"top_k": 0}, {"research_below": 1.5}, {"normalize": "zscore"}):
        with pytest.raises(PolicyError):
            load_policy(environ={}, overrides={"fusion": bad})


# --- scale -------------------------------------------------------------------------------------------


def test_hundred_thousand_results_are_vectorised() -> None:
    n = 100_000
    urls = [f"https://s{i % 500}.example/p{i % 5000}" for i in range(n)]
    text = "\n".join(
        json.dumps({"query": f"q{i % 2000}", "url": u, "rerank_score": (i * 7919) % 1000 / 100 - 5})
        for i, u in enumerate(urls)
    )
    known = sorted(set(urls))[::2]
    scores = pl.LazyFrame(
        {
            "doc_id": [doc_id_for(u, "", None) for u in known],
            "url": known,
            "trust_score": [0.5 + (i % 5) / 10 for i in range(len(known))],
            "band": ["medium"] * len(known),
            "reasons": [[]] * len(known),
            "hard_quarantine": [i % 7 == 0 for i in range(len(known))],
        }
    )
    # checked by structure, not by the clock: the trust lookup sees each distinct URL once (5,000,
    # not 100,000 rows) and hashes only the ones not found as written (a Python call each); the
    # rows get their verdicts by a join
    import trustaudit.fusion as fusion_mod
    import trustaudit.io.urlmatch as urlmatch

    looked_up: list[int] = []
    hashed: list[str] = []
    real_match, real_hash = urlmatch.match_doc_ids, urlmatch.doc_id_for

    def spy_match(refs: pl.Series, pages: pl.LazyFrame) -> pl.Series:
        looked_up.append(refs.len())
        return real_match(refs, pages)

    def spy_hash(url: str, *a: object) -> str:
        hashed.append(url)
        return real_hash(url, *a)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fusion_mod, "match_doc_ids", spy_match)
        mp.setattr(urlmatch, "doc_id_for", spy_hash)
        out = fuse_results(text, scores, FusionPolicy(), medium_tag=MEDIUM)
    lines = fused_jsonl(out.fused)
    assert out.fused.height == n and lines.len() == n and out.summary.height == 2000
    assert out.fused["rank"].max() == n // 2000
    assert looked_up == [5000]
    assert len(hashed) == len(set(hashed)) == 5000 - len(known)
