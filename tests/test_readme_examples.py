"""The README's three uses, pasted into a shell as a new user would: the commands run on the bundled
corpus (file names of the README, contents of fixtures/) and end with the exit codes it promises."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "fixtures" / "corpus"
SAMPLES = REPO / "fixtures" / "samples"
README = (REPO / "README.md").read_text(encoding="utf-8")
PAGES = 8  # enough for every band; small enough for a quick test


def _block(heading: str) -> str:
    """The first fenced shell block under a `### heading` of the README."""
    section = README.split(heading, 1)[1]
    found = re.search(r"```(?:bash|sh)\n(.*?)```", section, re.S)
    assert found is not None, heading
    return found.group(1)


def _gate_toml() -> str:
    found = re.search(r"```toml\n(\[gate\].*?)```", README, re.S)
    assert found is not None
    return found.group(1)


def _saved_pages(dest: Path) -> list[str]:
    """A few of the corpus's saved pages with their urls.csv rows; returns their URLs."""
    dest.mkdir(parents=True)
    urls = pl.read_csv(CORPUS / "pages" / "urls.csv")
    keep = urls.filter(pl.col("file").str.ends_with(".html")).head(PAGES)
    for name in keep["file"]:
        shutil.copy(CORPUS / "pages" / name, dest / name)
    keep.write_csv(dest / "urls.csv")
    return list(keep["url"])


def _shell(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run README lines with `trustaudit` meaning this checkout's CLI; report every exit code."""
    prelude = f'trustaudit() {{ "{sys.executable}" -m trustaudit "$@"; }}\n'
    checked = "".join(f'{line}\necho "rc=$?"\n' for line in _commands(script))
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "TRUSTAUDIT_EMBEDDINGS__STATIC_MODEL": "hashing-256",
    }
    return subprocess.run(
        ["bash", "-c", prelude + checked],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def _commands(script: str) -> list[str]:
    """Shell commands of a block: continuation lines joined, comments after a command kept out."""
    joined = script.replace("\\\n", " ")
    return [line.split("  #")[0].rstrip() for line in joined.splitlines() if line.strip()]


def _codes(res: subprocess.CompletedProcess[str]) -> list[int]:
    return [int(c) for c in re.findall(r"^rc=(\d+)$", res.stdout, re.M)]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copy(SAMPLES / "sample.jsonl.gz", tmp_path / "dump.jsonl.gz")
    shutil.copy(SAMPLES / "sample.warc.gz", tmp_path / "crawl.warc.gz")
    shutil.copy(CORPUS / "blocklist.txt", tmp_path / "block.txt")
    shutil.copy(CORPUS / "allowlist.txt", tmp_path / "allow.txt")
    shutil.copy(CORPUS / "domain_info.csv", tmp_path / "domains.csv")
    shutil.copy(CORPUS / "labels.csv", tmp_path / "labels.csv")
    (tmp_path / "strict.toml").write_text("[bands]\nquarantine_below = 0.5\n", encoding="utf-8")
    (tmp_path / "trustaudit.toml").write_text(_gate_toml(), encoding="utf-8")
    return tmp_path


def test_use_1_one_off_vetting(workdir: Path) -> None:
    urls = _saved_pages(workdir / "saved-pages")
    script = _block("### 1.").replace("https://example.com/suspicious-review", urls[0])
    res = _shell(script, workdir)
    assert _codes(res) == [0, 0, 0, 0], res.stdout[-3000:] + res.stderr[-3000:]
    scores = pl.read_parquet(workdir / "runs" / "vet" / "scores.parquet")
    assert scores.height >= PAGES
    assert (workdir / "runs" / "vet" / "reports" / "report.html").is_file()


def test_use_2_ci_gate(workdir: Path) -> None:
    _saved_pages(workdir / "kb" / "sources")
    shutil.copy(CORPUS / "labels.csv", workdir / "kb" / "labels.csv")
    res = _shell(_block("### 2."), workdir)
    codes = _codes(res)
    assert codes and codes[0] in (0, 1), res.stdout[-3000:] + res.stderr[-3000:]
    assert (workdir / "gate.xml").is_file() and (
        workdir / "run" / "reports" / "gate.json"
    ).is_file()


def test_use_3_nightly_cron(workdir: Path) -> None:
    _saved_pages(workdir / "crawl")
    first = _shell(_block("### 3."), workdir)  # night one: no runs/latest yet, so diff exits 2
    assert _codes(first)[:2] == [0, 0], first.stdout[-3000:] + first.stderr[-3000:]
    today = next(p for p in (workdir / "runs").iterdir() if p.name != "latest")
    shutil.copytree(today, workdir / "runs" / "latest")
    res = _shell(_block("### 3."), workdir)
    codes = _codes(res)  # today=…, audit, gate (its verdict), diff against the same corpus
    assert codes[:2] == [0, 0] and codes[2] in (0, 1) and codes[3] == 0, res.stdout + res.stderr
    assert len([line for line in res.stdout.splitlines() if not line.startswith("rc=")]) == 3
