"""Anchor presence from the corpus link graph."""

from __future__ import annotations

import polars as pl

from trustaudit.policy import Policy
from trustaudit.scoring.anchors import anchor_of, anchor_presence

P = Policy()


def test_anchor_of_matches_parents_and_hosts() -> None:
    anchors = P.anchors.anchor_domains
    assert anchor_of("en.wikipedia.org", anchors) == "wikipedia.org"
    assert anchor_of("news.ycombinator.com", anchors) == "news.ycombinator.com"
    assert anchor_of("ycombinator.com", anchors) is None
    assert anchor_of("notwikipedia.org", anchors) is None
    assert anchor_of(None, anchors) is None


def test_anchor_presence_counts_distinct_anchor_domains() -> None:
    pages = pl.DataFrame(
        {
            "doc_id": ["w1", "w2", "hn", "gh", "blog", "ex"],
            "host": ["en.wikipedia.org", "de.wikipedia.org", "news.ycombinator.com", "github.com",
                     "someblog.net", "www.example.com"],
            "registered_domain": ["wikipedia.org", "wikipedia.org", "ycombinator.com", "github.com",
                                  "someblog.net", "example.com"],
        }
    )  # fmt: skip
    links = pl.DataFrame(
        {
            "doc_id": ["w1", "w2", "hn", "gh", "blog", "blog", "ex", "w1"],
            "href": ["https://example.com/a"] * 8,
            "registered_domain": ["example.com", "example.com", "example.com", "other.org",
                                  "example.com", "other.org", "example.com", "wikipedia.org"],
        }
    )  # fmt: skip
    out = anchor_presence(links, pages, P)
    rows = {r["registered_domain"]: r for r in out.iter_rows(named=True)}
    assert rows["example.com"]["anchor_domains"] == ["news.ycombinator.com", "wikipedia.org"]
    assert rows["example.com"]["anchor_count"] == 2
    assert rows["other.org"]["anchor_count"] == 1
    assert "wikipedia.org" not in rows  # a domain linking to itself is not an anchor for itself
    assert "someblog.net" not in rows
    # --anchors FILE extras
    extra = anchor_presence(links, pages, P, extra_anchors=["someblog.net"])
    assert extra.filter(pl.col("registered_domain") == "other.org")["anchor_count"].item() == 2


def test_anchor_presence_empty_inputs() -> None:
    empty_links = pl.DataFrame(schema={"doc_id": pl.String, "registered_domain": pl.String})
    pages = pl.DataFrame({"doc_id": ["a"], "registered_domain": ["a.com"]})
    out = anchor_presence(empty_links, pages, P)
    assert out.height == 0 and out.columns == [
        "registered_domain",
        "anchor_domains",
        "anchor_count",
    ]
