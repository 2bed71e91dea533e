"""report.html shows the trust layer: behaviour and judge in the page panel, the judge's counts, the
planted-source eval (RUN/eval or an explicit folder), and labels for the BEHAVIOUR_/JUDGE_ codes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import polars as pl
import pytest

from tests.report.hostile import hostile_run
from tests.report.test_html import _data
from trustaudit.io.atomic import write_parquet
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy
from trustaudit.report.html import build_html
from trustaudit.report.reason_text import LABELS, label_for

REPO = Path(__file__).resolve().parents[2]
EVIL_REASON = "<img src=x onerror=\"document.body.setAttribute('data-pwned','judge')\">"
EVIL_QUERY = "<script>document.body.setAttribute('data-pwned','query')</script> best blender"
JUDGE_COUNTS = {
    "selected": 5,
    "named_not_in_run": 1,
    "sent_or_cached": 3,
    "calls": 2,
    "cache_hits": 1,
    "failed": 1,
    "skipped_budget": 1,
    "skipped_injection": 1,
    "max_pages": 3,
    "prompt_version": "tail-judge-v1",
}


def trust_layer_run(root: Path, *, judge: bool = True) -> RunDir:
    """The hostile run with behaviour and judge columns on two pages and the judge's counts."""
    run = hostile_run(root)
    scores = run.read("scores")
    first, second = scores["doc_id"][0], scores["doc_id"][1]
    is_first, is_second = pl.col("doc_id") == first, pl.col("doc_id") == second
    scores = scores.with_columns(
        behaviour_score=pl.when(is_first).then(0.31).otherwise(None),
        adjust_behaviour=pl.when(is_first).then(-0.0552).otherwise(0.0),
        judge_score=pl.when(is_second).then(0.2).otherwise(None),
        judge_reason=pl.when(is_second).then(pl.lit(EVIL_REASON)).otherwise(None),
        judge_status=pl.when(is_second)
        .then(pl.lit("ok"))
        .when(is_first)
        .then(pl.lit("failed"))
        .otherwise(None),
        adjust_judge=pl.when(is_second).then(-0.06).otherwise(0.0),
    )
    write_parquet(run.scores, scores)
    manifest = run.read_manifest()
    manifest["stages"]["signals"] = {"families": {"behaviour": "computed"}}
    if judge:
        manifest["stages"]["score"] = {"status": "done", "judge": JUDGE_COUNTS}
    run.write_manifest(manifest)
    return run


