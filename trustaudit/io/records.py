"""The record: what every input (folder, JSONL, WARC, Parquet, crawl) becomes before extraction."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pyarrow as pa

from trustaudit.hostname import ascii_host
from trustaudit.schema import ERROR_SCHEMA  # re-exported for old callers

RECORD_FIELDS: tuple[pa.Field, ...] = (
    pa.field("source", pa.string()),
    pa.field("offset", pa.int64()),
    pa.field("url", pa.string()),
    pa.field("fetched_at", pa.timestamp("us", tz="UTC")),
    pa.field("status", pa.int32()),
    pa.field("content_type", pa.string()),
    pa.field("body", pa.binary()),
    pa.field("given_text", pa.string()),
    pa.field("http_charset", pa.string()),
)
RECORD_SCHEMA = pa.schema(list(RECORD_FIELDS))
RECORD_COLUMNS = tuple(f.name for f in RECORD_FIELDS)


@dataclass(frozen=True)
class ErrorRow:
    """One input record that did not become a page, and why (one line, no traceback)."""

    source: str
    offset: int | None
    url: str | None
    stage: str
    code: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RecordBatch:
    """A batch of records plus the error rows met while reading them."""

    records: pa.Table
    errors: list[ErrorRow] = field(default_factory=list)


def records_table(rows: Sequence[Mapping[str, Any]], extra_columns: Iterable[str] = ()) -> pa.Table:
    """Build a record table from dicts; missing record fields are null, extra columns are strings.

    Extra input fields that collide with record/page column names are renamed `input_<name>`.
    """
    arrays: dict[str, pa.Array] = {}
    for f in RECORD_FIELDS:
        arrays[f.name] = pa.array([r.get(f.name) for r in rows], type=f.type)
    for name in extra_columns:
        out = f"input_{name}" if name in RESERVED_COLUMNS else name
        values = [r.get(name) for r in rows]
        try:
            arrays[out] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):  # e.g. an int over 64 bits
            arrays[out] = pa.array(
                [None if v is None else str(v) for v in values], type=pa.string()
            )
    return pa.table(arrays)


def safe_records_table(
    rows: Sequence[Mapping[str, Any]], extra_columns: Iterable[str], errors: list[ErrorRow]
) -> pa.Table:
    """records_table, guarded per record: a row Arrow cannot hold becomes one error row, not a crash.

    Why: one lone surrogate or an odd type in one record used to fail the whole batch's conversion
    (and with it the run). The fast path converts the batch at once; only a failing batch is redone
    row by row to find the culprits.
    """
    extra = list(extra_columns)
    good: list[Mapping[str, Any]] = []
    for r in rows:
        url = r.get("url")
        if url is not None and (not isinstance(url, str) or has_surrogates(url)):
            errors.append(
                ErrorRow(
                    str(r.get("source") or ""),
                    r.get("offset"),
                    None,
                    "read",
                    "BAD_URL",
                    f"URL is not valid Unicode text: {ascii(url)[:200]}",
                )
            )
        else:
            good.append(r)
    try:
        return records_table(good, extra)
    except Exception:
        pass
    kept: list[Mapping[str, Any]] = []
    for r in good:
        try:
            records_table([r], extra)
        except Exception as exc:
            errors.append(
                ErrorRow(
                    str(r.get("source") or ""),
                    r.get("offset"),
                    r.get("url"),
                    "read",
                    "RECORD_INVALID",
                    f"{type(exc).__name__}: {exc}"[:300],
                )
            )
        else:
            kept.append(r)
    return records_table(kept, extra)


def http_status(value: Any) -> int | None:
    """An input's HTTP status: an int, or a string of ASCII digits (spaces around allowed), in
    100-599; anything else (out of range, '²', true, 200.0) is no status and the page is kept.

    Why one rule: a WARC's status line and a JSONL `status` are the same thing ("404" and 404 are
    both HTTP_STATUS rows); RFC 9110 (section 15) puts every valid status in 100-599, so 1000 or
    70000 says nothing about the page. A hostile record's impossible status used to cost the page
    itself as a RECORD_INVALID row (an int32 column, int() of a non-ASCII digit)."""
    if isinstance(value, str):
        text = value.strip()
        value = int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else None
    if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
        return value
    return None


def has_surrogates(text: str) -> bool:
    """True when `text` holds lone surrogates (from JSON escapes or undecodable file names)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def display_text(text: str) -> str:
    """`text` with lone surrogates (e.g. a file name's non-UTF-8 bytes) shown as U+FFFD, storable."""
    if not has_surrogates(text):
        return text
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def utf8_bytes(text: str) -> bytes:
    """`text` as UTF-8, its lone surrogates (a JSON string's `\\ud800` escape) as U+FFFD.

    Why: a JSONL `html` field is already text. Encoded with surrogatepass, one such escape made
    the body invalid UTF-8, and the whole page went to charset detection: an ASCII page holding
    one `\\ud800` decoded as windows-1251."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


# Error codes of records whose content existed but was never scanned for injections; the gate's
# `unscanned` rule fails on them (gate.unscanned) and `fuse` keeps such URLs out of the context.
UNSCANNED_CODES = frozenset(
    {
        "BINARY_CONTENT",
        "TOO_LARGE",
        "LINE_TOO_LARGE",
        "DECOMPRESSED_TOO_LARGE",
        "JSON_TOO_DEEP",
        "JSON_DECODE",
        "FIELD_TOO_LARGE",
        "TOO_MANY_FIELDS",
        "RECORD_INVALID",
        "EXTRACT_FAILED",
        "EXTRACT_TIMEOUT",
        "TIMEOUT",
        "SOURCE_FAILED",
        "READ_FAILED",
        "NOT_A_REGULAR_FILE",
        "UNKNOWN_FORMAT",
        "GZIP_CORRUPT",
        "GZIP_TRUNCATED",
        "COMPRESSED_CORRUPT",
        "UNSUPPORTED_COMPRESSION",
        "PARQUET_CORRUPT",
        "PARQUET_BAD_TYPES",
        "WARC_CORRUPT",
        "WARC_RECORD_CORRUPT",
        "WARC_TRUNCATED",
        "INTERNAL_ERROR",
    }
)


def errors_table(errors: Sequence[ErrorRow]) -> pa.Table:
    """Error rows as a table; text from hostile input (lone surrogates) is made storable first."""
    rows = [
        {k: display_text(v) if isinstance(v, str) else v for k, v in e.to_dict().items()}
        for e in errors
    ]
    return pa.Table.from_pylist(rows, schema=ERROR_SCHEMA)


def normalize_url(url: str) -> str:
    """Canonical form used for doc_id: lower-case scheme/host, no default port, no fragment."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    host = ascii_host(parts.hostname or "")
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host
    if port and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        netloc = f"{host}:{port}"
    path = parts.path or "/"
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def doc_id_for(url: str | None, source: str, offset: int | None) -> str:
    """Stable id across runs: hash of the normalized URL, else of source#offset."""
    key = normalize_url(url) if url else f"{source}#{offset}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# Columns the pipeline writes into pages.parquet; input fields with these names get an `input_` prefix.
RESERVED_COLUMNS = frozenset(
    {
        *RECORD_COLUMNS,
        "doc_id",
        "final_url",
        "host",
        "registered_domain",
        "content_hash",
        "title",
        "text",
        "published",
        "license",
        "sitename",
        "author",
        "lang",
        "word_count",
        "paragraphs",
        "html_hidden_text",
        "page_disclosure_text",
        "html_bytes",
        "html_truncated",
        "extractor",
        "encoding",
        "canonical_url",
        "ingest_reasons",
        "injection_findings",
        "html",
    }
)
