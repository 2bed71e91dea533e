"""Allow/blocklist suggestions per registered domain, from the evidence of a run.

A share measured on 3 pages is not a share measured on 300: decisions use the Wilson score interval
of the quarantined and trusted shares (Wilson 1927; it stays inside [0, 1] and behaves at k=0 or
k=n, unlike the normal approximation). Rules (thresholds in `[report]` of the policy):

- block: any page of the domain carried a prompt-injection finding (`block_on_injection`), or the
  domain has >= `suggest_min_pages` pages and the Wilson *lower* bound of its quarantined share is
  >= `block_min_quarantined_lower` (it is mostly quarantined, with confidence).
- allow: >= `suggest_min_pages` pages, none quarantined, no injection, and the Wilson lower bound of
  the trusted-band share >= `allow_min_trusted_lower` (consistently trusted, with confidence).

Only domains not already on the current lists are written to the `.suggested.txt` files; a listed
domain whose evidence contradicts its list (an allowlisted domain with an injection) is flagged
`review` in domains.csv and report.html instead.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import polars as pl

from trustaudit.io.atomic import write_csv, write_text
from trustaudit.io.lists import parse_list_line, read_domain_lists
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy
from trustaudit.report.escape import csv_cell, one_line
from trustaudit.scoring.injection import page_injection_counts

EVIDENCE_COLUMNS = (
    "quarantined_share",
    "quarantined_share_low",
    "quarantined_share_high",
    "trusted_share_low",
    "injection_pages",
    "injection_findings",
    "on_allowlist",
    "on_blocklist",
    "suggestion",
    "suggestion_evidence",
)


def wilson(k: pl.Expr, n: pl.Expr, z: float) -> tuple[pl.Expr, pl.Expr]:
    """Wilson score interval (low, high) of the proportion k/n as Polars expressions; n=0 -> (0, 1)."""
    nf = n.cast(pl.Float64)
    p = k.cast(pl.Float64) / nf
    z2 = z * z
    centre = (p + z2 / (2 * nf)) / (1 + z2 / nf)
    half = (z / (1 + z2 / nf)) * (p * (1 - p) / nf + z2 / (4 * nf * nf)).sqrt()
    low = pl.when(n > 0).then((centre - half).clip(0.0, 1.0)).otherwise(0.0)
    high = pl.when(n > 0).then((centre + half).clip(0.0, 1.0)).otherwise(1.0)
    return low, high


def _listed(domains: pl.Expr, listed: set[str]) -> pl.Expr:
    """A listed domain covers its subdomains: match the registered domain and each parent of it."""
    if not listed:
        return pl.lit(False)
    items = list(listed)
    exprs = [domains.is_in(items)]
    for cut in range(1, 6):  # parents: drop 1..5 leading labels
        exprs.append(domains.str.splitn(".", cut + 1).struct.field(f"field_{cut}").is_in(items))
    return pl.any_horizontal([e.fill_null(False) for e in exprs])


def page_injections(run: RunDir, policy: Policy) -> pl.DataFrame:
    """doc_id, injection_count: the findings aimed at the reader (quoted ones suggest no block).

    From signals (the injection family) or else the page findings (`page_injection_counts`).
    """
    signals = run.scan("signals") if run.signals.exists() else None
    pages = run.scan("pages") if run.pages.exists() else None
    counts = page_injection_counts(signals, pages, policy.injection.quoted_context)
    if counts is None:
        return pl.DataFrame(schema={"doc_id": pl.String, "injection_count": pl.Int64})
    return counts.select("doc_id", injection_count=pl.col("injection_aimed"))


def domain_evidence(run: RunDir, policy: Policy) -> pl.DataFrame:
    """One row per registered domain: pages, trust, quarantined/trusted shares with Wilson bounds,
    injection findings, current list membership, and the suggestion with its evidence text."""
    rp = policy.report
    scores = run.read(
        "scores", columns=["doc_id", "registered_domain", "trust_score", "band", "hard_quarantine"]
    ).filter(pl.col("registered_domain").is_not_null() & (pl.col("registered_domain") != ""))
    inj = page_injections(run, policy)
    scores = scores.join(inj, on="doc_id", how="left").with_columns(
        pl.col("injection_count").fill_null(0)
    )
    ev = scores.group_by("registered_domain").agg(
        pages=pl.len(),
        mean_trust=pl.col("trust_score").mean().round(3),
        min_trust=pl.col("trust_score").min(),
        quarantined=(pl.col("band") == "quarantine").sum(),
        trusted=(pl.col("band") == "trusted").sum(),
        injection_pages=(pl.col("injection_count") > 0).sum(),
        injection_findings=pl.col("injection_count").sum(),
    )
    q_lo, q_hi = wilson(pl.col("quarantined"), pl.col("pages"), rp.suggest_z)
    t_lo, _ = wilson(pl.col("trusted"), pl.col("pages"), rp.suggest_z)
    allow = read_domain_lists(policy.domain.allowlist_files)
    block = read_domain_lists(policy.domain.blocklist_files)
    ev = ev.with_columns(
        quarantined_share=(pl.col("quarantined") / pl.col("pages")).round(4),
        quarantined_share_low=q_lo.round(4),
        quarantined_share_high=q_hi.round(4),
        trusted_share_low=t_lo.round(4),
        on_allowlist=_listed(pl.col("registered_domain"), allow),
        on_blocklist=_listed(pl.col("registered_domain"), block),
    )
    enough = pl.col("pages") >= rp.suggest_min_pages
    injected = pl.col("injection_pages") > 0
    wants_block = (injected & pl.lit(rp.block_on_injection)) | (
        enough & (pl.col("quarantined_share_low") >= rp.block_min_quarantined_lower)
    )
    wants_allow = (
        enough
        & (pl.col("quarantined") == 0)
        & ~injected
        & (pl.col("trusted_share_low") >= rp.allow_min_trusted_lower)
    )
    ev = ev.with_columns(
        suggestion=pl.when(wants_block & pl.col("on_allowlist"))
        .then(pl.lit("review"))
        .when(wants_block & ~pl.col("on_blocklist"))
        .then(pl.lit("block"))
        .when(wants_allow & ~pl.col("on_allowlist") & ~pl.col("on_blocklist"))
        .then(pl.lit("allow"))
        .otherwise(pl.lit(""))
    )
    z_pct = _confidence(rp.suggest_z)
    evidence = pl.concat_str(
        [
            pl.col("pages").cast(pl.String),
            pl.lit(" page(s), mean trust "),
            pl.col("mean_trust").round(3).cast(pl.String),
            pl.lit(", min "),
            pl.col("min_trust").round(3).cast(pl.String),
            pl.lit(", quarantined "),
            pl.col("quarantined").cast(pl.String),
            pl.lit("/"),
            pl.col("pages").cast(pl.String),
            pl.lit(f" (Wilson {z_pct} "),
            pl.col("quarantined_share_low").round(2).cast(pl.String),
            pl.lit("-"),
            pl.col("quarantined_share_high").round(2).cast(pl.String),
            pl.lit("), trusted "),
            pl.col("trusted").cast(pl.String),
            pl.lit("/"),
            pl.col("pages").cast(pl.String),
            pl.lit(" (lower "),
            pl.col("trusted_share_low").round(2).cast(pl.String),
            pl.lit("), "),
            pl.when(injected)
            .then(
                pl.concat_str(
                    [
                        pl.lit("injection on "),
                        pl.col("injection_pages").cast(pl.String),
                        pl.lit(" page(s)"),
                    ]
                )
            )
            .otherwise(pl.lit("no injection")),
        ]
    )
    return ev.with_columns(suggestion_evidence=evidence).sort(
        ["suggestion", "registered_domain"], descending=[True, False]
    )


def _confidence(z: float) -> str:
    from math import erf, sqrt

    return f"{round(100 * erf(z / sqrt(2)))}%"


def _list_file(kind: str, rows: list[dict[str, Any]], policy: Policy, run_id: str) -> str:
    rp = policy.report
    rule = (
        f"any injection finding, or >= {rp.suggest_min_pages} pages with the Wilson lower bound of "
        f"the quarantined share >= {rp.block_min_quarantined_lower}"
        if kind == "block"
        else f">= {rp.suggest_min_pages} pages, none quarantined, no injection, Wilson lower bound "
        f"of the trusted share >= {rp.allow_min_trusted_lower}"
    )
    lines = [
        f"# trustaudit suggested {kind}list (run {run_id}, {datetime.now(UTC).date().isoformat()})",
        f"# rule: {rule}",
        "# only domains not on the current lists; review each one before merging it into your list",
        "",
    ]
    for r in rows:
        domain = parse_list_line(r["registered_domain"])
        if not domain:  # not a valid list entry (odd host): it stays in domains.csv only
            continue
        lines.append(f"# {domain}: {one_line(r['suggestion_evidence'], 400)}")
        lines.append(domain)
    return "\n".join(lines) + "\n"


def write_suggestions(
    run: RunDir, policy: Policy, manifest: dict[str, Any] | None = None
) -> pl.DataFrame:
    """Write allowlist.suggested.txt, blocklist.suggested.txt and add the evidence columns to
    domains.csv (kept as summary.py wrote it, columns appended). Returns the evidence table."""
    ev = domain_evidence(run, policy)
    run_id = str((manifest or {}).get("run_id") or run.root.name)
    block = ev.filter(pl.col("suggestion") == "block").sort(
        ["injection_pages", "quarantined_share_low", "registered_domain"],
        descending=[True, True, False],
    )
    allow = ev.filter(pl.col("suggestion") == "allow").sort(
        ["trusted_share_low", "pages", "registered_domain"], descending=[True, True, False]
    )
    write_text(
        run.report("blocklist.suggested.txt"), _list_file("block", block.to_dicts(), policy, run_id)
    )
    write_text(
        run.report("allowlist.suggested.txt"), _list_file("allow", allow.to_dicts(), policy, run_id)
    )
    _augment_domains_csv(run, ev)
    return ev


def _augment_domains_csv(run: RunDir, ev: pl.DataFrame) -> None:
    """Append the evidence columns to domains.csv without touching the columns already there."""
    path = run.report("domains.csv")
    extra = ev.select(
        pl.col("registered_domain")
        .map_elements(csv_cell, return_dtype=pl.String)
        .alias("registered_domain"),
        *[pl.col(c) for c in EVIDENCE_COLUMNS],
    ).with_columns(pl.col("suggestion_evidence").map_elements(csv_cell, return_dtype=pl.String))
    if path.exists():
        base = pl.read_csv(path, infer_schema=False, glob=False)
        if "registered_domain" in base.columns:
            add = [c for c in extra.columns if c not in base.columns]
            extra = extra.select("registered_domain", *add).cast(pl.String)
            out = base.join(extra, on="registered_domain", how="left", nulls_equal=True)
            write_csv(path, out)
            return
    keep = ["pages", "mean_trust", "min_trust", "quarantined", "trusted"]
    write_csv(
        path,
        pl.concat(
            [extra.select("registered_domain"), ev.select(keep), extra.drop("registered_domain")],
            how="horizontal",
        ),
    )
