"""URL-list reading and the record source over a crawl's committed parts.

Why the crawl is a record source like any other: the pipeline then extracts crawled pages with the
same code, schema and error rows as WARC or folder inputs (DESIGN §1: "the crawler is one more record
source"), and a crawl can be re-audited later from `RUN/crawl/` without the network.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, cast

from trustaudit.crawl.journal import read_committed
from trustaudit.errors import UsageError
from trustaudit.io.lines import MAX_LIST_LINE_BYTES, csv_rows, text_lines
from trustaudit.io.records import ErrorRow, RecordBatch, records_table

__all__ = [
    "CRAWL_EXTRA_COLUMNS",
    "MAX_LIST_LINE_BYTES",
    "CrawlSource",
    "InvalidURLLine",
    "read_url_list",
    "source_name",
]


class InvalidURLLine(str):
    """A URL-list entry that cannot be a URL whatever it says (not valid UTF-8, shown with U+FFFD;
    a line over MAX_LIST_LINE_BYTES, kept empty; a CSV record the csv module rejects): the crawler
    makes it a BAD_URL row with `reason` (never a fetch, never an INTERNAL_ERROR)."""

    reason = "URL line is not valid UTF-8"

    def __new__(cls, text: str, reason: str | None = None) -> InvalidURLLine:
        self = super().__new__(cls, text)
        if reason is not None:
            self.reason = reason
        return self


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


def read_url_list(path_or_dash: str | Path) -> Iterator[tuple[int, str]]:
    """Yield (offset, url) for each URL line of a list, reading it line by line.

    `.csv`: the `url` column (any case), offset = 1-based data row. Anything else (`.txt`, `-` for
    stdin): one URL a line, blank lines and `#` comments skipped, offset = 1-based line number.
    Lines are yielded as written (stripped); validating them is the crawler's job, so a bad line still
    becomes an error row rather than vanishing. No line is held past MAX_LIST_LINE_BYTES: a longer
    one is an empty InvalidURLLine saying so.
    """
    name = str(path_or_dash)
    fh = _open_list(name)
    try:
        if name.lower().endswith(".csv"):
            yield from _csv_urls(fh, name)
            return
        for line in text_lines(fh):
            s = line.text.strip()
            if line.too_long:
                yield line.number, InvalidURLLine("", f"URL list {line.too_long}")
            elif s and not s.startswith("#"):
                yield line.number, InvalidURLLine(s) if line.undecodable else s
    finally:
        if name != "-":
            fh.close()


def _csv_urls(fh: BinaryIO, name: str) -> Iterator[tuple[int, str]]:
    rows = csv_rows(fh)
    header = next(rows, None)
    if header is not None and header.problem:
        raise UsageError(f"{name}: cannot read the CSV header: {header.problem}")
    fields = {f.strip().lower(): i for i, f in enumerate(header.cells if header else [])}
    if "url" not in fields:
        raise UsageError(
            f"{name}: CSV URL list needs a 'url' column (has: {sorted(fields)})",
            hint="add a header row with a url column",
        )
    col = fields["url"]
    for row in rows:
        if row.problem:
            yield row.number, InvalidURLLine("", f"URL list record {row.number}: {row.problem}")
            continue
        value = (row.cells[col] if col < len(row.cells) else "").strip()
        if value:  # a bad byte in another column costs nothing
            yield (
                row.number,
                InvalidURLLine(value) if row.undecodable and "\ufffd" in value else value,
            )


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
