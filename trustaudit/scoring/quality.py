"""Thin-content and clickbait signals: what a reader notices before judging the words.

Content farms and slideshow galleries read well sentence by sentence (coherent, no affiliate links,
an old domain), so the other families rated a "page 21 of 40" celebrity gallery with 145 words and
"By Staff Writer" as trusted, above a national newspaper (issue #14). Each signal here is weak and
common on honest pages too, so each costs little and the sum is capped
(`textual.quality_max_penalty`); together they move such pages out of the trusted band.

Signals (each a column and, when it fires, a reason):
- TEXT_THIN: fewer main-text words than `textual.thin_words` (full penalty below half of it);
- PAGINATED_PAGE: a slideshow / pagination page ("page 21 of 40", "next slide", `?page=3`,
  `/slide/4`), en/pt/es/de/fr/it;
- HEADLINE_BAIT: a curiosity-gap headline ("you won't believe", "what happened next",
  "você não vai acreditar", "no vas a creer", ...);
- GENERIC_BYLINE: the author is a role, not a person ("Staff Writer", "Admin");
- AD_HEAVY: links into ad / native-ad networks (Taboola, Outbrain, MGID, ...) per 1k words;
- LINK_FARM: a thin page whose links mostly leave the site (outbound links per 100 words).

Pure Polars over the pages and links tables; no per-page Python.
"""

from __future__ import annotations

import polars as pl

from trustaudit.policy import Policy
from trustaudit.scoring._reasons import reason_list

__all__ = ["AD_HOSTS", "quality_signals"]

# "page 2 of 9", "slide 4/20", "página 3 de 10", "Seite 2 von 5", "page 2 sur 5", "pagina 2 di 5"
_OF = r"(?:of|de|von|sur|di|/)"
_PAGINATION_TEXT = (
    r"(?:^|[^\p{L}])(?:page|p[áa]gina|seite|slide|diapositiva|diapo|bild|foto|photo|image)"
    rf"\s*\d{{1,3}}\s*{_OF}\s*\d{{1,3}}(?:[^\p{{N}}]|$)"
    r"|next slide|next photo|next page|click next|continue to (?:the )?next|start slideshow"
    r"|pr[óo]xim[ao] (?:slide|foto|p[áa]gina)|siguiente (?:diapositiva|foto|p[áa]gina)"
    r"|n[äa]chste[sn]? (?:bild|seite|foto)|(?:diapo|page|photo) suivante"
    r"|(?:pagina|foto) successiva"
)
# ?page=3, &pg=2, /page/4, /slide/7, /seite/2 (page 1 is the article itself)
_PAGINATION_URL = (
    r"(?i)(?:[?&](?:page|pg|slide|pagina|seite|foto)=0*(?:[2-9]|\d{2,})(?:&|#|$)"
    r"|/(?:page|slide|pagina|seite|foto|photo)/0*(?:[2-9]|\d{2,})/?(?:[?#]|$))"
)
_BAIT = (
    r"(?:^|[^\p{L}])(?:"
    r"you won'?t believe|you will never believe|will (?:blow your mind|shock you|make you cry)"
    r"|what happen(?:ed|s) next|this one (?:weird |simple )?trick|doctors hate|jaw[- ]dropping"
    r"|number \d+ will|you need to see|gone wrong|can'?t stop (?:laughing|watching)"
    r"|is unrecognizable|looks? unrecognizable|the reason (?:why )?will|left speechless"
    r"|voc[êe] n[ãa]o vai acreditar|vai te (?:surpreender|chocar)|ningu[ée]m esperava"
    r"|veja o que aconteceu|no (?:vas a creer|creer[áa]s)|te (?:sorprender[áa]|dejar[áa] sin palabras)"
    r"|lo que pas[óo] despu[ée]s|sie werden nicht glauben|was dann passierte"
    r"|vous ne (?:croirez|allez pas croire)|ce qui s'est pass[ée] ensuite"
    r"|non (?:crederai|ci crederai)|quello che [èe] successo dopo"
    r")"
)
# A role instead of a name: "By Staff Writer", author meta "admin". Desk names of real newsrooms
# ("Redação", "Redaktion") are left out: they are how many honest papers sign agency copy.
_GENERIC_AUTHOR = (
    r"^(?:by\s+)?(?:staff(?: writer| reporter)?|admin(?:istrator)?|editor|webmaster|author"
    r"|editorial (?:team|staff)|guest (?:author|writer|contributor|post)|content team|news desk"
    r"|web desk|site owner|team)$"
)
_GENERIC_BYLINE_TEXT = (
    r"(?:^|\n)\s*by\s+(?:staff writer|admin(?:istrator)?|editorial team|editorial staff"
    r"|guest author|content team|webmaster)(?:\s|$|[,|·\-])"
)
# Ad and native-ad networks whose links sit in "sponsored stories" widgets (public ad-tech hosts).
AD_HOSTS: tuple[str, ...] = (
    "doubleclick.net",
    "googlesyndication.com",
    "googleadservices.com",
    "adservice.google.com",
    "taboola.com",
    "outbrain.com",
    "revcontent.com",
    "mgid.com",
    "zergnet.com",
    "adnxs.com",
    "criteo.com",
    "popads.net",
    "propellerads.com",
    "adsterra.com",
    "content.ad",
    "adblade.com",
    "contentabc.com",
)


