"""Domain reputation: registered domain, allow/blocklists, age, activity, anchor bonus (DESIGN §3)."""

from __future__ import annotations

import functools
from datetime import date

import polars as pl

from trustaudit.hostname import ascii_host
from trustaudit.policy import Policy
from trustaudit.policy.scoring import DomainPolicy
from trustaudit.scoring._reasons import reason_list
from trustaudit.scoring.reputation import Prior, load_priors, reputation_of_hosts


@functools.lru_cache(maxsize=2)
def _extractor(private: bool = True):  # type: ignore[no-untyped-def]
    import tldextract

    # suffix_list_urls=() + no cache dir: the bundled public suffix list, never a download.
    return tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=private
    )


@functools.lru_cache(maxsize=1 << 18)
def registered_domain_of(
    host: str | None, *, private_suffixes: bool = True, strict: bool = False
) -> str | None:
    """Registrable domain (eTLD+1) of a host: the one function for pages and the crawler's RDAP.

    Pages count private suffixes (github.io, blogspot.com: each user site there is its own
    publisher); RDAP needs the domain a registry knows (`private_suffixes=False`: github.io).
    IPs and single-label hosts map to themselves, or to None with `strict` (nothing to look up).
    """
    if not host:
        return None
    host = ascii_host(host)
    result = _extractor(private_suffixes)(host)
    if strict and not (result.suffix and result.domain):
        return None
    return (result.top_domain_under_public_suffix or host).lower()


def with_registered_domain(
    df: pl.DataFrame, host_col: str = "host", out: str = "registered_domain"
) -> pl.DataFrame:
    """Add `out`: tldextract is called once per unique host (≈4.6× faster than per URL)."""
    hosts = df.get_column(host_col).drop_nulls().unique()
    mapping = pl.DataFrame(
        {host_col: hosts, out: [registered_domain_of(h) for h in hosts.to_list()]},
        schema={host_col: pl.String, out: pl.String},
    )
    if out in df.columns:
        df = df.drop(out)
    return df.join(mapping, on=host_col, how="left")


def listed(hosts: pl.Series, domains: set[str]) -> pl.Series:
    """For each host: is it, or any parent domain of it, in `domains`? (per unique host)."""
    if not domains:
        return pl.Series([False] * len(hosts), dtype=pl.Boolean)
    uniq = hosts.drop_nulls().unique().to_list()
    hit = {}
    for h in uniq:
        labels = h.split(".")
        hit[h] = any(".".join(labels[i:]) in domains for i in range(len(labels)))
    return hosts.replace_strict(hit, default=False, return_dtype=pl.Boolean)


