"""The blank lines between WARC records, read in blocks and under a byte budget.

Why: warcio reads the blank lines after a record one `readline` at a time (about 1 µs a line), in
every layout and after any record, and no budget counted them: 2 Mi `\\r\\n` in a 6.7 KB gzip
member took 2.4 s, so 16 GiB of them (a few MB of gzip) would take hours. Here the whole blank
lines in warcio's buffer are passed over at C speed (`bytes.lstrip` on a window), and the bytes of
one run count against a budget (`inputs.max_warc_skip_bytes` where they are decompressed only to
reach the next record). Blank lines at the start of the file or of a gzip member, before a record
header, are passed over the same way: warcio read the first of them as an empty record header,
whose unbounded payload swallowed the records after it without a word.

The runs of one file also count, with the rest of the records the reader passes over, against a
total for the file (`SkipMeter`, `inputs.max_warc_skip_total_bytes`): a budget per run alone let
a .warc.gz of many members, each just under it, cost about 2 s a member without end.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

__all__ = ["BlankLinesTooLong", "SkipMeter", "SkipTotalSpent", "bound_gaps"]

# bytes of warcio's buffer looked at by one `lstrip`: what one step copies, whatever its buffer
# holds (a 16 KiB block of gzip can decompress to 16 MiB)
_WINDOW = 1 << 16


class BlankLinesTooLong(ValueError):
    """A run of blank lines between two records is over the budget."""


class SkipTotalSpent(BlankLinesTooLong):
    """A run of blank lines takes the file past its total (`SkipMeter.total`)."""


@dataclass
class SkipMeter:
    """Bytes of one WARC file decompressed only to pass over things (`spent`): runs of blank lines
    (each at most `run` bytes) and the rest of records the reader is done with, at most `total`
    bytes all together (`inputs.max_warc_skip_bytes`, `inputs.max_warc_skip_total_bytes`).

    Why a total: each run and each record under `run` is cheap alone, but a file may hold any
    number of them, and it is the sum that costs time (1 GiB decompressed: about 2 s)."""

    run: int
    total: int
    spent: int = 0

    def spend(self, size: int) -> bool:
        """Count `size` more bytes passed over; False (nothing counted) when that is over `total`."""
        if self.spent + size > self.total:
            return False
        self.spent += size
        return True


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


def _past_blank_lines(it: Any, meter: SkipMeter | None, size: int) -> tuple[bytes | None, int]:
    """Read `it` past blank lines: the first line with something on it (None at the end of the
    stream or gzip member) and the bytes of the run, `size` already read included, counted on
    `meter` (None: no budget). Past its budget for a run, BlankLinesTooLong; past its total for
    the file, SkipTotalSpent."""
    reader = it.reader
    while True:
        while taken := _take_blank_lines(reader):
            size = _counted(size + taken, meter)
        line: bytes = reader.readline()  # bounded by `io.warc_headers` to a header line's budget
        if not line:
            return None, _spent(size, meter)
        if line.strip():
            return line, _spent(size, meter)
        size = _counted(size + len(line), meter)


def _counted(size: int, meter: SkipMeter | None) -> int:
    """`size`, unless it is over the budget of one run or takes the file over its total.

    A run over the budget counts as the budget against the total (it was decompressed that far;
    what warcio decompressed past it is one block, whatever the run): when that takes the file
    over its total, the total is what the row says, and the file stops there."""
    if meter is None:
        return size
    if size > meter.run:
        meter.spent += meter.run
        if meter.spent > meter.total:
            raise SkipTotalSpent(f"past {meter.total} bytes passed over in this file")
        raise BlankLinesTooLong(f"more than {meter.run} bytes of blank lines")
    if meter.spent + size > meter.total:
        meter.spent += size
        raise SkipTotalSpent(f"past {meter.total} bytes passed over in this file")
    return size


def _spent(size: int, meter: SkipMeter | None) -> int:
    """`size`, counted as spent on `meter` once its run is over."""
    if meter is not None:
        meter.spent += size
    return size


def bound_gaps(it: Any, meter: SkipMeter | None) -> Any:
    """Make warcio's `ArchiveIterator` `it` read blank lines in blocks, counted on `meter` (None:
    any number; past its budget for a run BlankLinesTooLong, past its total SkipTotalSpent, from
    `get_record_offset()` for a run after a record, from `next(it)` for one before the first
    record of the file or of a gzip member). Records and offsets are warcio's, except that blank
    lines before a record header are passed over instead of read as an empty header. Returns
    `it`."""

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
        return _past_blank_lines(it, meter, len(first))

    next_record = it._next_record

    def record_after_blank_lines(next_line: bytes | None) -> Any:
        if next_line is None:  # the start of the file or of a gzip member
            next_line, size = _past_blank_lines(it, meter, 0)
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
