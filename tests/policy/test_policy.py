"""Policy: precedence, validation, documented output, recorded hash."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from trustaudit.policy import Policy, PolicyError, load_policy, policy_hash, policy_toml


def test_defaults_are_the_reference_design() -> None:
    p = Policy()
    assert (p.weights.domain, p.weights.affiliate, p.weights.coherence) == (0.35, 0.30, 0.35)
    assert (p.bands.quarantine_below, p.bands.trusted_from) == (0.40, 0.70)


def test_precedence_defaults_file_env_flags(tmp_path: Path) -> None:
    f = tmp_path / "trustaudit.toml"
    f.write_text("[bands]\nquarantine_below = 0.5\ntrusted_from = 0.8\n")
    assert load_policy(f, environ={}).bands.quarantine_below == 0.5
    env = {"TRUSTAUDIT_BANDS__QUARANTINE_BELOW": "0.55"}
    assert load_policy(f, environ=env).bands.quarantine_below == 0.55
    flags = {"bands": {"quarantine_below": 0.6}}
    p = load_policy(f, environ=env, overrides=flags)
    assert p.bands.quarantine_below == 0.6
    assert p.bands.trusted_from == 0.8  # untouched keys keep the file's value


def test_unknown_key_is_an_error_naming_the_key(tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text("[bands]\nquarantine_bellow = 0.5\n")
    with pytest.raises(PolicyError, match="quarantine_bellow"):
        load_policy(f, environ={})


def test_wrong_type_and_invalid_values_are_errors(tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text('[bands]\nquarantine_below = "high"\n')
    with pytest.raises(PolicyError, match="expected a number"):
        load_policy(f, environ={})
    f.write_text("[weights]\ndomain = 0.9\n")
    with pytest.raises(PolicyError, match=r"sum to 1\.0"):
        load_policy(f, environ={})
    f.write_text("[bands]\nquarantine_below = 0.9\n")
    with pytest.raises(PolicyError, match="quarantine_below <= trusted_from"):
        load_policy(f, environ={})


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "p.toml"
    f.write_text("[bands\n")
    with pytest.raises(PolicyError, match="not valid TOML"):
        load_policy(f, environ={})
    with pytest.raises(PolicyError, match="not found"):
        load_policy(tmp_path / "nope.toml", environ={})


def test_strict_profile_raises_bands() -> None:
    p = load_policy(overrides={"profile": "strict"}, environ={})
    assert (
        p.profile == "strict" and p.bands.quarantine_below == 0.70 and p.bands.trusted_from == 0.85
    )


def test_list_paths_resolve_against_the_policy_folder(tmp_path: Path) -> None:
    (tmp_path / "cfg").mkdir()
    f = tmp_path / "cfg" / "p.toml"
    f.write_text('[domain]\nblocklist_files = ["block.txt"]\n')
    p = load_policy(f, environ={})
    assert p.domain.blocklist_files == (str(tmp_path / "cfg" / "block.txt"),)


def test_env_list_values_are_json(tmp_path: Path) -> None:
    p = load_policy(environ={"TRUSTAUDIT_AFFILIATE__EXTRA_HOSTS": '["aff.example"]'})
    assert p.affiliate.extra_hosts == ("aff.example",)


def test_policy_toml_round_trips_and_documents_every_field() -> None:
    p = load_policy(overrides={"bands": {"quarantine_below": 0.45}}, environ={})
    text = policy_toml(p)
    data = tomllib.loads(text)
    assert data["bands"]["quarantine_below"] == 0.45
    again = load_policy(overrides=data, environ={})
    assert policy_hash(again) == policy_hash(p)
    assert "# weight of the domain sub-score" in text


def test_hash_changes_with_any_setting() -> None:
    a = Policy()
    b = a.with_overrides({"affiliate": {"dense_per_1k": 12.0}})
    assert policy_hash(a) != policy_hash(b)
    assert policy_hash(a) == policy_hash(Policy())


def test_policy_show_cli(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "p.toml"
    f.write_text("[bands]\nquarantine_below = 0.33\n")
    res = runner.invoke(app, ["policy", "show", "--policy", str(f)])
    assert res.exit_code == 0, res.output
    body = "\n".join(line for line in res.output.splitlines())
    assert tomllib.loads(body)["bands"]["quarantine_below"] == 0.33
    bad = tmp_path / "bad.toml"
    bad.write_text("[nosuch]\nx = 1\n")
    res = runner.invoke(app, ["policy", "show", "--policy", str(bad)])
    assert res.exit_code == 2
    assert "nosuch" in res.output and "Traceback" not in res.output
