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
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

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


class _Short(Exception):
    """The bytes read end inside the page header: read more."""


def _varint(head: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(head):
            raise _Short
        b = head[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, at
        if shift > 63:
            raise ValueError("varint too long")


def _zigzag(v: int) -> int:
    return (v >> 1) ^ -(v & 1)


def _skip(head: bytes, at: int, kind: int, depth: int) -> int:
    """The offset after one Thrift compact value of `kind` at `at`."""
    if depth > 16:
        raise ValueError("too deep")
    if kind in (1, 2):  # booleans live in the field header
        return at
    if kind == 3:
        return at + 1
    if kind in (4, 5, 6):
        return _varint(head, at)[1]
    if kind == 7:
        return at + 8
    if kind == 8:
        n, at = _varint(head, at)
        return at + n
    if kind in (9, 10):  # list, set
        if at >= len(head):
            raise _Short
        b = head[at]
        at += 1
        n, elem = b >> 4, b & 0x0F
        if n == 15:
            n, at = _varint(head, at)
        for _ in range(n):
            at = _skip(head, at, elem, depth + 1)
        return at
    if kind == 12:
        return _struct(head, at, depth + 1, {})[1]
    raise ValueError(f"Thrift type {kind}")


def _struct(head: bytes, at: int, depth: int, want: dict[int, int]) -> tuple[dict[int, Any], int]:
    """The i32 fields of one Thrift compact struct at `at` (and, for field ids in `want`, the
    i32 field `want[id]` of that nested struct), and the offset after it."""
    out: dict[int, Any] = {}
    field_id = 0
    while True:
        if at >= len(head):
            raise _Short
        b = head[at]
        at += 1
        if b == 0:
            return out, at
        delta, kind = b >> 4, b & 0x0F
        if delta:
            field_id += delta
        else:
            v, at = _varint(head, at)
            field_id = _zigzag(v)
        if kind == 5:
            v, at = _varint(head, at)
            out[field_id] = _zigzag(v)
        elif kind == 12 and field_id in want:
            inner, at = _struct(head, at, depth + 1, {})
            out[field_id] = inner.get(want[field_id])
        else:
            at = _skip(head, at, kind, depth)


# PageHeader: 1 type, 2 uncompressed_page_size, 3 compressed_page_size; the num_values (field 1)
# of data_page_header (5), dictionary_page_header (7), data_page_header_v2 (8)
_NESTED_NUM_VALUES = {5: 1, 7: 1, 8: 1}
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3


def page_header(handle: Any, at: int) -> tuple[int, int, int, int, int] | None:
    """(type, uncompressed size, compressed size, values, header length) of the Thrift compact
    `PageHeader` at byte `at` of `handle`, or None when it cannot be read there (the reader then
    finds what is wrong). Page statistics can make a header a few KB: read as far as it goes."""
    size = 256
    while size <= 1 << 20:
        handle.seek(at)
        head = handle.read(size)
        try:
            fields, end = _struct(head, 0, 0, _NESTED_NUM_VALUES)
        except _Short:
            if len(head) < size:
                return None
            size *= 4
            continue
        except (ValueError, IndexError):
            return None
        kind, usize, csize = fields.get(1), fields.get(2), fields.get(3)
        values = next((fields[k] for k in (5, 8, 7) if isinstance(fields.get(k), int)), None)
        if not all(isinstance(x, int) for x in (kind, usize, csize, values)):
            return None
        return kind, usize, csize, values, end  # type: ignore[return-value]
    return None


def oversized_pages(
    pf: pq.ParquetFile, open_file: Any, limit: int, cell_cap: Any
) -> dict[int, tuple[str, int, str]]:
    """Row groups that hold a page Arrow would decode whole at a cost past `limit` bytes:
    {row group: (column path, the page's size, "dictionary" or "data")}.

    Arrow decodes a page whole before it gives a row of its row group, and the format allows
    2 GiB a page: a few KB of zstd hold one. A dictionary page over `limit` is refused. A data
    page over `limit` is refused only when it holds a cell over its column's cap
    (`cell_cap(column path)`), told by its size being over that cap times its values: such a
    page is a bomb of cells that are error rows anyway, while pyarrow's default writer makes
    data pages of 1,024 cells (300 MB for cells of 300 KB, all readable), which are read. The
    sizes are in the pages' headers (a few bytes each), read only for a column chunk whose footer
    size is over `limit`, so an ordinary file reads nothing."""
    meta = pf.metadata
    out: dict[int, tuple[str, int, str]] = {}
    handle = None
    try:
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            for i in range(group.num_columns):
                col = group.column(i)
                if col.total_uncompressed_size <= limit:
                    continue
                if handle is None:
                    src = open_file()
                    handle = open(src, "rb") if isinstance(src, str | os.PathLike) else src  # noqa: SIM115
                hit = _oversized_page(handle, col, limit, cell_cap(col.path_in_schema))
                if hit is not None:
                    out[g] = (col.path_in_schema, *hit)
                    break
    finally:
        if handle is not None:
            handle.close()
    return out


def _oversized_page(handle: Any, col: Any, limit: int, cap: int) -> tuple[int, str] | None:
    """The first page of column chunk `col` that `oversized_pages` refuses: (size, kind)."""
    at = col.data_page_offset
    if col.has_dictionary_page and col.dictionary_page_offset is not None:
        at = min(at, col.dictionary_page_offset)
    end = at + col.total_compressed_size
    while at < end:
        header = page_header(handle, at)
        if header is None:
            return None
        kind, usize, csize, values, length = header
        if kind == DICTIONARY_PAGE and usize > limit:
            return usize, "dictionary"
        # 4 bytes of length before each value, and its levels: 8 bytes a value of slack
        if kind in (DATA_PAGE, DATA_PAGE_V2) and usize > limit and usize > values * (cap + 8):
            return usize, "data"
        if csize < 0 or length <= 0:
            return None
        at += length + csize
    return None


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
