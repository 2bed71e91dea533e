"""explain_page: find a page by URL, normalized URL or doc_id; every part of its score."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.report.fakerun import make_run, page
from trustaudit.errors import UsageError
from trustaudit.policy import Policy
from trustaudit.report.explain import explain_page, find_page


@pytest.fixture
def run(tmp_path: Path):  # type: ignore[no-untyped-def]
    return make_run(
        tmp_path / "r",
        [
            page(
                "https://Shop.example/deal?x=1",
                0.317,
                hard=True,
                title="Best deals",
                reasons=[
                    "AFFILIATE_DENSE_NO_DISCLOSURE: 31.4 links per 1k words",
                    "TEXT_THIN: 90 words",
                ],
                affiliate_per_1k_words=31.4,
            ),
            page("https://other.example/", 0.8),
        ],
    )


def test_find_by_exact_normalized_and_doc_id(run) -> None:  # type: ignore[no-untyped-def]
    doc = find_page(run, "https://Shop.example/deal?x=1")
    assert find_page(run, "HTTPS://shop.example:443/deal?x=1#top") == doc
    assert find_page(run, doc) == doc
    with pytest.raises(UsageError, match="no page matches"):
        find_page(run, "https://missing.example/")


def test_explanation_parts(run) -> None:  # type: ignore[no-untyped-def]
    data = explain_page(run, "https://Shop.example/deal?x=1", Policy())
    assert (
        data["band"] == "quarantine"
        and data["hard_quarantine"]
        and data["hard_rules"] == ["quarantine_affiliate"]
    )
    subs = {s["name"]: s for s in data["sub_scores"]}
    assert subs["domain_score"]["weight"] == 0.35 and subs["domain_score"][
        "contribution"
    ] == pytest.approx(0.175)
    assert subs["affiliate_score"]["contribution"] == pytest.approx(0.3)
    assert data["adjustments"] == [{"name": "adjust_textual", "value": 0.0}]
    assert data["reasons"][0] == {
        "code": "AFFILIATE_DENSE_NO_DISCLOSURE",
        "detail": "31.4 links per 1k words",
        "text": "Affiliate-dense, no disclosure — 31.4 links per 1k words",
    }
    assert (
        data["signals"]["affiliate_per_1k_words"] == 31.4
        and "reasons_affiliate" not in data["signals"]
    )
    assert data["page"]["title"] == "Best deals" and data["domain"]["pages"] == 1
