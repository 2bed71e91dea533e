"""Runs own their inputs (issue #17.1/#17.2): list files are copied into RUN/inputs/, derived
commands start from them, flags add, a moved run still works; `--out` never replaces what is not
its own (issue #15.8)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from helpers import article_html, write_jsonl

NOW = ["--now", "2026-11-01"]
BAD, GOOD, OTHER = "https://www.bad.example/a", "https://good.example/a", "https://other.example/a"


@pytest.fixture
def audited(runner, app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    """An audit run with a blocklist, an allowlist, a domain-info CSV and labels given as paths
    relative to the working directory (as a user types them)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    pages = [{"url": u, "html": article_html(u.split("/")[2])} for u in (BAD, GOOD, OTHER)]
    write_jsonl(work / "pages.jsonl", pages)
    Path("block.txt").write_text("||bad.example^\n")
    Path("allow.txt").write_text("good.example\n")
    Path("info.csv").write_text("domain,created\ngood.example,2001-01-01\n")
    Path("labels.csv").write_text(f"url,label\n{BAD},untrusted\n{GOOD},trusted\n{OTHER},trusted\n")
    res = runner.invoke(
        app,
        ["audit", "pages.jsonl", "--out", "run", "--workers", "1", *NOW, "--blocklist",
         "block.txt", "--allowlist", "allow.txt", "--domain-info", "info.csv", "--labels",
         "labels.csv"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return work / "run"


def _scores(run: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    return {r["url"]: r for r in pl.read_parquet(run / "scores.parquet").to_dicts()}


def test_audit_copies_lists_with_hashes_relative_to_the_run(audited: Path) -> None:
    manifest = json.loads((audited / "manifest.json").read_text())
    owned = {e["kind"]: e for e in manifest["owned_inputs"]}
    assert set(owned) == {"allowlist", "blocklist", "domain_info", "labels"}
    for entry in owned.values():
        copy = audited / entry["path"]
        assert entry["path"].startswith("inputs/") and copy.is_file()
        assert len(entry["sha256"]) == 64
    assert owned["blocklist"]["source"] == "block.txt"
    assert manifest["policy"]["domain"]["blocklist_files"] == [owned["blocklist"]["path"]]
    assert manifest["policy"]["domain"]["domain_info_file"] == owned["domain_info"]["path"]
    assert manifest["command"] == "audit"


def test_rescoring_with_a_new_policy_keeps_the_runs_lists(
    runner, app, audited: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    strict = tmp_path / "strict.toml"
    strict.write_text("[bands]\nquarantine_below = 0.5\ntrusted_from = 0.9\n")
    before = _scores(audited)
    res = runner.invoke(app, ["score", str(audited), "--policy", str(strict)])
    assert res.exit_code == 0, res.output
    after = _scores(audited)
    assert "DOMAIN_BLOCKLISTED" in after[BAD]["reasons"] and after[BAD]["band"] == "quarantine"
    assert after[GOOD]["domain_score"] == before[GOOD]["domain_score"] == 1.0  # allowlisted
    manifest = json.loads((audited / "manifest.json").read_text())
    assert manifest["policy"]["bands"]["quarantine_below"] == 0.5


def test_blocklist_flag_adds_to_the_runs_blocklist(
    runner, app, audited: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    more = tmp_path / "more.txt"
    more.write_text("other.example\n")
    res = runner.invoke(app, ["score", str(audited), "--blocklist", str(more)])
    assert res.exit_code == 0, res.output
    after = _scores(audited)
    assert "DOMAIN_BLOCKLISTED" in after[BAD]["reasons"]
    assert "DOMAIN_BLOCKLISTED" in after[OTHER]["reasons"]
    more.unlink()  # the run owns the added list too
    res = runner.invoke(app, ["score", str(audited)])
    assert res.exit_code == 0, res.output
    assert "DOMAIN_BLOCKLISTED" in _scores(audited)[OTHER]["reasons"]
    res = runner.invoke(app, ["score", str(audited), "--replace-lists"])
    assert res.exit_code == 0, res.output
    assert not any("DOMAIN_BLOCKLISTED" in r["reasons"] for r in _scores(audited).values())


def test_a_run_moved_elsewhere_reports_from_any_cwd(
    runner, app, audited: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(audited, moved)
    shutil.rmtree(audited.parent)  # the originals (and the old run) are gone
    other_cwd = tmp_path / "cwd"
    other_cwd.mkdir()
    monkeypatch.chdir(other_cwd)
    for cmd in (["report", str(moved)], ["explain", str(moved), BAD], ["gate", str(moved)]):
        res = runner.invoke(app, cmd)
        assert res.exit_code in (0, 1), (cmd, res.output)
        assert "cannot read" not in res.output
    res = runner.invoke(app, ["score", str(moved), "--json"])
    assert res.exit_code == 0, res.output
    assert "DOMAIN_BLOCKLISTED" in _scores(moved)[BAD]["reasons"]
    res = runner.invoke(app, ["calibrate", str(moved), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["label_source"] == "labels"  # the labels the audit got


def test_failed_rescore_leaves_the_run_as_it_was(
    runner, app, audited: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    import trustaudit.run.audit as pipeline  # where rescore calls the score stage

    tables = {n: (audited / n).read_bytes() for n in ("signals.parquet", "scores.parquet")}

    def boom(*a: object, **k: object) -> None:
        raise OSError(28, "No space left on device", str(audited / "scores.parquet"))

    monkeypatch.setattr(pipeline, "score_run", boom)
    res = runner.invoke(app, ["score", str(audited)])
    assert res.exit_code == 2 and "No space left on device" in res.stderr
    assert {n: (audited / n).read_bytes() for n in tables} == tables  # signals not half-swapped
    assert not [p for p in audited.iterdir() if p.name.startswith(".rescore")]


# ------------------------------------------------------------------ --out safety
def _audit(runner, app, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["audit", *args, "--workers", "1", *NOW])


def test_out_refuses_a_folder_that_is_not_a_run(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    for extra in ([], ["--fresh"]):
        res = _audit(runner, app, str(html_folder), "--out", str(mine), *extra)
        assert res.exit_code == 2 and "not a trustaudit run" in res.stderr
        assert sorted(p.name for p in mine.iterdir()) == ["thesis.tex"]


def test_out_refuses_a_run_of_other_inputs_unless_fresh(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    assert _audit(runner, app, str(html_folder), "--out", str(out)).exit_code == 0
    before = (out / "scores.parquet").read_bytes()
    other = write_jsonl(tmp_path / "o.jsonl", [{"url": OTHER, "html": article_html("O")}])
    res = _audit(runner, app, str(other), "--out", str(out))
    assert res.exit_code == 2 and "run of other inputs" in res.stderr and "--fresh" in res.stderr
    assert (out / "scores.parquet").read_bytes() == before
    assert _audit(runner, app, str(html_folder), "--out", str(out)).exit_code == 0  # resumes
    res = _audit(runner, app, str(other), "--out", str(out), "--fresh")
    assert res.exit_code == 0, res.output
    assert pl.read_parquet(out / "scores.parquet")["url"].to_list() == [OTHER]


def test_out_refuses_a_run_of_another_command(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    crawl_run = tmp_path / "crawled"
    (crawl_run / "crawl").mkdir(parents=True)
    (crawl_run / "pages.parquet").write_bytes(b"crawl pages")
    manifest = {"stages": {"crawl": {"status": "done"}}}
    (crawl_run / "manifest.json").write_text(json.dumps(manifest))
    res = _audit(runner, app, str(html_folder), "--out", str(crawl_run))
    assert res.exit_code == 2 and "made by `trustaudit crawl`" in res.stderr
    assert (crawl_run / "pages.parquet").read_bytes() == b"crawl pages"
    audit_run = tmp_path / "audited"
    assert _audit(runner, app, str(html_folder), "--out", str(audit_run)).exit_code == 0
    urls = tmp_path / "urls.txt"
    urls.write_text("http://127.0.0.1:9/x\n")
    res = runner.invoke(app, ["crawl", str(urls), "--out", str(audit_run)])
    assert res.exit_code == 2 and "made by `trustaudit audit`" in res.stderr


def test_policy_hash_does_not_depend_on_where_the_run_lives(runner, app, audited: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(
        app,
        ["audit", "pages.jsonl", "--out", "run2", "--workers", "1", *NOW, "--blocklist",
         "block.txt", "--allowlist", "allow.txt", "--domain-info", "info.csv", "--labels",
         "labels.csv"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    first = json.loads((audited / "manifest.json").read_text())["policy_hash"]
    second = json.loads(Path("run2/manifest.json").read_text())["policy_hash"]
    assert first == second
    res = runner.invoke(app, ["gate", str(audited), "--json"])
    assert json.loads(res.stdout)["policy_hash"] == first


def test_signal_memo_hits_across_runs_that_own_the_same_lists(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    block = tmp_path / "b.txt"
    block.write_text("bad.example\n")
    for name in ("r1", "r2"):
        res = _audit(runner, app, str(html_folder), "--out", str(tmp_path / name), "--cache",
                     str(tmp_path / "cache"), "--blocklist", str(block))  # fmt: skip
        assert res.exit_code == 0, res.output
    memo = json.loads((tmp_path / "r2" / "manifest.json").read_text())["stages"]["signals"]["memo"]
    assert memo["misses"] == [] and "page" in memo["hits"]
