"""A run's pages and links as a `stages.PageSource` read from Parquet a batch at a time.

Why: the signal stage used to hold the merged pages and links from the merge to the end of the
stage (+485 MB at 7,970 pages, issue 16). Through `ParquetPages` the whole-corpus steps see the
pages without their text (`stages.HEAVY_COLUMNS`), the links pass in batches, and the per-page and
corpus families read one batch of pages (and its links) at a time; the flagged links are written
to their file batch by batch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl

from trustaudit.io.atomic import atomic_path, write_parquet
from trustaudit.scoring.coherence import text_bytes_expr
from trustaudit.stages import HEAVY_COLUMNS

__all__ = ["ParquetPages"]

# links taken at once by the whole-corpus passes over them (anchors, affiliate flags): ≈ 35 MB
# of real links; a corpus with fewer is read once and kept for the stage, as it was held before
_LINK_ROWS = 262_144


class ParquetPages:
    """The pages in `pages` and the links in `links_in` (Parquet files), with the flagged links
    written to `links_out` (atomically, when `put_link_flags` is called); the links pass in
    batches of `link_rows`.

    `links_in` and `links_out` may be the same file (a rescore reads a run's flagged links and
    writes them again): the new file replaces the old only when it is complete. Reads go through
    Polars (slice pushdown: a batch decodes the row groups it overlaps, `ingest.PAGE_ROW_GROUP`);
    a corpus of one batch is read once and kept for the stage, as it was held before.
    """

    def __init__(
        self, pages: Path, links_in: Path, links_out: Path, *, link_rows: int = _LINK_ROWS
    ) -> None:
        self.pages, self.links_in, self.links_out = pages, links_in, links_out
        self.link_rows = link_rows
        scan = pl.scan_parquet(pages, glob=False)
        self._names = scan.collect_schema().names()
        self.height = int(scan.select(pl.len()).collect().item())
        self._whole: pl.DataFrame | None = None  # a one-batch corpus, read once
        self._links: pl.DataFrame | None = None  # links of one batch, read once (then flagged)
        self._flagged = False

    def meta(self) -> pl.DataFrame:
        if self._whole is not None:
            return self._whole.drop(HEAVY_COLUMNS, strict=False)
        return pl.read_parquet(
            self.pages, columns=[c for c in self._names if c not in HEAVY_COLUMNS], glob=False
        )

    def text_bytes(self) -> list[int]:
        size = text_bytes_expr(self._names)
        if size is None:
            return [0] * self.height
        return pl.scan_parquet(self.pages, glob=False).select(size).collect().to_series().to_list()

    def slices(self, bounds: list[tuple[int, int]]) -> Iterator[pl.DataFrame]:
        if bounds == [(0, self.height)]:
            yield self.read_all()
            return
        for start, length in bounds:
            yield pl.scan_parquet(self.pages, glob=False).slice(start, length).collect()

    def read_all(self) -> pl.DataFrame:
        if self._whole is None:
            self._whole = pl.read_parquet(self.pages, glob=False)
        return self._whole

    def corpus_input(self) -> pl.DataFrame | list[Path]:
        return [self.pages]

    def link_batches(self) -> Iterator[pl.DataFrame]:
        if self._links is not None:
            yield self._links
            return
        scan = pl.scan_parquet(self.links_in, glob=False)
        rows = int(scan.select(pl.len()).collect().item())
        if rows <= self.link_rows:
            self._links = scan.collect()
            yield self._links
            return
        for start in range(0, rows, self.link_rows):
            yield scan.slice(start, self.link_rows).collect()

    def put_link_flags(self, flags: pl.DataFrame) -> None:
        if self._links is not None:  # one batch, in memory: flagged as the frames are
            if self._links.height != flags.height:
                raise ValueError(f"{flags.height} link flags for {self._links.height} links")
            dropped = self._links.drop("is_affiliate", "is_sponsored", strict=False)
            self._links = dropped.hstack(flags)
            write_parquet(self.links_out, self._links)
            self._flagged = True
            return
        links = pl.scan_parquet(self.links_in, glob=False).drop(
            "is_affiliate", "is_sponsored", strict=False
        )
        rows = int(links.select(pl.len()).collect().item())
        if rows != flags.height:
            raise ValueError(f"{flags.height} link flags for {rows} links")
        # the flags are one small row per link: joined back by position, streaming to the file
        flagged = (
            links.with_row_index("_link")
            .join(flags.with_row_index("_link").lazy(), on="_link", maintain_order="left")
            .drop("_link")
        )
        with atomic_path(self.links_out) as tmp:
            flagged.sink_parquet(tmp, compression="zstd", row_group_size=self.link_rows)
        self._flagged = True

    def links_of(self, pages: pl.DataFrame) -> pl.DataFrame:
        if not self._flagged:
            raise RuntimeError("put_link_flags first")
        if pages.height == self.height:
            return (
                self._links
                if self._links is not None
                else pl.read_parquet(self.links_out, glob=False)
            )
        mine = pl.col("doc_id").is_in(pages["doc_id"].implode())
        if self._links is not None:
            return self._links.filter(mine)
        return pl.scan_parquet(self.links_out, glob=False).filter(mine).collect()

    def flagged_links(self) -> pl.DataFrame | None:
        return None

    def digest(self, digest: Callable[[pl.DataFrame], str], *, links: bool = False) -> str:
        h = hashlib.sha256()
        if links:
            for batch in self.link_batches():
                h.update(digest(batch).encode())
        else:
            step = 1_000
            bounds = [(s, min(step, self.height - s)) for s in range(0, self.height, step)]
            for frame in self.slices(bounds):
                h.update(digest(frame).encode())
        return h.hexdigest()[:32]
