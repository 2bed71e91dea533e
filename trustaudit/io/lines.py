"""Lines of a binary stream with a cap on one line: the one line reader of line-based inputs.

JSONL records, crawl URL lists and `urls.csv` sidecars are split into lines by the same function so
that no line-based input reads an unbounded line whole: a 60 MB line with no break is drained in
1 MiB reads and reported by its size, never held (a URL list read whole peaked at 20 × its
longest line; a gzip member that expands to one 2 GiB line would not fit at all). `csv_rows` reads
the CSV lists (crawl `.csv` lists, `urls.csv` sidecars) on top of it, so a bad line or row costs
that row, never the file.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from typing import Any, BinaryIO, NamedTuple, cast

from trustaudit.io.decode import Utf8Lines, wide_bom

__all__ = [
    "MAX_LIST_LINE_BYTES",
    "CsvRow",
    "TextLine",
    "TooMuchInput",
    "bounded_lines",
    "csv_rows",
    "text_lines",
]

_DRAIN = 1 << 20  # bytes read at a time while skipping the rest of an over-long line

# A line of a URL list or a `urls.csv` sidecar longer than this is one error row, drained without
# being held: a URL can be at most ssrf.MAX_URL_CHARS (32,768) characters, 4 bytes each in UTF-8,
# and a CSV line carries other columns too. A list of one 60 MB line was read whole: 1.4 GB peak.
MAX_LIST_LINE_BYTES = 1 << 20


class TooMuchInput(Exception):
    """A stream ran past its total byte cap (inputs.max_decompressed_bytes for decompressed
    inputs)."""


def bounded_lines(
    fh: BinaryIO, max_line_bytes: int, max_total_bytes: int | None = None
) -> Iterator[tuple[bytes | None, int]]:
    """(line, size) of a binary stream, never holding more than `max_line_bytes` of one line.

    A longer line is drained in 1 MiB reads and yielded as (None, its size in bytes), so callers
    turn it into one error row. Raises TooMuchInput once more than `max_total_bytes` (when given)
    have been read.
    """
    total = 0

    def count(n: int) -> None:
        nonlocal total
        total += n
        if max_total_bytes is not None and total > max_total_bytes:
            raise TooMuchInput(
                f"more than {max_total_bytes} bytes after decompression; the rest is cut"
            )

    while True:
        line = fh.readline(max_line_bytes + 1)
        if not line:
            return
        count(len(line))
        if len(line) <= max_line_bytes:
            yield line, len(line)
            continue
        size = len(line)
        while not line.endswith(b"\n"):
            line = fh.readline(_DRAIN)
            if not line:
                break
            size += len(line)
            count(len(line))
        yield None, size


# A CR not followed by LF ends a line too (old Mac line ends, Excel's "CSV (Macintosh)"), as
# `bytes.splitlines` and csv with newline="" had it; the cap then applies to the CR-ended file.
_LONE_CR = re.compile(rb"(?<=\r)(?!\n)")


class TextLine(NamedTuple):
    """One line of a text list: `text` decoded (U+FFFD for bytes not valid UTF-8, `undecodable`
    then True), or `too_long` set to the message of a line over the cap (`text` then empty)."""

    number: int
    text: str
    undecodable: bool = False
    too_long: str | None = None


def text_lines(fh: BinaryIO, max_line_bytes: int = MAX_LIST_LINE_BYTES) -> Iterator[TextLine]:
    """The lines of a UTF-8 text list (UTF-16/32 with a byte-order mark recoded, a UTF-8 BOM
    dropped), each at most `max_line_bytes` held, line breaks kept."""
    if not hasattr(fh, "peek"):  # a BytesIO standing in for stdin
        fh = io.BufferedReader(cast(Any, fh))
    wide = wide_bom(cast(io.BufferedReader, fh).peek(4)[:4])
    stream: Any = Utf8Lines(fh, wide) if wide is not None else fh
    number = 0
    for raw, size in bounded_lines(stream, max_line_bytes):
        if raw is None:
            number += 1
            msg = (
                f"line {number} is {size} bytes, over {max_line_bytes}; skipped without reading it"
            )
            yield TextLine(number, "", too_long=msg)
            continue
        if number == 0:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        for piece in _LONE_CR.split(raw):
            if not piece:
                continue
            number += 1
            try:
                yield TextLine(number, piece.decode("utf-8"))
            except UnicodeDecodeError:
                yield TextLine(number, piece.decode("utf-8", "replace"), undecodable=True)


class CsvRow(NamedTuple):
    """One CSV record: `number` counts records (0 is the header; blank lines are no record),
    `problem` says why its cells could not be read (a line over the cap, a csv error: `cells`
    then empty), `undecodable` that a line of it was not valid UTF-8 (shown as U+FFFD)."""

    number: int
    cells: list[str]
    problem: str | None = None
    undecodable: bool = False


def csv_rows(fh: BinaryIO, max_line_bytes: int = MAX_LIST_LINE_BYTES) -> Iterator[CsvRow]:
    """The records of a CSV file read line by line (`text_lines`): a record that spans a line over
    the cap, or that the csv module rejects, is one CsvRow with a `problem`, and reading goes on
    at the next line. A quoted cell may span lines; one longer than `max_line_bytes` costs its
    record like a long line."""
    # csv's cell cap (128 KiB by default) is process-wide: raised to the line cap around each
    # record only, so that a long cell on one line reads the same wherever it is (callers refuse
    # over-long values themselves) and other CSV readers keep theirs whatever the read order
    limit = max_line_bytes + 1
    flagged: dict[int, TextLine] = {}

    def text() -> Iterator[str]:
        for line in text_lines(fh, max_line_bytes):
            if line.too_long or line.undecodable:
                flagged[line.number] = line
            yield line.text or "\n"

    reader = csv.reader(text())
    last, number = 0, 0
    while True:
        before = csv.field_size_limit(max(csv.field_size_limit(), limit))
        try:
            cells = next(reader)
            problem = None
        except StopIteration:
            return
        except csv.Error as exc:
            cells, problem = [], f"CSV error at line {reader.line_num}: {exc}"
        finally:
            csv.field_size_limit(before)
        spans = [flagged.pop(n) for n in range(last + 1, reader.line_num + 1) if n in flagged]
        last = reader.line_num
        if not cells and not spans and problem is None:
            continue  # a blank line is no record
        too_long = next((s.too_long for s in spans if s.too_long), None)
        if too_long is None and any(len(c) > max_line_bytes for c in cells):
            # a quoted cell across lines: held up to csv's limit (at least the cap), no further
            longest = max(len(c) for c in cells)
            too_long = f"a cell is {longest} characters, over {max_line_bytes}"
        if too_long is not None:
            cells, problem = [], too_long
        yield CsvRow(number, cells, problem, any(s.undecodable for s in spans))
        number += 1
