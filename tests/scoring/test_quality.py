"""Thin-content and clickbait signals (scoring/quality.py)."""

from __future__ import annotations

import polars as pl
import pytest

from trustaudit.policy import Policy
from trustaudit.scoring.quality import quality_signals


def pages(**cols: list) -> pl.DataFrame:  # type: ignore[type-arg]
    n = len(next(iter(cols.values()), [0]))
    base: dict[str, list] = {  # type: ignore[type-arg]
        "doc_id": [f"d{i}" for i in range(n)],
        "word_count": [600] * n,
        "text": ["An ordinary article paragraph about the harbour.\nAnother one."] * n,
        "url": [f"https://news.example.org/story-{i}" for i in range(n)],
        "title": ["Council approves harbour budget"] * n,
        "author": ["Maria Silva"] * n,
        "registered_domain": ["example.org"] * n,
    }
    base.update(cols)
    return pl.DataFrame(base)


def links(rows: list[tuple[str, str, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "doc_id": [r[0] for r in rows],
            "host": [r[1] for r in rows],
            "registered_domain": [r[2] for r in rows],
        },
        schema={"doc_id": pl.String, "host": pl.String, "registered_domain": pl.String},
    )


def one(**cols: object) -> dict:  # type: ignore[type-arg]
    df = pages(**{k: [v] for k, v in cols.items()})
    return quality_signals(df, None, Policy()).to_dicts()[0]


def test_an_ordinary_article_has_no_quality_penalty() -> None:
    r = one()
    assert r["adjust_quality"] == 0.0 and r["reasons_quality"] == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("text", "Gallery\nPage 21 of 40\nThe actress arrived."),
        ("text", "Photo 3/25 — the stars at the gala. Next slide"),
        ("text", "Foto 4 de 30. Próxima foto"),
        ("text", "Bild 2 von 12: die Stars. Nächstes Bild"),
        ("url", "https://celebs.example.com/gallery?page=21"),
        ("url", "https://celebs.example.com/gallery/slide/7/"),
    ],
)
def test_pagination_and_slideshows_are_seen(field: str, value: str) -> None:
    r = one(**{field: value, "word_count": 300})
    assert r["quality_paginated"] is True
    assert "PAGINATED_PAGE: one page of a slideshow or paginated article" in r["reasons_quality"]


def test_gallery_captions_in_a_long_article_are_not_pagination() -> None:
    assert one(text="Photo 1 of 5. The council met.", word_count=900)["quality_paginated"] is False
    assert one(url="https://x.org/a?page=3", word_count=900)["quality_paginated"] is True


@pytest.mark.parametrize(
    "url", ["https://example.org/news?page=1", "https://example.org/page/1", "https://x.org/p?id=2"]
)
def test_first_pages_and_other_parameters_are_not_pagination(url: str) -> None:
    assert one(url=url)["quality_paginated"] is False


@pytest.mark.parametrize(
    "title",
    [
        "You Won't Believe What This Actor Looks Like Now",
        "She opened the door. What happened next will shock you",
        "Você não vai acreditar no que ela fez",
        "No vas a creer lo que pasó después",
        "Vous ne croirez pas ce qui s'est passé ensuite",
        "Sie werden nicht glauben, was dann passierte",
    ],
)
def test_headline_bait_in_several_languages(title: str) -> None:
    assert one(title=title)["quality_headline_bait"] is True


def test_ordinary_headlines_are_not_bait() -> None:
    for title in ("Why the harbour budget grew", "10 reasons the vote failed", "Belief and doubt"):
        assert one(title=title)["quality_headline_bait"] is False, title


def test_generic_bylines() -> None:
    assert one(author="Staff Writer")["quality_generic_byline"] is True
    assert one(author="admin")["quality_generic_byline"] is True
    assert one(author="", text="By Staff Writer | June 3\nThe actress...")["quality_generic_byline"]
    assert one(author="Staff of the Harbour Trust")["quality_generic_byline"] is False
    assert one(author="Redação")["quality_generic_byline"] is False  # a newsroom desk


