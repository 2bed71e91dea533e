"""Parquet rows read under byte caps that hold whatever the file's encoding.

Why: Parquet compresses repeated text to almost nothing, and a dictionary-encoded column stores a
repeated value once, so the footer's sizes count it once: 40 rows of one 40 MB value fit in a
4 KB file whose footer says 40 MB, and decoding them as plain strings took the reader to 8.4 GB.
Here text columns stored with a dictionary are read as Arrow dictionary arrays (the value once,
then indices), every cell's size is taken from Arrow before any cell is decoded, and rows are
decoded a few at a time, at most `max_bytes` of cells together (docs/limits.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trustaudit.io.parquet_pages import DICTIONARY_INDICES, WHOLE, PageError, first_over
from trustaudit.io.parquet_thrift import DATA_PAGE, DATA_PAGE_V2, DICTIONARY_PAGE, chunk_pages

CONTENT_COLUMNS = ("html", "text")


def is_text_type(t: pa.DataType) -> bool:
    """A string or binary type, plain or dictionary-encoded: the cells whose size is their bytes."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    return bool(
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
    )


def _dictionary_columns(pf: pq.ParquetFile) -> list[str]:
    """Text columns stored with a dictionary in some row group (whose footer size counts each
    distinct value once, not once per row): top-level ones, and the text leaves of lists, maps and
    structs (their paths, `tags.list.element`), which Arrow also reads as dictionaries."""
    meta = pf.metadata
    names = []
    for i in range(meta.num_columns):
        col = meta.schema.column(i)
        if col.physical_type != "BYTE_ARRAY":
            continue
        for g in range(meta.num_row_groups):
            if any("DICTIONARY" in e for e in meta.row_group(g).column(i).encodings):
                names.append(col.path)
                break
    return names


def open_parquet(open_file: Any) -> pq.ParquetFile:
    """The Parquet file `open_file()` opens, its dictionary-encoded text columns read as Arrow
    dictionaries (opened twice when it has some: the footer says which; the first handle is
    closed then, so a remote file does not keep a connection open per input)."""
    pf = pq.ParquetFile(open_file())
    names = _dictionary_columns(pf)
    if not names:
        return pf
    pf.close(force=True)  # force: the handle came from open_file(), not from a path it opened
    return pq.ParquetFile(open_file(), read_dictionary=names)


def open_handle(open_file: Any) -> Any:
    """A seekable binary handle on the file `open_file()` opens (a path or a pyarrow file),
    for reading page headers and pages apart from pyarrow's own handle; the caller closes it."""
    src = open_file()
    return open(src, "rb") if isinstance(src, str | os.PathLike) else src


@dataclass(frozen=True)
class PagePlan:
    """How each row group with a page over `inputs.max_parquet_page_bytes` is read."""

    # row group -> (column path, the page's size, "dictionary" or "data", why it is not read)
    refused: dict[int, tuple[str, int, str, str]] = field(default_factory=dict)
    # row group -> the top-level text columns decoded a value at a time (`parquet_pages`)
    streamed: dict[int, list[str]] = field(default_factory=dict)


def page_plan(pf: pq.ParquetFile, open_file: Any, limit: int, cell_cap: Any) -> PagePlan:
    """The row groups that hold a page Arrow would decode whole at a cost past `limit` bytes,
    and how each is read instead (`PagePlan`).

    Arrow decodes a page whole before it gives a row of its row group, and the format allows
    2 GiB a page: a few KB of zstd hold one. A dictionary page over `limit` is refused: its row
    group is not read. So is a data page over `limit` whose size is over its column's cap
    (`cell_cap(column path)`) times its values: it holds a cell over the cap, told from its
    header alone. pyarrow's default writer makes data pages of 1,024 cells (300 MB for cells
    of 300 KB, all readable), so a data page over `limit` under that bound is read as a stream
    to find its values' lengths (`parquet_pages.first_over`): all under the cap, Arrow reads
    it as before; one over it (a huge cell among small ones), its column is decoded a value at
    a time, when it is a top-level text column, else the row group is not read; a page that
    cannot be read so is not read either. A snappy or LZ4 page has no stream: its column is
    decoded a value at a time without a first reading (which would decompress it whole twice).
    A page of dictionary indices is left to Arrow: its cells are the dictionary's, sized by
    Arrow. The sizes are in the pages' headers (a few bytes each), read only for a column chunk
    whose footer size is over `limit`, so an ordinary file reads nothing."""
    meta = pf.metadata
    plan = PagePlan()
    handle = None
    try:
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            for i in range(group.num_columns):
                col = group.column(i)
                if col.total_uncompressed_size <= limit:
                    continue
                if handle is None:
                    handle = open_handle(open_file)
                column = meta.schema.column(i)
                cap = cell_cap(col.path_in_schema)
                hit = _chunk_plan(handle, col, column, limit, cap, _streamable(pf, column))
                if isinstance(hit, tuple):
                    plan.refused[g] = (col.path_in_schema, *hit)
                    plan.streamed.pop(g, None)
                    break
                if hit:
                    plan.streamed.setdefault(g, []).append(col.path_in_schema)
    finally:
        if handle is not None:
            handle.close()
    return plan


