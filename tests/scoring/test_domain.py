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
    rows = {r["doc_id"]: r for r in domain_signals(p, Policy(), now=NOW)[0].to_dicts()}
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
    m = domain_signals(many, Policy(), now=NOW)[0]["activity_score"][0]
    assert m == pytest.approx(0.5 - 0.5 * 40 / (40 + k)) and m < rows["c"]["activity_score"]
    # 0 restores the reference formula
    ref = Policy().with_overrides({"domain": {"activity_prior_pages": 0}})
    rows = {r["doc_id"]: r for r in domain_signals(p, ref, now=NOW)[0].to_dicts()}
    assert rows["c"]["activity_score"] == 0.0


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
