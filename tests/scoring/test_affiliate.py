"""Affiliate links, density, disclosure (en/pt/es) and the sub-score table of DESIGN §3."""

from __future__ import annotations

import polars as pl
import pytest

from trustaudit.policy import Policy
from trustaudit.scoring.affiliate import affiliate_signals, flag_affiliate_links


def links(hrefs: list[str], doc: str = "d", rel: list[list[str]] | None = None) -> pl.DataFrame:
    from urllib.parse import urlsplit

    return pl.DataFrame(
        {
            "doc_id": [doc] * len(hrefs),
            "href": hrefs,
            "host": [urlsplit(h).hostname for h in hrefs],
            "rel": rel or [[] for _ in hrefs],
            "anchor_text": ["x"] * len(hrefs),
        },
        schema_overrides={"rel": pl.List(pl.String), "href": pl.String, "host": pl.String},
    )


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("https://amzn.to/3xYz", True),
        ("https://www.amazon.com/dp/B000?tag=site-20", True),
        ("https://www.amazon.de/dp/B000", False),
        ("https://go.hotmart.com/X123?ap=1", True),
        ("https://shop.example.com/p?aff=77", True),
        ("https://shop.example.com/p?affid=77&x=1", True),
        ("https://news.example.com/story?ref=homepage", False),
        ("https://news.example.com/?utm_source=newsletter", False),
        ("https://news.example.com/?utm_medium=affiliate", True),
        ("https://tag.example.com/?q=1", False),
        ("https://notamzn.to.example.com/", False),
        ("https://click.linksynergy.com/deeplink?id=1", True),
        # cloaked same-site redirects (/go/<slug>, /recommends/<slug>)
        ("https://blog.example.com/go/best-blender/", True),
        ("https://blog.example.com/recommends/acme-vpn?x=1", True),
        ("https://blog.example.com/go/a/b", False),
        ("https://blog.example.com/golang/intro", False),
        ("https://blog.example.com/story/go/", False),
        # networks added in the provenance-documented data file
        ("https://go.redirectingat.com/?id=1&url=x", True),
        ("https://tidd.ly/3abc", True),
        ("https://www.humblebundle.com/store?partner=site", True),
        ("https://www.humblebundle.com/store", False),
        ("https://shop.example.com/?ir_partnerid=9", True),
    ],
)
def test_affiliate_link_detection(href: str, expected: bool) -> None:
    assert flag_affiliate_links(links([href]), Policy())["is_affiliate"][0] is expected


def test_policy_extends_hosts_and_params() -> None:
    p = Policy().with_overrides(
        {"affiliate": {"extra_hosts": ["partner.example"], "extra_params": ["pid"]}}
    )
    got = flag_affiliate_links(
        links(["https://x.partner.example/a", "https://s.example/?pid=3"]), p
    )
    assert got["is_affiliate"].to_list() == [True, True]


def page(words: int, text_extra: str = "", doc: str = "d") -> pl.DataFrame:
    return pl.DataFrame(
        {"doc_id": [doc], "word_count": [words], "text": ["word " * words + text_extra]}
    )


def score_for(
    words: int,
    n_aff: int,
    *,
    text_extra: str = "",
    sponsored: bool = False,
    policy: Policy | None = None,
) -> dict:  # type: ignore[type-arg]
    hrefs = [f"https://amzn.to/{i}" for i in range(n_aff)] + ["https://example.org/plain"]
    rel = [["sponsored"] if sponsored else [] for _ in range(n_aff)] + [[]]
    policy = policy or Policy()
    lk = flag_affiliate_links(links(hrefs, rel=rel), policy)
    return affiliate_signals(page(words, text_extra), lk, policy).to_dicts()[0]


def test_sub_score_table() -> None:
    assert score_for(80, 2)["affiliate_score"] == 0.5  # too few words -> neutral
    ref = Policy().with_overrides({"affiliate": {"short_page_links": False}})
    assert score_for(80, 20, policy=ref)["affiliate_score"] == 0.5  # the reference table
    assert score_for(1000, 0)["affiliate_score"] == 1.0
    dense = score_for(1000, 11)
    assert dense["affiliate_score"] == 0.1 and dense["quarantine_affiliate"] is True
    assert dense["reasons_affiliate"] == [
        "AFFILIATE_DENSE_NO_DISCLOSURE: 11.0 affiliate links per 1k words, no disclosure"
    ]
    disclosed_dense = score_for(1000, 11, text_extra=" We may earn a commission from these links.")
    assert (
        disclosed_dense["affiliate_score"] == 0.4
        and disclosed_dense["quarantine_affiliate"] is False
    )
    assert score_for(1000, 6)["affiliate_score"] == 0.25
    assert score_for(1000, 3)["affiliate_score"] == 0.5
    assert (
        score_for(1000, 3, sponsored=True)["affiliate_score"] == 0.7
    )  # rel=sponsored is a disclosure
    assert score_for(1000, 5)["affiliate_score"] == 0.5  # exactly 5 per 1k is not "> 5"


