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
import pyarrow as pa
import pyarrow.parquet as pq

from trustaudit.io.atomic import atomic_path
from trustaudit.stages import HEAVY_COLUMNS, page_text_bytes

__all__ = ["ParquetPages"]

# rows decoded at once when a table is read in batches (a batch of pages is cut from these)
_READ_ROWS = 256
_LINK_ROWS = 65_536


def _frame(batches: list[pa.RecordBatch], schema: pa.Schema) -> pl.DataFrame:
    frame = pl.from_arrow(pa.Table.from_batches(batches, schema=schema))
    assert isinstance(frame, pl.DataFrame)
    return frame


class ParquetPages:
    """The pages in `pages` and the links in `links_in` (Parquet files), with the flagged links
    written to `links_out` (atomically, when `put_link_flags` is called); the links pass in
    batches of `link_rows`.

    `links_in` and `links_out` may be the same file (a rescore reads a run's flagged links and
    writes them again): the new file replaces the old only when it is complete.
    """

    def __init__(
        self, pages: Path, links_in: Path, links_out: Path, *, link_rows: int = _LINK_ROWS
    ) -> None:
        self.pages, self.links_in, self.links_out = pages, links_in, links_out
        self.link_rows = link_rows
        self._pages_file = pq.ParquetFile(pages)
        self.height = self._pages_file.metadata.num_rows
        self._names = self._pages_file.schema_arrow.names
        self._flagged = False

    def _iter(
        self, path: Path, rows: int, columns: list[str] | None = None
    ) -> Iterator[pa.RecordBatch]:
        with pq.ParquetFile(path) as pf:
            yield from pf.iter_batches(batch_size=rows, columns=columns)

    def meta(self) -> pl.DataFrame:
        return pl.read_parquet(
            self.pages, columns=[c for c in self._names if c not in HEAVY_COLUMNS]
        )

    def text_bytes(self) -> list[int]:
        column = [c for c in ("text", "paragraphs") if c in self._names][:1]
        if not column:
            return [0] * self.height
        sizes: list[int] = []
        schema = self._pages_file.schema_arrow
        for batch in self._iter(self.pages, _READ_ROWS * 4, column):
            sizes += page_text_bytes(_frame([batch], pa.schema([schema.field(column[0])])))
        return sizes

    def slices(self, bounds: list[tuple[int, int]]) -> Iterator[pl.DataFrame]:
        schema = self._pages_file.schema_arrow
        held: list[pa.RecordBatch] = []
        rows = 0  # rows in `held`
        batches = self._iter(self.pages, _READ_ROWS)
        for _start, length in bounds:  # consecutive, from 0
            while rows < length:
                batch = next(batches)
                held.append(batch)
                rows += batch.num_rows
            table = pa.Table.from_batches(held, schema=schema)
            frame = pl.from_arrow(table.slice(0, length))
            assert isinstance(frame, pl.DataFrame)
            rest = table.slice(length)
            held, rows = rest.to_batches(), rest.num_rows
            del table, rest
            yield frame

    def read_all(self) -> pl.DataFrame:
        return pl.read_parquet(self.pages)

    def corpus_input(self) -> pl.DataFrame | list[Path]:
        return [self.pages]

    def link_batches(self) -> Iterator[pl.DataFrame]:
        schema = pq.read_schema(self.links_in)
        given = 0
        for batch in self._iter(self.links_in, self.link_rows):
            given += 1
            yield _frame([batch], schema)
        if not given:  # no links: one empty batch, so every step still sees their columns
            yield _frame([], schema)

    def put_link_flags(self, flags: pl.DataFrame) -> None:
        offset = 0
        writer: pq.ParquetWriter | None = None
        schema: pa.Schema | None = None
        with atomic_path(self.links_out) as tmp:
            try:
                for batch in self.link_batches():
                    part = batch.drop("is_affiliate", "is_sponsored", strict=False).hstack(
                        flags.slice(offset, batch.height)
                    )
                    offset += batch.height
                    table = part.to_arrow()
                    if writer is None:
                        schema = table.schema
                        writer = pq.ParquetWriter(tmp, schema, compression="zstd")
                    writer.write_table(table.cast(schema))
            finally:
                if writer is not None:
                    writer.close()
        if offset != flags.height:
            raise ValueError(f"{flags.height} link flags for {offset} links")
        self._flagged = True

    def links_of(self, pages: pl.DataFrame) -> pl.DataFrame:
        if not self._flagged:
            raise RuntimeError("put_link_flags first")
        lazy = pl.scan_parquet(self.links_out)
        if pages.height == self.height:
            return lazy.collect()
        return lazy.filter(pl.col("doc_id").is_in(pages["doc_id"].implode())).collect()

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
