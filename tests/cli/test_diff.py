"""`trustaudit diff` through the CLI: exit 0 whatever changed, 1 on --fail-on, 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate.runfactory import make_run, page
from typer.testing import CliRunner

from trustaudit.cli.main import app
from trustaudit.exit_codes import ExitCode

runner = CliRunner()


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    old = [
        page("https://a.example.com/1", 0.80),
        page("https://a.example.com/2", 0.60),
        page("https://b.example.org/1", 0.75),
    ]
    new = [
        page("https://a.example.com/1", 0.80),
        page("https://a.example.com/2", 0.20),  # medium -> quarantine
        page("https://b.example.org/1", 0.50),  # trusted -> medium
    ]
    return make_run(tmp_path / "old", old), make_run(tmp_path / "new", new)


def diff(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["diff", *args], env={"TRUSTAUDIT_DEBUG": ""})


def test_exit_0_and_files_in_new_run(runs: tuple[Path, Path]) -> None:
    old, new = runs
    res = diff(str(old), str(new))
    assert res.exit_code == ExitCode.OK, res.output
    assert "new quarantines" in res.stdout and "a.example.com/2" in res.stdout
    assert (new / "reports" / "diff.md").is_file()
    data = json.loads((new / "reports" / "diff.json").read_text(encoding="utf-8"))
    assert data["new_quarantines"]["count"] == 1 and data["band_changes"]["count"] == 2
    # a run id that is not a hex word (these fixtures' "run0") is escaped text, not a code span
    md = (new / "reports" / "diff.md").read_text(encoding="utf-8")
    assert "(run run0," in md and "`run0`" not in md


@pytest.mark.parametrize(
    ("fail_on", "code"),
    [
        (["new-quarantine"], 1),
        (["band-change>2"], 0),
        (["band-change>1"], 1),
        (["new-injection", "resolved-quarantine"], 0),
        (["psi>100,domain-shift>5"], 0),
        (["mean-drop>0.1"], 1),
    ],
)
def test_fail_on(runs: tuple[Path, Path], tmp_path: Path, fail_on: list[str], code: int) -> None:
    args = [str(runs[0]), str(runs[1]), "--out", str(tmp_path / "o"), "-q"]
    for f in fail_on:
        args += ["--fail-on", f]
    res = diff(*args)
    assert res.exit_code == code, res.output
    assert ("FAILED" in res.stdout) == (code == 1)
    data = json.loads((tmp_path / "o" / "diff.json").read_text(encoding="utf-8"))
    assert bool(data["fail_on"]["held"]) == (code == 1)


def test_json_stdout(runs: tuple[Path, Path], tmp_path: Path) -> None:
    res = diff(str(runs[0]), str(runs[1]), "--json", "--out", str(tmp_path / "o"))
    assert res.exit_code == 0
    assert json.loads(res.stdout)["pages"] == {"added": 0, "removed": 0, "common": 3}


@pytest.mark.parametrize(
    "extra", [["--fail-on", "bogus"], ["--fail-on", "psi>x"], ["--domain-threshold", "2"]]
)
def test_exit_2_on_bad_options(runs: tuple[Path, Path], extra: list[str]) -> None:
    res = diff(str(runs[0]), str(runs[1]), *extra)
    assert res.exit_code == ExitCode.USAGE, res.output
    assert res.stderr.startswith("trustaudit: error: ")


def test_exit_2_on_missing_or_incomplete_run(runs: tuple[Path, Path], tmp_path: Path) -> None:
    assert diff(str(tmp_path / "nope"), str(runs[1])).exit_code == 2
    partial = make_run(tmp_path / "p", [page("https://a.example.com/", 0.8)], complete=False)
    res = diff(str(runs[0]), str(partial))
    assert res.exit_code == 2 and "incomplete" in res.stderr


def test_exit_3_on_internal_error(runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import trustaudit.cli.commands.diff as diff_module

    def boom(*a: object, **k: object) -> None:
        raise ValueError("bad state")

    monkeypatch.setattr(diff_module, "diff_runs", boom)
    res = diff(str(runs[0]), str(runs[1]))
    assert res.exit_code == ExitCode.INTERNAL
    assert "internal error: ValueError: bad state" in res.stderr
