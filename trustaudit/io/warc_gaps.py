"""The blank lines between WARC records, read in blocks and under a byte budget.

Why: warcio reads the blank lines after a record one `readline` at a time (about 1 µs a line), in
every layout and after any record, and no budget counted them: 2 Mi `\\r\\n` in a 6.7 KB gzip
member took 2.4 s, so 16 GiB of them (a few MB of gzip) would take hours. Here the whole blank
lines in warcio's buffer are passed over at C speed (`bytes.lstrip` on a window), and the bytes of
one run count against a budget (`inputs.max_warc_skip_bytes` where they are decompressed only to
reach the next record). Blank lines at the start of the file or of a gzip member, before a record
header, are passed over the same way: warcio read the first of them as an empty record header,
whose unbounded payload swallowed the records after it without a word.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["BlankLinesTooLong", "bound_gaps"]

# bytes of warcio's buffer looked at by one `lstrip`: what one step copies, whatever its buffer
# holds (a 16 KiB block of gzip can decompress to 16 MiB)
_WINDOW = 1 << 16


class BlankLinesTooLong(ValueError):
    """A run of blank lines between two records is over the budget."""


def _blank_prefix(data: bytes, start: int, end: int) -> int:
    """How many bytes of `data[start:end]` are ASCII whitespace from `start` on (what
    `bytes.strip` removes, so a line of them is blank to warcio), read a window at a time."""
    at = start
    while at < end:
        window = data[at : min(at + _WINDOW, end)]
        kept = len(window.lstrip())
        at += len(window) - kept
        if kept:
            break
    return at - start


def _take_blank_lines(reader: Any) -> int:
    """Consume the complete blank lines at the head of warcio's buffered `reader` (refilled first if
    it is used up) and return their length: 0 when its head is a line with something on it, one
    whose end is in the next buffer, or the end of the stream or gzip member.

    Why: what is left then is one line for `readline`, exactly the one warcio would have reached
    reading the blank lines one by one."""
    reader._fillbuff()  # what warcio's readline does first; it reads no further than one member
    if reader.empty():
        return 0
    buff, data, end = reader.buff, reader.buff.getvalue(), reader.buff_size
    start = buff.tell()
    newline = data.rfind(b"\n", start, start + _blank_prefix(data, start, end))
    if newline < 0:
        return 0
    buff.seek(newline + 1)
    return int(newline + 1 - start)


def _past_blank_lines(it: Any, budget: int | None, size: int) -> tuple[bytes | None, int]:
    """Read `it` past blank lines: the first line with something on it (None at the end of the
    stream or gzip member) and the bytes of the run, `size` already read included. Past `budget`
    bytes (None: no budget), BlankLinesTooLong."""
    reader = it.reader
    while True:
        while taken := _take_blank_lines(reader):
            size = _counted(size + taken, budget)
        line: bytes = reader.readline()  # bounded by `io.warc_headers` to a header line's budget
        if not line:
            return None, size
        if line.strip():
            return line, size
        size = _counted(size + len(line), budget)


def _counted(size: int, budget: int | None) -> int:
    """`size`, unless it is over `budget`."""
    if budget is not None and size > budget:
        raise BlankLinesTooLong(f"more than {budget} bytes of blank lines")
    return size


def bound_gaps(it: Any, budget: int | None) -> Any:
    """Make warcio's `ArchiveIterator` `it` read blank lines in blocks, at most `budget` bytes of
    them in one run (None: any number; past it BlankLinesTooLong, from `get_record_offset()` for a
    run after a record, from `next(it)` for one before the first record of the file or of a gzip
    member). Records and offsets are warcio's, except that blank lines before a record header
    are passed over instead of read as an empty header. Returns `it`."""

    def consume_blank_lines() -> tuple[bytes | None, int]:
        # warcio's _consume_blanklines: the first line after a record is taken even when it is
        # not blank, which tells a wrong Content-Length (err_count; `_archive` silences the text)
        first = it.reader.readline()
        if not first:
            return None, 0
        if first.strip():
            at = it.fh.tell() - it.reader.rem_length() - len(first)
            sys.stderr.write(it.INC_RECORD.format(at, first))
            it.err_count += 1
        return _past_blank_lines(it, budget, len(first))

    next_record = it._next_record

    def record_after_blank_lines(next_line: bytes | None) -> Any:
        if next_line is None:  # the start of the file or of a gzip member
            next_line, size = _past_blank_lines(it, budget, 0)
            if size:
                _after_blank_lines(it, next_line)
        return next_record(next_line)

    it._consume_blanklines = consume_blank_lines
    it._next_record = record_after_blank_lines
    return it


def _after_blank_lines(it: Any, line: bytes | None) -> None:
    """Set `it.offset`, after blank lines at the start of the file or of a gzip member, to where
    the record read next starts, as warcio sets it after the blank lines that end a record: the
    raw byte after the member when it ends there (else the next record would be said to start at
    the member of blank lines), the header line in a stream read as is. A record inside a gzip
    member starts where its member does, so that offset stays."""
    reader = it.reader
    if line is None:
        it.offset = it.fh.tell() - reader.rem_length()
    elif reader.decompressor is None:
        it.offset = it.fh.tell() - reader.rem_length() - len(line)
