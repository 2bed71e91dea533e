"""The Python API, used the way a notebook would: a policy, frames in, scores out; an audit; read_run."""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import trustaudit as ta

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "fixtures" / "corpus"
# a small mix: a blocklisted page, dense undisclosed affiliate links, a disclosed one, the three
# reviews of one product (cross-source claims), and three real articles
FILES = (
    "fx-blocklisted.html",
    "fx-affiliate-undisclosed.html",
    "fx-affiliate-disclosed.html",
    "fx-acme-review-notes.html",
    "fx-acme-review-outlier.html",
    "fx-acme-review-soundcheck.html",
)
NOW = "2026-11-01"
SCORE_COLUMNS = ("doc_id", "url", "trust_score", "band", "reasons", "hard_quarantine")


def _urls() -> dict[str, str]:
    with (CORPUS / "pages" / "urls.csv").open(encoding="utf-8") as fh:
        return {r["file"]: r["url"] for r in csv.DictReader(fh)}


def _files() -> list[str]:
    real = sorted(p.name for p in (CORPUS / "pages").glob("*.html.gz"))[:3]
    return [*FILES, *real]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("api") / "pages"
    d.mkdir()
    urls = _urls()
    with (d / "urls.csv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["file", "url"])
        for name in _files():
            shutil.copy(CORPUS / "pages" / name, d / name)
            w.writerow([name, urls[name]])
    return d


@pytest.fixture(scope="module")
def policy() -> ta.Policy:
    # hashing-256: no model files, so the test needs no distilled model and stays fast
    return ta.load_policy(
        domain={"blocklist_files": [str(CORPUS / "blocklist.txt")]},
        embeddings={"static_model": "hashing-256", "disk_cache": False},
    )


@pytest.fixture(scope="module")
def run_dir(folder: Path, policy: ta.Policy) -> tuple[Path, dict]:
    out = folder.parent / "run"
    summary = ta.audit(
        [folder],
        out,
        policy=policy,
        allowlist=[CORPUS / "allowlist.txt"],
        domain_info=CORPUS / "domain_info.csv",
        now=NOW,
        workers=1,
    )
    return out, summary


def test_import_is_lazy_and_all_is_explicit() -> None:
    code = (
        "import json, sys, trustaudit\n"
        "assert 'polars' not in sys.modules and 'trustaudit.api' not in sys.modules\n"
        "print(json.dumps(trustaudit.__all__))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    names = json.loads(out.stdout)
    assert {"audit", "read_run", "load_policy", "extract_pages", "compute_signals"} <= set(names)
    for name in names:
        assert getattr(ta, name) is not None, name
    with pytest.raises(AttributeError):
        _ = ta.pipeline_internals  # type: ignore[attr-defined]


def test_load_policy_layers_overrides_and_names_bad_keys() -> None:
    policy = ta.load_policy(bands={"quarantine_below": 0.55}, profile="strict")
    assert policy.bands.quarantine_below == 0.55  # overrides beat the profile
    assert policy.bands.trusted_from == 0.85  # the strict profile applied
    with pytest.raises(ta.PolicyError, match="quarantine_belo"):
        ta.load_policy(bands={"quarantine_belo": 0.5})


def test_audit_returns_the_summary_and_writes_the_run(run_dir: tuple[Path, dict]) -> None:
    out, summary = run_dir
    assert summary["accounting"]["pages"] == len(_files())
    assert summary["accounting"]["balanced"] is True
    assert (out / "reports" / "report.html").is_file()
    assert summary["bands"]["quarantine"] >= 2  # the blocklisted and the dense affiliate page


def test_audit_rejects_an_unknown_option(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="frsh"):
        ta.audit([folder], tmp_path / "r", frsh=True)
    # as the CLI's --judge-url: naming pages for a judge that is not configured is an error
    with pytest.raises(ta.TrustAuditError, match="judge"):
        ta.audit([folder], tmp_path / "r", judge_urls=["https://example.org/"])
    assert not (tmp_path / "r").exists()
    with pytest.raises(ta.TrustAuditError, match="file not found"):
        ta.audit([folder], tmp_path / "r", blocklist=[tmp_path / "missing.txt"])


def test_read_run_gives_every_table_as_frames(run_dir: tuple[Path, dict]) -> None:
    out, summary = run_dir
    run = ta.read_run(out)
    assert run.manifest["completed_at"] and run.manifest["now"] == NOW
    for name in ("pages", "links", "signals", "scores", "domains", "errors"):
        assert_frame_equal(getattr(run, name), pl.read_parquet(out / f"{name}.parquet"))
    assert run.scores.height == summary["accounting"]["pages"]
    quarantined = run.scores.filter(pl.col("band") == "quarantine")
    assert quarantined.height == summary["bands"]["quarantine"]
    with pytest.raises(AttributeError):
        run.scores = run.pages  # type: ignore[misc]  # frozen


def test_read_run_refuses_what_is_not_a_finished_run(tmp_path: Path) -> None:
    with pytest.raises(ta.TrustAuditError, match="not found"):
        ta.read_run(tmp_path / "nowhere")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "manifest.json").write_text('{"run_id": "x"}', encoding="utf-8")
    with pytest.raises(ta.TrustAuditError, match="not a finished run"):
        ta.read_run(tmp_path / "half")


def _records(folder: Path) -> pl.DataFrame:
    """What a notebook holds: URLs and raw HTML, read by hand from a folder of saved pages."""
    urls = _urls()
    rows = []
    for name in _files():
        raw = (folder / name).read_bytes()
        rows.append(
            {"url": urls[name], "html": gzip.decompress(raw) if name.endswith(".gz") else raw}
        )
    return pl.DataFrame(rows)


def test_frames_in_scores_out_match_the_audit(
    folder: Path, policy: ta.Policy, run_dir: tuple[Path, dict]
) -> None:
    # the same lists as the audit's flags, given through the policy this time
    pol = ta.load_policy(
        domain={
            "blocklist_files": [str(CORPUS / "blocklist.txt")],
            "allowlist_files": [str(CORPUS / "allowlist.txt")],
            "domain_info_file": str(CORPUS / "domain_info.csv"),
        },
        embeddings={"static_model": "hashing-256", "disk_cache": False},
    )
    pages, links, errors = ta.extract_pages(_records(folder), pol)
    assert errors.height == 0 and pages.height == len(_files())
    signals = ta.compute_signals(pages, links, pol, now=NOW)
    scores = ta.score_pages(signals, pol)
    run = ta.read_run(run_dir[0])
    assert_frame_equal(
        scores.select(SCORE_COLUMNS).sort("doc_id"),
        run.scores.select(SCORE_COLUMNS).sort("doc_id"),
    )
    assert_frame_equal(
        signals.select(run.signals.columns).sort("doc_id"), run.signals.sort("doc_id")
    )


def test_a_stricter_policy_rescored_in_memory(run_dir: tuple[Path, dict]) -> None:
    run = ta.read_run(run_dir[0])
    strict = ta.score_pages(
        run.signals, ta.load_policy(bands={"quarantine_below": 0.9, "trusted_from": 0.95})
    )
    expected = (strict["trust_score"] < 0.9) | strict["hard_quarantine"]
    assert ((strict["band"] == "quarantine") == expected).all()
    assert (strict["band"] == "quarantine").sum() > (run.scores["band"] == "quarantine").sum()
    assert (
        strict["trust_score"].to_list() == run.scores["trust_score"].to_list()
    )  # bands move, not scores


def test_extract_pages_keeps_every_record_as_a_page_or_an_error() -> None:
    records = pl.DataFrame(
        {
            "url": [
                "https://a.example/x",
                "https://a.example/x#dup",
                "https://b.example/",
                "ftp://c/",
            ],
            "text": ["Some words about a bridge.", "again", None, "text"],
            "entity": ["e1", "e1", "e2", "e3"],
        }
    )
    pages, links, errors = ta.extract_pages(records)
    assert pages.height + errors.height == records.height
    assert sorted(errors["code"].to_list()) == ["BAD_URL", "DUPLICATE_URL", "EMPTY_BODY"]
    assert pages["url"].to_list() == ["https://a.example/x"]
    assert pages["entity"].to_list() == ["e1"]  # extra input columns travel with their page
    assert pages["registered_domain"].to_list() == ["a.example"]
    assert errors.schema["offset"] == pl.Int64 and links.height == 0
    with pytest.raises(ta.TrustAuditError, match="url"):
        ta.extract_pages(pl.DataFrame({"html": ["<p>x</p>"]}))


def test_the_readme_api_block_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block = re.search(
        r"## Python API\n\n```python\n(.*?)```",
        (REPO / "README.md").read_text(encoding="utf-8"),
        re.S,
    )
    assert block is not None
    lines = block.group(1).splitlines()
    assert len(lines) <= 12, "the README promises the API in about ten lines"
    pages = tmp_path / "fixtures" / "corpus" / "pages"
    pages.parent.mkdir(parents=True)
    shutil.copytree(CORPUS / "pages", pages)
    shutil.copy(CORPUS / "blocklist.txt", pages.parent / "blocklist.txt")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRUSTAUDIT_EMBEDDINGS__STATIC_MODEL", "hashing-256")
    namespace: dict = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)  # our own README's block
    assert namespace["summary"]["accounting"]["balanced"] is True
    assert namespace["scores"].height == 1 and namespace["errors"].height == 0


