"""report.html's evidence and `explain` through the CLI, after a real audit of fixture pages."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from tests.helpers import REPO

PAGES = REPO / "fixtures" / "corpus" / "pages"


def _data(html: str, name: str) -> dict:
    block = re.search(rf'id="{name}">(.*?)</script>', html, re.S)
    assert block is not None, name
    return json.loads(block.group(1))


def _audit(runner, app, tmp_path: Path, names: list[str]) -> Path:  # type: ignore[no-untyped-def]
    folder = tmp_path / "pages"
    folder.mkdir()
    for name in names:
        shutil.copy(PAGES / name, folder / name)
    out = tmp_path / "run"
    res = runner.invoke(
        app, ["audit", str(folder), "--out", str(out), "-w", "1", "--now", "2026-11-01", "-q"]
    )
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture
def tag_run(runner, app, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    # invisible Unicode tag characters right before `</p>`: the decoded run ends in `</`
    return _audit(runner, app, tmp_path, ["fx-inject-unicode-tags.html"])


def test_report_snippets_have_no_partial_tag(runner, app, tag_run: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["report", str(tag_run)])
    assert res.exit_code == 0, res.output
    html = (tag_run / "reports" / "report.html").read_text(encoding="utf-8")
    evidence = [e for d in _data(html, "data-pages")["detail"] for r in d["r"] for e in r["ev"]]
    hidden = [e["t"] for e in evidence if e["k"] == "hidden"]
    assert hidden and any("administrator." in t for t in hidden)
    for t in hidden:
        assert not re.search(r"<[^<>]*$", t), t  # no tag left open at the end
    assert "administrator.</" not in html


def test_explain_snippets_have_no_partial_tag(runner, app, tag_run: Path) -> None:  # type: ignore[no-untyped-def]
    doc_id = pl.read_parquet(tag_run / "scores.parquet")["doc_id"][0]  # the run's one page
    res = runner.invoke(app, ["explain", str(tag_run), doc_id])
    assert res.exit_code == 0, res.output
    assert "administrator." in res.output and "administrator.</" not in res.output
