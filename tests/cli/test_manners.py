"""Unix manners (issue #17.3): closed pipes exit quietly, help shows brackets, plain output is not
cut at 80 columns, `--quiet` is one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def test_closed_stdout_exits_0_with_empty_stderr() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "trustaudit", "policy", "show"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first write: every write is EPIPE
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert err == b""


def test_policy_show_piped_into_head() -> None:
    res = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{sys.executable} -m trustaudit policy show | head -1"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
        check=False,
    )
    assert res.returncode == 0 and res.stderr == ""
    assert res.stdout.startswith("# effective trustaudit policy")


@pytest.mark.parametrize("cmd", [["gate"], ["fuse"], ["audit"], ["score"], ["policy", "show"]])
def test_help_renders_brackets_and_no_bool_metavar(runner, app, cmd: list[str]) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, [*cmd, "--help"])
    assert res.exit_code == 0
    assert "<bool>" not in res.output
    if cmd[0] in ("gate", "fuse"):
        assert f"[{cmd[0].replace('fuse', 'fusion')}]" in res.output


def test_plain_output_keeps_long_urls_whole(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    url = "https://a.example/" + "/".join(f"segment{i:02d}" for i in range(15))
    from tests.gate import runfactory as rf

    old = rf.make_run(tmp_path / "old", [rf.page(url, 0.9)])
    new = rf.make_run(tmp_path / "new", [rf.page(url, 0.2)])
    res = runner.invoke(app, ["diff", str(old), str(new)])
    assert res.exit_code == 0, res.output
    assert url in res.output  # the table cell is one line: not folded at 80 columns
    narrow = runner.invoke(app, ["--width", "60", "diff", str(old), str(new)])
    assert narrow.exit_code == 0 and url not in narrow.output
    table = [line for line in narrow.output.splitlines() if line.startswith(("│", "┃", "┏"))]
    assert table and max(len(line) for line in table) <= 60


# `python -m trustaudit` with one change: the distillation keeps MiniLM's special tokens and the
# words that start with "a" (1,484 of its 30,522 tokens; PCA needs 256). Everything else is
# the real first run: transformers loads the packaged weights, model2vec encodes the tokens behind
# its progress bar, reduces and saves the model, and the audit embeds with it. Only the number of
# tokens pushed through MiniLM shrinks (the whole vocabulary took most of the test's 35-160 s).
_SMALL_VOCABULARY_CLI = """
import contextlib, sys
from trustaudit.embed import models

_real_all_cores = models._all_cores

@contextlib.contextmanager
def _all_cores_small_vocabulary():
    from model2vec.distill import distillation

    real = distillation.distill_from_model

    def small(**kwargs):
        kwargs["token_remove_pattern"] = r"^(?!\\[(?:PAD|UNK|CLS|SEP|MASK)\\]$)(?!a).*"
        return real(**kwargs)

    distillation.distill_from_model = small
    with _real_all_cores():
        yield

models._all_cores = _all_cores_small_vocabulary
from trustaudit.cli.main import run

sys.argv[0] = "trustaudit"
run()
"""


@pytest.mark.slow
def test_quiet_is_one_line_on_a_cold_model_cache(html_folder: Path, tmp_path: Path) -> None:
    """The first run builds the static model (transformers + model2vec): their bars, load reports
    and warnings must not reach stderr under --quiet. (The distillation encodes a small part of
    the vocabulary, `_SMALL_VOCABULARY_CLI`: the messages are the same, the model smaller.)"""
    cache = tmp_path / "cold-cache"
    cache.mkdir()
    res = subprocess.run(
        [sys.executable, "-c", _SMALL_VOCABULARY_CLI, "audit", str(html_folder), "--out",
         str(tmp_path / "run"), "--quiet", "--workers", "1"],
        capture_output=True,
        text=True,
        env={**ENV, "TRUSTAUDIT_CACHE": str(cache)},
        timeout=900,
        check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert any(cache.rglob("config.json"))  # the model really was built in this run
    # ... from the reduced vocabulary (so the change above took effect, and nothing else did)
    vocab = json.loads(next(cache.rglob("tokenizer.json")).read_text())["model"]["vocab"]
    assert 256 < len(vocab) < 5000 and "[UNK]" in vocab
    assert all(t.startswith("a") or t.startswith("[") for t in vocab)
    assert res.stderr == ""
    assert len(res.stdout.splitlines()) == 1 and res.stdout.startswith("trustaudit: 3 pages")
