"""`trustaudit explain RUN URL [--json]`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.report.fakerun import make_run, page


def _run(tmp_path: Path) -> Path:
    pages = [
        page("https://a.example/x", 0.3, reasons=["TEXT_THIN: 12 words", "X_Y: [red]markup[/red]"]),
        page("https://b.example/y", 0.9),
    ]
    return make_run(tmp_path / "run", pages).root


def test_explain_table(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["explain", str(_run(tmp_path)), "https://a.example/x"])
    assert res.exit_code == 0, res.output
    for text in (
        "quarantine",
        "domain_score",
        "contribution",
        "Thin text — 12 words",
        "[red]markup[/red]",
    ):
        assert text in res.output


def test_explain_json(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["explain", str(_run(tmp_path)), "https://A.example/x#frag", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["url"] == "https://a.example/x" and data["trust_score"] == 0.3
    assert [s["name"] for s in data["sub_scores"]] == [
        "domain_score",
        "affiliate_score",
        "coherence_score",
    ]


def test_explain_unknown_page_is_usage_error(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["explain", str(_run(tmp_path)), "https://nope.example/"])
    assert res.exit_code == 2 and "no page matches" in res.output


def test_explain_missing_run(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(app, ["explain", str(tmp_path / "none"), "x"])
    assert res.exit_code == 2 and "run directory not found" in res.output
