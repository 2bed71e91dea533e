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
from typing import Any

from trustaudit.crawl.journal import read_committed
from trustaudit.errors import UsageError
from trustaudit.io.decode import recode_wide
from trustaudit.io.records import ErrorRow, RecordBatch, records_table

__all__ = ["CRAWL_EXTRA_COLUMNS", "CrawlSource", "InvalidURLLine", "read_url_list", "source_name"]


class InvalidURLLine(str):
    """A URL-list line that is not valid UTF-8, shown with U+FFFD: the crawler makes it a BAD_URL
    row (never a fetch, never an INTERNAL_ERROR)."""

    reason = "URL line is not valid UTF-8"


def _decode_line(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidURLLine(raw.decode("utf-8", "replace"))


CRAWL_EXTRA_COLUMNS = ("crawl_final_url", "crawl_charset_source")


def source_name(path_or_dash: str) -> str:
    """The `source` value rows of this input carry (`stdin` for `-`)."""
    return "stdin" if path_or_dash == "-" else str(path_or_dash)


def read_url_list(path_or_dash: str | Path) -> Iterator[tuple[int, str]]:
    """Yield (offset, url) for each URL line of a list.

    `.csv`: the `url` column (any case), offset = 1-based data row. Anything else (`.txt`, `-` for
    stdin): one URL a line, blank lines and `#` comments skipped, offset = 1-based line number.
    Lines are yielded as written (stripped); validating them is the crawler's job, so a bad line still
    becomes an error row rather than vanishing.
    """
    name = str(path_or_dash)
    if name == "-":
        data = (
            sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        )
    else:
        p = Path(name)
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise UsageError(f"URL list not found: {p}") from None
        except IsADirectoryError:
            raise UsageError(
                f"URL list is a folder: {p}", hint="pass a .txt or .csv file"
            ) from None
        except OSError as exc:
            raise UsageError(f"cannot read URL list {p}: {exc}") from None
    data = recode_wide(data).removeprefix(b"\xef\xbb\xbf")  # UTF-16 lists: PowerShell's `>`
    if name.lower().endswith(".csv"):
        yield from _csv_urls(data.decode("utf-8", "replace"), name, data)
        return
    # line by line: one line with invalid UTF-8 is one BAD_URL row, the others are fetched
    for lineno, raw in enumerate(data.splitlines(), start=1):
        line = _decode_line(raw)
        s = line.strip()
        if s and not s.startswith("#"):
            yield lineno, InvalidURLLine(s) if isinstance(line, InvalidURLLine) else s


def _csv_urls(text: str, name: str, data: bytes = b"") -> Iterator[tuple[int, str]]:
    valid = _decode_line(data) if data else text
    # csv's default field cap (128 KiB) made one long cell an internal error that lost the whole
    # list; the file is in memory already, so no cell can be longer than it (the crawler refuses
    # URLs over ssrf.MAX_URL_CHARS as BAD_URL rows)
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text))
    fields = {f.strip().lower(): f for f in (reader.fieldnames or [])}
    if "url" not in fields:
        raise UsageError(
            f"{name}: CSV URL list needs a 'url' column (has: {sorted(fields)})",
            hint="add a header row with a url column",
        )
    col = fields["url"]
    for i, row in enumerate(reader, start=1):
        value = (row.get(col) or "").strip()
        if value:
            bad = isinstance(valid, InvalidURLLine) and "\ufffd" in value
            yield i, InvalidURLLine(value) if bad else value


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