def _ad_host_regex() -> str:
    alts = "|".join(h.replace(".", r"\.") for h in AD_HOSTS)
    return rf"(?i)(?:^|\.)(?:{alts})$"


def _link_counts(pages: pl.DataFrame, links: pl.DataFrame | None) -> pl.DataFrame:
    """doc_id, links_outbound (to another registered domain), links_ad (to an ad network)."""
    empty = pages.select("doc_id").with_columns(
        links_outbound=pl.lit(0, pl.UInt32), links_ad=pl.lit(0, pl.UInt32)
    )
    if links is None or links.height == 0 or "host" not in links.columns:
        return empty
    target = pl.col("registered_domain") if "registered_domain" in links.columns else pl.col("host")
    own = pages.select("doc_id", pl.col("registered_domain").alias("_own"))
    per_doc = (
        links.select("doc_id", pl.col("host").fill_null(""), target.alias("_target"))
        .join(own, on="doc_id", how="inner")
        .group_by("doc_id")
        .agg(
            links_outbound=(
                pl.col("_target").is_not_null()
                & (pl.col("_target") != pl.col("_own").fill_null(""))
            ).sum(),
            links_ad=pl.col("host").str.contains(_ad_host_regex()).sum(),
        )
    )
    return (
        empty.select("doc_id")
        .join(per_doc, on="doc_id", how="left")
        .with_columns(pl.col("links_outbound", "links_ad").fill_null(0).cast(pl.UInt32))
    )


