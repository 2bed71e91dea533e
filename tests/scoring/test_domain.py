"""Domain signals: registered domains, lists covering subdomains, age/activity neutral values."""

from __future__ import annotations

from datetime import date, timedelta

import polars as pl
import pytest

from trustaudit.policy import Policy
from trustaudit.scoring.domain import (
    domain_signals,
    listed,
    registered_domain_of,
    with_registered_domain,
)

NOW = date(2026, 11, 1)


@pytest.mark.parametrize(
    ("host", "rd"),
    [
        ("www.bbc.co.uk", "bbc.co.uk"),
        ("a.b.example.com", "example.com"),
        ("user.github.io", "user.github.io"),
        ("127.0.0.1", "127.0.0.1"),
        ("localhost", "localhost"),
        (None, None),
    ],
)
def test_registered_domain_uses_the_bundled_suffix_list(host: str | None, rd: str | None) -> None:
    assert registered_domain_of(host) == rd


def test_with_registered_domain_maps_unique_hosts() -> None:
    df = pl.DataFrame({"host": ["a.example.co.uk", "b.example.co.uk", None]})
    assert with_registered_domain(df)["registered_domain"].to_list() == [
        "example.co.uk",
        "example.co.uk",
        None,
    ]


def test_listed_covers_subdomains_not_lookalikes() -> None:
    hosts = pl.Series(
        ["blog.bad.example", "bad.example", "notbad.example", "bad.example.evil.com", None]
    )
    assert listed(hosts, {"bad.example"}).to_list() == [True, True, False, False, False]


def pages(**kw) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    base = {
        "doc_id": ["a", "b", "c"],
        "host": ["www.old.example", "news.old.example", "fresh.example"],
        "registered_domain": ["old.example", "old.example", "fresh.example"],
        "published": [NOW - timedelta(days=400), NOW - timedelta(days=90), None],
    }
    base.update(kw)
    return pl.DataFrame(base, schema_overrides={"published": pl.Date})


def test_age_and_activity_per_domain() -> None:
    out, domains = domain_signals(
        pages(), Policy(), now=NOW, created={"old.example": NOW - timedelta(days=3650)}
    )
    rows = {r["doc_id"]: r for r in out.to_dicts()}
    # newest publication of old.example is 90 days ago, for both of its pages
    assert rows["a"]["last_publish_days"] == 90 and rows["b"]["last_publish_days"] == 90
    assert rows["a"]["age_score"] == 1.0 and rows["a"]["activity_score"] == pytest.approx(0.5)
    assert rows["a"]["domain_score"] == pytest.approx(0.6 * 1.0 + 0.4 * 0.5)
    assert (
        rows["c"]["age_score"] == 0.5 and rows["c"]["activity_score"] == 0.5
    )  # both unknown: neutral
    codes = [r.split(":")[0] for r in rows["c"]["reasons_domain"]]
    assert codes == ["DOMAIN_AGE_MISSING", "ACTIVITY_MISSING"]
    assert domains.filter(pl.col("registered_domain") == "old.example")["pages"][0] == 2


def test_activity_is_shrunk_toward_neutral_by_dated_pages() -> None:
    # old.example: 2 dated pages, newest 90 days ago (raw 0.5); one.example: 1 page 180+ days old
    p = pages(
        registered_domain=["old.example", "old.example", "one.example"],
        host=["www.old.example", "news.old.example", "one.example"],
        published=[NOW - timedelta(days=400), NOW - timedelta(days=90), NOW - timedelta(days=900)],
    )
    live = Policy().with_overrides({"domain": {"activity_archival": False}})
    rows = {r["doc_id"]: r for r in domain_signals(p, live, now=NOW)[0].to_dicts()}
    k = Policy().domain.activity_prior_pages
    assert k > 0
    assert rows["c"]["dated_pages"] == 1 and rows["a"]["dated_pages"] == 2
    assert rows["c"]["activity_raw"] == 0.0
    assert rows["c"]["activity_score"] == pytest.approx(0.5 + (0.0 - 0.5) * 1 / (1 + k))
    assert rows["a"]["activity_score"] == pytest.approx(0.5)  # raw 0.5 stays 0.5
    assert rows["c"]["domain_score"] == pytest.approx(0.6 * 0.5 + 0.4 * rows["c"]["activity_score"])
    # more dated pages, more weight on the raw value: 40 pages all 900 days old
    many = pl.DataFrame(
        {
            "doc_id": [f"m{i}" for i in range(40)],
            "host": ["many.example"] * 40,
            "registered_domain": ["many.example"] * 40,
            "published": [NOW - timedelta(days=900)] * 40,
        },
        schema_overrides={"published": pl.Date},
    )
    m = domain_signals(many, live, now=NOW)[0]["activity_score"][0]
    assert m == pytest.approx(0.5 - 0.5 * 40 / (40 + k)) and m < rows["c"]["activity_score"]
    # 0 restores the reference formula
    ref = live.with_overrides({"domain": {"activity_prior_pages": 0}})
    rows = {r["doc_id"]: r for r in domain_signals(p, ref, now=NOW)[0].to_dicts()}
    assert rows["c"]["activity_score"] == 0.0


