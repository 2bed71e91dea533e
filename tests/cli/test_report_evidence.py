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


STARS = [
    "The telescope on the ridge tracked the comet for three nights while astronomers logged its "
    "orbit and the brightness of its tail against the galaxy behind it.",
    "Observatory staff recalibrated the main lens after the eclipse, because the nebula images had "
    "drifted and the astronomers wanted sharper exposures of the sky.",
    "By the fourth night the comet had swung past the sun, and the orbit the astronomers computed "
    "matched the telescope data to within a few arc seconds.",
    "The observatory will publish the nebula survey next spring, once the lens tests are finished "
    "and the galaxy catalogue has been checked by two astronomers.",
]
BREAD = [
    "Knead the dough for ten minutes until it is smooth, then leave it in a warm kitchen so the "
    "yeast can rise and the bread develops a light crumb.",
    "A hot oven matters more than the flour: bake the loaf at high heat with a tray of water so "
    "the crust turns crisp and the butter on top browns.",
    "Sourdough starter needs feeding twice a day with flour and water, and bakers keep it in a jar "
    "on the counter where the kitchen stays warm.",
    "Slice the cooled bread thickly, spread salted butter and honey, and serve it with soup for a "
    "simple supper that the whole family enjoys.",
]


def test_interleaved_evidence_is_the_alternating_paragraphs(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "pages"
    folder.mkdir()
    prose = [p for pair in zip(STARS, BREAD, strict=True) for p in pair]  # A B A B …
    (folder / "mix.html").write_text(
        "<!doctype html><html><head><title>Daily Mix</title></head><body><header><nav>"
        '<a href="/">Home</a> | <a href="/news">News</a></nav></header><article>'
        "<h1>Daily Mix: today's stories</h1><p>By Staff Writer</p>"
        + "".join(f"<p>{p}</p>" for p in prose)
        + "</article></body></html>",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    res = runner.invoke(
        app, ["audit", str(folder), "--out", str(out), "-w", "1", "--now", "2026-11-01", "-q"]
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    (detail,) = _data((out / "reports" / "report.html").read_text("utf-8"), "data-pages")["detail"]
    (reason,) = [r for r in detail["r"] if r["code"] == "COHERENCE_INTERLEAVED"]
    assert [e["t"] for e in reason["ev"]] == prose[:3]
    assert [e["w"].split(" · ")[1] for e in reason["ev"]] == ["topic A", "topic B", "topic A again"]
