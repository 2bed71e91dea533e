"""Parquet text pages read as a stream: each value's size from its length, the page never whole.

Why: Arrow decompresses and decodes a data page whole before it gives any row of its row group,
and the format allows 2 GiB a page. `parquet_cells.page_plan` refuses a page whose size alone
says it holds a cell over the cap, but one huge cell among many small ones keeps the average
under it: one 1.8 GB cell among 2,000 of 20 bytes (an 80 KB zstd file) took the reader to 3.7 GB.
Here a data page over `inputs.max_parquet_page_bytes` is decompressed a block at a time and only
its values' lengths are read (`first_over`); when one is over its cap, the column chunk is
decoded here, value by value (`column_cells`): the huge value is passed over unread, so its record
is an error row and the others are pages, with memory bounded by the caps, not by the page.

zstd, gzip and brotli pages are decompressed by pyarrow's streams. Snappy and LZ4 have no
streaming decoder in the pinned libraries (pyarrow's codec decompresses a whole buffer): such a
page is decompressed whole, once, by that codec (its own size, ~1x instead of Arrow's ~2x).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from trustaudit.io.parquet_thrift import (
    DATA_PAGE,
    DATA_PAGE_V2,
    DICTIONARY_PAGE,
    Page,
    chunk_pages,
)

# pyarrow's names of the Parquet codecs (ColumnChunkMetaData.compression) it can stream / not;
# its "LZ4" is the format's LZ4_RAW, and the Hadoop-framed LZ4 is "UNKNOWN" (not read here)
STREAMED = {"ZSTD": "zstd", "GZIP": "gzip", "BROTLI": "brotli"}
WHOLE = {"SNAPPY": "snappy", "LZ4": "lz4_raw"}
# parquet.thrift's Encoding values met in a BYTE_ARRAY column
PLAIN, PLAIN_DICTIONARY, RLE, DELTA_LENGTH, DELTA_BYTE_ARRAY, RLE_DICTIONARY = 0, 2, 3, 6, 7, 8
DICTIONARY_INDICES = (PLAIN_DICTIONARY, RLE_DICTIONARY)
_BLOCK = 1 << 20  # bytes decompressed at a time


class PageError(ValueError):
    """A page that cannot be read here: damaged, or a codec or encoding with no reading here.
    `column`: the column whose page it is, once known."""

    column = ""


class Over(NamedTuple):
    """A value over its cap, passed over unread: its size in bytes."""

    size: int


class _Range:
    """Bytes [at, at + size) of `handle`, read forward (pyarrow's streams read it in blocks).
    It seeks before each read: the columns of a row group share one handle."""

    closed = False

    def __init__(self, handle: Any, at: int, size: int) -> None:
        self._handle, self._at, self._left = handle, at, max(size, 0)

    def read(self, n: int = -1) -> bytes:
        n = self._left if n < 0 else min(n, self._left)
        if n <= 0:
            return b""
        self._handle.seek(self._at)
        data = bytes(self._handle.read(n))
        self._at += len(data)
        self._left = self._left - len(data) if data else 0
        return data

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:  # the shared handle stays open
        self.closed = True


class _Reader:
    """`size` bytes of a page, decompressed, taken forward a block at a time: what is held is a
    block and the value being taken, never the page."""

    def __init__(self, source: Any, size: int) -> None:
        self._source = source  # .read(n) -> bytes (a pyarrow stream, or `_Range`)
        self.left = size  # bytes not yet taken, buffered ones included
        self._buf = b""
        self._pos = 0

    def _more(self, n: int) -> bytes:
        """Up to `n` bytes more from the source (at least one)."""
        try:
            data = self._source.read(n)
        except (OSError, pa.ArrowException) as exc:
            raise PageError(f"cannot decompress: {exc}") from exc
        if not data:
            raise PageError(f"ends {self.left} bytes early")
        return bytes(data)

    def take(self, n: int) -> bytes:
        """The next `n` bytes."""
        if n > self.left:
            raise PageError(f"a value of {n} bytes, with {self.left} left in the page")
        self.left -= n
        end = self._pos + n
        if end <= len(self._buf):
            out = self._buf[self._pos : end]
            self._pos = end
            return out
        parts = [self._buf[self._pos :]]
        got = len(parts[0])
        while got < n:
            parts.append(self._more(max(n - got, _BLOCK)))
            got += len(parts[-1])
        whole = b"".join(parts)
        self._buf, self._pos = whole[n:], 0  # at most a block's tail stays buffered
        return whole[:n]

    def skip(self, n: int) -> None:
        """Pass over the next `n` bytes, a block at a time."""
        if n > self.left:
            raise PageError(f"a value of {n} bytes, with {self.left} left in the page")
        self.left -= n
        held = len(self._buf) - self._pos
        if n <= held:
            self._pos += n
            return
        n -= held
        while True:
            data = self._more(_BLOCK)
            if len(data) >= n:
                self._buf, self._pos = data, n
                return
            n -= len(data)

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "little")

    def uleb(self) -> int:
        value = shift = 0
        while shift < 64:
            b = self.take(1)[0]
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value
        raise PageError("varint too long")


def _open(handle: Any, at: int, page: Page, codec: str, limit: int) -> tuple[bytes, _Reader]:
    """The levels a V2 page stores uncompressed before its values (b"" for V1) and a reader of
    the rest of the page at `at`, decompressed."""
    start, csize, usize = at + page.length, page.csize, page.usize
    levels = b""
    if page.kind == DATA_PAGE_V2:
        plain = sum(page.level_bytes)
        if min(page.level_bytes) < 0 or plain > min(csize, usize, limit):
            raise PageError(f"levels of {plain} bytes")
        levels = _Range(handle, start, plain).read()
        if len(levels) < plain:
            raise PageError("ends in its levels")
        start, csize, usize = start + plain, csize - plain, usize - plain
    raw = _Range(handle, start, csize)
    if codec == "UNCOMPRESSED" or not page.compressed:
        return levels, _Reader(raw, usize)
    try:
        if codec in STREAMED:
            stream = pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), STREAMED[codec])
            return levels, _Reader(stream, usize)
        if codec in WHOLE:
            data = pa.Codec(WHOLE[codec]).decompress(raw.read(), decompressed_size=usize)
            return levels, _Reader(pa.BufferReader(data), usize)
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise PageError(f"cannot decompress ({codec}): {exc}") from exc
    raise PageError(f"codec {codec} is not read here")


def _v1_levels(r: _Reader, page: Page, max_def: int, max_rep: int, limit: int) -> bytes:
    """The definition levels of a V1 page (RLE, after a 4-byte length), its repetition levels
    passed over: the start of the decompressed page."""
    out = b""
    for present, which in ((max_rep > 0, 1), (max_def > 0, 0)):
        if not present:
            continue
        if page.level_encodings[which] != RLE:
            raise PageError(f"level encoding {page.level_encodings[which]}")
        n = r.u32()
        if n > limit:
            raise PageError(f"levels of {n} bytes")
        if which:
            r.skip(n)
        else:
            out = r.take(n)
    return out


def _hybrid(r: _Reader, width: int, count: int) -> Iterator[int]:
    """`count` values of the RLE / bit-packed hybrid encoding of `width` bits (levels and
    dictionary indices), run by run."""
    if not 0 <= width <= 32:
        raise PageError(f"bit width {width}")
    if width == 0:
        yield from (0 for _ in range(count))
        return
    weights = (1 << np.arange(width, dtype=np.uint64)).astype(np.uint64)
    nbytes = (width + 7) // 8
    while count > 0:
        head = r.uleb()
        if head & 1:  # bit-packed: groups of 8 values, `width` bytes a group
            groups = head >> 1
            while groups > 0 and count > 0:
                step = min(groups, 8192)
                data = np.frombuffer(r.take(step * width), dtype=np.uint8)
                bits = np.unpackbits(data, bitorder="little").reshape(-1, width)
                values = (bits.astype(np.uint64) @ weights)[:count].tolist()
                yield from values
                count -= len(values)
                groups -= step
            if groups > 0:
                r.skip(groups * width)  # the padding of the last group
        else:
            run = min(head >> 1, count)
            value = int.from_bytes(r.take(nbytes), "little")
            yield from (value for _ in range(run))
            count -= run


def _delta_ints(r: _Reader, limit: int) -> np.ndarray:
    """The int32 values of one DELTA_BINARY_PACKED run (the lengths of the DELTA_* encodings),
    4 bytes each held: over `limit` bytes of them is an error."""
    block, minis, total = r.uleb(), r.uleb(), r.uleb()
    first = r.uleb()
    first = (first >> 1) ^ -(first & 1)
    if block <= 0 or block % 128 or minis <= 0 or block % minis or (block // minis) % 32:
        raise PageError(f"delta blocks of {block} values in {minis}")
    if total * 4 > limit:
        raise PageError(f"{total} delta-encoded lengths")
    per = block // minis
    out = np.empty(total, dtype=np.int64)
    if total == 0:
        return out.astype(np.int32)
    out[0] = first
    got, last = 1, first
    while got < total:
        step = r.uleb()
        step = (step >> 1) ^ -(step & 1)
        widths = r.take(minis)
        for w in widths:
            if got >= total:
                break
            if w > 32:
                raise PageError(f"delta bit width {w}")
            data = np.frombuffer(r.take(per * w // 8), dtype=np.uint8)
            if w:
                bits = np.unpackbits(data, bitorder="little").reshape(per, w)
                deltas = bits.astype(np.uint64) @ (1 << np.arange(w, dtype=np.uint64))
            else:
                deltas = np.zeros(per, dtype=np.uint64)
            n = min(per, total - got)
            run = last + np.cumsum(deltas[:n].astype(np.int64) + step)
            out[got : got + n] = run
            got += n
            last = _int32(int(run[-1]))
    # int32 arithmetic wraps (parquet.thrift), as the writer's did
    return ((out + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


def _int32(v: int) -> int:
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def _lengths(r: _Reader, limit: int) -> np.ndarray:
    lengths = _delta_ints(r, limit)
    if lengths.size and int(lengths.min()) < 0:
        raise PageError("a negative length")
    return lengths


def first_over(
    handle: Any, at: int, page: Page, codec: str, levels: tuple[int, int], cap: int, limit: int
) -> tuple[int, int] | None:
    """(index among the page's values, bytes) of the first value over `cap` in the BYTE_ARRAY
    data page at `at`, or None: only lengths are read (PLAIN: each value's prefix, the value
    passed over; DELTA_*: the lengths that come first). `levels` is the column's (max
    definition, max repetition) level. A page of dictionary indices is None: its cells are the
    dictionary's, sized by Arrow. Raises PageError."""
    if page.encoding in DICTIONARY_INDICES:
        return None
    _, r = _open(handle, at, page, codec, limit)
    if page.kind == DATA_PAGE:
        _v1_levels(r, page, *levels, limit)
    if page.encoding == PLAIN:
        i = 0
        while r.left > 0:
            n = r.u32()
            if n > cap:
                return i, n
            r.skip(n)
            i += 1
        return None
    if page.encoding == DELTA_LENGTH:
        sizes = _lengths(r, limit).astype(np.int64)
    elif page.encoding == DELTA_BYTE_ARRAY:
        prefixes = _lengths(r, limit).astype(np.int64)
        sizes = _lengths(r, limit).astype(np.int64)
        if sizes.size != prefixes.size:
            raise PageError("prefix and suffix counts differ")
        sizes += prefixes
    else:
        raise PageError(f"encoding {page.encoding}")
    big = np.flatnonzero(sizes > cap)
    return (int(big[0]), int(sizes[big[0]])) if big.size else None


def _plain(r: _Reader, cap: int, count: int | None = None) -> Iterator[bytes | Over]:
    """PLAIN byte arrays (a 4-byte length, then the bytes) to the end of `r`, or `count` of
    them; one over `cap` passed over, as Over."""
    while r.left > 0 if count is None else count > 0:
        n = r.u32()
        if n > cap:
            r.skip(n)
            yield Over(n)
        else:
            yield r.take(n)
        if count is not None:
            count -= 1


def _ints(values: np.ndarray) -> Iterator[int]:
    """The values of `values` as Python ints, a slice at a time (a list of them all would cost
    nine times the array)."""
    for first in range(0, len(values), 1 << 16):
        yield from values[first : first + (1 << 16)].tolist()


def _delta_length(r: _Reader, cap: int, limit: int) -> Iterator[bytes | Over]:
    for n in _ints(_lengths(r, limit)):
        if n > cap:
            r.skip(n)
            yield Over(n)
        else:
            yield r.take(n)


def _delta_byte_array(r: _Reader, cap: int, limit: int) -> Iterator[bytes | Over]:
    """Each value is a prefix of the one before it, then its own suffix: the first `cap` bytes
    of a value over the cap are kept for the next one."""
    prefixes = _lengths(r, limit)
    suffixes = _lengths(r, limit)
    if len(prefixes) != len(suffixes):
        raise PageError("prefix and suffix counts differ")
    last = b""
    last_size = 0
    for p, n in zip(_ints(prefixes), _ints(suffixes), strict=True):
        if p > last_size:
            raise PageError(f"a prefix of {p} bytes after a value of {last_size}")
        size = p + n
        if size > cap:
            keep = max(0, min(n, cap - min(p, cap)))
            head = r.take(keep)
            r.skip(n - keep)
            last, last_size = (last[:p] + head)[:cap], size
            yield Over(size)
        else:
            last = last[:p] + r.take(n)
            last_size = size
            yield last


def _values(
    r: _Reader, page: Page, cap: int, limit: int, dictionary: list[Any] | None
) -> Iterator[bytes | Over]:
    """The defined values of data page `page`, by its encoding."""
    if page.encoding == PLAIN:
        return _plain(r, cap)
    if page.encoding == DELTA_LENGTH:
        return _delta_length(r, cap, limit)
    if page.encoding == DELTA_BYTE_ARRAY:
        return _delta_byte_array(r, cap, limit)
    if page.encoding in DICTIONARY_INDICES:
        if dictionary is None:
            raise PageError("dictionary indices without a dictionary page")
        return _looked_up(r, dictionary)
    raise PageError(f"encoding {page.encoding}")


def _looked_up(r: _Reader, dictionary: list[Any]) -> Iterator[bytes | Over]:
    width = r.take(1)[0]
    try:
        for i in _hybrid(r, width, 1 << 62):
            yield dictionary[i]
    except IndexError:
        raise PageError(f"index past a dictionary of {len(dictionary)}") from None


_END = object()


def column_cells(
    handle: Any, col: Any, max_def: int, cap: int, limit: int
) -> Iterator[bytes | Over | None]:
    """Each row's cell of column chunk `col` (pyarrow's `ColumnChunkMetaData`) of a top-level
    BYTE_ARRAY column (no repetition; `max_def` 0 or 1), decoded here page by page: its bytes,
    None for a null, Over(size) for a value over `cap` (passed over unread). Raises PageError."""
    codec = col.compression
    dictionary: list[Any] | None = None
    for at, page in chunk_pages(handle, col):
        if page is None:
            raise PageError(f"no page header at byte {at}")
        if page.kind == DICTIONARY_PAGE:
            if page.usize > limit:
                raise PageError(f"a dictionary page of {page.usize} bytes")
            _, r = _open(handle, at, page, codec, limit)
            dictionary = list(_plain(r, cap, page.values))
            continue
        if page.kind not in (DATA_PAGE, DATA_PAGE_V2):
            continue  # an index page: nothing of the rows
        levels, r = _open(handle, at, page, codec, limit)
        if page.kind == DATA_PAGE:
            levels = _v1_levels(r, page, max_def, 0, limit)
        elif page.level_bytes[1]:
            raise PageError("repetition levels in a top-level column")
        values = _values(r, page, cap, limit, dictionary)
        if max_def == 0:
            defined: Iterator[int] = (0 for _ in range(page.values))
        else:
            defined = _hybrid(_Reader(pa.BufferReader(levels), len(levels)), 1, page.values)
        for level in defined:
            if level != max_def:
                yield None
                continue
            value = next(values, _END)
            if value is _END:
                raise PageError(f"fewer values than levels in the page at byte {at}")
            yield value  # type: ignore[misc]


def streamed_batches(
    pf: Any,
    handle: Any,
    group: int,
    columns: list[str],
    caps: dict[str, int],
    limit: int,
    batch_size: int,
    max_bytes: int,
) -> Iterator[tuple[pa.RecordBatch, dict[str, dict[int, int]]]]:
    """The rows of row group `group` of `pf` (a pyarrow ParquetFile) in Arrow batches, its
    top-level text `columns` decoded here from `handle` (`column_cells`, each under its cap in
    `caps`), the other columns by Arrow: (batch, {column: {row in the batch: size}} of the cells
    over their cap, null in the batch). A batch holds at most `batch_size` rows and about
    `max_bytes` of decoded cells (a larger one is a batch of its own). Raises PageError; Arrow's
    own errors pass through."""
    meta = pf.metadata.row_group(group)
    paths = [meta.column(i).path_in_schema for i in range(meta.num_columns)]
    cells = {}
    for name in columns:
        i = paths.index(name)
        max_def = pf.metadata.schema.column(i).max_definition_level
        cells[name] = column_cells(handle, meta.column(i), max_def, caps[name], limit)
    schema = pf.schema_arrow
    others = [n for n in schema.names if n not in columns]
    for part, n in _parts(pf, group, others, batch_size, max_bytes):
        first = 0
        while first < n:
            vals: dict[str, list[bytes | None]] = {c: [] for c in columns}
            over: dict[str, dict[int, int]] = {c: {} for c in columns}
            rows = held = 0
            while first + rows < n and rows < batch_size and (rows == 0 or held < max_bytes):
                for c in columns:
                    try:
                        value = next(cells[c], _END)
                        if value is _END:
                            raise PageError("its values end before its row group")
                    except PageError as exc:
                        exc.column = c
                        raise
                    if isinstance(value, Over):
                        over[c][rows] = value.size
                        value = None
                    vals[c].append(value)  # type: ignore[arg-type]
                    held += len(value) if isinstance(value, bytes) else 0
                rows += 1
            arrays = [
                _text_array(vals[c], schema.field(c).type)
                if c in columns
                else part.column(c).slice(first, rows)  # type: ignore[union-attr]
                for c in schema.names
            ]
            yield pa.RecordBatch.from_arrays(arrays, names=schema.names), over
            first += rows


def _parts(
    pf: Any, group: int, others: list[str], batch_size: int, max_bytes: int
) -> Iterator[tuple[pa.RecordBatch | None, int]]:
    """Row group `group`'s columns `others` read by Arrow, in batches of about `max_bytes` by
    their footer sizes: (batch, its rows); (None, rows) when there are none."""
    meta = pf.metadata.row_group(group)
    if not others:
        for first in range(0, meta.num_rows, batch_size):
            yield None, min(batch_size, meta.num_rows - first)
        return
    tops = {p.split(".")[0] for p in others}
    size = sum(
        meta.column(i).total_uncompressed_size
        for i in range(meta.num_columns)
        if meta.column(i).path_in_schema.split(".")[0] in tops
    )
    per_row = size / max(meta.num_rows, 1)
    rows = batch_size if per_row <= 0 else int(max(1, min(batch_size, max_bytes // per_row)))
    for batch in pf.iter_batches(batch_size=rows, row_groups=[group], columns=others):
        yield batch, batch.num_rows


def _text_array(values: list[bytes | None], t: pa.DataType) -> pa.Array:
    """`values` as an Arrow array of text type `t` (its values' type if a dictionary), its bytes
    kept as stored: Arrow's reader does not check UTF-8 either."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    large = pa.types.is_large_string(t) or pa.types.is_large_binary(t)
    raw = pa.array(values, type=pa.large_binary() if large else pa.binary())
    return raw.view(t) if pa.types.is_string(t) or pa.types.is_large_string(t) else raw