def test_archival_corpus_old_pages_do_not_lower_activity() -> None:
    # one.example: only a page 900 days old; undated.example: no date at all; live.example: fresh
    p = pl.DataFrame(
        {
            "doc_id": ["old", "undated", "fresh"],
            "host": ["one.example", "undated.example", "live.example"],
            "registered_domain": ["one.example", "undated.example", "live.example"],
            "published": [NOW - timedelta(days=900), None, NOW - timedelta(days=10)],
        },
        schema_overrides={"published": pl.Date},
    )
    rows = {r["doc_id"]: r for r in domain_signals(p, Policy(), now=NOW)[0].to_dicts()}
    assert rows["old"]["activity_score"] == 0.5  # neutral, like an undated domain
    # an undated page never scores better on domain than an old dated one
    assert rows["undated"]["domain_score"] <= rows["old"]["domain_score"]
    assert rows["fresh"]["activity_score"] > 0.5  # recent evidence still counts
    codes = [r.split(":")[0] for r in rows["old"]["reasons_domain"]]
    assert "ACTIVITY_ARCHIVAL" in codes and "DOMAIN_INACTIVE" not in codes
    live = Policy().with_overrides({"domain": {"activity_archival": False}})
    rows = {r["doc_id"]: r for r in domain_signals(p, live, now=NOW)[0].to_dicts()}
    assert rows["old"]["activity_score"] < 0.5
    assert "DOMAIN_INACTIVE" in [r.split(":")[0] for r in rows["old"]["reasons_domain"]]


def test_reputation_prior_moves_the_domain_score_and_names_its_source() -> None:
    p = pl.DataFrame(
        {
            "doc_id": ["bbc", "farm", "none", "sub"],
            "host": ["www.bbc.com", "www.dailymail.co.uk", "unknown.example", "news.bbc.com"],
            "registered_domain": ["bbc.com", "dailymail.co.uk", "unknown.example", "bbc.com"],
            "published": [None, None, None, None],
        },
        schema_overrides={"published": pl.Date},
    )
    rows = {r["doc_id"]: r for r in domain_signals(p, Policy(), now=NOW)[0].to_dicts()}
    w = Policy().domain.reputation_weight
    assert rows["bbc"]["reputation_prior"] == 0.9
    assert rows["bbc"]["domain_score"] == pytest.approx((1 - w) * 0.5 + w * 0.9)
    assert rows["farm"]["domain_score"] < rows["none"]["domain_score"] < rows["bbc"]["domain_score"]
    assert rows["sub"]["reputation_prior"] == 0.9  # a subdomain inherits its domain's rating
    assert rows["bbc"]["reputation_anchor"] is True and rows["none"]["reputation_anchor"] is False
    reason = next(r for r in rows["bbc"]["reasons_domain"] if r.startswith("REPUTATION_PRIOR"))
    assert "Wikipedia perennial sources" in reason and "generally reliable" in reason
    codes = [r.split(":")[0] for r in rows["bbc"]["reasons_domain"]]
    assert "DOMAIN_AGE_MISSING" not in codes  # the prior is domain evidence
    assert "DOMAIN_AGE_MISSING" in [r.split(":")[0] for r in rows["none"]["reasons_domain"]]


def test_user_reputation_files_win_and_bundled_can_be_off(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "mine.csv"
    f.write_text("domain,prior,label\nbbc.com,0.3,our list\nmy.example,0.95,ours\n")
    p = pl.DataFrame(
        {"doc_id": ["a", "b"], "host": ["bbc.com", "my.example"],
         "registered_domain": ["bbc.com", "my.example"], "published": [None, None]},
        schema_overrides={"published": pl.Date},
    )  # fmt: skip
    pol = Policy().with_overrides({"domain": {"reputation_files": [str(f)]}})
    rows = {r["doc_id"]: r for r in domain_signals(p, pol, now=NOW)[0].to_dicts()}
    assert rows["a"]["reputation_prior"] == 0.3 and rows["a"]["reputation_source"] == "mine.csv"
    off = Policy().with_overrides({"domain": {"bundled_priors": False}})
    rows = {r["doc_id"]: r for r in domain_signals(p, off, now=NOW)[0].to_dicts()}
    assert rows["a"]["reputation_prior"] is None


def test_young_domain_and_future_dates() -> None:
    p = pages(published=[NOW + timedelta(days=10), None, NOW - timedelta(days=1)])
    out, _ = domain_signals(
        p, Policy(), now=NOW, created={"fresh.example": NOW - timedelta(days=12)}
    )
    rows = {r["doc_id"]: r for r in out.to_dicts()}
    assert rows["a"]["activity_raw"] == 1.0  # a date in the future counts as today, never above 1
    assert rows["c"]["age_score"] == pytest.approx((12 / 365) / 5)
    assert any(
        r.startswith("DOMAIN_YOUNG: registered 12 days ago") for r in rows["c"]["reasons_domain"]
    )


def test_blocklist_beats_allowlist_and_is_a_hard_rule() -> None:
    out, _ = domain_signals(
        pages(), Policy(), now=NOW, allow={"old.example", "fresh.example"}, block={"fresh.example"}
    )
    rows = {r["doc_id"]: r for r in out.to_dicts()}
    assert rows["a"]["domain_score"] == 1.0 and rows["a"]["quarantine_blocklist"] is False
    assert rows["c"]["domain_score"] == 0.0 and rows["c"]["quarantine_blocklist"] is True
    assert rows["c"]["reasons_domain"][0].startswith("DOMAIN_BLOCKLISTED")


def test_anchor_bonus_is_capped() -> None:
    anchors = pl.DataFrame(
        {
            "registered_domain": ["old.example"],
            "anchor_count": [10],
            "anchor_domains": [["wikipedia.org"]],
        }
    )
    out, _ = domain_signals(pages(), Policy(), now=NOW, anchors=anchors)
    rows = {r["doc_id"]: r for r in out.to_dicts()}
    assert rows["a"]["anchor_bonus"] == pytest.approx(0.15)
    assert rows["a"]["domain_score"] == pytest.approx(0.6 * 0.5 + 0.4 * 0.5 + 0.15)
    assert rows["c"]["anchor_bonus"] == 0.0