def _streamable(pf: pq.ParquetFile, column: Any) -> str | None:
    """None when `parquet_pages.column_cells` decodes the column (top-level, text, no
    repetition, at most one definition level), else what it is."""
    if column.max_repetition_level > 0 or column.path != column.name:
        return "nested"
    if column.physical_type != "BYTE_ARRAY" or column.max_definition_level > 1:
        return column.physical_type.lower()
    at = pf.schema_arrow.get_field_index(column.name)
    if at < 0 or not is_text_type(pf.schema_arrow.field(at).type):
        return "non-text"
    return None


def _chunk_plan(
    handle: Any, col: Any, column: Any, limit: int, cap: int, unstreamable: str | None
) -> tuple[int, str, str] | bool:
    """How `page_plan` reads column chunk `col`: (the page's size, kind, why) when its row
    group is not read, True when the column is decoded a value at a time, False by Arrow."""
    streamed = False
    levels = (column.max_definition_level, column.max_repetition_level)
    for at, page in chunk_pages(handle, col):
        if page is None:
            return streamed  # the reader finds what is wrong there
        usize = page.usize
        if page.kind == DICTIONARY_PAGE and usize > limit:
            return usize, "dictionary", ""
        if page.kind not in (DATA_PAGE, DATA_PAGE_V2) or usize <= limit:
            continue
        # 4 bytes of length before each value, and its levels: 8 bytes a value of slack
        if usize > page.values * (cap + 8):
            return usize, "data", f", of cells over {cap} bytes"
        if streamed or column.physical_type != "BYTE_ARRAY" or page.encoding in DICTIONARY_INDICES:
            continue  # a page of indices: its cells are the dictionary's, sized by Arrow
        if unstreamable is None and col.compression in WHOLE:
            # no stream to read its lengths from: decompressed once, whole, when it is decoded
            streamed = True
            continue
        try:
            over = first_over(handle, at, page, col.compression, levels, cap, limit)
        except PageError as exc:
            return usize, "data", f", which cannot be read a value at a time ({exc})"
        if over is None:
            continue
        if unstreamable is not None:
            why = f", whose value {over[0]} is {over[1]} bytes, over {cap}, in a {unstreamable} column"
            return usize, "data", why
        streamed = True
    return streamed


