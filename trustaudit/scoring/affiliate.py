"""Affiliate density and disclosure (DESIGN §3): links flagged by host or parameter, per 1,000 words.

All matching is one combined regex per concern, run by Polars over the whole links table.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

import polars as pl

from trustaudit.policy import Policy
from trustaudit.scoring._reasons import reason_list


@functools.lru_cache(maxsize=1)
def bundled() -> dict[str, Any]:
    """The bundled affiliate hosts, parameters and disclosure phrases (trustaudit/data/affiliate.json)."""
    return json.loads(
        resources.files("trustaudit.data").joinpath("affiliate.json").read_text("utf-8")
    )


def _host_regex(hosts: list[str]) -> str:
    plain = sorted({h.lower() for h in hosts if "/" not in h}, key=len, reverse=True)
    return r"^(?:[^.]+\.)*(?:" + "|".join(re.escape(h) for h in plain) + r")$"


def _path_prefixes(hosts: list[str]) -> list[str]:
    return sorted({h.lower() for h in hosts if "/" in h})


def _param_regex(params: list[str]) -> str:
    parts = []
    for p in sorted(set(x.lower() for x in params), key=len, reverse=True):
        if "=" in p:
            k, v = p.split("=", 1)
            parts.append(re.escape(k) + "=" + re.escape(v) + r"(?:&|#|$)")
        else:
            parts.append(re.escape(p) + "=")
    return r"(?i)[?&](?:" + "|".join(parts) + ")"


# One-word labels that also name a site's ad desk or nav entry ("Werbung", "Publicidad"): they count
# as a disclosure inside the article, not when they only appear in the page's chrome.
LABEL_PHRASES = frozenset({"publicidade", "patrocinado", "publicidad", "anzeige", "werbung"})


# A link whose own text names it ("Amazon Affiliate", "Partnerlink", "Werbung") discloses itself:
# a podcast page's sidebar widget of wishlist links labelled "Amazon Affiliate" was quarantined as
# undisclosed (real pages of shared/corpora, issue #14).
LINK_LABEL_REGEX = (
    r"(?i)(?:^|\W)(?:affiliate|affiliato|affilié|afiliado|partnerlink|werbelink|werbung|anzeige"
    r"|sponsored|sponsorisé|patrocinado|publicidad|publicidade)(?:\W|$)"
)


def _phrase_pattern(phrase: str) -> str:
    """Words joined by any run of spaces or hyphens ("affiliate links" = "Affiliate-Links"),
    with an optional plural s."""
    words = [re.escape(w) for w in re.split(r"[\s\-]+", phrase.lower().strip()) if w]
    return r"[\s\-\u2010\u2011]+".join(words) + "s?"


def disclosure_regex(policy: Policy, *, labels: bool = True) -> str:
    """Any disclosure phrase as a whole-word match; `labels=False` leaves out one-word labels."""
    phrases = {p.lower() for p in bundled()["disclosure_phrases"]}
    if not labels:
        phrases -= LABEL_PHRASES
    phrases |= {p.lower() for p in policy.affiliate.extra_disclosure_phrases}
    alts = "|".join(_phrase_pattern(p) for p in sorted(phrases, key=len, reverse=True))
    return r"(?i)(?:^|\W)(?:" + alts + r")(?:\W|$)"


def flag_affiliate_links(links: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """links + `is_affiliate` and `is_sponsored` (rel contains sponsored).

    Host rules run once per distinct host (a corpus has far fewer hosts than links); only the
    query-parameter rules run per link, and merchant parameters only on that merchant's links.
    """
    data = bundled()
    hosts = list(data["hosts"]) + list(policy.affiliate.extra_hosts)
    params = list(data["params"]) + list(policy.affiliate.extra_params)
    host_lc = pl.col("host").fill_null("").str.to_lowercase()
    per_host = links.select(pl.col("host").unique()).with_columns(
        _aff_host=host_lc.str.contains(_host_regex(hosts)),
        _merchant=pl.lit(None, dtype=pl.String),
    )
    for merchant in data["merchant_params"]:
        m_host = r"(?:^|\.)" + re.escape(merchant) + ("" if merchant.endswith(".") else "$")
        per_host = per_host.with_columns(
            _merchant=pl.when(pl.col("_merchant").is_null() & host_lc.str.contains(m_host))
            .then(pl.lit(merchant))
            .otherwise(pl.col("_merchant"))
        )
    href = pl.col("href").fill_null("")
    out = links.join(per_host, on="host", how="left", nulls_equal=True).with_columns(
        _aff=pl.col("_aff_host").fill_null(False) | href.str.contains(_param_regex(params))
    )
    cloaked = policy.affiliate.cloaked_paths
    if cloaked:  # /go/<slug> redirects: one path segment of the folder, then a slug, nothing after
        folders = "|".join(re.escape(c.strip("/").lower()) for c in cloaked)
        out = out.with_columns(
            _aff=pl.col("_aff")
            | href.str.contains(r"(?i)^https?://[^/?#]+/(?:" + folders + r")/[^/?#]+/?(?:[?#]|$)")
        )
    for prefix in _path_prefixes(hosts):
        out = out.with_columns(
            _aff=pl.col("_aff")
            | href.str.to_lowercase().str.contains(r"^https?://(?:www\.)?" + re.escape(prefix))
        )
    merchant_regex = {m: _param_regex(p) for m, p in data["merchant_params"].items()}
    if out.select(pl.col("_merchant").is_not_null().any()).item():
        out = out.with_row_index("_i")
        hits = [
            out.filter(pl.col("_merchant") == m).filter(href.str.contains(rx)).select("_i")
            for m, rx in merchant_regex.items()
        ]
        hit_idx = pl.concat(hits)["_i"] if hits else pl.Series("_i", [], dtype=pl.UInt32)
        out = out.with_columns(_aff=pl.col("_aff") | pl.col("_i").is_in(hit_idx.implode())).drop(
            "_i"
        )
    return out.with_columns(
        is_affiliate=pl.col("_aff"),
        is_sponsored=pl.col("rel").list.contains("sponsored").fill_null(False),
    ).drop("_aff", "_aff_host", "_merchant")


def affiliate_signals(pages: pl.DataFrame, links: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """Per page: link counts, ratio, density per 1k words, disclosure, sub-score and reasons.

    `links` must already carry `is_affiliate`/`is_sponsored` (see flag_affiliate_links).
    """
    a = policy.affiliate
    # "BGR may receive a commission" as the text of the affiliate link itself: a reader sees it,
    # the main text (links left out) does not carry it
    anchor = (
        pl.col("anchor_text").fill_null("")
        if "anchor_text" in links.columns
        else pl.lit("", pl.String)
    )
    per_doc = (
        links.with_columns(pl.col("doc_id").cast(pl.String))
        .group_by("doc_id")
        .agg(
            links_total=pl.len(),
            affiliate_links=pl.col("is_affiliate").sum(),
            sponsored_affiliate_links=(pl.col("is_affiliate") & pl.col("is_sponsored")).sum(),
            disclosure_in_links=(
                pl.col("is_affiliate")
                & (
                    anchor.str.contains(disclosure_regex(policy, labels=False))
                    | anchor.str.contains(LINK_LABEL_REGEX)
                )
            ).any(),
        )
    )
    chrome = (
        pl.col("page_disclosure_text")
        if "page_disclosure_text" in pages.columns
        else pl.lit(None, pl.String).alias("page_disclosure_text")
    )
    out = (
        pages.select("doc_id", "word_count", "text", chrome)
        .join(per_doc, on="doc_id", how="left")
        .with_columns(
            pl.col("links_total", "affiliate_links", "sponsored_affiliate_links").fill_null(0),
            pl.col("disclosure_in_links").fill_null(False),
        )
        .with_columns(
            affiliate_ratio=pl.when(pl.col("links_total") > 0)
            .then(pl.col("affiliate_links") / pl.col("links_total"))
            .otherwise(0.0),
            affiliate_per_1k_words=pl.when(pl.col("word_count") > 0)
            .then(pl.col("affiliate_links") * 1000.0 / pl.col("word_count"))
            .otherwise(None),
            disclosure_in_text=pl.col("text").fill_null("").str.contains(disclosure_regex(policy)),
            # a site-wide disclosure outside the article (aside, footer) counts too
            disclosure_on_page=pl.col("page_disclosure_text")
            .fill_null("")
            .str.contains(disclosure_regex(policy, labels=False)),
        )
        .with_columns(
            affiliate_disclosed=pl.col("disclosure_in_text")
            | pl.col("disclosure_on_page")
            | pl.col("disclosure_in_links")
            | (pl.col("sponsored_affiliate_links") > 0)
        )
        .drop("page_disclosure_text")
    )
    disc = pl.col("affiliate_disclosed")
    # density rules need a few links: one link in a short page is not affiliate stuffing
    enough = pl.col("affiliate_links") >= a.min_links
    stub = pl.col("word_count") < a.min_words
    # a link-stuffed stub is judged on density over min_words words; other short pages are neutral
    short = stub & ~(pl.lit(a.short_page_links) & enough)
    dens = (
        pl.when(stub)
        .then(pl.col("affiliate_links") * 1000.0 / pl.lit(float(max(a.min_words, 1))))
        .otherwise(pl.col("affiliate_per_1k_words"))
    )
    dense_undisclosed = ~short & enough & (dens > a.dense_per_1k) & ~disc
    # between high_per_1k and dense_per_1k an undisclosed page loses trust gradually: the hard rule
    # at dense_per_1k is no longer a step from a medium page to a capped one
    graded = (
        ~short
        & enough
        & ~disc
        & ~dense_undisclosed
        & (dens > a.high_per_1k)
        & pl.lit(a.graded_penalty > 0)
    )
    ramp_span = max(a.dense_per_1k - a.high_per_1k, 1e-9)
    graded_pen = (
        pl.when(graded)
        .then(a.graded_penalty * ((dens - a.high_per_1k) / ramp_span).clip(0.0, 1.0))
        .otherwise(0.0)
        .round(3)
    )
    out = out.with_columns(
        adjust_affiliate=-graded_pen,
        affiliate_score=pl.when(short)
        .then(0.5)
        .when(pl.col("affiliate_links") == 0)
        .then(1.0)
        .when(dense_undisclosed)
        .then(0.1)
        .when(enough & (dens > a.high_per_1k))
        .then(pl.when(disc).then(0.4).otherwise(0.25))
        .otherwise(pl.when(disc).then(0.7).otherwise(0.5)),
        quarantine_affiliate=dense_undisclosed,
    )
    d = dens.round(1).cast(pl.String)
    has = ~short & (pl.col("affiliate_links") > 0)
    out = out.with_columns(
        reasons_affiliate=reason_list(
            [
                pl.when(short).then(
                    pl.format(
                        "AFFILIATE_TOO_FEW_WORDS: {} words < {} (neutral 0.5)",
                        pl.col("word_count"),
                        pl.lit(a.min_words),
                    )
                ),
                pl.when(dense_undisclosed).then(
                    pl.format(
                        "AFFILIATE_DENSE_NO_DISCLOSURE: {} affiliate links per 1k words, no disclosure",
                        d,
                    )
                ),
                pl.when(has & enough & ~dense_undisclosed & (dens > a.high_per_1k)).then(
                    pl.format("AFFILIATE_HIGH_DENSITY: {} affiliate links per 1k words", d)
                ),
                pl.when(graded_pen > 0).then(
                    pl.format(
                        "AFFILIATE_DENSITY_PENALTY: {} undisclosed affiliate links per 1k words "
                        "(between {} and {}): -{}",
                        d,
                        pl.lit(a.high_per_1k),
                        pl.lit(a.dense_per_1k),
                        graded_pen,
                    )
                ),
                pl.when(has & ~disc & ~dense_undisclosed).then(
                    pl.format(
                        "AFFILIATE_UNDISCLOSED: {} affiliate link(s), no disclosure",
                        pl.col("affiliate_links"),
                    )
                ),
                pl.when(has & disc).then(
                    pl.format(
                        "AFFILIATE_DISCLOSED: {} affiliate link(s) with a disclosure",
                        pl.col("affiliate_links"),
                    )
                ),
            ]
        )
    )
    return out.drop("word_count", "text")
