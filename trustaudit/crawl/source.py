"""URL-list reading and the record source over a crawl's committed parts.

Why the crawl is a record source like any other: the pipeline then extracts crawled pages with the
same code, schema and error rows as WARC or folder inputs (DESIGN §1: "the crawler is one more record
source"), and a crawl can be re-audited later from `RUN/crawl/` without the network.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, cast

from trustaudit.crawl.journal import read_committed
from trustaudit.errors import UsageError
from trustaudit.io.decode import Utf8Lines, wide_bom
from trustaudit.io.lines import bounded_lines
from trustaudit.io.records import ErrorRow, RecordBatch, records_table

__all__ = [
    "CRAWL_EXTRA_COLUMNS",
    "MAX_LIST_LINE_BYTES",
    "CrawlSource",
    "InvalidURLLine",
    "read_url_list",
    "source_name",
]


# A URL-list line longer than this is one BAD_URL row, drained without being held: a URL can be at
# most ssrf.MAX_URL_CHARS (32,768) characters, 4 bytes each in UTF-8, and a CSV line carries other
# columns too; a list of one 60 MB line was read whole and peaked at 1.4 GB.
MAX_LIST_LINE_BYTES = 1 << 20


class InvalidURLLine(str):
    """A URL-list entry that cannot be a URL whatever it says (not valid UTF-8, shown with U+FFFD;
    a line over MAX_LIST_LINE_BYTES, shown cut; a CSV row the csv module rejects): the crawler
    makes it a BAD_URL row with `reason` (never a fetch, never an INTERNAL_ERROR)."""

    reason = "URL line is not valid UTF-8"

    def __new__(cls, text: str, reason: str | None = None) -> InvalidURLLine:
        self = super().__new__(cls, text)
        if reason is not None:
            self.reason = reason
        return self


def _decode_line(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidURLLine(raw.decode("utf-8", "replace"))


def _too_long(size: int) -> InvalidURLLine:
    return InvalidURLLine(
        "", f"URL list line is {size} bytes, over {MAX_LIST_LINE_BYTES}; skipped without reading it"
    )


CRAWL_EXTRA_COLUMNS = ("crawl_final_url", "crawl_charset_source")


def source_name(path_or_dash: str) -> str:
    """The `source` value rows of this input carry (`stdin` for `-`)."""
    return "stdin" if path_or_dash == "-" else str(path_or_dash)


def _open_list(name: str) -> BinaryIO:
    if name == "-":
        if hasattr(sys.stdin, "buffer"):
            return cast(BinaryIO, sys.stdin.buffer)
        return io.BytesIO(sys.stdin.read().encode())
    p = Path(name)
    try:
        return p.open("rb")
    except FileNotFoundError:
        raise UsageError(f"URL list not found: {p}") from None
    except IsADirectoryError:
        raise UsageError(f"URL list is a folder: {p}", hint="pass a .txt or .csv file") from None
    except OSError as exc:
        raise UsageError(f"cannot read URL list {p}: {exc}") from None


def _lines(fh: BinaryIO) -> Iterator[tuple[int, str]]:
    """(line number, text) of a list: UTF-16/32 with a BOM recoded, a UTF-8 BOM dropped, lines not
    valid UTF-8 as InvalidURLLine, lines over MAX_LIST_LINE_BYTES as an empty InvalidURLLine."""
    if not hasattr(fh, "peek"):  # a BytesIO standing in for stdin
        fh = io.BufferedReader(cast(Any, fh))
    wide = wide_bom(cast(io.BufferedReader, fh).peek(4)[:4])
    stream: Any = Utf8Lines(fh, wide) if wide is not None else fh
    for lineno, (raw, size) in enumerate(bounded_lines(stream, MAX_LIST_LINE_BYTES), start=1):
        if raw is None:
            yield lineno, _too_long(size)
            continue
        if lineno == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        yield lineno, _decode_line(raw)


def read_url_list(path_or_dash: str | Path) -> Iterator[tuple[int, str]]:
    """Yield (offset, url) for each URL line of a list, reading it line by line.

    `.csv`: the `url` column (any case), offset = 1-based data row. Anything else (`.txt`, `-` for
    stdin): one URL a line, blank lines and `#` comments skipped, offset = 1-based line number.
    Lines are yielded as written (stripped); validating them is the crawler's job, so a bad line still
    becomes an error row rather than vanishing. No line is held past MAX_LIST_LINE_BYTES.
    """
    name = str(path_or_dash)
    fh = _open_list(name)
    try:
        if name.lower().endswith(".csv"):
            yield from _csv_urls(_lines(fh), name)
            return
        # line by line: one line with invalid UTF-8 or over the cap is one BAD_URL row, the others
        # are fetched
        for lineno, line in _lines(fh):
            s = line.strip()
            if isinstance(line, InvalidURLLine) and not s:  # over the cap: nothing was kept
                yield lineno, line
            elif s and not s.startswith("#"):
                yield (
                    lineno,
                    InvalidURLLine(s, line.reason) if isinstance(line, InvalidURLLine) else s,
                )
    finally:
        if name != "-":
            fh.close()


def _csv_urls(lines: Iterator[tuple[int, str]], name: str) -> Iterator[tuple[int, str]]:
    """The `url` column of a CSV list read line by line; a row that spans a line that was not valid
    UTF-8 (and shows U+FFFD in its URL), a line over the cap, or that the csv module rejects is
    an InvalidURLLine."""
    # csv's default field cap (128 KiB) made one long cell an internal error that lost the whole
    # list; no line is longer than MAX_LIST_LINE_BYTES, so a cell is capped there instead (the
    # crawler refuses URLs over ssrf.MAX_URL_CHARS as BAD_URL rows)
    csv.field_size_limit(max(csv.field_size_limit(), MAX_LIST_LINE_BYTES + 1))
    flagged: dict[int, InvalidURLLine] = {}

    def text() -> Iterator[str]:
        for lineno, line in lines:
            if isinstance(line, InvalidURLLine):
                flagged[lineno] = line
            yield line if line else "\n"

    reader = csv.reader(text())
    try:
        header = next(reader)
    except StopIteration:
        header = []
    except csv.Error as exc:
        raise UsageError(f"{name}: cannot read the CSV header: {exc}") from None
    fields = {f.strip().lower(): i for i, f in enumerate(header)}
    if "url" not in fields:
        raise UsageError(
            f"{name}: CSV URL list needs a 'url' column (has: {sorted(fields)})",
            hint="add a header row with a url column",
        )
    col = fields["url"]
    last, i = reader.line_num, 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            i += 1
            for n in range(last + 1, reader.line_num + 1):
                flagged.pop(n, None)
            last = reader.line_num
            yield i, InvalidURLLine("", f"CSV row {i}: {exc}")
            continue
        spans = [flagged.pop(n) for n in range(last + 1, reader.line_num + 1) if n in flagged]
        last = reader.line_num
        if not row and not spans:
            continue  # a blank line is no data row
        i += 1
        too_long = next((s for s in spans if not s), None)
        if too_long is not None:
            yield i, too_long
            continue
        value = (row[col] if col < len(row) else "").strip()
        if value:
            yield i, InvalidURLLine(value) if spans and "\ufffd" in value else value


class CrawlSource:
    """Record source over `RUN/crawl/parts/*` committed by `crawl_urls` (read-only, no network).

    Rows come part by part in commit order, each part sorted by (source, offset): deterministic for a
    given committed state, and stable as parts are appended, which is what the pipeline's resume
    needs. Pages become records with the
    decided charset in `http_charset` and extra columns `crawl_final_url`, `crawl_charset_source`;
    failures become ErrorRows with their crawl code.
    """

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.crawl_dir = self.run_dir / "crawl"
        self.name = f"crawl:{self.run_dir}"
        self.kind = "crawl"

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        """Batches never span two parts, so batch *i* keeps its content as later parts are added.

        That is what lets the pipeline's ingest resume by batch index after a resumed crawl.
        """
        for table in read_committed(self.crawl_dir):
            table = table.sort_by([("source", "ascending"), ("offset", "ascending")])
            rows: list[dict[str, Any]] = []
            errors: list[ErrorRow] = []
            for r in table.to_pylist():
                if r["error_code"]:
                    errors.append(
                        ErrorRow(
                            r["source"], r["offset"], r["url"], r["error_stage"] or "crawl",
                            r["error_code"], r["error_message"] or "",
                        )
                    )  # fmt: skip
                else:
                    rows.append(_record(r))
                if len(rows) + len(errors) >= batch_size:
                    yield RecordBatch(records_table(rows, CRAWL_EXTRA_COLUMNS), errors)
                    rows, errors = [], []
            if rows or errors:
                yield RecordBatch(records_table(rows, CRAWL_EXTRA_COLUMNS), errors)


def _record(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "source": r["source"],
        "offset": r["offset"],
        "url": r["url"],
        "fetched_at": r["fetched_at"],
        "status": r["status"],
        "content_type": r["content_type"],
        "body": r["body"],
        "http_charset": r["charset"],
        "crawl_final_url": r["final_url"],
        "crawl_charset_source": r["charset_source"],
    }
