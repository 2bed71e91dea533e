"""A file compressed whole (bzip2, xz, zstd) and cut short: one error row for the cut.

Why: such a file is read up to its damage (`compression.open_decompressed(up_to_damage=True)`),
so warcio sees a plain WARC that ends where the decompressed bytes do, and says only what it
sees: a record cut short (`WARC_TRUNCATED`, `WARC_CORRUPT`), or nothing when the cut falls
between two records. Before, the stream's error reached warcio, which took it for the end of
the file: a file of under 1 MiB gave `NO_PAGE_RECORDS` "no WARC/ARC records found", its
pages and its damage unsaid. Here the cut is said once, in the row of the record it cuts when
there is one, with the codec's words and where the stream ends, as for a damaged bzip2, xz or
zstd input of any kind (`COMPRESSED_CORRUPT`).
"""

from __future__ import annotations

from typing import NamedTuple

from trustaudit.io.compression import CorruptStream
from trustaudit.io.records import ErrorRow

__all__ = ["CutRecord", "cut_short", "magic_cut_row", "undecompressed_row"]

CODE = "COMPRESSED_CORRUPT"
# how `WarcSource._damaged` ends a row when reading does not go on (a file compressed whole)
_SKIPPED = "; the rest of the file was skipped"
# the rows warcio's reading gives for a WARC that ends inside a record it reads
_RECORD_CUT = ("WARC_TRUNCATED", "WARC_CORRUPT")


class CutRecord(NamedTuple):
    """The last record read before the stream ended: where it starts, its URL, its type, and the
    bytes of it still to come by its Content-Length when the stream ended inside it (0: whole)."""

    offset: int | None
    url: str | None
    kind: str
    left: int


def _read(offset: int | None) -> str:
    """What the row says of the records before the one at `offset` (none before the first)."""
    return "; the records before it were read" if offset else ""


def _what(damage: CorruptStream, codec: str, good: int) -> str:
    """The stream's fault and where it is, in decompressed bytes."""
    where = f"{good} bytes into what it decompresses to" if good else "with nothing decompressed"
    if damage.cut:
        return f"{codec} stream cut short: the file ends before its end-of-stream marker, {where}"
    detail = str(damage).split(": ", 1)[-1][:200]
    return f"{codec} stream damaged ({detail}), {where}"


def cut_short(
    source: str,
    damage: CorruptStream,
    codec: str,
    good: int,
    errors: list[ErrorRow],
    last: CutRecord | None,
) -> None:
    """Say in `errors` (the rows not yet given) that the stream of `source` breaks after `good`
    decompressed bytes, in one row: the row of the record it cuts becomes this one (its offset
    and URL kept): the row warcio's reading ended on, or the record's own (over the payload cap,
    say) when the rest of it was only being passed over; else one row is added, at the record
    cut (one that is no page has no row), or after the last record (`last`, None: none read)."""
    what = _what(damage, codec, good)
    end = errors[-1] if errors else None
    if end is not None and end.code in _RECORD_CUT and end.message.endswith(_SKIPPED):
        detail = end.message.removesuffix(_SKIPPED).removeprefix(f"record at byte {end.offset}: ")
        msg = f"{what}, inside the record at byte {end.offset} ({detail}){_read(end.offset)}"
        errors[-1] = ErrorRow(source, end.offset, end.url, end.stage, CODE, msg)
        return
    if last is not None and last.left:
        short = f"{last.left} bytes short of its Content-Length"
        inside = f"{what}, inside the record at byte {last.offset}"
        if end is not None and end.offset == last.offset:  # its own row (TOO_LARGE, BAD_URL)
            msg = f"{inside} ({end.message}, {short}){_read(end.offset)}"
            errors[-1] = ErrorRow(source, end.offset, end.url, end.stage, CODE, msg)
        else:
            msg = f"{inside} (a {last.kind} record, {short}){_read(last.offset)}"
            errors.append(ErrorRow(source, last.offset, last.url, "read", CODE, msg))
        return
    if good == 0:
        msg = f"{what}: no record read"
    elif last is None:
        msg = f"{what}, before any record"
    else:
        msg = f"{what}, after the record at byte {last.offset}; the records up to it were read"
    errors.append(ErrorRow(source, good, None, "read", CODE, msg))


def magic_cut_row(source: str, codec: str, size: int) -> ErrorRow:
    """The row of a file that is only the start of a `codec` magic number (`cut_magic`)."""
    msg = (
        f"{codec} stream cut short inside its magic number: the file is its first {size}"
        " byte(s), nothing in it to read"
    )
    return ErrorRow(source, 0, None, "read", CODE, msg)


def undecompressed_row(source: str, damage: CorruptStream, codec: str) -> ErrorRow:
    """The row of a file whose stream breaks before a byte of it decompresses, so that what it
    holds is unknown: its name did not say, and its first bytes were to tell."""
    msg = f"{_what(damage, codec, 0)}: not read"
    return ErrorRow(source, 0, None, "read", CODE, msg)
