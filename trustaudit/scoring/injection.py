"""Injection signals: counts and reasons from the per-page findings of the raw-HTML scanner.

The scan itself runs in the extraction stage (`trustaudit.injection.scan_html`, per document, inside the
workers) because it needs the raw HTML; this module only turns the stored `injection_findings` column into
signals, reason codes and the hard quarantine rule. Pure Polars, no I/O.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from trustaudit.policy import Policy
from trustaudit.schema import FINDING_TYPE

__all__ = ["FINDING_DTYPE", "MAX_REASONS", "injection_signals"]

# the finding struct as Polars sees it, from the one declaration in trustaudit.schema
FINDING_DTYPE = pl.Series(pa.array([], type=FINDING_TYPE)).dtype
MAX_REASONS = 3  # reasons per page: the best-scoring findings; counts carry the rest
_SNIPPET_IN_REASON = 80

_OUT_SCHEMA = pl.Schema(
    {
        "doc_id": pl.String(),
        "injection_count": pl.Int64(),
        "injection_hidden_count": pl.Int64(),
        "injection_visible_count": pl.Int64(),
        "injection_quoted_count": pl.Int64(),
        "injection_max_score": pl.Float64(),
        "injection_techniques": pl.List(pl.String()),
        "reasons_injection": pl.List(pl.String()),
        "quarantine_injection": pl.Boolean(),
        "adjust_injection_quoted": pl.Float64(),
    }
)


# `quoted` of a finding addressed to a person, hidden or not (`injection.addressee.PERSON`; the
# scoring layer does not import the scanner)
_PERSON = "person"


def quoted_finding(technique: pl.Expr, quoted: pl.Expr, quoted_context: bool) -> pl.Expr:
    """True for a finding that does not quarantine: quoted in plain sight, or addressed to a person.

    The one definition the scorer, the gate and the list suggestions share, so a security article
    that quotes an attack is neither quarantined, nor a failed CI gate, nor a blocklist suggestion.
    Hidden text is never quoted, but it may be addressed to a person (`addressee`: an exam's rubric).
    """
    q = quoted.fill_null("")
    return ((technique == "visible") | (q == _PERSON)) & (q != "") & pl.lit(quoted_context)


def aimed_findings(dtype: pl.DataType, quoted_context: bool) -> pl.Expr:
    """`injection_findings` (of type `dtype`) without the quoted ones: those aimed at the reader.

    Findings stored before `quoted` existed are all aimed.
    """
    findings = pl.col("injection_findings")
    inner = getattr(dtype, "inner", None)
    if "quoted" not in [f.name for f in getattr(inner, "fields", [])]:
        return findings
    el = pl.element()
    return findings.list.eval(
        el.filter(
            ~quoted_finding(el.struct.field("technique"), el.struct.field("quoted"), quoted_context)
        )
    )


def page_injection_counts(
    signals: pl.LazyFrame | None, pages: pl.LazyFrame | None, quoted_context: bool
) -> pl.DataFrame | None:
    """doc_id, injection_count (every finding), injection_aimed (those not quoted), per page.

    From the scorer's signals when it wrote the counts, else from the pages' findings; None when
    neither holds them. A run scored before quoted findings were counted apart (no
    `injection_quoted_count`, or findings without `quoted`) counts every finding as aimed.
    """
    if signals is not None and "injection_count" in signals.collect_schema().names():
        return signal_injection_counts(signals)
    schema = pages.collect_schema() if pages is not None else None
    if pages is None or schema is None or "injection_findings" not in schema.names():
        return None
    return pages.select(
        pl.col("doc_id").cast(pl.String),
        *finding_counts(schema["injection_findings"], quoted_context),
    ).collect()


def signal_injection_counts(signals: pl.LazyFrame) -> pl.DataFrame:
    """doc_id, injection_count, injection_aimed from the scorer's signals (which hold
    `injection_count`); without `injection_quoted_count` (an older run) every finding is aimed."""
    quoted = (
        pl.col("injection_quoted_count").fill_null(0)
        if "injection_quoted_count" in signals.collect_schema().names()
        else pl.lit(0)
    )
    count = pl.col("injection_count").fill_null(0)
    return signals.select(
        pl.col("doc_id").cast(pl.String),
        count.cast(pl.Int64),
        (count - quoted).cast(pl.Int64).alias("injection_aimed"),
    ).collect()


def finding_counts(dtype: pl.DataType, quoted_context: bool) -> list[pl.Expr]:
    """`injection_count` and `injection_aimed` of a page's `injection_findings` (of type `dtype`)."""
    findings = pl.col("injection_findings")
    aimed = aimed_findings(dtype, quoted_context)
    return [
        findings.list.len().fill_null(0).cast(pl.Int64).alias("injection_count"),
        aimed.list.len().fill_null(0).cast(pl.Int64).alias("injection_aimed"),
    ]


