"""A byte budget on the header blocks warcio reads: each record's WARC header and its HTTP header.

Why: warcio reads a header line whole, and a header block line by line until its blank line,
into memory. A WARC record whose header is one line of 1 GB (1 MB of gzip) or millions of lines,
or whose payload starts with an HTTP header that never ends, took the audit to 3.3 GB and three
minutes before this budget (`inputs.max_warc_header_bytes`); now it costs its record one error
row, and reading goes on at the next record.
"""

from __future__ import annotations

from typing import Any

__all__ = ["HeaderDamaged", "HeaderTooLarge", "bound_headers"]


class HeaderTooLarge(ValueError):
    """A record's header block (or the line before it) is over the budget."""


class HeaderDamaged(ValueError):
    """A record header without the fields every record has: cut short, or not a header."""


class _Budget:
    """`stream` for one header block: `readline` reads at most the bytes left in the budget."""

    def __init__(self, stream: Any, cap: int, what: str) -> None:
        self._stream, self._left, self._cap, self._what = stream, cap, cap, what

    def readline(self, length: int | None = None) -> bytes:
        want = self._left + 1 if length is None or length < 0 else min(length, self._left + 1)
        line = _whole_line(self._stream.readline, want)
        self._left -= len(line)
        if self._left < 0:
            raise HeaderTooLarge(f"{self._what} is over {self._cap} bytes")
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _whole_line(readline: Any, limit: int) -> bytes:
    """A line of at most `limit` bytes from `readline(size)`, asked again until its newline or
    the limit: given a size, warcio's buffered reader returns part of a line that spans several
    of its 16 KB buffers (it takes the size down by all it has read at each), so a 300 KB
    header line came back as two lines."""
    parts: list[bytes] = []
    got = 0
    while got < limit:
        piece: bytes = readline(limit - got)
        if not piece:
            break
        parts.append(piece)
        got += len(piece)
        if piece.endswith(b"\n"):
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _budgeted(parser: Any, cap: int, what: str) -> None:
    """Make `parser.parse` read its header block through a budget of `cap` bytes."""
    parse = parser.parse

    def bounded(stream: Any, full_statusline: Any = None, *args: Any, **kw: Any) -> Any:
        if full_statusline is not None and len(full_statusline) > cap:
            raise HeaderTooLarge(f"{what} is over {cap} bytes")
        return parse(_Budget(stream, cap, what), full_statusline, *args, **kw)

    parser.parse = bounded


def bound_headers(it: Any, cap: int) -> Any:
    """Bound warcio's `ArchiveIterator` `it`: every header block it parses (WARC, ARC, HTTP
    request and response) to `cap` bytes (past it HeaderTooLarge from `next(it)`, as warcio's own
    damage), and each line it reads between records (blank lines, a record's first line) to
    `cap` + 1 bytes (a longer one is junk that is no record header, as warcio then says). Payload reads are untouched. A record without WARC-Target-URI
    is read (warcio failed on it with an AttributeError). Returns `it`."""
    loader = it.loader
    _budgeted(loader.warc_parser, cap, "the WARC record header")
    _budgeted(loader.arc_parser, cap, "the ARC record header")
    _budgeted(loader.http_parser, cap, "the HTTP header block of the record")
    _budgeted(loader.http_req_parser, cap, "the HTTP header block of the record")
    load_http_headers = loader.load_http_headers

    def http_headers(rec_type: Any, uri: Any, stream: Any, length: Any) -> Any:
        # warcio calls uri.startswith(): a record without WARC-Target-URI was an AttributeError,
        # reported as a damaged header. Without Content-Length either it is one (a header cut
        # short by the end of the file); with it, a record with no URI (the reader says so)
        if uri is None and length is None and rec_type in ("response", "request", "revisit"):
            raise HeaderDamaged("no WARC-Target-URI and no Content-Length")
        return load_http_headers(rec_type, uri if uri is not None else "", stream, length)

    loader.load_http_headers = http_headers
    reader = it.reader
    readline = reader.readline

    def first_line(length: int | None = None) -> bytes:
        # between records warcio reads without a length: a line of 1 GB was held whole (a
        # payload is read through warcio's LimitReader, which always passes one). The first
        # `cap` + 1 bytes of a longer line are no record's first line: warcio fails on them as
        # on any junk (raising here would escape from get_record_offset(), outside `next`)
        if length is None:
            return _whole_line(readline, cap + 1)
        return readline(length)  # type: ignore[no-any-return]

    reader.readline = first_line
    return it
