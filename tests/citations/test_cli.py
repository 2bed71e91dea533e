"""`trustaudit citations` and `trustaudit cards` end to end through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from trustaudit.citations import card_results_summary, citation_results_summary
from trustaudit.cli.main import app

from .conftest import DATA
from .test_judge import StubLLM

runner = CliRunner()


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    """The deterministic hashing embedder through the real get_embedder: no model, no download."""
    p = tmp_path / "trustaudit.toml"
    p.write_text(
        f'[embeddings]\nstatic_model = "hashing-256"\ndisk_cache = false\ncache_dir = "{tmp_path / "cache"}"\n'
        f'[citations]\njudge_cache_dir = "{tmp_path / "judge"}"\n'
    )
    return p


def test_citations_into_run(run_dir: Path) -> None:
    res = runner.invoke(app, ["citations", str(DATA / "transcripts.jsonl"), "--run", str(run_dir)])
    assert res.exit_code == 0, res.output
    assert "fabricated citations: 1" in res.stdout
    assert "likely meant 'doc-7f3a'" in res.stdout
    assert "3 line(s) skipped" in res.stderr
    cdf = pl.read_parquet(run_dir / "citations.parquet")
    typo = cdf.filter(pl.col("doc_id") == "doc-7f3b").row(0, named=True)
    assert (
        typo["fabricated"]
        and typo["likely_meant"] == "doc-7f3a"
        and typo["likely_meant_distance"] == 1
    )
    spam = cdf.filter(pl.col("reasons").list.contains("CITED_QUARANTINED"))
    assert spam.height == 1 and spam["band"][0] == "quarantine"
    turns = pl.read_parquet(run_dir / "citation_turns.parquet")
    gaps = set(turns.filter(pl.col("doc_gap"))["turn_id"])
    assert {"t-listing", "t-flat"} <= gaps and "t-smalltalk" not in gaps and "t-fetch" not in gaps
    errors = pl.read_parquet(run_dir / "citations_errors.parquet")
    assert "JSON_DECODE" in errors["code"].to_list()
    summary = json.loads((run_dir / "reports" / "summary.json").read_text())
    assert summary["pages"] == 4  # the lead's keys survive the merge
    c = summary["citations"]
    assert (
        c["fabricated_citations"],
        c["listing_only_citations"],
        c["quarantined_sources_cited"],
    ) == (1, 1, 1)
    assert c["relevance_scale"] == "cosine"
    gate = citation_results_summary(run_dir)
    assert (
        gate["present"]
        and gate["fabricated_citations"] == 1
        and gate["turns_without_sources"] == c["turns_without_sources"]
    )


def test_citations_without_run_writes_to_out(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["citations", str(DATA / "transcripts.jsonl"), "--out", str(out), "--json", "--show", "0"],
    )
    assert res.exit_code == 0, res.output
    s = json.loads(res.stdout)
    assert s["run"] is None and s["matched_in_run"] == 0 and s["fabricated_citations"] == 1
    assert json.loads((out / "citations_summary.json").read_text()) == s
    cdf = pl.read_parquet(out / "citations.parquet")
    assert cdf["trust_score"].null_count() == cdf.height


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["citations", "missing.jsonl", "--out", "OUT"], "transcripts file not found"),
        (["citations", str(DATA / "transcripts.jsonl")], "give --run RUN or --out DIR"),
        (
            ["citations", str(DATA / "transcripts.jsonl"), "--run", "no/such/run"],
            "run directory not found",
        ),
        (["cards", str(DATA / "cards.jsonl"), "--run", "no/such/run"], "run directory not found"),
    ],
)
def test_usage_errors_exit_2(args: list[str], needle: str, tmp_path: Path) -> None:
    args = [a.replace("OUT", str(tmp_path / "o")) for a in args]
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and needle in res.stderr


def test_nothing_readable_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n[]\n")
    res = runner.invoke(app, ["citations", str(bad), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "no usable turn" in res.stderr


def test_cards_into_run(run_dir: Path, policy_file: Path) -> None:
    res = runner.invoke(
        app,
        ["cards", str(DATA / "cards.jsonl"), "--run", str(run_dir), "--policy", str(policy_file)],
    )
    assert res.exit_code == 0, res.output
    assert "UNSUPPORTED_FACT: amount '$1,490'" in res.stdout
    df = pl.read_parquet(run_dir / "cards.parquet")
    result = dict(zip(df["card_id"], df["passed"], strict=True))
    assert result["c-good"] and result["c-id"]
    assert not any(
        result[c] for c in ("c-amount", "c-quarantined", "c-missing", "c-empty", "c-nosource")
    )
    summary = json.loads((run_dir / "reports" / "summary.json").read_text())
    assert summary["cards"]["failing"] == card_results_summary(run_dir)["failing"] >= 5
    assert summary["pages"] == 4


def test_cards_without_embedder_module(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trustaudit.cli.commands import citations as cmd

    monkeypatch.setattr(cmd, "make_embedder", lambda policy: None)
    res = runner.invoke(app, ["cards", str(DATA / "cards.jsonl"), "--run", str(run_dir), "--json"])
    assert res.exit_code == 0 and "similarity not checked" in res.stderr
    assert json.loads(res.stdout)["by_reason"]["SIMILARITY_NOT_COMPUTED"] >= 1


@pytest.mark.network
def test_cards_with_judge_stub(run_dir: Path, policy_file: Path, tmp_path: Path) -> None:
    base = ["cards", str(DATA / "cards.jsonl"), "--run", str(run_dir), "--policy", str(policy_file)]
    assert runner.invoke(app, base).exit_code == 0
    sim = pl.read_parquet(run_dir / "cards.parquet").filter(pl.col("card_id") == "c-offtopic")[
        "similarity"
    ][0]
    with StubLLM() as stub:
        stub.reply = '{"verdict": "unsupported", "reason": "penguins are not in the source"}'
        args = [*base, "--min-similarity", f"{sim - 0.05:.4f}", "--judge-endpoint", stub.endpoint,
                "--judge-model", "stub", "--json", "--out", str(tmp_path / "o")]  # fmt: skip
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        s = json.loads(res.stdout)
        assert s["judged"] >= 1 and s["judge_calls"] == len(stub.requests) >= 1
        row = (
            pl.read_parquet(tmp_path / "o" / "cards.parquet")
            .filter(pl.col("card_id") == "c-offtopic")
            .row(0, named=True)
        )
        assert row["judge_verdict"] == "unsupported" and not row["passed"]
        assert "JUDGE_UNSUPPORTED" in row["reasons"]


def test_judge_flag_needs_model(run_dir: Path, policy_file: Path) -> None:
    res = runner.invoke(
        app,
        [
            "cards",
            str(DATA / "cards.jsonl"),
            "--run",
            str(run_dir),
            "--policy",
            str(policy_file),
            "--judge-endpoint",
            "http://127.0.0.1:1/v1",
        ],
    )
    assert res.exit_code == 2 and "endpoint and a model" in res.stderr


def test_help_ends_with_examples() -> None:
    for cmd in ("citations", "cards"):
        res = runner.invoke(app, [cmd, "--help"])
        assert res.exit_code == 0 and "Example: trustaudit " + cmd in res.stdout
