"""diff on two hand-made runs: every change list, distribution statistics, --fail-on parsing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from gate.runfactory import make_run, page

from trustaudit.diff import (
    check_fail_on,
    diff_markdown,
    diff_runs,
    ks,
    parse_fail_on,
    psi,
    write_diff,
)
from trustaudit.errors import UsageError
from trustaudit.io.records import doc_id_for


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    old = [
        page("https://a.example.com/1", 0.80),  # stays trusted
        page("https://a.example.com/2", 0.60),  # medium -> quarantine (new quarantine)
        page("https://b.example.org/1", 0.20),  # quarantine -> trusted (resolved)
        page("https://c.example.net/1", 0.30),  # removed (was quarantined)
        page("https://d.example.io/1", 0.75),  # trusted -> medium, gains an injection
    ]
    new = [
        page("https://a.example.com/1", 0.80),
        page("https://a.example.com/2", 0.30),
        page("https://b.example.org/1", 0.85),
        page("https://d.example.io/1", 0.65, injections=2),
        page("https://e.example.dev/1", 0.10),  # added, quarantined (new quarantine)
    ]
    return make_run(tmp_path / "old", old, run_id="old"), make_run(
        tmp_path / "new", new, run_id="new"
    )


def test_change_lists(runs: tuple[Path, Path]) -> None:
    d = diff_runs(*runs)
    assert d["pages"] == {"added": 1, "removed": 1, "common": 4}
    nq = d["new_quarantines"]
    assert nq["count"] == 2
    assert [i["url"] for i in nq["items"]] == ["https://e.example.dev/1", "https://a.example.com/2"]
    assert nq["items"][0]["band_old"] is None  # a page that was not there last time
    rq = d["resolved_quarantines"]
    assert rq["count"] == 2
    by_url = {i["url"]: i for i in rq["items"]}
    assert by_url["https://b.example.org/1"]["band_new"] == "trusted"
    assert by_url["https://c.example.net/1"]["band_new"] is None  # removed page keeps its URL
    bc = d["band_changes"]
    assert bc["count"] == 3
    assert bc["transitions"] == {
        "medium->quarantine": 1,
        "quarantine->trusted": 1,
        "trusted->medium": 1,
    }
    assert bc["items"][0]["url"] == "https://b.example.org/1"  # biggest move first (+0.65)
    assert bc["items"][0]["trust_delta"] == pytest.approx(0.65)


def test_domain_shifts(runs: tuple[Path, Path]) -> None:
    d = diff_runs(*runs, domain_threshold=0.1)
    shifts = {i["registered_domain"]: i["delta"] for i in d["domain_shifts"]["items"]}
    assert shifts == {"example.org": pytest.approx(0.65), "example.com": pytest.approx(-0.15)}
    assert diff_runs(*runs, domain_threshold=0.5)["domain_shifts"]["count"] == 1


def test_new_injections(runs: tuple[Path, Path]) -> None:
    inj = diff_runs(*runs)["new_injections"]
    assert inj["available"] and inj["count"] == 1
    item = inj["items"][0]
    assert item["doc_id"] == doc_id_for("https://d.example.io/1", "", None)
    assert item["injection_count"] == 2 and "ignore previous" in item["injection_detail"]
    # Already flagged last night: not new.
    _old, new = runs
    assert diff_runs(new, new)["new_injections"]["count"] == 0


def test_injection_unavailable(tmp_path: Path) -> None:
    a = make_run(tmp_path / "a", [page("https://a.example.com/", 0.8)], injection_in="none")
    d = diff_runs(a, a)
    assert d["new_injections"] == {"available": False, "count": 0, "items": []}
    held = check_fail_on(d, parse_fail_on(["new-injection"]))
    assert held["held"] == [] and held["conditions"][0]["measured"] is None


def test_distribution(runs: tuple[Path, Path]) -> None:
    dist = diff_runs(*runs)["distribution"]
    assert dist["old"]["n"] == 5 and dist["old"]["mean"] == pytest.approx(0.53)
    assert dist["new"]["mean"] == pytest.approx(0.54)
    assert dist["mean_delta"] == pytest.approx(0.01)
    assert dist["psi"] > 0 and 0 < dist["ks"] <= 1 and 0 <= dist["ks_pvalue"] <= 1
    assert set(dist["new"]) >= {"p05", "p25", "p50", "p75", "p95", "std"}


def test_identical_runs_have_no_drift(runs: tuple[Path, Path]) -> None:
    d = diff_runs(runs[0], runs[0])
    assert d["new_quarantines"]["count"] == d["band_changes"]["count"] == 0
    assert d["distribution"]["psi"] == 0.0 and d["distribution"]["ks"] == 0.0
    assert d["distribution"]["ks_pvalue"] == 1.0


def test_psi_and_ks_statistics() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.4, 0.6, 2000), rng.uniform(0.4, 0.6, 2000)
    assert psi(a, b) < 0.02
    d, p = ks(a, b)
    assert d is not None and d < 0.06 and p is not None and p > 0.01
    shifted = np.clip(b + 0.3, 0, 1)
    assert psi(a, shifted) > 1.0
    d2, p2 = ks(a, shifted)
    assert d2 == 1.0 and p2 == 0.0
    assert psi(np.array([]), a) is None and ks(np.array([]), a) == (None, None)


def test_parse_fail_on() -> None:
    conds = parse_fail_on(["new-quarantine,band-change>5", "psi>0.2", "mean-drop"])
    assert [c.spec for c in conds] == [
        "new-quarantine>0",
        "band-change>5",
        "psi>0.2",
        "mean-drop>0.05",
    ]
    for bad in ("band-change>>2", "nope", "psi>x", "band-change<3"):
        with pytest.raises(UsageError):
            parse_fail_on([bad])


def test_check_fail_on(runs: tuple[Path, Path]) -> None:
    d = diff_runs(*runs)
    verdict = check_fail_on(
        d, parse_fail_on(["new-quarantine", "band-change>3", "band-change>2", "new-injection"])
    )
    assert verdict["held"] == ["new-quarantine>0", "band-change>2", "new-injection>0"]
    assert check_fail_on(d, [])["held"] == []


def test_markdown_and_files(runs: tuple[Path, Path], tmp_path: Path) -> None:
    d = diff_runs(*runs)
    d["fail_on"] = check_fail_on(d, parse_fail_on(["new-quarantine"]))
    md = diff_markdown(d)
    for heading in (
        "# trustaudit diff",
        "## New quarantines (2)",
        "## Resolved quarantines (2)",
        "## Band changes (3)",
        "## Domains whose mean trust moved (2)",
        "## New injection findings (1)",
        "## --fail-on",
    ):
        assert heading in md
    md_path, js_path = write_diff(d, tmp_path / "out")
    assert md_path.read_text(encoding="utf-8") == md
    assert json.loads(js_path.read_text(encoding="utf-8"))["band_changes"]["count"] == 3


def test_top_caps_lists_not_counts(runs: tuple[Path, Path]) -> None:
    d = diff_runs(*runs, top=1)
    assert d["band_changes"]["count"] == 3 and len(d["band_changes"]["items"]) == 1
    assert "… 2 more" in diff_markdown(d)


def test_markdown_cells_are_inert(tmp_path: Path) -> None:
    hostile = "https://evil.example/<img src=x onerror=alert(1)>|x\x1b]8;;http://e/\x07\x9b2J"
    old = make_run(tmp_path / "old", [page(hostile, 0.9)])
    new = make_run(tmp_path / "new", [page(hostile, 0.1)])
    md = diff_markdown(diff_runs(old, new))
    assert "https://evil.example/" in md
    assert "<img" not in md and "\x1b" not in md and "\x9b" not in md
    row = next(line for line in md.splitlines() if "evil.example" in line)
    assert "\\|x" in row  # the URL's pipe cannot open a new cell