def injection_signals(pages: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """One row per doc_id: injection counts, max score, techniques, reasons and the quarantine flag.

    Reasons are `INJECTION_HIDDEN: <technique> in <location> (score s): "<snippet>"`,
    `INJECTION_VISIBLE: …` for text in plain sight, or `INJECTION_QUOTED: …` for visible text the page
    quotes (code, quotation, example, security article); an obfuscated finding names its obfuscation
    and shows the decoded text: `(score s, base64): decoded "<text>"`. Snippets are raw (reports escape
    them). Any finding that is not quoted quarantines the page (hidden instructions always do, so a page
    that quotes an injection and also hides one is quarantined, unless the hidden text is addressed
    to a person, ``quoted`` = ``person``: an exam's rubric); a page that only quotes gets
    `adjust_injection_quoted` = -`quoted_penalty` instead. A page whose `injection_findings` column is
    absent gets null counts and `INJECTION_NOT_COMPUTED`.
    """
    if "injection_findings" not in pages.columns:
        return pages.select(
            pl.col("doc_id").cast(pl.String),
            pl.lit(None, pl.Int64).alias("injection_count"),
            pl.lit(None, pl.Int64).alias("injection_hidden_count"),
            pl.lit(None, pl.Int64).alias("injection_visible_count"),
            pl.lit(None, pl.Int64).alias("injection_quoted_count"),
            pl.lit(None, pl.Float64).alias("injection_max_score"),
            pl.lit([], pl.List(pl.String)).alias("injection_techniques"),
            pl.lit(
                ["INJECTION_NOT_COMPUTED: no raw-HTML scan stored for this page"],
                pl.List(pl.String),
            ).alias("reasons_injection"),
            pl.lit(False).alias("quarantine_injection"),
            pl.lit(0.0).alias("adjust_injection_quoted"),
        )

    base = pages.select(
        pl.col("doc_id").cast(pl.String),
        pl.col("injection_findings").cast(pl.List(FINDING_DTYPE)).fill_null([]),
    )
    flat = (
        base.explode("injection_findings")
        .filter(pl.col("injection_findings").is_not_null())
        .unnest("injection_findings")
        .with_columns(
            (pl.col("technique") != "visible").alias("_hidden"),
            pl.col("snippet").fill_null("").str.replace_all(r"\s+", " "),
            pl.col("obfuscation").fill_null(""),
            pl.col("intent").fill_null(""),
            pl.col("lang").fill_null(""),
            pl.col("rule").fill_null(""),
            pl.col("decoded").fill_null("").str.replace_all(r"\s+", " "),
        )
        .with_columns(
            quoted_finding(
                pl.col("technique"), pl.col("quoted"), policy.injection.quoted_context
            ).alias("_quoted")
        )
    )
    shown = (
        pl.when(pl.col("decoded") != "")
        .then(pl.lit('decoded "') + pl.col("decoded").str.slice(0, _SNIPPET_IN_REASON))
        .otherwise(pl.lit('"') + pl.col("snippet").str.slice(0, _SNIPPET_IN_REASON))
    )
    detail = (
        pl.when(pl.col("_quoted"))
        .then(pl.lit("INJECTION_QUOTED: "))
        .when(pl.col("_hidden"))
        .then(pl.lit("INJECTION_HIDDEN: "))
        .otherwise(pl.lit("INJECTION_VISIBLE: "))
        + pl.col("technique")
        + pl.lit(" in ")
        + pl.col("location")
        + pl.lit(" (score ")
        + pl.col("score").round(2).cast(pl.String)
        # intent and language of the passage, and whether the multilingual model supported it
        + pl.when(pl.col("intent") != "")
        .then(pl.lit(", intent ") + pl.col("intent"))
        .otherwise(pl.lit(""))
        + pl.when(pl.col("lang") != "")
        .then(pl.lit(", lang ") + pl.col("lang"))
        .otherwise(pl.lit(""))
        + pl.when(pl.col("rule").str.contains("semantic", literal=True))
        .then(pl.lit(", model-supported"))
        .otherwise(pl.lit(""))
        + pl.when(pl.col("obfuscation") != "")
        .then(pl.lit(", ") + pl.col("obfuscation"))
        .otherwise(pl.lit(""))
        + pl.when(pl.col("_quoted"))
        .then(pl.lit(", quoted: ") + pl.col("quoted"))
        .otherwise(pl.lit(""))
        + pl.lit("): ")
        + shown
        + pl.lit('"')
    )
    agg = (
        flat.sort(["doc_id", "score"], descending=[False, True])
        .group_by("doc_id", maintain_order=True)
        .agg(
            pl.len().cast(pl.Int64).alias("injection_count"),
            pl.col("_hidden").sum().cast(pl.Int64).alias("injection_hidden_count"),
            (~pl.col("_hidden")).sum().cast(pl.Int64).alias("injection_visible_count"),
            pl.col("_quoted").sum().cast(pl.Int64).alias("injection_quoted_count"),
            pl.col("score").max().alias("injection_max_score"),
            pl.col("technique").unique(maintain_order=True).alias("injection_techniques"),
            detail.head(MAX_REASONS).alias("reasons_injection"),
        )
    )
    out = base.select("doc_id").join(agg, on="doc_id", how="left", maintain_order="left")
    quarantine = policy.injection.quarantine and policy.injection.enabled
    return (
        out.with_columns(
            pl.col(
                "injection_count",
                "injection_hidden_count",
                "injection_visible_count",
                "injection_quoted_count",
            ).fill_null(0),
            pl.col("injection_max_score").fill_null(0.0),
            pl.col("injection_techniques").fill_null([]),
            pl.col("reasons_injection").fill_null([]),
        )
        .with_columns(
            (
                (pl.col("injection_count") > pl.col("injection_quoted_count")) & pl.lit(quarantine)
            ).alias("quarantine_injection"),
            pl.when(
                (pl.col("injection_quoted_count") > 0)
                & (pl.col("injection_count") == pl.col("injection_quoted_count"))
            )
            .then(pl.lit(-abs(policy.injection.quoted_penalty)))
            .otherwise(pl.lit(0.0))
            .alias("adjust_injection_quoted"),
        )
        .select(list(_OUT_SCHEMA))
        .cast(_OUT_SCHEMA)
    )  # type: ignore[arg-type]