def domain_signals(
    pages: pl.DataFrame,
    policy: Policy,
    *,
    now: date,
    allow: set[str] | None = None,
    block: set[str] | None = None,
    created: dict[str, date] | None = None,
    anchors: pl.DataFrame | None = None,
    priors: dict[str, Prior] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per-page domain signals and the per-domain table.

    Returns (page_signals keyed by doc_id, domains keyed by registered_domain). Activity is the age of
    the newest `published` date among the domain's pages in this corpus. `priors` (domain -> prior,
    label, source) defaults to `reputation.load_priors(policy)`: bundled lists + the policy's files.
    """
    d = policy.domain
    allow, block, created = allow or set(), block or set(), created or {}
    priors = load_priors(policy) if priors is None else priors
    base = pages.select("doc_id", "host", "registered_domain", "published")
    base = base.with_columns(
        in_allowlist=listed(base["host"], allow),
        in_blocklist=listed(base["host"], block),
        # a page on an anchor site itself (en.wikipedia.org, arxiv.org): trust evidence for the
        # syndication stage, which must not name such a page a copy by fetch order
        anchor_self=listed(base["host"], {a.lower() for a in policy.anchors.anchor_domains}),
    )
    reputation = reputation_of_hosts(
        pl.concat([base["host"], base["registered_domain"]]).rename("host"), priors
    )
    # a page's host first, then its registered domain (a host may be unlisted, its domain not)
    base = (
        base.join(reputation, on="host", how="left")
        .join(
            reputation.rename(lambda c: c if c == "host" else f"_rd_{c}"),
            left_on="registered_domain",
            right_on="host",
            how="left",
        )
        .with_columns(
            [
                pl.coalesce(c, f"_rd_{c}").alias(c)
                for c in ("reputation_prior", "reputation_label", "reputation_source")
            ]
        )
        .drop("_rd_reputation_prior", "_rd_reputation_label", "_rd_reputation_source")
    )
    now_lit = pl.lit(now, dtype=pl.Date)
    per_domain = (
        base.group_by("registered_domain")
        .agg(
            pages=pl.len(),
            last_published=pl.col("published").max(),
            dated_pages=pl.col("published").is_not_null().sum().cast(pl.Int64),
            recent_publications=(
                pl.col("published") >= now_lit - pl.duration(days=d.recent_window_days)
            ).sum(),
        )
        .with_columns(
            created=pl.col("registered_domain").replace_strict(
                created, default=None, return_dtype=pl.Date
            )
            if created
            else pl.lit(None, dtype=pl.Date),
        )
        .with_columns(
            domain_age_days=(now_lit - pl.col("created")).dt.total_days(),
            last_publish_days=(now_lit - pl.col("last_published"))
            .dt.total_days()
            .clip(lower_bound=0),
        )
    )
    if anchors is not None and anchors.height:
        per_domain = per_domain.join(
            anchors.select("registered_domain", "anchor_count", "anchor_domains"),
            on="registered_domain",
            how="left",
        ).with_columns(pl.col("anchor_count").fill_null(0))
    else:
        per_domain = per_domain.with_columns(
            anchor_count=pl.lit(0, dtype=pl.Int64),
            anchor_domains=pl.lit([], dtype=pl.List(pl.String)),
        )
    cap = d.age_cap_years
    per_domain = per_domain.with_columns(
        age_score=pl.when(pl.col("domain_age_days").is_null())
        .then(pl.lit(d.age_neutral))
        .otherwise(
            (pl.col("domain_age_days").clip(lower_bound=0) / 365.0).clip(upper_bound=cap) / cap
        ),
        activity_raw=pl.when(pl.col("last_publish_days").is_null())
        .then(pl.lit(d.activity_neutral))
        .otherwise(
            (1.0 - pl.col("last_publish_days") / d.activity_window_days).clip(lower_bound=0.0)
        ),
        anchor_bonus=(pl.col("anchor_count") * d.anchor_bonus_per_anchor).clip(
            upper_bound=d.anchor_bonus_cap
        ),
    )
    archival = pl.lit(d.activity_archival) & (
        pl.col("last_publish_days").is_null()
        | (pl.col("last_publish_days") >= d.activity_window_days)
    )
    per_domain = per_domain.with_columns(
        activity_archival=archival,
        activity_score=pl.when(archival)
        .then(pl.lit(d.activity_neutral))
        .otherwise(_shrunk_activity(d)),
    )
    out = base.join(per_domain.drop("pages"), on="registered_domain", how="left", nulls_equal=True)
    formula = d.age_weight * pl.col("age_score") + d.activity_weight * pl.col("activity_score")
    evidence = (formula + pl.col("anchor_bonus")).clip(upper_bound=1.0)
    w = d.reputation_weight
    out = out.with_columns(
        domain_score=pl.when(pl.col("in_blocklist"))
        .then(0.0)
        .when(pl.col("in_allowlist"))
        .then(1.0)
        .when(pl.col("reputation_prior").is_not_null())
        .then((1.0 - w) * evidence + w * pl.col("reputation_prior"))
        .otherwise(evidence),
        quarantine_blocklist=pl.col("in_blocklist"),
        reputation_anchor=(pl.col("reputation_prior") >= d.reputation_anchor_min).fill_null(False),
    )
    reason = _reasons(d.young_domain_days, d.activity_window_days)
    out = out.with_columns(reasons_domain=reason)
    page_cols = [
        "doc_id",
        "in_allowlist",
        "in_blocklist",
        "domain_age_days",
        "last_publish_days",
        "recent_publications",
        "dated_pages",
        "age_score",
        "activity_raw",
        "activity_score",
        "anchor_count",
        "anchor_bonus",
        "reputation_prior",
        "reputation_label",
        "reputation_source",
        "reputation_anchor",
        "anchor_self",
        "domain_score",
        "quarantine_blocklist",
        "reasons_domain",
    ]
    domains = (
        out.group_by("registered_domain")
        .agg(
            pages=pl.len(),
            in_allowlist=pl.col("in_allowlist").any(),
            in_blocklist=pl.col("in_blocklist").any(),
            hosts=pl.col("host").drop_nulls().unique().sort(),
        )
        .join(per_domain, on="registered_domain", how="left", nulls_equal=True)
        .join(
            reputation.rename({"host": "registered_domain"}),
            on="registered_domain",
            how="left",
        )
        .with_columns(
            domain_score=pl.when(pl.col("in_blocklist"))
            .then(0.0)
            .when(pl.col("in_allowlist"))
            .then(1.0)
            .when(pl.col("reputation_prior").is_not_null())
            .then((1.0 - w) * evidence + w * pl.col("reputation_prior"))
            .otherwise(evidence)
        )
        .sort("registered_domain", nulls_last=True)
    )
    return out.select(page_cols), domains


def _shrunk_activity(d: DomainPolicy) -> pl.Expr:
    """activity_raw shrunk toward the neutral value by evidence: n dated pages of the domain
    against `activity_prior_pages` pseudo-pages (0 = the reference formula, unchanged)."""
    k = d.activity_prior_pages
    if k <= 0:
        return pl.col("activity_raw")
    n = pl.col("dated_pages").cast(pl.Float64)
    return d.activity_neutral + (pl.col("activity_raw") - d.activity_neutral) * n / (n + k)


def _reasons(young_days: int, window: float) -> pl.Expr:
    """`CODE: detail` strings; nulls are dropped so each page lists only what applies."""
    items = [
        pl.when(pl.col("in_blocklist")).then(
            pl.format("DOMAIN_BLOCKLISTED: {} is on a blocklist", pl.col("registered_domain"))
        ),
        pl.when(pl.col("in_allowlist") & ~pl.col("in_blocklist")).then(
            pl.format("DOMAIN_ALLOWLISTED: {} is on an allowlist", pl.col("registered_domain"))
        ),
        pl.when(pl.col("reputation_prior").is_not_null() & ~pl.col("in_blocklist")).then(
            pl.format(
                "REPUTATION_PRIOR: rated '{}' (prior {}) by {}",
                pl.col("reputation_label"),
                pl.col("reputation_prior"),
                pl.col("reputation_source"),
            )
        ),
        # with a prior the domain has evidence; the missing age is then not worth a reason
        pl.when(pl.col("domain_age_days").is_null() & pl.col("reputation_prior").is_null()).then(
            pl.lit("DOMAIN_AGE_MISSING: creation date unknown (neutral 0.5)")
        ),
        pl.when(pl.col("domain_age_days") < young_days).then(
            pl.format("DOMAIN_YOUNG: registered {} days ago", pl.col("domain_age_days"))
        ),
        pl.when(pl.col("last_publish_days").is_null()).then(
            pl.lit("ACTIVITY_MISSING: no publication date on any page of the domain (neutral 0.5)")
        ),
        pl.when((pl.col("last_publish_days") >= window) & ~pl.col("activity_archival")).then(
            pl.format(
                "DOMAIN_INACTIVE: newest publication {} days ago", pl.col("last_publish_days")
            )
        ),
        pl.when((pl.col("last_publish_days") >= window) & pl.col("activity_archival")).then(
            pl.format(
                "ACTIVITY_ARCHIVAL: newest publication {} days ago and none more recent in this "
                "run; an old page is not evidence of a dead domain (neutral activity)",
                pl.col("last_publish_days"),
            )
        ),
        pl.when(pl.col("anchor_count") > 0).then(
            pl.format("ANCHOR_PRESENCE: linked from {} anchor domain(s)", pl.col("anchor_count"))
        ),
    ]
    return reason_list(items)
