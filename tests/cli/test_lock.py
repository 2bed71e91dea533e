"""Cron safety: while one process holds a run's lock, a second audit (or gate/diff writing into it)
fails fast with exit 2 and a one-line message instead of interleaving writes."""

from __future__ import annotations

from pathlib import Path

from gate.runfactory import make_run, page
from typer.testing import CliRunner

from trustaudit.cli.main import app
from trustaudit.exit_codes import ExitCode
from trustaudit.io.rundir import RunDir

runner = CliRunner()


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("trustaudit: error:")]


def test_second_audit_on_same_out_fails_while_locked(html_folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["audit", str(html_folder), "--out", str(out), "--workers", "1", "--now", "2026-11-01"]
    with RunDir.at(out).locked():  # the "first audit", still running
        res = runner.invoke(app, [*args, "-q"])
        assert res.exit_code == ExitCode.USAGE == 2, res.output
        errors = error_lines(res.stderr)
        assert len(errors) == 1 and "is being written by pid" in errors[0]
        assert "Traceback" not in res.output
        assert not (out / "manifest.json").exists()  # nothing was written under the lock
    # Once the lock is released the same command runs (and completes) normally.
    res = runner.invoke(app, [*args, "-q"])
    assert res.exit_code == 0, res.output
    assert (out / "manifest.json").is_file()


def test_gate_and_diff_refuse_a_run_being_written(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", [page("https://a.example.com/", 0.8)])
    with RunDir.at(run).locked():
        res = runner.invoke(app, ["gate", str(run)])
        assert res.exit_code == 2 and len(error_lines(res.stderr)) == 1
        res = runner.invoke(app, ["diff", str(run), str(run)])
        assert res.exit_code == 2 and "being written" in res.stderr
    assert runner.invoke(app, ["gate", str(run)]).exit_code == 0
