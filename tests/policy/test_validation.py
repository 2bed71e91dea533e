"""Policy validation: finite numbers in their documented ranges, from files, environment and flags;
policy files that are not regular files or are huge are refused up front (issue #15.5 and #15.9)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.report.fakerun import make_run, page
from trustaudit.policy import Policy, PolicyError, build_policy, load_policy, policy_toml
from trustaudit.policy._field import NON_NEGATIVE, POSITIVE, UNIT, Range
from trustaudit.policy._load import MAX_POLICY_BYTES


def test_range_problems() -> None:
    assert UNIT.problem(0.0) is None and UNIT.problem(1) is None
    assert "finite" in (UNIT.problem(math.nan) or "")
    assert "finite" in (NON_NEGATIVE.problem(math.inf) or "")
    assert ">= 0" in (UNIT.problem(-0.1) or "")
    assert "<= 1" in (UNIT.problem(1.5) or "")
    assert "> 0" in (POSITIVE.problem(0) or "")
    assert Range(ge=1).text() == ">= 1" and UNIT.text() == "[0, 1]" and POSITIVE.text() == "> 0"


def test_defaults_and_strict_profile_are_valid() -> None:
    assert build_policy(Policy().to_dict()) == Policy()
    load_policy(overrides={"profile": "strict"}, environ={})


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[weights]\ndomain = nan\n", "weights.domain"),
        ("[weights]\ndomain = -0.5\naffiliate = 0.75\ncoherence = 0.75\n", "weights.domain"),
        ("[bands]\ntrusted_from = inf\n", "bands.trusted_from"),
        ("[domain]\nage_cap_years = 0\n", "domain.age_cap_years"),
        ("[textual]\nweight = -0.1\n", "textual.weight"),
        ("[crawl]\ntimeout_s = -1.0\n", "crawl.timeout_s"),
        ("[extract]\nbatch_size = 0\n", "extract.batch_size"),
        ("[gate]\nmax_offenders = -1\n", "gate.max_offenders"),
    ],
)
def test_out_of_range_file_values_name_the_key(tmp_path: Path, toml: str, key: str) -> None:
    f = tmp_path / "p.toml"
    f.write_text(toml)
    with pytest.raises(PolicyError, match=key.replace(".", r"\.")) as exc:
        load_policy(f, environ={})
    assert str(f) in str(exc.value)


def test_env_and_flags_are_checked_too() -> None:
    with pytest.raises(PolicyError, match="TRUSTAUDIT_WEIGHTS__DOMAIN must be a finite"):
        load_policy(environ={"TRUSTAUDIT_WEIGHTS__DOMAIN": "nan"})
    with pytest.raises(PolicyError, match=r"flags\.fusion\.alpha must be >= 0"):
        load_policy(environ={}, overrides={"fusion": {"alpha": -1.0}})
    with pytest.raises(PolicyError, match="finite"):
        build_policy({"weights": {"domain": math.nan}})  # a tampered manifest


def test_policy_show_documents_ranges() -> None:
    text = policy_toml(Policy())
    assert "weight of the domain sub-score in the reference formula (valid: [0, 1])" in text
    assert "(valid: > 0)" in text and "(valid: >= 0)" in text


def test_special_and_huge_policy_files_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    with pytest.raises(PolicyError, match="not a regular file"):
        load_policy(fifo, environ={})  # would block forever if opened
    with pytest.raises(PolicyError, match="not a regular file"):
        load_policy("/dev/zero", environ={})
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_POLICY_BYTES + "\n")
    with pytest.raises(PolicyError, match="larger than"):
        load_policy(big, environ={})
    with pytest.raises(PolicyError, match="folder"):
        load_policy(tmp_path, environ={})


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trustaudit", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_cli_exit_2_for_nan_from_file_env_and_flag(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "nan.toml"
    f.write_text("[weights]\ndomain = nan\n")
    res = runner.invoke(app, ["policy", "show", "--policy", str(f)])
    assert res.exit_code == 2 and "weights.domain must be a finite number" in res.stderr
    res = runner.invoke(app, ["policy", "show"], env={"TRUSTAUDIT_TEXTUAL__WEIGHT": "-1"})
    assert res.exit_code == 2 and "TRUSTAUDIT_TEXTUAL__WEIGHT must be >= 0" in res.stderr
    run = make_run(tmp_path / "run", [page("https://a.example/", 0.8)]).root
    results = tmp_path / "r.jsonl"
    results.write_text('{"query": "q", "url": "https://a.example/", "score": 1.0}\n')
    res = runner.invoke(app, ["fuse", str(results), "--run", str(run), "--alpha", "nan"])
    assert res.exit_code == 2 and "fusion.alpha must be a finite number" in res.stderr
    res = runner.invoke(app, ["fuse", str(results), "--run", str(run), "--beta", "-2"])
    assert res.exit_code == 2 and "fusion.beta must be >= 0" in res.stderr


def test_cli_dev_zero_policy_exits_2_without_reading(tmp_path: Path) -> None:
    res = _cli("policy", "show", "--policy", "/dev/zero")
    assert res.returncode == 2 and "not a regular file" in res.stderr


def test_gate_refuses_nan_scores_and_json_outputs_are_strict(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.gate import runfactory as rf
    from trustaudit.io.atomic import json_text, write_json

    pages = [
        rf.page("https://a.example/", math.nan, band="trusted"),
        rf.page("https://b.example/", 0.9),
    ]
    root = rf.make_run(tmp_path / "run", pages)
    res = runner.invoke(app, ["gate", str(root), "--json"])  # a NaN score never passes a gate
    assert res.exit_code == 2 and "NaN trust_score" in res.stderr
    assert not (root / "reports" / "gate.json").exists()
    strict = {"parse_constant": lambda c: pytest.fail(f"non-JSON constant {c}")}
    data = {"mean": math.nan, "rows": [math.inf, 1.5], "nested": {"x": -math.inf}}
    assert json.loads(json_text(data), **strict) == {
        "mean": None,
        "rows": [None, 1.5],
        "nested": {"x": None},
    }
    write_json(tmp_path / "g.json", data)
    json.loads((tmp_path / "g.json").read_text(), **strict)
