"""Environment and input problems are exit 2 with the path and a hint, never exit 3 (issue #15.9,
#15.11): damaged --since runs, tampered run tables, full disks, special files as lists."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import polars as pl
import pytest

NOW = ["--now", "2026-11-01"]


def _audit(runner, app, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["audit", *args, "--workers", "1", *NOW])


@pytest.fixture
def run(runner, app, html_folder: Path, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    res = _audit(runner, app, str(html_folder), "--out", str(out))
    assert res.exit_code == 0, res.output
    return out


def _exit_2(res, *needles: str) -> None:  # type: ignore[no-untyped-def]
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()
    assert any(x.startswith("trustaudit: error: ") for x in lines), res.stderr
    assert any(x.startswith("hint: ") for x in lines), res.stderr
    assert "internal error" not in res.stderr
    for n in needles:
        assert n in res.stderr, res.stderr


def test_damaged_since_part_and_manifest(
    runner, app, run: Path, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    for part in (run / "parts").glob("*.pages.parquet"):
        part.write_bytes(b"not parquet")
    res = _audit(runner, app, str(html_folder), "--out", str(tmp_path / "r2"), "--since", str(run))
    _exit_2(res, "--since", "damaged")
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["sources"] = [{"key": "k", "index": "x"}]
    (run / "manifest.json").write_text(json.dumps(manifest))
    res = _audit(runner, app, str(html_folder), "--out", str(tmp_path / "r3"), "--since", str(run))
    _exit_2(res, "manifest.json is damaged")
    (run / "manifest.json").write_text("{not json")
    res = _audit(runner, app, str(html_folder), "--out", str(tmp_path / "r4"), "--since", str(run))
    _exit_2(res, "manifest.json is corrupt")


@pytest.mark.parametrize("damage", ["junk", "dtype", "duplicate"])
def test_tampered_tables_in_diff_gate_report(
    runner, app, run: Path, damage: str, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    import shutil

    other = tmp_path / "other"
    shutil.copytree(run, other)
    scores = other / "scores.parquet"
    df = pl.read_parquet(scores)
    if damage == "junk":
        scores.write_bytes(b"PAR1 garbage")
    elif damage == "dtype":
        df.with_columns(pl.col("trust_score").cast(pl.String)).write_parquet(scores)
    else:
        pl.concat([df, df.head(1)]).write_parquet(scores)
    for cmd in (["diff", str(run), str(other)], ["gate", str(other)], ["report", str(other)]):
        _exit_2(runner.invoke(app, cmd), str(scores))


def test_full_disk_is_exit_2_with_the_path(
    runner, app, html_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    import trustaudit.run.ingest as ingest  # the first write of a run: committing a part

    def full(path: object, *a: object, **k: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(ingest, "write_parquet", full)
    res = _audit(runner, app, str(html_folder), "--out", str(tmp_path / "r"))
    _exit_2(res, "No space left on device", str(tmp_path / "r"))


def test_special_files_as_lists_are_refused_up_front(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    fifo = tmp_path / "block.fifo"
    os.mkfifo(fifo)
    for flag, path in (
        ("--blocklist", fifo),
        ("--allowlist", Path("/dev/zero")),
        ("--labels", fifo),
    ):
        res = _audit(runner, app, str(html_folder), "--out", str(tmp_path / "r"), flag, str(path))
        _exit_2(res, "not a regular file", str(path))
    assert not (tmp_path / "r").exists()


def test_unbalanced_accounting_warns_and_exits_2(runner, app, run: Path) -> None:  # type: ignore[no-untyped-def]
    manifest = json.loads((run / "manifest.json").read_text())
    acc = manifest["stages"]["ingest"]["accounting"]
    acc["pages"] += 1  # a duplicated row: inputs != pages + errors
    acc["balanced"] = False
    (run / "manifest.json").write_text(json.dumps(manifest))
    res = runner.invoke(app, ["report", str(run)])
    _exit_2(res, "accounting does not balance", "--fresh")
    summary = json.loads((run / "reports" / "summary.json").read_text())
    assert summary["accounting"]["balanced"] is False  # the reports are still written
