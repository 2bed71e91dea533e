"""Inputs and `--out` on an object store, end to end through the CLI, against a local S3 server."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from s3server import S3, moto_endpoint_fixture, s3_fixture  # noqa: F401 - the fixtures

from trustaudit.exit_codes import ExitCode

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "fixtures" / "corpus"
NOW = ["--now", "2026-11-01", "--workers", "1"]
COLUMNS = ["url", "trust_score", "band", "reasons"]


def _scores(data: bytes | Path) -> pl.DataFrame:
    return pl.read_parquet(data).select(COLUMNS).sort("url")


def _upload_demo(s3: S3) -> None:
    s3.put_tree(CORPUS / "pages", "pages")
    s3.put("extra.jsonl", (CORPUS / "extra.jsonl").read_bytes())


@pytest.mark.network
def test_audit_s3_inputs_and_out_equal_local_run(runner, app, s3: S3, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _upload_demo(s3)
    local = tmp_path / "local"
    res = runner.invoke(
        app,
        ["audit", str(CORPUS / "pages"), str(CORPUS / "extra.jsonl"), "--out", str(local), *NOW],
    )
    assert res.exit_code == 0, res.output
    out = s3.uri("runs", "demo")
    args = ["audit", s3.uri("pages"), s3.uri("extra.jsonl"), "--out", out, *NOW, "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["run_dir"] == out
    keys = s3.keys("runs/demo")
    for name in ("manifest.json", "scores.parquet", "pages.parquet", "errors.parquet"):
        assert f"runs/demo/{name}" in keys
    assert "runs/demo/reports/summary.json" in keys
    assert not [k for k in keys if "/.lock" in k or "/.tmp-" in k]
    assert json.loads(s3.get("runs/demo/reports/summary.json"))["run_dir"] == out
    manifest = json.loads(s3.get("runs/demo/manifest.json"))
    assert manifest["input_paths"] == [s3.uri("pages"), s3.uri("extra.jsonl")]
    # remote inputs are fingerprinted by listing/size/mtime, so a changed object is noticed
    assert [(i["kind"], bool(i["sha256"])) for i in manifest["inputs"]] == [
        ("folder", True),
        ("file", True),
    ]
    assert_frame_equal(
        _scores(s3.get("runs/demo/scores.parquet")), _scores(local / "scores.parquet")
    )
    # the staging folder is gone once the run is published
    assert not any((tmp_path / "staging").glob("*/manifest.json"))

    # derived commands on the s3 run: report re-renders into the store, gate writes gate.json there
    s3.fs.delete_file(f"{s3.bucket}/runs/demo/reports/report.html")
    res = runner.invoke(app, ["report", out])
    assert res.exit_code == 0, res.output
    assert f"reports written to {out}/reports" in res.output
    assert "runs/demo/reports/report.html" in s3.keys("runs/demo")
    res = runner.invoke(app, ["gate", out, "--json"])
    assert res.exit_code in (ExitCode.OK, 1), res.output
    verdict = json.loads(res.stdout)
    assert res.exit_code == verdict["exit_code"]
    stored = json.loads(s3.get("runs/demo/reports/gate.json"))
    assert (stored["passed"], stored["run_dir"]) == (verdict["passed"], out)
    res = runner.invoke(
        app, ["explain", out, _scores(local / "scores.parquet")["url"][0], "--json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["url"] == _scores(local / "scores.parquet")["url"][0]

    # a re-run of the same command resumes from the store and republishes the same scores
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert_frame_equal(
        _scores(s3.get("runs/demo/scores.parquet")), _scores(local / "scores.parquet")
    )


@pytest.mark.network
def test_missing_bucket_or_key_exit_2(runner, app, s3: S3, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _upload_demo(s3)
    res = runner.invoke(
        app, ["audit", "s3://no-such-bucket/pages", "--out", str(tmp_path / "r"), *NOW]
    )
    assert res.exit_code == ExitCode.USAGE, res.output
    assert "bucket not found: no-such-bucket" in res.output
    res = runner.invoke(app, ["audit", s3.uri("nothing-here"), "--out", str(tmp_path / "r"), *NOW])
    assert res.exit_code == ExitCode.USAGE, res.output
    assert f"input not found: {s3.uri('nothing-here')}" in res.output
    res = runner.invoke(
        app, ["audit", str(CORPUS / "extra.jsonl"), "--out", "s3://no-such-bucket/run", *NOW]
    )
    assert res.exit_code == ExitCode.USAGE, res.output
    assert "bucket not found: no-such-bucket" in res.output
    res = runner.invoke(app, ["report", s3.uri("runs", "none")])
    assert res.exit_code == ExitCode.USAGE, res.output
    assert "no finished run at" in res.output


def test_file_uris_are_local_paths(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`file://` inputs and --out behave as the same local paths (no staging, no store)."""
    out = tmp_path / "run"
    jsonl = (CORPUS / "extra.jsonl").resolve()
    res = runner.invoke(app, ["audit", jsonl.as_uri(), "--out", out.as_uri(), *NOW, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["run_dir"] == str(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["input_paths"] == [str(jsonl)]
    assert manifest["inputs"][0]["kind"] == "file" and manifest["inputs"][0]["sha256"]
    res = runner.invoke(app, ["report", out.as_uri()])
    assert res.exit_code == 0, res.output