def test_one_or_two_links_never_quarantine_a_short_page() -> None:
    one = score_for(162, 1)  # a single ticket link in a news brief: 6.2 per 1k words
    assert one["quarantine_affiliate"] is False and one["affiliate_score"] == 0.5
    assert one["reasons_affiliate"] == ["AFFILIATE_UNDISCLOSED: 1 affiliate link(s), no disclosure"]
    two = score_for(150, 2)  # 13.3 per 1k words, still below the link minimum
    assert two["quarantine_affiliate"] is False
    three = score_for(200, 3)  # 15 per 1k, three links: the rule applies
    assert three["quarantine_affiliate"] is True and three["affiliate_score"] == 0.1


def test_disclosure_in_the_text_of_the_affiliate_links_counts() -> None:
    hrefs = [f"https://amzn.to/{i}" for i in range(12)]
    lk = links(hrefs).with_columns(anchor_text=pl.lit("BGR may receive a commission"))
    flagged = flag_affiliate_links(lk, Policy())
    got = affiliate_signals(page(1000), flagged, Policy()).to_dicts()[0]
    assert got["disclosure_in_links"] is True and got["quarantine_affiliate"] is False
    plain = affiliate_signals(page(1000), flag_affiliate_links(links(hrefs), Policy()), Policy())
    assert plain["quarantine_affiliate"].item() is True


@pytest.mark.parametrize(
    "label", ["Amazon Affiliate", "Partnerlink", "Anzeige: Hotel", "Sponsored"]
)
def test_a_link_labelled_affiliate_discloses_itself(label: str) -> None:
    """A sidebar widget of links titled "Amazon Affiliate" (a real podcast page) is disclosed."""
    lk = links([f"https://amzn.to/{i}" for i in range(12)]).with_columns(anchor_text=pl.lit(label))
    got = affiliate_signals(page(1000), flag_affiliate_links(lk, Policy()), Policy()).to_dicts()[0]
    assert got["disclosure_in_links"] is True and got["quarantine_affiliate"] is False
    # a word that merely contains a label is not one
    lk = lk.with_columns(anchor_text=pl.lit("affiliated hospitals"))
    got = affiliate_signals(page(1000), flag_affiliate_links(lk, Policy()), Policy()).to_dicts()[0]
    assert got["disclosure_in_links"] is False and got["quarantine_affiliate"] is True


def test_undisclosed_density_between_high_and_dense_is_graded() -> None:
    """0 at 5 per 1k words, rising linearly to affiliate.graded_penalty at 10; disclosed pages,
    pages under min_links and hard-rule pages get none of it."""
    assert score_for(1000, 5)["adjust_affiliate"] == 0.0
    six = score_for(1000, 6)
    assert six["adjust_affiliate"] == pytest.approx(-0.016)
    assert (
        "AFFILIATE_DENSITY_PENALTY: 6.0 undisclosed affiliate links per 1k words (between 5.0 "
        "and 10.0): -0.016"
    ) in six["reasons_affiliate"]
    assert score_for(1000, 9)["adjust_affiliate"] == pytest.approx(-0.064)
    assert score_for(1000, 10)["adjust_affiliate"] == pytest.approx(-0.08)
    assert score_for(1000, 11)["adjust_affiliate"] == 0.0  # the hard rule takes over
    disclosed = score_for(1000, 9, text_extra=" We may earn a commission from these links.")
    assert disclosed["adjust_affiliate"] == 0.0
    assert score_for(1000, 9, sponsored=True)["adjust_affiliate"] == 0.0
    off = Policy().with_overrides({"affiliate": {"graded_penalty": 0.0}})
    nine = score_for(1000, 9, policy=off)
    assert nine["adjust_affiliate"] == 0.0
    assert not any(r.startswith("AFFILIATE_DENSITY_PENALTY") for r in nine["reasons_affiliate"])
    steeper = Policy().with_overrides({"affiliate": {"graded_penalty": 0.2}})
    assert score_for(1000, 9, policy=steeper)["adjust_affiliate"] == pytest.approx(-0.16)


