"""A run directory whose name Polars would read as a glob (`[1]`, `*`): every command still works.

Before: `trustaudit audit --out "runs/nightly [1]"` stopped with an internal error (Polars read
`parts/…pages.parquet` as a pattern matching no file), and `diff` called such a run damaged. Every
Parquet and CSV read now passes `glob=False`; the corpus stages list their spill files in Python.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
from helpers import audit_cli as audit
from polars.testing import assert_frame_equal

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "corpus"
PAGES, LABELS = CORPUS / "pages", CORPUS / "labels.csv"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The fixture pages audited twice, into a plain folder and into one named like a glob, with
    the corpus stages' spilled batches on (engine.local_corpus_min_pages lowered to 1)."""
    from typer.testing import CliRunner

    from trustaudit.cli.main import app

    root = tmp_path_factory.mktemp("glob")
    mp = pytest.MonkeyPatch()
    mp.setenv("TRUSTAUDIT_ENGINE__LOCAL_CORPUS_MIN_PAGES", "1")
    try:
        out = []
        for name in ("plain", "nightly [1] *"):
            run = root / name
            res = audit(CliRunner(), app, str(PAGES), "--out", str(run), "--labels", str(LABELS))
            assert res.exit_code in (0, 1), res.output  # 1: pages quarantined
            out.append(run)
    finally:
        mp.undo()
    return out[0], out[1]


def _scores(run: Path) -> pl.DataFrame:
    return pl.read_parquet(run / "scores.parquet", glob=False).sort("url")


def test_audit_into_a_folder_named_like_a_glob_gives_the_plain_run(runs) -> None:  # type: ignore[no-untyped-def]
    plain, odd = runs
    manifest = (odd / "manifest.json").read_text()
    # the corpus stages ran as spilled batches, the path that listed its files with a glob
    assert json.loads(manifest)["stages"]["signals"]["families"]["corpus"] == (
        "distributed (syndication, claims)"
    )
    assert_frame_equal(_scores(odd), _scores(plain))


@pytest.mark.parametrize("command", ["score", "report", "calibrate", "gate"])
def test_derived_commands_read_a_run_named_like_a_glob(runs, runner, app, command: str) -> None:  # type: ignore[no-untyped-def]
    _, odd = runs
    res = runner.invoke(app, [command, str(odd)])
    assert "internal error" not in res.output and "damaged" not in res.output, res.output
    assert res.exit_code in (0, 1), res.output  # gate: 1 when a rule fails


def test_explain_and_diff_read_runs_named_like_a_glob(runs, runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plain, odd = runs
    url = _scores(odd)["url"][0]
    res = runner.invoke(app, ["explain", str(odd), url])
    assert res.exit_code == 0, res.output
    other = tmp_path / "other [2]"
    shutil.copytree(plain, other)
    res = runner.invoke(app, ["diff", str(other), str(odd)])
    assert res.exit_code == 0, res.output
    assert "0 new quarantine(s)" in res.output


def test_the_python_api_reads_a_run_named_like_a_glob(runs) -> None:  # type: ignore[no-untyped-def]
    import trustaudit as ta

    plain, odd = runs
    got, want = ta.read_run(odd), ta.read_run(plain)
    assert_frame_equal(got.scores.sort("url"), want.scores.sort("url"))
    assert got.pages.height == want.pages.height > 0