def parquet_batches(
    pf: pq.ParquetFile, batch_size: int, max_bytes: int, groups: Iterable[int] | None = None
) -> Iterator[pa.RecordBatch]:
    """The file's rows (of row groups `groups`, all by default) in Arrow batches of about
    `max_bytes` (by each row group's uncompressed size in the footer), at most `batch_size` rows.
    Dictionary columns stay encoded; a batch is still checked cell by cell (`cell_bytes`) and
    decoded in parts (`decoded_parts`)."""
    meta = pf.metadata
    for g in range(meta.num_row_groups) if groups is None else groups:
        group = meta.row_group(g)
        per_row = group.total_byte_size / max(group.num_rows, 1)
        rows = batch_size if per_row <= 0 else int(max(1, min(batch_size, max_bytes // per_row)))
        yield from pf.iter_batches(batch_size=rows, row_groups=[g])


def cell_bytes(col: pa.Array | pa.ChunkedArray) -> list[int]:
    """Each cell's size in bytes, read from Arrow without decoding a dictionary: a text cell's
    bytes, a list's, map's or struct's the sum of its leaves (text by their bytes, others by their
    width, one more for each element of a list), 0 for a null or a top-level cell that is neither
    text nor nested."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if not (is_text_type(col.type) or pa.types.is_nested(col.type)):
        return [0] * len(col)
    return _leaf_bytes(col).tolist()  # type: ignore[no-any-return]


def _leaf_bytes(arr: pa.Array) -> np.ndarray:
    """The bytes of each element of `arr` (`cell_bytes`), as an int64 vector: lists and maps sum
    their values by parent, structs their fields (both as Arrow lays them out, never decoded)."""
    n = len(arr)
    t = arr.type
    if is_text_type(t):
        if isinstance(arr, pa.DictionaryArray):
            lengths = pc.binary_length(arr.dictionary).take(arr.indices)
        else:
            lengths = pc.binary_length(arr)
        return np.asarray(lengths.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    if pa.types.is_struct(t):
        out = np.zeros(n, dtype=np.int64)
        for child in arr.flatten():
            out += _leaf_bytes(child)
        return out
    if (
        pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_fixed_size_list(t)
        or pa.types.is_map(t)
    ):
        if pa.types.is_map(t):  # the layout of a list of (key, item) structs
            entry = pa.struct([t.key_field, t.item_field])
            arr = arr.view(pa.list_(entry))
        values = arr.flatten()
        if len(values) == 0:
            return np.zeros(n, dtype=np.int64)
        parents = pc.list_parent_indices(arr).to_numpy(zero_copy_only=False)
        # each element counts one byte more (its separator in the record's JSON form), so that
        # millions of empty strings in one cell weigh something
        sums = np.bincount(parents, weights=_leaf_bytes(values) + 1, minlength=n)
        return np.asarray(sums, dtype=np.int64)
    width = t.bit_width // 8 if pa.types.is_primitive(t) and t.bit_width >= 8 else 1
    return np.full(n, width, dtype=np.int64)


def decoded_parts(
    batch: pa.RecordBatch, keep: list[int], weights: list[int], max_bytes: int
) -> Iterator[tuple[list[int], pa.RecordBatch]]:
    """The rows `keep` of `batch` (indices), in consecutive parts of at most `max_bytes` of cells
    by `weights` (a heavier row is a part of its own), each part with its dictionaries decoded:
    (the part's row indices in `batch`, the part)."""
    part: list[int] = []
    held = 0
    for i in keep:
        if part and held + weights[i] > max_bytes:
            yield part, _decoded(batch.take(pa.array(part, type=pa.int64())))
            part, held = [], 0
        part.append(i)
        held += weights[i]
    if part:
        yield part, _decoded(batch.take(pa.array(part, type=pa.int64())))


def _decoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """`batch` with each dictionary column as plain values (only the rows it holds)."""
    for i, f in enumerate(batch.schema):
        if pa.types.is_dictionary(f.type):
            col = batch.column(i).dictionary_decode()
            batch = batch.set_column(i, f.name, col)
    return batch


def python_rows(
    batch: pa.RecordBatch, raw: frozenset[str] = frozenset({"html"})
) -> list[dict[str, Any]]:
    """`batch.to_pylist()`, and where a text cell is not UTF-8 (Arrow keeps what the writer gave
    it, and `to_pylist` raised for the whole batch: the file was one `SOURCE_FAILED` row and
    its other records were lost), its text columns read as bytes: the columns `raw` kept as
    bytes (the html, whose charset the page's decoder reads), the others decoded with U+FFFD
    for what is not UTF-8. A nested column that still cannot be read is None in every row."""
    try:
        rows: list[dict[str, Any]] = batch.to_pylist()
        return rows
    except UnicodeDecodeError:
        pass
    cols: dict[str, list[Any]] = {}
    for name, col in zip(batch.schema.names, batch.columns, strict=True):
        cols[name] = python_cells(col, keep_bytes=name in raw)
    names = list(cols)
    return [dict(zip(names, vals, strict=True)) for vals in zip(*cols.values(), strict=True)]


def python_cells(col: pa.Array | pa.ChunkedArray, *, keep_bytes: bool = False) -> list[Any]:
    """A column's cells as Python values, a text column's read as bytes (`keep_bytes`) or decoded
    with U+FFFD for what is not UTF-8: what `python_rows` falls back to."""
    t = col.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        cells = col.cast(pa.large_binary()).to_pylist()
        if keep_bytes:
            return cells
        return [None if b is None else b.decode("utf-8", "replace") for b in cells]
    try:
        return col.to_pylist()  # type: ignore[no-any-return]
    except UnicodeDecodeError:
        return [None] * len(col)