def quality_signals(
    pages: pl.DataFrame, links: pl.DataFrame | None, policy: Policy
) -> pl.DataFrame:
    """One row per doc_id: the raw quality values, `adjust_quality` (<= 0) and `reasons_quality`.

    Needs doc_id, word_count, text (url, title, author, registered_domain used when present);
    `links` (doc_id, host, registered_domain) feeds the ad and outbound-link densities.
    """
    t = policy.textual
    cols = pages.columns

    def col(name: str) -> pl.Expr:
        return pl.col(name).cast(pl.String) if name in cols else pl.lit(None, pl.String)

    base = pages.select(
        "doc_id",
        "word_count",
        _text=pl.col("text").fill_null("").str.to_lowercase(),
        _url=col("url").fill_null(""),
        _title=col("title").fill_null("").str.to_lowercase(),
        _author=col("author").fill_null("").str.to_lowercase().str.strip_chars(),
        registered_domain=col("registered_domain"),
    )
    base = base.join(_link_counts(base, links), on="doc_id", how="left")
    words = pl.col("word_count").cast(pl.Float64)
    head_tail = pl.concat_str(
        pl.col("_text").str.slice(0, 600), pl.lit("\n"), pl.col("_text").str.slice(-600)
    )
    out = base.with_columns(
        quality_thin=pl.col("word_count") < t.thin_words,
        quality_paginated=(
            pl.col("_url").str.contains(_PAGINATION_URL)
            | (
                (pl.col("word_count") < t.pagination_text_max_words)
                & (
                    head_tail.str.contains(_PAGINATION_TEXT)
                    | pl.col("_title").str.contains(_PAGINATION_TEXT)
                )
            )
        ),
        quality_headline_bait=pl.col("_title").str.contains(_BAIT),
        quality_generic_byline=(
            pl.col("_author").str.contains(_GENERIC_AUTHOR)
            | pl.col("_text").str.slice(0, 400).str.contains(_GENERIC_BYLINE_TEXT)
        ),
        ad_links_per_1k_words=pl.when(words > 0)
        .then(pl.col("links_ad") * 1000.0 / words)
        .otherwise(None),
        outbound_links_per_100_words=pl.when(words > 0)
        .then(pl.col("links_outbound") * 100.0 / words)
        .otherwise(None),
    )
    # densities are null on a page with no words: no evidence, not a null penalty (a null sum
    # made min_horizontal fall back to the cap)
    ad_heavy = (
        (pl.col("links_ad") >= t.ad_min_links)
        & (pl.col("ad_links_per_1k_words") > t.ad_per_1k_words)
    ).fill_null(False)
    link_farm = (
        pl.col("quality_thin") & (pl.col("outbound_links_per_100_words") > t.outbound_per_100_words)
    ).fill_null(False)
    # thin: full penalty below half of thin_words, half of it between
    thin_pen = (
        pl.when(pl.col("word_count") < t.thin_words / 2)
        .then(pl.lit(t.thin_penalty))
        .when(pl.col("quality_thin"))
        .then(pl.lit(t.thin_penalty / 2))
        .otherwise(0.0)
    )
    bait_signals = pl.sum_horizontal(
        pl.col("quality_paginated").cast(pl.Int32),
        pl.col("quality_headline_bait").cast(pl.Int32),
        pl.col("quality_generic_byline").cast(pl.Int32),
    )
    combined = (bait_signals >= 2) & pl.lit(t.clickbait_combo_penalty > 0)
    penalty = (
        thin_pen
        + combined.cast(pl.Float64) * t.clickbait_combo_penalty
        + pl.col("quality_paginated").cast(pl.Float64) * t.pagination_penalty
        + pl.col("quality_headline_bait").cast(pl.Float64) * t.bait_penalty
        + pl.col("quality_generic_byline").cast(pl.Float64) * t.byline_penalty
        + ad_heavy.cast(pl.Float64) * t.ad_penalty
        + link_farm.cast(pl.Float64) * t.link_farm_penalty
    )
    out = out.with_columns(
        quality_ad_heavy=ad_heavy,
        quality_link_farm=link_farm,
        adjust_quality=-pl.min_horizontal(penalty.fill_null(0.0), pl.lit(t.quality_max_penalty)),
        reasons_quality=reason_list(
            [
                pl.when(pl.col("quality_thin")).then(
                    pl.format(
                        "TEXT_THIN: {} words of main text (< {})",
                        pl.col("word_count"),
                        pl.lit(t.thin_words),
                    )
                ),
                pl.when(pl.col("quality_paginated")).then(
                    pl.lit("PAGINATED_PAGE: one page of a slideshow or paginated article")
                ),
                pl.when(pl.col("quality_headline_bait")).then(
                    pl.lit("HEADLINE_BAIT: the title is a curiosity-gap headline")
                ),
                pl.when(pl.col("quality_generic_byline")).then(
                    pl.lit("GENERIC_BYLINE: the author is a role, not a person")
                ),
                pl.when(combined).then(
                    pl.format(
                        "CLICKBAIT_COMBINED: {} of pagination, bait headline and generic byline "
                        "together (+{})",
                        bait_signals,
                        pl.lit(t.clickbait_combo_penalty),
                    )
                ),
                pl.when(ad_heavy).then(
                    pl.format(
                        "AD_HEAVY: {} ad-network links per 1k words",
                        pl.col("ad_links_per_1k_words").round(1),
                    )
                ),
                pl.when(link_farm).then(
                    pl.format(
                        "LINK_FARM: {} outbound links per 100 words on a thin page",
                        pl.col("outbound_links_per_100_words").round(1),
                    )
                ),
            ]
        ),
    )
    return out.select(
        "doc_id",
        pl.col("links_outbound").cast(pl.Int64),
        pl.col("links_ad").cast(pl.Int64),
        "ad_links_per_1k_words",
        "outbound_links_per_100_words",
        "quality_thin",
        "quality_paginated",
        "quality_headline_bait",
        "quality_generic_byline",
        "quality_ad_heavy",
        "quality_link_farm",
        "adjust_quality",
        "reasons_quality",
    )
