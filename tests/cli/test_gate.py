"""`trustaudit gate` through the CLI: every exit code pinned, outputs written, audit-first path."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gate.runfactory import make_run, page
from typer.testing import CliRunner

from trustaudit.cli.main import app
from trustaudit.exit_codes import ExitCode

runner = CliRunner()
ENV = {"GITHUB_ACTIONS": "", "TRUSTAUDIT_DEBUG": ""}


def gate(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["gate", *args], env={**ENV, **(env or {})})


@pytest.fixture
def clean_run(tmp_path: Path) -> Path:
    pages = [page(f"https://ok.example.org/{i}", 0.8) for i in range(4)]
    pages.append(page("https://mid.example.com/", 0.5))
    return make_run(tmp_path / "clean", pages)


@pytest.fixture
def bad_run(tmp_path: Path) -> Path:
    pages = [
        page("https://ok.example.org/", 0.8),
        page("https://evil.example.net/x", 0.1, blocklisted=True, injections=1),
    ]
    return make_run(tmp_path / "bad", pages)


def write_policy(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "trustaudit.toml"
    p.write_text(body, encoding="utf-8")
    return p


def test_exit_0_when_every_rule_passes(clean_run: Path) -> None:
    res = gate(str(clean_run))
    assert res.exit_code == ExitCode.OK == 0, res.output
    assert "PASSED" in res.stdout
    data = json.loads((clean_run / "reports" / "gate.json").read_text(encoding="utf-8"))
    assert data["passed"] is True and data["exit_code"] == 0


def test_exit_1_when_a_rule_fails(bad_run: Path) -> None:
    res = gate(str(bad_run))
    assert res.exit_code == ExitCode.GATE_FAILED == 1
    assert "FAILED" in res.stdout and "blocklisted_domain" in res.stdout
    assert "evil.example.net" in res.stdout  # worst offenders shown


def test_exit_1_from_policy_file_limits(clean_run: Path, tmp_path: Path) -> None:
    pol = write_policy(tmp_path, "[gate]\nmax_medium_share = 0.1\n")
    assert gate(str(clean_run), "--policy", str(pol)).exit_code == 1
    pol = write_policy(tmp_path, "[gate]\nwarn_medium_share = 0.1\n")
    res = gate(str(clean_run), "--policy", str(pol))
    assert res.exit_code == 0 and "WARN" in res.stdout
    assert gate(str(clean_run), "--policy", str(pol), "--strict").exit_code == 1


@pytest.mark.parametrize(
    "args",
    [
        ["{missing}"],
        ["{clean}", "--policy", "{nofile}"],
        ["{clean}", "--policy", "{badkey}"],
        ["{clean}", "--labels", "{nofile}"],
        ["{clean}", "{clean}"],
        ["{clean}", "--out", "{tmp}/x"],
        ["{clean}", "--blocklist", "{badkey}"],
    ],
    ids=["not-a-run", "policy-missing", "policy-unknown-key", "labels-missing", "two-runs",
         "out-with-run", "lists-without-out"],
)  # fmt: skip
def test_exit_2_on_usage_errors(args: list[str], clean_run: Path, tmp_path: Path) -> None:
    badkey = write_policy(tmp_path, "[gate]\nmax_quarantine_share = 0.1\n")
    subst = {
        "missing": str(tmp_path / "nope"),
        "clean": str(clean_run),
        "nofile": str(tmp_path / "nofile.toml"),
        "badkey": str(badkey),
        "tmp": str(tmp_path),
    }
    res = gate(*[a.format(**subst) for a in args])
    assert res.exit_code == ExitCode.USAGE == 2, res.output
    assert res.stderr.startswith("trustaudit: error: ")
    assert "Traceback" not in res.output


def test_exit_2_on_incomplete_run(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", [page("https://a.example.com/", 0.8)], complete=False)
    res = gate(str(run))
    assert res.exit_code == 2 and "incomplete" in res.stderr


def test_exit_3_on_internal_error(clean_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trustaudit.cli.commands.gate as gate_module

    def boom(*a: object, **k: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(gate_module, "evaluate_gate", boom)
    res = gate(str(clean_run))
    assert res.exit_code == ExitCode.INTERNAL == 3
    assert "internal error: RuntimeError: kaboom" in res.stderr


def test_exit_2_when_the_run_cannot_be_written(clean_run: Path) -> None:
    """An unwritable output is the environment's fault: exit 2 naming the path, not an internal error."""
    import shutil

    shutil.rmtree(clean_run / "reports", ignore_errors=True)
    (clean_run / "reports").write_text("a file where the reports folder should be")
    res = gate(str(clean_run))
    assert res.exit_code == ExitCode.USAGE == 2, res.output
    assert f"cannot use {clean_run / 'reports'}" in res.stderr and "Traceback" not in res.output


