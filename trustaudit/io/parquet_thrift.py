"""Parquet page headers read from their Thrift compact bytes, without decoding any page.

Why: a page's header says how large it is once decompressed, how it is encoded and compressed,
before a byte of it is decompressed; pyarrow reads headers only while it decodes the pages, whole
(docs/limits.md, `inputs.max_parquet_page_bytes`). Only the fields the readers need are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple


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
        if elem in (1, 2):  # a boolean element is a byte of its own
            return at + n
        for _ in range(n):
            at = _skip(head, at, elem, depth + 1)
        return at
    if kind == 12:
        return _struct(head, at, depth + 1)[1]
    raise ValueError(f"Thrift type {kind}")


def _struct(
    head: bytes, at: int, depth: int, nested: frozenset[int] = frozenset()
) -> tuple[dict[int, Any], int]:
    """The i32 and boolean fields of one Thrift compact struct at `at` (and, for field ids in
    `nested`, that nested struct's i32 and boolean fields, as a dict), and the offset after it."""
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
        elif kind in (1, 2):  # a boolean field: its value is its type
            out[field_id] = kind == 1
        elif kind == 12 and field_id in nested:
            out[field_id], at = _struct(head, at, depth + 1)
        else:
            at = _skip(head, at, kind, depth)


# PageHeader: 1 type, 2 uncompressed_page_size, 3 compressed_page_size, then one of
# data_page_header (5), dictionary_page_header (7), data_page_header_v2 (8)
_PAGE_HEADERS = frozenset({5, 7, 8})
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3


class Page(NamedTuple):
    """A Parquet page header's fields that say how to read the page (parquet.thrift's names)."""

    kind: int  # DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 (or another type, passed over)
    usize: int  # bytes once decompressed (a V2 page's levels included)
    csize: int  # bytes stored after the header
    values: int  # values with nulls (levels) in a data page, entries in a dictionary page
    length: int  # bytes of the header itself
    encoding: int  # of the values: 0 PLAIN, 2/8 dictionary indices, 6/7 DELTA_(LENGTH_)BYTE_ARRAY
    level_encodings: tuple[int, int]  # V1: of the definition and repetition levels (3 RLE)
    level_bytes: tuple[int, int]  # V2: of the definition and repetition levels, stored plain
    compressed: bool  # V2: whether the values are compressed (always, in a V1 page)


def read_page(handle: Any, at: int) -> Page | None:
    """The Thrift compact `PageHeader` at byte `at` of `handle`, or None when it cannot be read
    there (the reader then finds what is wrong). Page statistics can make a header a few KB:
    read as far as it goes."""
    size = 256
    while size <= 1 << 20:
        handle.seek(at)
        head = handle.read(size)
        try:
            fields, end = _struct(head, 0, 0, _PAGE_HEADERS)
        except _Short:
            if len(head) < size:
                return None
            size *= 4
            continue
        except (ValueError, IndexError):
            return None
        top = {k: v for k, v in fields.items() if type(v) is int}
        inner: dict[int, Any] = next(
            (fields[k] for k in (5, 8, 7) if isinstance(fields.get(k), dict)), {}
        )
        ints = {k: v for k, v in inner.items() if type(v) is int}
        if not all(k in top for k in (1, 2, 3)) or 1 not in ints:
            return None
        v2 = top[1] == DATA_PAGE_V2
        return Page(
            kind=top[1],
            usize=top[2],
            csize=top[3],
            values=ints[1],
            length=end,
            encoding=ints.get(4 if v2 else 2, -1),
            level_encodings=(-1, -1) if v2 else (ints.get(3, -1), ints.get(4, -1)),
            level_bytes=(ints.get(5, 0), ints.get(6, 0)) if v2 else (0, 0),
            compressed=inner.get(7) is not False if v2 else True,
        )
    return None


def page_header(handle: Any, at: int) -> tuple[int, int, int, int, int] | None:
    """(type, uncompressed size, compressed size, values, header length) of the page header at
    byte `at` of `handle` (`read_page`), or None."""
    page = read_page(handle, at)
    return None if page is None else page[:5]


def chunk_pages(handle: Any, col: Any) -> Iterator[tuple[int, Page | None]]:
    """(offset, header) of each page of column chunk `col` (pyarrow's `ColumnChunkMetaData`), in
    order, its dictionary page first; a header that cannot be read is None, and the last."""
    at = col.data_page_offset
    if col.has_dictionary_page and col.dictionary_page_offset is not None:
        at = min(at, col.dictionary_page_offset)
    end = at + col.total_compressed_size
    while at < end:
        page = read_page(handle, at)
        yield at, page
        if page is None or page.csize < 0 or page.length <= 0:
            return
        at += page.length + page.csize
