"""Labeled sets for evals-as-code: a CSV that says which pages (or domains) must be quarantined.

Columns: `label` plus one key — `doc_id`, `url` (normalized like doc ids, so trailing slashes and case
of the host do not matter) or `domain`/`registered_domain` (the label covers every page of the domain).
Labels: untrusted/bad/quarantine/spam/1/true are positives (should be quarantined); trusted/good/ok/
0/false are negatives. Anything else is an input error, so a typo cannot silently shrink the eval set.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from trustaudit.errors import UsageError
from trustaudit.io.records import doc_id_for

POSITIVE = frozenset(
    {
        "untrusted",
        "bad",
        "quarantine",
        "quarantined",
        "spam",
        "block",
        "blocked",
        "1",
        "true",
        "yes",
    }
)
NEGATIVE = frozenset({"trusted", "good", "ok", "allow", "allowed", "0", "false", "no"})
KEYS = ("doc_id", "url", "registered_domain", "domain")


def read_labels(path: str | Path) -> pl.DataFrame:
    """Return (`key_kind`, `key`, `should_quarantine`) rows; `key_kind` is `doc_id` or `domain`.

    URL keys become doc ids here so they join scores.parquet the same way the pipeline names pages.
    """
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"labels file not found: {p}")
    try:
        df = pl.read_csv(p, infer_schema=False)
    except (pl.exceptions.PolarsError, UnicodeDecodeError) as exc:
        raise UsageError(f"labels file {p} is not a readable CSV: {exc}") from None
    cols = {c.strip().lower(): c for c in df.columns}
    key = next((k for k in KEYS if k in cols), None)
    if "label" not in cols or key is None:
        raise UsageError(
            f"labels file {p} needs a `label` column and one of {', '.join(KEYS)}",
            hint="e.g. `url,label` rows such as `https://example.com/a,untrusted`",
        )
    df = df.select(
        key=pl.col(cols[key]).str.strip_chars(),
        label=pl.col(cols["label"]).str.strip_chars().str.to_lowercase(),
    ).filter(pl.col("key").is_not_null() & (pl.col("key") != ""))
    bad = df.filter(~pl.col("label").is_in(sorted(POSITIVE | NEGATIVE)))
    if bad.height:
        sample = ", ".join(repr(v) for v in bad["label"].unique(maintain_order=True).head(5))
        raise UsageError(
            f"labels file {p}: unknown label(s) {sample}",
            hint="use untrusted (should be quarantined) or trusted",
        )
    if df.height == 0:
        raise UsageError(f"labels file {p} has no labeled rows")
    kind = "domain" if key in ("registered_domain", "domain") else "doc_id"
    keys = df["key"].to_list()
    if key == "url":
        keys = [doc_id_for(u, "", None) for u in keys]
    elif kind == "domain":
        keys = [k.lower().removeprefix("www.") for k in keys]
    return pl.DataFrame(
        {
            "key_kind": [kind] * df.height,
            "key": keys,
            "should_quarantine": df["label"].is_in(sorted(POSITIVE)).to_list(),
        },
        schema={"key_kind": pl.String, "key": pl.String, "should_quarantine": pl.Boolean},
    ).unique("key", keep="last", maintain_order=True)


def join_labels(scores: pl.DataFrame, labels: pl.DataFrame) -> pl.DataFrame:
    """Scores of the labeled pages with their `should_quarantine`; a doc label beats a domain label."""
    by_doc = labels.filter(pl.col("key_kind") == "doc_id").select(
        doc_id="key", should_doc="should_quarantine"
    )
    by_domain = labels.filter(pl.col("key_kind") == "domain").select(
        registered_domain="key", should_domain="should_quarantine"
    )
    out = scores.join(by_doc, on="doc_id", how="left").join(
        by_domain, on="registered_domain", how="left"
    )
    return (
        out.with_columns(should_quarantine=pl.coalesce("should_doc", "should_domain"))
        .filter(pl.col("should_quarantine").is_not_null())
        .drop("should_doc", "should_domain")
    )