def test_disclosure_with_a_publisher_name() -> None:
    text = " Disclosure: ZDNet may earn a commission from some of the products featured here."
    assert score_for(1000, 12, text_extra=text)["quarantine_affiliate"] is False


def test_link_stuffed_stub_is_not_neutral() -> None:
    # extraction kept 25 words of a page whose paragraphs carry the links: judged over 100 words
    stub = score_for(25, 3)
    assert stub["quarantine_affiliate"] is True and stub["affiliate_score"] == 0.1
    assert stub["reasons_affiliate"][0].startswith("AFFILIATE_DENSE_NO_DISCLOSURE: 30.0")
    assert score_for(25, 2)["affiliate_score"] == 0.5  # below min_links: still neutral


def test_min_links_follows_the_policy() -> None:
    p = Policy().with_overrides({"affiliate": {"min_links": 1}})
    assert score_for(120, 2, policy=p)["quarantine_affiliate"] is True  # 16.7 per 1k
    assert score_for(120, 2)["quarantine_affiliate"] is False
    p = Policy().with_overrides({"affiliate": {"min_links": 20}})
    assert score_for(1000, 15, policy=p)["quarantine_affiliate"] is False


def test_cloaked_paths_can_be_disabled() -> None:
    p = Policy().with_overrides({"affiliate": {"cloaked_paths": []}})
    got = flag_affiliate_links(links(["https://blog.example.com/go/best-blender/"]), p)
    assert got["is_affiliate"][0] is False


@pytest.mark.parametrize(
    "phrase",
    [
        "Este post contém link de afiliado.",
        "Contiene enlaces de afiliados.",
        "As an Amazon Associate we earn from qualifying purchases.",
        "Dieser Artikel enthält Affiliate-Links (Werbelink).",
    ],
)
def test_disclosure_languages(phrase: str) -> None:
    assert score_for(1000, 3, text_extra=" " + phrase)["affiliate_disclosed"] is True


@pytest.mark.parametrize(
    "phrase",
    [
        "Die folgenden Angebote sind mit Affiliate-Links versehen.",  # hyphen + plural
        "These are affiliate-links.",
        "Affiliate\u2011Link",  # non-breaking hyphen
    ],
)
def test_disclosure_phrases_allow_hyphens_and_plurals(phrase: str) -> None:
    assert score_for(1000, 3, text_extra=" " + phrase)["affiliate_disclosed"] is True


def _with_chrome(chrome: str | None, n_aff: int = 15) -> dict:  # type: ignore[type-arg]
    hrefs = [f"https://amzn.to/{i}" for i in range(n_aff)]
    lk = flag_affiliate_links(links(hrefs), Policy())
    pg = page(1000).with_columns(page_disclosure_text=pl.lit(chrome, pl.String))
    return affiliate_signals(pg, lk, Policy()).to_dicts()[0]


def test_site_wide_disclosure_outside_the_article_counts() -> None:
    out = _with_chrome(
        "Tom's Hardware is supported by its audience. When you purchase through links on our "
        "site, we may earn an affiliate commission."
    )
    assert out["disclosure_on_page"] is True and out["disclosure_in_text"] is False
    assert out["quarantine_affiliate"] is False and out["affiliate_score"] == 0.4
    undisclosed = _with_chrome(None)
    assert (
        undisclosed["quarantine_affiliate"] is True and undisclosed["disclosure_on_page"] is False
    )


def test_one_word_labels_in_the_page_chrome_are_not_a_disclosure() -> None:
    # "Werbung" in a sidebar names the ad desk; in the article it labels the article itself
    assert _with_chrome("/Werbung\nAnzeige schalten: hallo@example.de")["quarantine_affiliate"]
    assert score_for(1000, 3, text_extra=" Werbung")["affiliate_disclosed"] is True


def test_disclosure_needs_word_boundaries() -> None:
    assert (
        score_for(1000, 3, text_extra=" publicidadesque unpublicidade")["affiliate_disclosed"]
        is False
    )


def test_pages_without_links_get_zero_counts() -> None:
    out = affiliate_signals(
        page(500, doc="lonely"), flag_affiliate_links(links([]), Policy()), Policy()
    ).to_dicts()[0]
    assert (
        out["links_total"] == 0 and out["affiliate_ratio"] == 0.0 and out["affiliate_score"] == 1.0
    )
