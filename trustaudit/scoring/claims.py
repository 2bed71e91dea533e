"""Cross-source claim consistency: do numbers about the same entity agree across pages?

Pages are grouped by entity (the input's `entity` column; else the near-duplicate cluster; else
clusters of similar titles). Numeric claims (prices with currency, ratings x/5 and x/10, years
next to a founding/release verb, percentages) are extracted with Polars regexes; each page's value
per claim kind is compared with its group's median through a robust z-score (MAD, Iglewicz &
Hoaglin's 3.5 cut-off). Reduce stage keyed by (group, kind, unit): median and MAD are the only
cross-page aggregates.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl

from trustaudit.policy import Policy

__all__ = [
    "CLAIM_COLUMNS",
    "CLAIM_KINDS",
    "claim_scores",
    "claim_signals",
    "claim_values",
    "entity_groups",
    "extract_claims",
    "group_columns",
    "group_from",
    "needs_title",
    "parse_number",
]

# the columns claim_signals gives each page (corpus_signals and the batched form)
CLAIM_COLUMNS = (
    "claim_group",
    "claim_group_pages",
    "claims_compared",
    "claim_outliers",
    "claim_max_robust_z",
    "claim_normalized_variance",
    "reasons_claims",
)

# A number in either convention: 1,234.56 / 1.234,56 / 1 234,56 / 19,99 / 49.
_NUM = r"\d{1,3}(?:[.,\u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?"
_CUR_SYM = {"€": "EUR", "$": "USD", "US$": "USD", "£": "GBP", "R$": "BRL", "¥": "JPY", "₹": "INR"}
_CUR_CODES = ("EUR", "USD", "GBP", "BRL", "CHF", "JPY", "INR", "MXN", "ARS", "CAD", "AUD")
_CUR = r"R\$|US\$|\$|€|£|¥|₹|(?:" + "|".join([*_CUR_CODES, "euros?", "reais", "dollars?"]) + r")\b"
_YEAR_VERBS = (
    r"founded|established|launched|released|introduced|built|since|opened|"
    r"fundad[oa]|lançad[oa]|lanzad[oa]|gegründet|seit|erschienen|desde"
)

# kind -> (regex with named groups num [, cur], abs floor of the robust scale, relative floor)
# The floors stop a group whose pages agree exactly (MAD = 0) from flagging rounding differences.
CLAIM_KINDS: dict[str, tuple[str, float, float]] = {
    "price": (
        rf"(?i)(?:(?P<cur>{_CUR})\s?(?P<num>{_NUM})|(?P<num2>{_NUM})\s?(?P<cur2>{_CUR}))",
        0.01,
        0.05,
    ),
    "rating/5": (r"(?i)(?P<num>\d(?:[.,]\d)?)\s?(?:/|out of|de|von|sur)\s?5\b", 0.25, 0.0),
    "rating/10": (r"(?i)(?P<num>\d{1,2}(?:[.,]\d)?)\s?(?:/|out of|de|von|sur)\s?10\b", 0.5, 0.0),
    "year": (rf"(?i)\b(?:{_YEAR_VERBS})\s+(?:in\s+|em\s+|en\s+|im\s+|)(?P<num>(?:19|20)\d\d)\b", 1.0, 0.0),
    "percent": (rf"(?P<num>{_NUM})\s?%", 2.0, 0.0),
}  # fmt: skip
# Unicode `\b` makes Rust's regex engine leave its fast DFA (≈100x slower on real text); ASCII
# word boundaries give the same matches next to the ASCII digits and words these patterns use.
CLAIM_KINDS = {
    kind: (pattern.replace(r"\b", r"(?-u:\b)"), floor, rel)
    for kind, (pattern, floor, rel) in CLAIM_KINDS.items()
}


def parse_number(raw: pl.Expr) -> pl.Expr:
    """Polars: '1.234,56' and '1,234.56' -> 1234.56; '19,99' -> 19.99; '1,234' / '1.234' -> 1234.

    The last separator is the decimal one when both occur; a lone separator followed by exactly
    three digits (or repeated) is a thousands separator.
    """
    s = raw.str.replace_all(r"[\u00a0\u202f ]", "")
    has_dot, has_comma = s.str.contains(r"\.", literal=False), s.str.contains(",", literal=True)
    comma_last = s.str.contains(r",\d*$")
    thousands_only = s.str.contains(r"^\d{1,3}([.,]\d{3})+$") & (
        (s.str.count_matches(r"[.,]") > 1) | s.str.contains(r"^\d{1,3}[.,]\d{3}$")
    )
    cleaned = (
        pl.when(has_dot & has_comma & comma_last)
        .then(s.str.replace_all(".", "", literal=True).str.replace(",", ".", literal=True))
        .when(has_dot & has_comma)
        .then(s.str.replace_all(",", "", literal=True))
        .when(thousands_only)
        .then(s.str.replace_all(r"[.,]", ""))
        .otherwise(s.str.replace(",", ".", literal=True))
    )
    return cleaned.cast(pl.Float64, strict=False)


def _currency(raw: pl.Expr) -> pl.Expr:
    up = raw.str.to_uppercase()
    return (
        pl.when(up.str.starts_with("EURO"))
        .then(pl.lit("EUR"))
        .when(up == "REAIS")
        .then(pl.lit("BRL"))
        .when(up.str.starts_with("DOLLAR"))
        .then(pl.lit("USD"))
        .otherwise(up.replace(_CUR_SYM))
    )


def extract_claims(pages: pl.DataFrame) -> pl.DataFrame:
    """Long table doc_id, kind, unit, value: one row per claim mention in `text`."""
    parts = []
    base = pages.select("doc_id", pl.col("text").fill_null(""))
    for kind, (pattern, _, _) in CLAIM_KINDS.items():
        m = (
            base.select("doc_id", hit=pl.col("text").str.extract_all(pattern))
            .explode("hit")
            .drop_nulls("hit")
        )
        if kind == "price":
            g = pl.col("hit").str.extract_groups(pattern)
            m = m.with_columns(
                num=pl.coalesce(g.struct.field("num"), g.struct.field("num2")),
                unit=_currency(pl.coalesce(g.struct.field("cur"), g.struct.field("cur2"))),
            )
        else:
            m = m.with_columns(
                num=pl.col("hit").str.extract_groups(pattern).struct.field("num"),
                unit=pl.lit("/5" if kind == "rating/5" else "/10" if kind == "rating/10" else ""),
            )
        parts.append(
            m.select(
                "doc_id",
                pl.lit(kind).alias("kind"),
                "unit",
                parse_number(pl.col("num")).alias("value"),
            ).drop_nulls("value")
        )
    return pl.concat(parts) if parts else pl.DataFrame()


def _title_key(title: pl.Expr) -> pl.Expr:
    """Title without the site suffix (' | Site', ' - Site'), lower-cased, punctuation squeezed."""
    return (
        title.fill_null("")
        .str.replace(r"\s+[|\-–—:·]\s+[^|\-–—:·]{1,40}$", "")
        .str.to_lowercase()
        .str.replace_all(r"[^\w]+", " ")
        .str.strip_chars()
    )


def group_columns(pages: pl.DataFrame) -> pl.DataFrame:
    """doc_id, _tk (normalised title), _entity: the grouping evidence of each page (a map)."""
    cols = pages.columns
    return pages.select(
        "doc_id",
        _title_key(pl.col("title") if "title" in cols else pl.lit(None, pl.String)).alias("_tk"),
        (pl.col("entity").cast(pl.String).str.strip_chars().str.to_lowercase() if "entity" in cols else pl.lit(None, pl.String)).alias("_entity"),
    )  # fmt: skip


def needs_title(policy: Policy) -> pl.Expr:
    """Pages grouped by title: no entity, no near-dup cluster, a long enough title (over
    group_columns + syndication_cluster_id)."""
    return (
        pl.col("_entity").is_null()
        & pl.col("syndication_cluster_id").is_null()
        & (pl.col("_tk").str.len_chars() >= policy.claims.title_min_chars)
    )


def group_from(keys: pl.DataFrame, title_groups: pl.DataFrame | None) -> pl.DataFrame:
    """doc_id -> claim_group from group_columns + syndication_cluster_id and (doc_id, _tgroup)."""
    if title_groups is not None:
        keys = keys.join(title_groups.select("doc_id", "_tgroup"), on="doc_id", how="left")
    else:
        keys = keys.with_columns(_tgroup=pl.lit(None, pl.String))
    return keys.select(
        "doc_id",
        claim_group=pl.when(pl.col("_entity").str.len_chars() > 0)
        .then(pl.lit("e:") + pl.col("_entity"))
        .when(pl.col("syndication_cluster_id").is_not_null())
        .then(pl.lit("s:") + pl.col("syndication_cluster_id"))
        .when(pl.col("_tgroup").is_not_null())
        .then(pl.lit("t:") + pl.col("_tgroup")),
    )


def entity_groups(
    pages: pl.DataFrame,
    policy: Policy,
    *,
    clusters: pl.DataFrame | None = None,
    encode: Callable[[list[str]], np.ndarray] | None = None,
) -> pl.DataFrame:
    """doc_id -> claim_group: 'e:<entity>', else 's:<near-dup cluster>', else 't:<title cluster>'.

    Title clusters come from embeddings when `encode` is given (ANN over title vectors, cosine >=
    claims.title_min_cosine), otherwise from exact normalised titles.
    """
    from trustaudit.scoring.syndication import embedding_clusters

    c = policy.claims
    out = group_columns(pages)
    if clusters is not None and "syndication_cluster_id" in clusters.columns:
        out = out.join(clusters.select("doc_id", "syndication_cluster_id"), on="doc_id", how="left")
    else:
        out = out.with_columns(syndication_cluster_id=pl.lit(None, pl.String))
    # doc_id order: a bucket's representative is its smallest doc_id, as in corpus_stages
    need_title = out.filter(needs_title(policy)).sort("doc_id", maintain_order=True)
    if need_title.height and encode is not None:
        titles = need_title.get_column("_tk").to_list()
        labels = embedding_clusters(
            np.asarray(encode(titles), np.float32), min_cosine=c.title_min_cosine, seed=c.seed
        )
        tkey = need_title.select("doc_id", _label=pl.Series(labels)).with_columns(
            _tgroup=pl.col("doc_id").min().over("_label")
        )
    else:
        tkey = need_title.select("doc_id", _tgroup=pl.col("_tk"))
    return out.join(group_from(out, tkey), on="doc_id", how="left").select("doc_id", "claim_group")


def claim_values(pages: pl.DataFrame) -> pl.DataFrame:
    """doc_id, kind, unit, value: each page's value per claim kind (a map: a page's own repeated
    mentions count once, as their median)."""
    return (
        extract_claims(pages).group_by("doc_id", "kind", "unit").agg(value=pl.col("value").median())
    )


def claim_signals(
    pages: pl.DataFrame,
    policy: Policy,
    *,
    groups: pl.DataFrame | None = None,
    clusters: pl.DataFrame | None = None,
    encode: Callable[[list[str]], np.ndarray] | None = None,
) -> pl.DataFrame:
    """One row per doc_id: claim_group, claim_group_pages, claims_compared, claim_outliers,
    claim_max_robust_z, claim_normalized_variance, cross_consistency (null when the page has no
    comparable claim), reasons_claims.

    `groups` (doc_id, claim_group) overrides the grouping; otherwise `entity_groups` builds it.
    """
    if groups is None:
        groups = entity_groups(pages, policy, clusters=clusters, encode=encode)
    todo = pages.join(
        _in_groups(_group_sizes(groups), policy).select("doc_id"), on="doc_id", how="semi"
    )
    return claim_scores(pages.select("doc_id"), groups, claim_values(todo), policy)


def _group_sizes(groups: pl.DataFrame) -> pl.DataFrame:
    g = groups.select("doc_id", "claim_group").with_columns(
        claim_group_pages=pl.len().over("claim_group").cast(pl.Int32)
    )
    return g.with_columns(
        claim_group_pages=pl.when(pl.col("claim_group").is_not_null()).then("claim_group_pages")
    )


def _in_groups(g: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    return g.filter(pl.col("claim_group_pages") >= policy.claims.min_group_pages)


def claim_scores(
    doc_ids: pl.DataFrame, groups: pl.DataFrame, values: pl.DataFrame, policy: Policy
) -> pl.DataFrame:
    """The claim columns of claim_signals for `doc_ids`, from the groups (doc_id, claim_group) and
    the claim values (claim_values; pages outside a big enough group are ignored). Group-bys by
    claim_group, by (claim_group, kind, unit) and by doc_id: no page text needed."""
    c = policy.claims
    g = _group_sizes(groups)
    in_groups = _in_groups(g, policy)
    per_page = values.join(in_groups.select("doc_id", "claim_group"), on="doc_id")
    floors = pl.DataFrame(
        {
            "kind": list(CLAIM_KINDS),
            "_abs": [v[1] for v in CLAIM_KINDS.values()],
            "_rel": [v[2] for v in CLAIM_KINDS.values()],
        }
    )
    key = ["claim_group", "kind", "unit"]
    dev = pl.col("value") - pl.col("_median")
    scored = (
        per_page.with_columns(
            _median=pl.col("value").median().over(key),
            _n=pl.len().over(key),
        )
        .filter(pl.col("_n") >= c.min_group_pages)
        .with_columns(_mad=dev.abs().median().over(key))
        .join(floors, on="kind", how="left")
        .with_columns(
            _scale=pl.max_horizontal(
                1.4826 * pl.col("_mad"), pl.col("_abs"), pl.col("_rel") * pl.col("_median").abs()
            )
        )
        .with_columns(robust_z=dev.abs() / pl.col("_scale"))
        .with_columns(
            _u2=(pl.col("robust_z") / c.z_full_conflict).clip(0.0, 1.0) ** 2,
            _outlier=pl.col("robust_z") > c.outlier_z,
        )
    )
    detail = pl.format(
        "CLAIM_OUTLIER: {} {} vs group median {} ({} pages, z {})",
        pl.col("kind").str.replace(r"/\d+$", ""),
        pl.when(pl.col("kind") == "price")
        .then(pl.format("{} {}", pl.col("value").round(2), pl.col("unit")))
        .when(pl.col("kind").str.starts_with("rating"))
        .then(pl.format("{}{}", pl.col("value").round(1), pl.col("unit")))
        .when(pl.col("kind") == "percent")
        .then(pl.format("{}%", pl.col("value").round(1)))
        .otherwise(pl.col("value").round(0).cast(pl.Int64).cast(pl.String)),
        pl.when(pl.col("kind") == "year")
        .then(pl.col("_median").round(0).cast(pl.Int64).cast(pl.String))
        .otherwise(pl.col("_median").round(2).cast(pl.String)),
        pl.col("_n"),
        pl.col("robust_z").round(1),
    )
    per_doc = scored.group_by("doc_id").agg(
        claims_compared=pl.len().cast(pl.Int32),
        claim_outliers=pl.col("_outlier").sum().cast(pl.Int32),
        claim_max_robust_z=pl.col("robust_z").max(),
        claim_normalized_variance=pl.col("_u2").mean(),
        reasons_claims=detail.filter(pl.col("_outlier")).sort(),
    )
    out = g.join(per_doc, on="doc_id", how="left").with_columns(
        claims_compared=pl.col("claims_compared").fill_null(0),
        claim_outliers=pl.col("claim_outliers").fill_null(0),
        cross_consistency=(1.0 - pl.col("claim_normalized_variance")).clip(lower_bound=0.0),
        reasons_claims=pl.col("reasons_claims").fill_null(pl.lit([], dtype=pl.List(pl.String))),
    )
    return (
        doc_ids.select("doc_id")
        .join(out, on="doc_id", how="left")
        .select(
            "doc_id",
            "claim_group",
            "claim_group_pages",
            "claims_compared",
            "claim_outliers",
            "claim_max_robust_z",
            "claim_normalized_variance",
            "cross_consistency",
            "reasons_claims",
        )
    )