def test_unexpected_os_error_is_still_internal(
    clean_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import trustaudit.cli.commands.gate as gate_module

    def broken_pipe(*a: object, **k: object) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(gate_module, "evaluate_gate", broken_pipe)
    assert gate(str(clean_run)).exit_code == ExitCode.INTERNAL


def test_json_junit_and_gate_json_path(bad_run: Path, tmp_path: Path) -> None:
    junit = tmp_path / "ci" / "gate.xml"
    gj = tmp_path / "ci" / "g.json"
    res = gate(str(bad_run), "--json", "--junit", str(junit), "--gate-json", str(gj))
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert data["exit_code"] == 1 and data["counts"]["fail"] == 2
    assert json.loads(gj.read_text(encoding="utf-8")) == data
    cases = ET.parse(junit).getroot().findall(".//testcase")
    assert {c.get("name") for c in cases} >= {"injection", "blocklisted_domain"}


def test_labels_add_rules(bad_run: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "url,label\nhttps://ok.example.org/,trusted\nhttps://evil.example.net/x,untrusted\n",
        encoding="utf-8",
    )
    pol = write_policy(
        tmp_path,
        '[gate]\nmin_precision = 1.0\nmin_recall = 1.0\nwarn_rules = ["injection", "blocklisted_domain"]\n',
    )
    res = gate(str(bad_run), "--policy", str(pol), "--labels", str(labels), "--json")
    assert res.exit_code == 0, res.output
    rules = {r["name"]: r for r in json.loads(res.stdout)["rules"]}
    assert rules["label_precision"]["measured"] == 1.0 and rules["label_recall"]["status"] == "pass"


def test_github_annotations_only_in_actions(bad_run: Path) -> None:
    res = gate(str(bad_run), "--quiet", env={"GITHUB_ACTIONS": "true"})
    lines = res.stdout.splitlines()
    assert "::error title=trustaudit gate%3A injection::" in res.stdout
    assert any(
        line.startswith("::error title=trustaudit gate%3A blocklisted_domain::") for line in lines
    )
    assert lines[-1].startswith("trustaudit gate: FAILED")
    assert "::error" not in gate(str(bad_run), "--quiet").stdout
    # With --json the annotations go to stderr so stdout stays parseable.
    res = gate(str(bad_run), "--json", env={"GITHUB_ACTIONS": "true"})
    json.loads(res.stdout)
    assert "::error title=" in res.stderr


def test_quiet_prints_one_line(clean_run: Path) -> None:
    res = gate(str(clean_run), "-q")
    assert res.stdout.strip().count("\n") == 0 and "PASSED" in res.stdout


def test_audit_first_then_gate(html_folder: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """End to end: `gate INPUT --out RUN` audits three small pages, then gates the run."""
    # the fixture's binary.html is never scanned: that alone fails the gate (rule unscanned)
    monkeypatch.setenv("TRUSTAUDIT_GATE__UNSCANNED", "pass")
    out = tmp_path / "run"
    args = [str(html_folder), "--out", str(out), "--workers", "1", "--now", "2026-11-01", "-q"]
    res = gate(*args, "--cache", str(tmp_path / "cache"))
    assert res.exit_code == 0, res.output
    assert (out / "manifest.json").is_file() and (out / "reports" / "gate.json").is_file()
    # Blocklisting one of the domains makes the same gate fail; the run is re-audited in place.
    block = tmp_path / "block.txt"
    block.write_text("example.com\n", encoding="utf-8")
    res = gate(*args, "--blocklist", str(block))
    assert res.exit_code == 1, res.output
    data = json.loads((out / "reports" / "gate.json").read_text(encoding="utf-8"))
    bl = next(r for r in data["rules"] if r["name"] == "blocklisted_domain")
    assert bl["status"] == "fail" and bl["offenders"][0]["registered_domain"] == "example.com"
    # Gating the finished run directly gives the same verdict: in_blocklist is recorded in the run.
    assert gate(str(out), "-q").exit_code == 1