def test_frames_in_with_platform_fields_match_the_audit(tmp_path: Path) -> None:
    """Review-platform records: the behaviour family runs in compute_signals as in a run's stage."""
    body = " ".join(f"word{i} sentence about the blender and its motor." for i in range(40))
    honest = [(f"h{i}", r, f"2026-0{1 + i % 8}-1{i % 9}", "2019-05-01", True, 7)
              for i, r in enumerate([3, 4, 2, 4, 3, 4, 3, 2])]  # fmt: skip
    fake = [(f"f{i}", 5, f"2026-09-0{1 + i % 2}", "2026-08-30", False, 1) for i in range(4)]
    records = [
        {"url": f"https://reviews.example.com/{d}", "text": body, "entity": "a", "rating": r,
         "reviewer": f"u-{d}", "review_date": day, "reviewer_since": since, "verified": v,
         "review_count": n}
        for d, r, day, since, v, n in honest + fake
    ]  # fmt: skip
    src = tmp_path / "reviews.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    pol = ta.load_policy(embeddings={"static_model": "hashing-256", "disk_cache": False})
    ta.audit([src], tmp_path / "run", policy=pol, now=NOW, workers=1)
    run = ta.read_run(tmp_path / "run")
    pages, links, _ = ta.extract_pages(pl.DataFrame(records), pol)
    signals = ta.compute_signals(pages, links, pol, now=NOW)
    scores = ta.score_pages(signals, pol)
    assert (signals["adjust_behaviour"] < 0).any()
    assert_frame_equal(
        scores.select(SCORE_COLUMNS).sort("url"), run.scores.select(SCORE_COLUMNS).sort("url")
    )
