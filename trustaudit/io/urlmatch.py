"""Find a run's pages by the way people name them: the URL as audited, the same URL in another
spelling (host case, default port, fragment), or the page's doc_id.

One matcher for every command that joins outside references to a run (`explain`, `fuse`), so a URL
that finds a page in one finds it in the other.
"""

from __future__ import annotations

import polars as pl

from trustaudit.io.records import doc_id_for


def match_doc_ids(refs: pl.Series, pages: pl.LazyFrame) -> pl.Series:
    """The run doc_id each reference names (null when none), aligned with `refs`.

    A reference matches, in this order: a page's `url` exactly, a page's `doc_id`, or the doc_id of
    its normalised form (`doc_id_for`, the hash the run used). `pages` needs `doc_id` and `url`
    columns (scores or pages table). Each distinct reference is normalised once, so a batch of 100k
    results over a few thousand URLs hashes a few thousand strings.
    """
    keys = refs.cast(pl.String).str.strip_chars()
    present = keys.drop_nulls().unique()
    uniq = present.filter(present != "")
    wanted = uniq.to_list()
    table = pages.select(pl.col("doc_id").cast(pl.String), pl.col("url").cast(pl.String))
    by_url = (
        table.filter(pl.col("url").is_in(wanted))
        .unique("url", keep="first", maintain_order=True)
        .select(ref="url", by_url="doc_id")
        .collect()
    )
    by_id = (
        table.filter(pl.col("doc_id").is_in(wanted))
        .unique("doc_id")
        .select(ref="doc_id", by_id="doc_id")
        .collect()
    )
    resolved = (
        pl.DataFrame({"ref": uniq})
        .join(by_url, on="ref", how="left")
        .join(by_id, on="ref", how="left")
        .select("ref", doc_id=pl.coalesce("by_url", "by_id"))
    )
    # only references not found as written pay for normalisation (a Python call each)
    rest = resolved.filter(pl.col("doc_id").is_null()).get_column("ref").to_list()
    if rest:
        norm = [doc_id_for(u, "", None) for u in rest]
        hits = set(
            table.filter(pl.col("doc_id").is_in(norm)).select("doc_id").collect().to_series()
        )
        by_norm = pl.DataFrame(
            {"ref": rest, "by_norm": [d if d in hits else None for d in norm]},
            schema={"ref": pl.String, "by_norm": pl.String},
        )
        resolved = resolved.join(by_norm, on="ref", how="left").select(
            "ref", doc_id=pl.coalesce("doc_id", "by_norm")
        )
    return (
        pl.DataFrame({"ref": keys})
        .join(resolved, on="ref", how="left", maintain_order="left")
        .get_column("doc_id")
        .alias("doc_id")
    )