def test_thin_text_scales_and_the_sum_is_capped() -> None:
    assert one(word_count=120)["adjust_quality"] == pytest.approx(-0.015)
    assert one(word_count=60)["adjust_quality"] == pytest.approx(-0.03)
    bait = one(
        word_count=60,
        url="https://celebs.example.com/gallery?page=21",
        title="You won't believe these stars",
        author="Staff Writer",
    )
    assert bait["adjust_quality"] == pytest.approx(-0.30)  # 0.03 + 0.12 + 0.12 + 0.05, capped
    capped = quality_signals(
        pages(
            word_count=[60],
            url=["https://celebs.example.com/gallery?page=21"],
            title=["You won't believe these stars"],
            author=["Staff Writer"],
        ),
        None,
        Policy().with_overrides({"textual": {"quality_max_penalty": 0.2}}),
    )
    assert capped["adjust_quality"][0] == pytest.approx(-0.2)
    codes = [r.split(":")[0] for r in bait["reasons_quality"]]
    assert codes == [
        "TEXT_THIN",
        "PAGINATED_PAGE",
        "HEADLINE_BAIT",
        "GENERIC_BYLINE",
        "CLICKBAIT_COMBINED",
    ]


def test_two_clickbait_signals_together_cost_more_than_their_sum() -> None:
    """A "page N" URL and a bait title together: 0.12 + 0.12 + the combination's 0.05 (a 0.40
    slideshow page of the tuning seed stayed medium on the sum alone); one of them alone does not
    combine, and 0 disables the combination."""
    both = one(
        word_count=300,
        url="https://celebs.example.com/gallery?page=21",
        title="You won't believe these stars",
    )
    assert both["adjust_quality"] == pytest.approx(-0.29)
    assert (
        "CLICKBAIT_COMBINED: 2 of pagination, bait headline and generic byline together (+0.05)"
        in (both["reasons_quality"])
    )
    alone = one(word_count=300, url="https://celebs.example.com/gallery?page=21")
    assert alone["adjust_quality"] == pytest.approx(-0.12)
    assert not any(r.startswith("CLICKBAIT_COMBINED") for r in alone["reasons_quality"])
    off = quality_signals(
        pages(
            word_count=[300],
            url=["https://celebs.example.com/gallery?page=21"],
            title=["You won't believe these stars"],
        ),
        None,
        Policy().with_overrides({"textual": {"clickbait_combo_penalty": 0.0}}),
    )
    assert off["adjust_quality"][0] == pytest.approx(-0.24)


def test_ad_and_outbound_link_density() -> None:
    df = pages(word_count=[400, 40, 2000, 100])
    lk = links(
        [("d0", "trc.taboola.com", "taboola.com")] * 6
        + [("d1", f"s{i}.other.net", f"other{i}.net") for i in range(25)]
        + [("d1", "www.example.org", "example.org")] * 5
        + [("d2", "trc.taboola.com", "taboola.com")] * 6
        + [("d3", f"s{i}.other.net", f"other{i}.net") for i in range(25)]
    )
    out = quality_signals(df, lk, Policy()).sort("doc_id").to_dicts()
    assert out[0]["links_ad"] == 6 and out[0]["quality_ad_heavy"] is True  # 15 per 1k words
    assert out[1]["links_outbound"] == 25 and out[1]["quality_link_farm"] is True  # 62 per 100
    assert out[2]["quality_ad_heavy"] is False  # 3 per 1k words
    assert out[3]["quality_link_farm"] is False  # 25 per 100 words
    assert out[2]["adjust_quality"] == 0.0


def test_penalties_follow_the_policy() -> None:
    p = Policy().with_overrides({"textual": {"quality_max_penalty": 0.0}})
    df = pages(word_count=[60], title=["You won't believe it"])
    assert quality_signals(df, None, p)["adjust_quality"][0] == 0.0


def test_a_page_without_words_gets_only_the_thin_penalty() -> None:
    df = pages(word_count=[0], text=[""])
    lk = links([("d0", "www.other.net", "other.net")] * 3)
    got = quality_signals(df, lk, Policy()).to_dicts()[0]
    assert got["quality_link_farm"] is False and got["quality_ad_heavy"] is False
    assert got["adjust_quality"] == pytest.approx(-Policy().textual.thin_penalty)
