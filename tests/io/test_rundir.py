"""io.rundir: `--out` checks, the files a run owns, and how a derived command's policy is layered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trustaudit.errors import RunDirError
from trustaudit.io.rundir import (
    RunDir,
    check_out,
    command_of,
    own_inputs,
    recorded_labels,
    recorded_policy,
    run_policy,
    staged_tables,
)
from trustaudit.policy import load_policy


def test_command_of_old_and_new_manifests() -> None:
    assert command_of({"command": "crawl", "ingest_key": "k"}) == "crawl"
    assert command_of({"ingest_key": "k"}) == "audit"
    assert command_of({"stages": {"crawl": {}}}) == "crawl"
    assert command_of({}) is None


def test_check_out(tmp_path: Path) -> None:
    check_out(tmp_path / "new", "audit", ["x"], fresh=False)
    (tmp_path / "empty").mkdir()
    check_out(tmp_path / "empty", "audit", ["x"], fresh=False)
    (tmp_path / "f").write_text("x")
    with pytest.raises(RunDirError, match="is a file"):
        check_out(tmp_path / "f", "audit", ["x"], fresh=True)
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(
        json.dumps({"command": "audit", "input_paths": [str(tmp_path / "a")]})
    )
    check_out(run, "audit", [str(tmp_path / "a")], fresh=False)  # same inputs: resume
    with pytest.raises(RunDirError, match="other inputs"):
        check_out(run, "audit", [str(tmp_path / "b")], fresh=False)
    with pytest.raises(RunDirError, match="made by `trustaudit audit`"):
        check_out(run, "crawl", [str(tmp_path / "a")], fresh=False)
    check_out(run, "crawl", [str(tmp_path / "b")], fresh=True)


def _lists(tmp_path: Path) -> tuple[Path, Path, Path]:
    block, allow, labels = tmp_path / "b.txt", tmp_path / "a.txt", tmp_path / "l.csv"
    block.write_text("bad.example\n")
    allow.write_text("good.example\n")
    labels.write_text("url,label\n")
    return block, allow, labels


def test_own_inputs_copies_and_records_relative_paths(tmp_path: Path) -> None:
    block, allow, labels = _lists(tmp_path)
    run = RunDir.at(tmp_path / "run")
    run.root.mkdir()
    pol = load_policy(
        environ={},
        overrides={
            "domain": {"blocklist_files": [str(block), str(block)], "allowlist_files": [str(allow)]}
        },
    )
    owned_pol, owned_labels, record = own_inputs(run, pol, labels)
    assert [Path(p).parent for p in owned_pol.domain.blocklist_files] == [run.inputs]
    assert len(owned_pol.domain.blocklist_files) == 1  # the same file twice is kept once
    assert owned_labels is not None and owned_labels.read_text() == "url,label\n"
    kinds = sorted(e["kind"] for e in record)
    assert kinds == ["allowlist", "blocklist", "labels"]
    plain = recorded_policy(run, owned_pol)
    assert plain["domain"]["blocklist_files"] == ["inputs/blocklist-0-b.txt"]
    # re-owning what the run already owns keeps names and sources
    (run.root / "manifest.json").write_text(json.dumps({"policy": plain, "owned_inputs": record}))
    again, _, record2 = own_inputs(run, owned_pol, owned_labels)
    assert again.domain.blocklist_files == owned_pol.domain.blocklist_files
    assert {e["source"] for e in record2} == {str(block), str(allow), str(labels)}
    assert recorded_labels(run) == run.inputs / "labels-0-l.csv"


def test_run_policy_layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block, allow, _ = _lists(tmp_path)
    run = RunDir.at(tmp_path / "run")
    run.root.mkdir()
    base = load_policy(
        environ={},
        overrides={"domain": {"blocklist_files": [str(block)]}, "bands": {"quarantine_below": 0.3}},
    )
    owned, _, record = own_inputs(run, base)
    (run.root / "manifest.json").write_text(
        json.dumps({"policy": recorded_policy(run, owned), "owned_inputs": record})
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / "trustaudit.toml").write_text("[bands]\nquarantine_below = 0.1\n")  # not read
    p = run_policy(run)
    assert (
        p.bands.quarantine_below == 0.3 and p.domain.blocklist_files == owned.domain.blocklist_files
    )
    more = tmp_path / "more.txt"
    more.write_text("x.example\n")
    p = run_policy(run, overrides={"domain": {"blocklist_files": [str(more)]}})
    assert p.domain.blocklist_files == (*owned.domain.blocklist_files, str(more))
    newpol = tmp_path / "new.toml"
    newpol.write_text(f'[domain]\nallowlist_files = ["{allow}"]\n')
    p = run_policy(run, newpol)
    assert p.bands.quarantine_below == 0.4  # the file's settings (defaults) replace the run's
    assert (
        p.domain.blocklist_files == owned.domain.blocklist_files
        and p.domain.allowlist_files == (str(allow),)
    )
    p = run_policy(run, newpol, replace_lists=True)
    assert p.domain.blocklist_files == () and p.domain.allowlist_files == (str(allow),)
    monkeypatch.setenv("TRUSTAUDIT_BANDS__QUARANTINE_BELOW", "0.25")
    assert run_policy(run).bands.quarantine_below == 0.25


def test_staged_tables_swap_only_on_success(tmp_path: Path) -> None:
    run = RunDir.at(tmp_path / "run")
    run.root.mkdir()
    (run.root / "scores.parquet").write_bytes(b"old")
    (run.root / "pages.parquet").write_bytes(b"pages")
    with pytest.raises(RuntimeError), staged_tables(run) as stage:
        (stage.root / "scores.parquet").unlink()
        (stage.root / "scores.parquet").write_bytes(b"half")
        raise RuntimeError
    assert (run.root / "scores.parquet").read_bytes() == b"old"
    with staged_tables(run) as stage:
        assert (stage.root / "pages.parquet").read_bytes() == b"pages"
        (stage.root / "scores.parquet").unlink()
        (stage.root / "scores.parquet").write_bytes(b"new")
    assert (run.root / "scores.parquet").read_bytes() == b"new"
    assert (run.root / "pages.parquet").read_bytes() == b"pages"
    assert sorted(p.name for p in run.root.iterdir()) == ["pages.parquet", "scores.parquet"]
