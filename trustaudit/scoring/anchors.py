"""Anchor presence: which reputable sites (Wikipedia, arXiv, GitHub, Hacker News, a user list) link
to a domain in this corpus's own link graph. A reduce stage keyed by the target registered domain;
domain.py turns `anchor_count` into the capped bonus `policy.domain.anchor_bonus_per_anchor`.
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from trustaudit.policy import Policy

__all__ = ["anchor_of", "anchor_presence"]


def anchor_of(host: str | None, anchors: Iterable[str]) -> str | None:
    """The anchor domain `host` belongs to (itself or a parent domain), or None.

    `news.ycombinator.com` is listed by host because its registered domain (ycombinator.com) is
    not an anchor; `en.wikipedia.org` matches `wikipedia.org`.
    """
    if not host:
        return None
    labels = host.lower().rstrip(".").split(".")
    names = set(anchors)
    for i in range(len(labels)):
        cand = ".".join(labels[i:])
        if cand in names:
            return cand
    return None


def anchor_presence(
    links: pl.DataFrame,
    pages: pl.DataFrame,
    policy: Policy,
    *,
    extra_anchors: Iterable[str] = (),
) -> pl.DataFrame:
    """registered_domain (link target), anchor_domains (sorted list[str]), anchor_count.

    Sources are the pages (doc_id -> host / registered_domain); `extra_anchors` are the domains of
    `--anchors FILE`. Links from a domain to itself never count. Only domains with at least one
    anchor appear: a left join gives the rest 0.
    """
    anchors = {
        a.strip().lower().lstrip(".") for a in (*policy.anchors.anchor_domains, *extra_anchors)
    }
    anchors.discard("")
    empty = pl.DataFrame(
        schema={
            "registered_domain": pl.String,
            "anchor_domains": pl.List(pl.String),
            "anchor_count": pl.Int32,
        }
    )
    if not anchors or links.height == 0 or pages.height == 0:
        return empty
    src_host = "host" if "host" in pages.columns else "registered_domain"
    sources = pages.select(
        "doc_id",
        pl.col(src_host).cast(pl.String).alias("_src_host"),
        pl.col("registered_domain").cast(pl.String).alias("_src_domain"),
    )
    hosts = sources.get_column("_src_host").drop_nulls().unique()
    mapping = pl.DataFrame(
        {"_src_host": hosts, "_anchor": [anchor_of(h, anchors) for h in hosts.to_list()]},
        schema={"_src_host": pl.String, "_anchor": pl.String},
    ).drop_nulls("_anchor")
    if mapping.height == 0:
        return empty
    return (
        links.select("doc_id", pl.col("registered_domain").cast(pl.String))
        .drop_nulls("registered_domain")
        .join(sources.join(mapping, on="_src_host"), on="doc_id")
        .filter(pl.col("registered_domain") != pl.col("_src_domain").fill_null(""))
        .group_by("registered_domain")
        .agg(anchor_domains=pl.col("_anchor").unique().sort())
        .with_columns(anchor_count=pl.col("anchor_domains").list.len().cast(pl.Int32))
        .sort("registered_domain")
    )
