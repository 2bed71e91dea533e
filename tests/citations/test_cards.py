"""KB card rules: source in run and not quarantined, figures grounded, similarity, borderline judge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trustaudit.citations.cards import Card, card_results_summary, check_cards, read_cards
from trustaudit.citations.judge import JudgeResult
from trustaudit.citations.run import RunIndex
from trustaudit.io.atomic import write_parquet
from trustaudit.policy.citations import CitationsPolicy

from .conftest import DATA, PAGES, SCORES, SPAM_URL, BagOfWordsEmbedder

INDEX = RunIndex.from_records(
    PAGES, [{"doc_id": d, "trust_score": s, "band": b} for d, s, b in SCORES]
)
PRICING = "https://docs.example.com/pricing"
LIMITS = "https://docs.example.com/limits"


def check(
    text: str, source: str | None = PRICING, policy: CitationsPolicy | None = None, **kw: Any
) -> dict:
    kw.setdefault("embedder", BagOfWordsEmbedder())
    return check_cards([Card("c", 1, text, source)], INDEX, policy or CitationsPolicy(), **kw)[0]


def test_grounded_card_passes() -> None:
    r = check("The Pro plan costs 490 USD per year; prices changed on 2024-03-05.")
    assert r["passed"] and r["reasons"] == [] and r["n_facts"] == 2
    assert r["similarity"] > 0.5 and r["run_doc_id"] == "doc-7f3a" and r["band"] == "trusted"


def test_hallucinated_amount_fails() -> None:
    r = check("The Pro plan costs $1,490 per year since March 5, 2024.")
    assert not r["passed"] and r["reasons"] == ["UNSUPPORTED_FACT"]
    assert r["unsupported"] == ["$1,490"]
    assert "amount '$1,490'" in r["reason_details"][0]


def test_source_not_in_run_missing_or_quarantined() -> None:
    assert check("x", "https://docs.example.com/enterprise")["reasons"] == ["SOURCE_NOT_IN_RUN"]
    assert check("x", None)["reasons"] == ["SOURCE_MISSING"]
    r = check("Use code SAVE50 for 50% off the Pro plan.", SPAM_URL)
    assert not r["passed"] and r["reasons"] == ["SOURCE_QUARANTINED"]


def test_card_matched_by_run_doc_id() -> None:
    assert check("The Pro plan costs $490 per year.", "doc-7f3a")["passed"]


def test_empty_card_fails() -> None:
    assert check("   ")["reasons"] == ["CARD_EMPTY"]


def test_medium_source_is_a_note_unless_policy_fails_it() -> None:
    text = "Rate limits apply per API key: the API allows 100 requests per minute."
    r = check(text, LIMITS)
    assert r["passed"] and r["reasons"] == ["SOURCE_MEDIUM"]
    assert not check(text, LIMITS, CitationsPolicy(card_fail_on_medium=True))["passed"]


def test_low_similarity_fails_and_threshold_is_policy() -> None:
    text = "Penguins huddle together through long antarctic winter storms."
    r = check(text, PRICING)
    assert not r["passed"] and "LOW_SIMILARITY" in r["reasons"] and r["similarity"] < 0.4
    r = check(text, PRICING, CitationsPolicy(card_min_similarity=0.0, judge_margin=0.0))
    assert r["passed"]


def test_source_without_text() -> None:
    idx = RunIndex.from_records(
        [{"doc_id": "e", "url": "https://e.example/", "text": " "}],
        [{"doc_id": "e", "band": "trusted", "trust_score": 0.9}],
    )
    r = check_cards(
        [Card("c", 1, "Some 3 words", "https://e.example/")],
        idx,
        CitationsPolicy(),
        embedder=BagOfWordsEmbedder(),
    )[0]
    assert r["reasons"] == ["SOURCE_NO_TEXT"]


def test_no_embedder_skips_similarity_but_keeps_other_checks() -> None:
    r = check("The Pro plan costs $1,490 per year.", embedder=None)
    assert (
        r["reasons"] == ["UNSUPPORTED_FACT", "SIMILARITY_NOT_COMPUTED"] and r["similarity"] is None
    )


def test_broken_embedder_is_a_note() -> None:
    class Broken:
        def encode(self, texts: list[str]) -> np.ndarray:
            raise RuntimeError("boom")

    r = check("The Pro plan costs $490 per year.", embedder=Broken())
    assert r["passed"] and r["reasons"] == ["SIMILARITY_NOT_COMPUTED"]


def test_joined_top_paragraphs_cover_two_paragraph_cards() -> None:
    text = (
        "The Pro plan costs $49 per month. Prices changed on March 5, 2024 after the annual review."
    )
    one = check(text, policy=CitationsPolicy(card_top_paragraphs=1))["similarity"]
    two = check(text, policy=CitationsPolicy(card_top_paragraphs=2))["similarity"]
    assert two > one


class FakeJudge:
    def __init__(self, verdict: str | None) -> None:
        self.verdict = verdict
        self.asked: list[tuple[str, list[str]]] = []

    def judge(self, card: str, passages: list[str]) -> JudgeResult:
        self.asked.append((card, passages))
        return JudgeResult(self.verdict, "ok" if self.verdict else "error: down", "because")  # type: ignore[arg-type]


BORDER = "Penguins huddle together, rate limits apply per key."


def _border_policy() -> CitationsPolicy:
    sim = check(BORDER, LIMITS)["similarity"]
    return CitationsPolicy(card_min_similarity=sim + 0.05, judge_margin=0.1)


@pytest.mark.parametrize(
    ("verdict", "passed", "code"),
    [
        ("supported", True, "JUDGE_SUPPORTED"),
        ("unsupported", False, "JUDGE_UNSUPPORTED"),
        (None, False, "LOW_SIMILARITY"),
    ],
)
def test_judge_decides_borderline_only(verdict: str | None, passed: bool, code: str) -> None:
    judge = FakeJudge(verdict)
    r = check(BORDER, LIMITS, _border_policy(), judge=judge)
    assert r["borderline"] and r["passed"] is passed and code in r["reasons"]
    assert len(judge.asked) == 1 and judge.asked[0][1]  # the best paragraphs went along
    assert r["judge_verdict"] == verdict


def test_judge_not_asked_outside_the_band_or_after_a_hard_failure() -> None:
    judge = FakeJudge("supported")
    check("The Pro plan costs $490 per year.", judge=judge)  # far above the threshold
    check(
        "Penguins 1,490 antarctic.", PRICING, CitationsPolicy(card_min_similarity=0.05), judge=judge
    )
    assert judge.asked == []


def test_read_cards_fixture() -> None:
    cards, errors = read_cards(DATA / "cards.jsonl")
    assert [e.code for e in errors] == ["JSON_DECODE"]
    assert cards[0] == Card("c-good", 1, cards[0].text, PRICING)
    assert cards[-1].source_ref is None


def test_card_results_summary(tmp_path: Path, run_dir: Path) -> None:
    assert card_results_summary(run_dir)["present"] is False
    cards, _ = read_cards(DATA / "cards.jsonl")
    from trustaudit.citations.cards import cards_frame

    rows = check_cards(cards, INDEX, CitationsPolicy(), embedder=BagOfWordsEmbedder())
    write_parquet(run_dir / "cards.parquet", cards_frame(rows))
    s = card_results_summary(run_dir)
    assert s["present"] and s["cards"] == 8 and s["failing"] == s["cards"] - s["passed"]
    assert s["by_reason"]["UNSUPPORTED_FACT"] == 1 and "c-amount" in s["failing_card_ids"]
    (run_dir / "cards.parquet").write_bytes(b"garbage")
    s = card_results_summary(run_dir)
    assert s["present"] is False and "unreadable" in s["error"]