def _queries(run: RunDir, path: Path) -> Path:
    """Two queries over the run's pages: a planted quarantined page, a planted page kept, clean ones."""
    scores = run.read("scores")
    url = dict(zip(scores["band"], scores["url"], strict=False))
    fine = scores.filter(pl.col("band") == "trusted")["url"][0]
    evil = scores.filter(pl.col("band") == "quarantine")["url"][0]
    lines = [
        {"query_id": "q1", "query": EVIL_QUERY, "results": [
            {"url": fine, "relevance": 0.9, "planted": "llm_review"},
            {"url": url["medium"], "relevance": 0.5, "planted": None},
        ]},
        {"query_id": "q2", "query": "plain", "results": [
            {"url": evil, "relevance": 0.99, "planted": "affiliate"},
            {"url": url["medium"], "relevance": 0.5, "planted": None},
        ]},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_every_behaviour_and_judge_code_has_a_label() -> None:
    """The codes the trust layer writes (scoring, tail judge, cards judge) read as words."""
    sources = ("scoring/behaviour.py", "judge/tail.py", "citations/cards.py")
    codes = set()
    for src in sources:
        codes |= set(
            re.findall(
                r"\b((?:BEHAVIOUR|JUDGE)_[A-Z_]+[A-Z])\b", (REPO / "trustaudit" / src).read_text()
            )
        )
    assert len(codes) >= 11, codes
    assert sorted(c for c in codes if c not in LABELS) == []
    assert label_for("JUDGE_SCORE") == "Tail judge verdict"
    assert label_for("BEHAVIOUR_SOMETHING_NEW") == "Review behaviour: something new"


def test_panel_shows_behaviour_and_judge_when_present(tmp_path: Path) -> None:
    run = trust_layer_run(tmp_path / "run")
    html = build_html(run, Policy(), run.read_manifest())
    pages = _data(html, "data-pages")
    by_id = {d["id"]: d for d in pages["detail"]}
    scores = run.read("scores")
    first, second, third = (by_id[scores["doc_id"][i]]["t"] for i in range(3))
    assert first[0] == [
        "behaviour score",
        0.31,
        "review-platform signals; adjust_behaviour -0.0552",
    ]
    assert first[1][:2] == ["judge score", None] and first[1][2] == "failed"
    assert second == [["judge score", 0.2, f"ok: {EVIL_REASON}; adjust_judge -0.0600"]]
    assert third == []
    # the hostile judge reason is data in the JSON block, never markup
    assert (
        EVIL_REASON not in html
        and "onerror" not in html.split('<script type="application/json"')[0]
    )


def test_judge_counts_and_behaviour_status_section(tmp_path: Path) -> None:
    run = trust_layer_run(tmp_path / "run")
    html = build_html(run, Policy(), run.read_manifest())
    section = html.split('id="trust-layer"')[1].split("<h2")[0]
    assert "Behavioural review signals: computed" in section and "tail-judge-v1" in section
    cells = re.findall(r"<tr><td>(\w+)</td><td>[^<]*</td><td>(\d+)</td></tr>", section)
    assert dict(cells) == {k: str(v) for k, v in JUDGE_COUNTS.items() if k != "prompt_version"}
    plain = hostile_run(tmp_path / "plain")
    assert 'id="trust-layer"' not in build_html(plain, Policy(), plain.read_manifest())


def test_eval_section_from_run_eval_end_to_end(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    run = trust_layer_run(tmp_path / "run")
    q = _queries(run, tmp_path / "q.jsonl")
    res = runner.invoke(
        app, ["eval", str(q), "--run", str(run.root), "--out", str(run.root / "eval")]
    )
    assert res.exit_code == 1, res.output  # llm_review kept untagged: the gate fails
    res = runner.invoke(app, ["report", str(run.root)])
    assert res.exit_code == 0, res.output
    html = run.report("report.html").read_text(encoding="utf-8")
    section = html.split('id="planted-eval"')[1].split("<h2")[0]
    assert "2 queries, 4 results" in section and "planted_in_context" in section
    assert "<td>llm_review</td><td>1</td><td>1</td><td>0</td><td>0</td><td>100.0%</td>" in section
    assert "<td>affiliate</td><td>1</td><td>0</td><td>0</td><td>1</td><td>0.0%</td>" in section
    assert "scored again" not in section and "not this run" not in section
    leaks = _data(html, "data-eval")
    assert leaks["total"] == 1 and leaks["rows"][0][:2] == ["llm_review", "in_context"]
    assert leaks["rows"][0][4] == ["https://fine.example/", "https://fine.example/", EVIL_QUERY]
    assert EVIL_QUERY not in html  # escaped in the JSON block


def test_eval_folder_given_and_stale_or_foreign_evals_are_flagged(
    tmp_path: Path, runner, app
) -> None:  # type: ignore[no-untyped-def]
    run = trust_layer_run(tmp_path / "run")
    assert 'id="planted-eval"' not in build_html(run, Policy(), run.read_manifest())
    out = tmp_path / "elsewhere"
    q = _queries(run, tmp_path / "q.jsonl")
    runner.invoke(app, ["eval", str(q), "--run", str(run.root), "--out", str(out)])
    assert 'id="planted-eval"' not in build_html(run, Policy(), run.read_manifest())
    html = build_html(run, Policy(), run.read_manifest(), eval_dir=out)
    assert 'id="planted-eval"' in html and "not this run" not in html
    manifest = {**run.read_manifest(), "run_id": "another"}
    later = (out / "eval.json").stat().st_mtime + 10
    os.utime(run.scores, (later, later))
    html = build_html(run, Policy(), manifest, eval_dir=out)
    section = html.split('id="planted-eval"')[1].split("<h2")[0]
    assert "made with run fake0001, not this run (another)" in section
    assert "scored again after this eval" in section
    missing = build_html(run, Policy(), manifest, eval_dir=tmp_path / "nowhere")
    assert "no readable eval.json" in missing.split('id="planted-eval"')[1]


def test_hostile_strings_in_trust_layer_stay_text_in_chromium(tmp_path: Path) -> None:
    from tests.report.test_html_chromium import CHROMIUM, dump_dom

    if CHROMIUM is None:
        pytest.skip("chromium not installed (scripts/ensure-chromium.sh)")
    from typer.testing import CliRunner

    from trustaudit.cli.main import app

    run = trust_layer_run(tmp_path / "run")
    q = _queries(run, tmp_path / "q.jsonl")
    CliRunner().invoke(
        app, ["eval", str(q), "--run", str(run.root), "--out", str(run.root / "eval")]
    )
    res = CliRunner().invoke(app, ["report", str(run.root)])
    assert res.exit_code == 0, res.output
    doc = run.read("scores")["doc_id"][1]
    dom = dump_dom(run.report("report.html"), tmp_path / "profile", f"#doc={doc}")
    body = re.search(r"<body[^>]*>", dom)
    assert body and 'data-ready="1"' in body.group(0) and "data-pwned" not in body.group(0)
    assert re.search(r'data-src="data-eval" data-rendered="1"', dom)  # the leak table rendered
    assert "&lt;script&gt;document.body.setAttribute('data-pwned','query')" in dom
    assert "judge score" in dom and "Trust layer" in dom  # the opened panel's rows
    assert "&lt;img src=x onerror=" in dom
    live = re.sub(r'<script type="application/json".*?</script>', "", dom, flags=re.S)
    assert not re.search(r"<img\b", live) and not re.search(r"<[a-z]+[^>]*\son[a-z]+=", live)


def test_behaviour_reasons_show_the_signals_behind_them(tmp_path: Path) -> None:
    from trustaudit.report.evidence import page_evidence

    run = trust_layer_run(tmp_path / "run")
    doc = run.read("scores")["doc_id"][0]
    signals = run.read("signals").with_columns(
        behaviour_reviewer_tenure_days=pl.when(pl.col("doc_id") == doc).then(2),
        behaviour_verified=pl.when(pl.col("doc_id") == doc).then(False),
        behaviour_burst_score=pl.when(pl.col("doc_id") == doc).then(6.25),
        behaviour_entity_reviews=pl.when(pl.col("doc_id") == doc).then(12),
    )
    write_parquet(run.signals, signals)
    rows = (
        run.read("scores")
        .filter(pl.col("doc_id") == doc)
        .with_columns(
            reason_details=pl.lit(
                [
                    "BEHAVIOUR_NEW_REVIEWER: account 2 days old at review time",
                    "BEHAVIOUR_BURST: 6.2x the entity's reviews per 7-day window",
                ],
                dtype=pl.List(pl.String),
            )
        )
    )
    ev = {e["code"]: [x["t"] for x in e["ev"]] for e in page_evidence(run, rows)[doc]}
    assert ev == {
        "BEHAVIOUR_NEW_REVIEWER": [
            "behaviour_reviewer_tenure_days = 2",
            "behaviour_verified = False",
        ],
        "BEHAVIOUR_BURST": ["behaviour_burst_score = 6.25", "behaviour_entity_reviews = 12"],
    }


def test_every_coherence_reason_has_a_label() -> None:
    """Each coherence reason the scoring writes (`"CODE: detail"`) reads as words in the reports."""
    src = (REPO / "trustaudit" / "scoring" / "coherence.py").read_text()
    codes = set(re.findall(r"\"(COHERENCE_[A-Z_]+[A-Z]):", src))
    assert {"COHERENCE_LOOSE_PARAGRAPHS", "COHERENCE_LANGUAGE_MIX"} <= codes, codes
    assert sorted(c for c in codes if c not in LABELS) == []
