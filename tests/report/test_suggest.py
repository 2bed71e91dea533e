"""Wilson intervals and the allow/block suggestions built on them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
import pytest

from tests.report.fakerun import make_run, page
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy
from trustaudit.report.suggest import domain_evidence, wilson, write_suggestions

FIND = {
    "location": "comment",
    "technique": "comment",
    "snippet": "ignore previous instructions",
    "offset": 1,
    "rule": "override",
    "score": 0.9,
}


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (5, 10, 0.2366, 0.7634), (1, 3, 0.0615, 0.7923)],
)
def test_wilson_reference_values(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson(pl.lit(k), pl.lit(n), 1.96)
    got = pl.select(lo=lo, hi=hi).row(0)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_zero_pages() -> None:
    lo, hi = wilson(pl.lit(0), pl.lit(0), 1.96)
    assert pl.select(lo=lo, hi=hi).row(0) == (0.0, 1.0)


def _pages() -> list[dict]:
    out = []
    out += [page(f"https://good.example/{i}", 0.85) for i in range(6)]  # 6/6 trusted -> allow
    out += [page(f"https://few.example/{i}", 0.9) for i in range(2)]  # too few pages -> nothing
    out += [page(f"https://farm.example/{i}", 0.2) for i in range(5)]  # 5/5 quarantined -> block
    out += [
        page(f"https://mixed.example/{i}", 0.2 if i < 2 else 0.8) for i in range(6)
    ]  # 2/6 -> none
    out += [page("https://inj.example/a", 0.9, findings=[FIND])]  # one page, injection -> block
    out += [page(f"https://listed.example/{i}", 0.9) for i in range(6)]  # already allowlisted
    out += [
        page("https://sub.listedbad.example/a", 0.9, domain="listedbad.example", findings=[FIND])
    ]
    out += [page(None, 0.1, domain=None)]  # no URL: never suggested
    return out


def _policy(tmp_path: Path) -> Policy:
    allow = tmp_path / "allow.txt"
    allow.write_text("listed.example\n||listedbad.example^\n")
    p = Policy()
    return dataclasses.replace(
        p, domain=dataclasses.replace(p.domain, allowlist_files=(str(allow),))
    )


def test_suggestions(tmp_path: Path) -> None:
    policy = _policy(tmp_path)
    run = make_run(tmp_path / "r", _pages(), policy=policy)
    ev = {r["registered_domain"]: r for r in domain_evidence(run, policy).to_dicts()}
    assert ev["good.example"]["suggestion"] == "allow"
    assert ev["few.example"]["suggestion"] == ""
    assert ev["farm.example"]["suggestion"] == "block"
    assert ev["farm.example"]["quarantined_share_low"] == pytest.approx(0.5655, abs=1e-4)
    assert ev["mixed.example"]["suggestion"] == ""
    assert ev["inj.example"]["suggestion"] == "block" and ev["inj.example"]["injection_pages"] == 1
    assert ev["listed.example"]["suggestion"] == "" and ev["listed.example"]["on_allowlist"]
    assert ev["listedbad.example"]["suggestion"] == "review"
    assert None not in ev


def test_suggestion_files_and_domains_csv(tmp_path: Path) -> None:
    from trustaudit.report.summary import write_domains_csv

    policy = _policy(tmp_path)
    run = make_run(tmp_path / "r", _pages(), policy=policy, injection_count=True)
    run.reports.mkdir()
    write_domains_csv(run)
    write_suggestions(run, policy, {"run_id": "abc"})
    block = run.report("blocklist.suggested.txt").read_text().splitlines()
    allow = run.report("allowlist.suggested.txt").read_text().splitlines()
    entries = [x for x in block if x and not x.startswith("#")]
    assert entries == ["inj.example", "farm.example"]  # injection first
    assert "# inj.example: 1 page(s)" in "\n".join(block) and "injection on 1 page(s)" in "\n".join(
        block
    )
    assert [x for x in allow if x and not x.startswith("#")] == ["good.example"]
    assert any("Wilson 95%" in x for x in allow) and "listed.example" not in "\n".join(allow)
    csv = pl.read_csv(run.report("domains.csv"), infer_schema=False)
    assert {"pages", "mean_trust", "suggestion", "quarantined_share_low"} <= set(csv.columns)
    assert csv.filter(pl.col("registered_domain") == "farm.example")["suggestion"].item() == "block"


def test_injection_count_column_preferred(tmp_path: Path) -> None:
    run = make_run(
        tmp_path / "r",
        [page("https://a.example/x", 0.9, findings=[FIND, FIND])],
        injection_count=True,
    )
    ev = domain_evidence(RunDir.at(run.root), Policy())
    assert ev["injection_findings"].item() == 2
