"""Lines of a binary stream with a cap on one line: the one line reader of line-based inputs.

JSONL records, crawl URL lists and `urls.csv` sidecars are split into lines by the same function so
that no line-based input reads an unbounded line whole: a 60 MB line with no break is drained in
1 MiB reads and reported by its size, never held (a URL list read whole peaked at 20 × its
longest line; a gzip member that expands to one 2 GiB line would not fit at all).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

__all__ = ["TooMuchInput", "bounded_lines"]

_DRAIN = 1 << 20  # bytes read at a time while skipping the rest of an over-long line


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
