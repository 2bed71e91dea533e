"""Labeled sets for evals-as-code: a CSV that says which pages (or domains) must be quarantined.

Columns: `label` plus one key — `doc_id`, `url` (normalized like doc ids, so trailing slashes and case
of the host do not matter) or `domain`/`registered_domain` (the label covers every page of the domain).
Labels: untrusted/bad/quarantine/spam/1/true are positives (should be quarantined); trusted/good/ok/
0/false are negatives. Anything else is an input error, so a typo cannot silently shrink the eval set.
This is the one reader of the labels CSV: `report.calibrate` reads it through `read_label_rows` too.
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


_KIND = {"doc_id": "doc_id", "url": "url", "registered_domain": "domain", "domain": "domain"}


def read_label_rows(path: str | Path) -> pl.DataFrame:
    """The labels CSV, read one way for every consumer (gate, evals, calibration): `kind`
    (`doc_id`, `url` or `domain`), `key` (as written, stripped), `untrusted` (bool), in file order.

    Each row is keyed by its first non-empty key column in the order of KEYS, so one file may mix
    URL and domain rows. Why one reader: the gate and the calibration report read the same file
    with different rules (one accepted `bad`, the other exited 2 on it).
    """
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"labels file not found: {p}")
    try:
        df = pl.read_csv(p, infer_schema=False, truncate_ragged_lines=True, glob=False)
    except (pl.exceptions.PolarsError, UnicodeDecodeError, OSError) as exc:
        raise UsageError(f"labels file {p} is not a readable CSV: {exc}") from None
    cols = {c.strip().lower(): c for c in df.columns}
    keys = [k for k in KEYS if k in cols]
    if "label" not in cols or not keys:
        raise UsageError(
            f"labels file {p} needs a `label` column and one of {', '.join(KEYS)}",
            hint="e.g. `url,label` rows such as `https://example.com/a,untrusted`",
        )
    given = [pl.col(cols[k]).str.strip_chars() for k in keys]
    given = [pl.when(g != "").then(g) for g in given]
    df = df.select(
        kind=pl.coalesce(
            [
                pl.when(g.is_not_null()).then(pl.lit(_KIND[k]))
                for k, g in zip(keys, given, strict=True)
            ]
        ),
        key=pl.coalesce(given),
        label=pl.col(cols["label"]).str.strip_chars().str.to_lowercase(),
    ).filter(pl.col("label").is_not_null() & (pl.col("label") != ""))
    bad = df.filter(~pl.col("label").is_in(sorted(POSITIVE | NEGATIVE)))
    if bad.height:
        sample = ", ".join(repr(v) for v in bad["label"].unique(maintain_order=True).head(5))
        raise UsageError(
            f"labels file {p}: unknown label(s) {sample}",
            hint="use untrusted (should be quarantined) or trusted",
        )
    return df.filter(pl.col("key").is_not_null()).select(
        "kind", "key", untrusted=pl.col("label").is_in(sorted(POSITIVE))
    )


def read_labels(path: str | Path) -> pl.DataFrame:
    """Return (`key_kind`, `key`, `should_quarantine`) rows; `key_kind` is `doc_id` or `domain`.

    URL keys become doc ids here so they join scores.parquet the same way the pipeline names pages;
    a key labelled twice keeps its last label.
    """
    rows = read_label_rows(path)
    if rows.height == 0:
        raise UsageError(f"labels file {Path(path)} has no labeled rows")
    keys = [
        doc_id_for(k, "", None)
        if kind == "url"
        else k.lower().removeprefix("www.")
        if kind == "domain"
        else k
        for kind, k in zip(rows["kind"], rows["key"], strict=True)
    ]
    return pl.DataFrame(
        {
            "key_kind": ["domain" if k == "domain" else "doc_id" for k in rows["kind"]],
            "key": keys,
            "should_quarantine": rows["untrusted"].to_list(),
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
