"""Input readers: folder of HTML, JSONL, WARC/ARC, Parquet -> streams of RecordBatch.

HTML, JSONL and WARC/ARC files may be compressed with gzip, bzip2, xz or zstd (io/compression.py).
Each reader is deterministic for the same input (so resume can skip committed batches by index),
streams (never loads a whole corpus) and turns every bad record into an ErrorRow instead of raising.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import json
import logging
import os
import re
import stat as stat_mod
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import pyarrow as pa

from trustaudit.errors import UsageError
from trustaudit.io import fs
from trustaudit.io.compression import (
    COMPRESSED_SUFFIXES,
    PAYLOAD_ENCODINGS,
    READABLE,
    CorruptStream,
    PayloadDamaged,
    codec_of,
    cut_magic,
    decompress_capped,
    open_decompressed,
    read_encoded,
    unsupported_codec,
)
from trustaudit.io.cut_streams import CutRecord, cut_short, magic_cut_row, undecompressed_row
from trustaudit.io.decode import Utf8Lines, wide_bom
from trustaudit.io.forward import KEEP, ForwardReader
from trustaudit.io.lines import CsvRow, bounded_lines, csv_rows
from trustaudit.io.lines import TooMuchInput as _TooMuch
from trustaudit.io.parquet_cells import (
    CONTENT_COLUMNS,
    cell_bytes,
    decoded_parts,
    open_handle,
    open_parquet,
    page_plan,
    parquet_batches,
    python_cells,
    python_rows,
)
from trustaudit.io.parquet_pages import PageError, streamed_batches
from trustaudit.io.records import (
    ErrorRow,
    RecordBatch,
    display_text,
    has_surrogates,
    http_status,
    records_table,
    safe_records_table,
    utf8_bytes,
)
from trustaudit.io.warc_gaps import BlankLinesTooLong, SkipMeter, SkipTotalSpent, bound_gaps
from trustaudit.io.warc_headers import HeaderDamaged, HeaderTooLarge, bound_headers
from trustaudit.policy.inputs import InputsPolicy

_DEFAULT_LIMITS = InputsPolicy()


def _compressed(*bases: str, plain: bool = True) -> tuple[str, ...]:
    """Each suffix plain (unless not `plain`) and with every readable compression suffix."""
    return tuple(b + c for b in bases for c in ("",) * plain + COMPRESSED_SUFFIXES)


HTML_SUFFIXES = _compressed(".html", ".htm", ".xhtml")
JSONL_SUFFIXES = _compressed(".jsonl", ".ndjson") + _compressed(".json", plain=False)
WARC_SUFFIXES = _compressed(".warc", ".arc")
PARQUET_SUFFIXES = (".parquet",)
URL_LIST_SUFFIXES = (".txt", ".csv", ".urls")
INPUT_SUFFIXES = HTML_SUFFIXES + JSONL_SUFFIXES + WARC_SUFFIXES + PARQUET_SUFFIXES


class Source(Protocol):
    @property
    def name(self) -> str: ...

    kind: str

    def batches(self, batch_size: int) -> Iterator[RecordBatch]: ...


def _now() -> datetime:
    return datetime.now(UTC)


def _gunzip_capped(data: bytes, cap: int) -> bytes:
    """Decompress gzip with a cap so a gzip bomb cannot exhaust memory."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = d.decompress(data, cap + 1)
    if len(out) > cap:
        raise ValueError(f"decompressed size exceeds {cap} bytes")
    if not d.eof:
        raise EOFError("gzip stream is truncated")
    return out


def _open_input(path: fs.Location, *, up_to_damage: bool = False) -> tuple[BinaryIO, BinaryIO]:
    """(stream, file) for a local file or object-store key: the stream is transparently
    decompressed when the first bytes are gzip, bzip2, xz or zstd (sniffed, not by name); the
    file under it tells how many bytes of the input were consumed. Close both. `up_to_damage`:
    a bzip2, xz or zstd stream gives what it holds before damage, then ends (`damage` says)."""
    fh = fs.open_input(path)  # buffered: peek() works on a stream that cannot seek
    codec = codec_of(fh.peek(6)[:6])  # type: ignore[attr-defined]
    if codec == "gzip":
        return gzip.GzipFile(fileobj=fh), fh  # type: ignore[return-value]
    if codec is not None:
        return open_decompressed(fh, codec, up_to_damage=up_to_damage), fh
    return fh, fh


def _decompressed_page(data: bytes, cap: int) -> bytes:
    """A saved page's bytes, decompressed (capped at `cap`) when they are gzip, bzip2, xz or zstd."""
    codec = codec_of(data[:6])
    if codec == "gzip":
        return _gunzip_capped(data, cap)
    return data if codec is None else decompress_capped(data, codec, cap)


def _corrupt_code(codec: str | None) -> str:
    """Error code of a damaged compressed input: GZIP_* as before for gzip, one code for others."""
    return "GZIP_CORRUPT" if codec in (None, "gzip") else "COMPRESSED_CORRUPT"


def _error_batch(
    source: str, offset: int | None, url: str | None, stage: str, code: str, message: str
) -> RecordBatch:
    """A batch that holds only one error row (an input that yields no record at all)."""
    return RecordBatch(records_table([]), [ErrorRow(source, offset, url, stage, code, message)])


def _chunks(rows: list[dict[str, Any]], errors: list[ErrorRow], extra: list[str]) -> RecordBatch:
    errors = list(errors)
    return RecordBatch(safe_records_table(rows, extra, errors), errors)


def _body_bytes(row: dict[str, Any]) -> int:
    """Bytes of a record's body and given text (what `run.ingest.record_bytes` counts)."""
    body, text = row.get("body"), row.get("given_text")
    size = len(body) if isinstance(body, bytes) else 0
    return size + (len(text.encode("utf-8", "surrogatepass")) if isinstance(text, str) else 0)


@dataclass
class _Held:
    """The record bytes a reader holds for its next batch, so that it cuts a batch by bytes
    (`inputs.batch_max_bytes`) as well as by count.

    Why: readers cut by count and ingest cut their batches by bytes afterwards, so a reader
    still held 64 records of 45 MB at once (12 such JSONL records: 1.7 GB in the reader)."""

    max_bytes: int
    held: int = 0

    def full_before(self, rows: list[dict[str, Any]], row: dict[str, Any]) -> bool:
        """True when `rows` (not yet holding `row`) should be yielded before `row` joins them;
        `row` is counted either way."""
        size = _body_bytes(row)
        full = bool(rows) and self.held + size > self.max_bytes
        self.held = size if full else self.held + size
        return full


def special_file(path: Path) -> str | None:
    """'FIFO', 'character device'… for a path that is not a regular file or folder (never opened)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    for test, what in (
        (stat_mod.S_ISFIFO, "FIFO"),
        (stat_mod.S_ISCHR, "character device"),
        (stat_mod.S_ISBLK, "block device"),
        (stat_mod.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return what
    return None


def _symlink_target(p: Path) -> str:
    try:
        return display_text(os.readlink(p))
    except OSError:
        return "?"


def _bad_symlink(p: Path) -> tuple[str, str] | None:
    """(code, reason) for a symbolic link that leads to no file: a loop (ELOOP) or a missing
    target; None for anything else."""
    if not p.is_symlink():
        return None
    try:
        p.stat()
    except OSError as exc:
        target = _symlink_target(p)
        if exc.errno == errno.ELOOP:
            return "SYMLINK_LOOP", f"symbolic link loop ({target} leads back to itself); not read"
        return "BROKEN_SYMLINK", f"symbolic link to {target}, which does not exist; not read"
    return None


_INPUT_STEMS = (
    ".html",
    ".htm",
    ".xhtml",
    ".jsonl",
    ".ndjson",
    ".json",
    ".warc",
    ".arc",
    ".parquet",
)
_ARCHIVES = (".zip", ".7z", ".rar", ".tar", ".tgz")


def unsupported_input(name: str) -> str | None:
    """What a file is when its name says it is an input compressed or archived in a format the
    readers do not read (`x.jsonl.lz4`, `pages.zip`), else None: it becomes one
    UNSUPPORTED_COMPRESSION error row instead of being passed over."""
    lower = name.lower()
    what = unsupported_codec(lower)
    if what is None:
        return None
    if lower.endswith(_ARCHIVES) or lower.rsplit(".", 1)[0].endswith(_INPUT_STEMS):
        return what
    return None


def unsupported_message(rel: str, what: str) -> str:
    return f"{rel}: {what}, not read (trustaudit reads {READABLE}); decompress or extract it first"


def walk_files(root: Path) -> tuple[list[Path], list[ErrorRow]]:
    """Regular files under `root`, sorted, following symbolic links to folders once each. Every
    entry that looks like an input and cannot be read is an error row, never a silence: an
    unreadable subfolder (READ_FAILED), a symbolic link loop or a second link to a folder already
    read (SYMLINK_LOOP), a link to nothing (BROKEN_SYMLINK), a FIFO or device
    (NOT_A_REGULAR_FILE), an input compressed in a format not read (UNSUPPORTED_COMPRESSION)."""
    files: list[Path] = []
    errors: list[ErrorRow] = []
    name = display_text(str(root))

    def row(code: str, message: str) -> None:
        errors.append(ErrorRow(name, None, None, "read", code, message))

    def failed(exc: OSError) -> None:
        where = display_text(str(exc.filename or root))
        row("READ_FAILED", f"cannot list folder {where}: {exc.strerror}")

    seen: set[tuple[int, int]] = set()  # (device, inode) of every folder walked
    try:
        st = root.stat()
        seen.add((st.st_dev, st.st_ino))
    except OSError:
        pass
    for dirpath, dirnames, filenames in os.walk(root, onerror=failed, followlinks=True):
        keep = []
        # real folders first: a link to a sibling folder is the second path to it, not the first
        for d in sorted(dirnames, key=lambda d: (os.path.islink(os.path.join(dirpath, d)), d)):
            p = Path(dirpath) / d
            try:
                st = p.stat()
            except OSError as exc:
                failed(exc)
                continue
            if (st.st_dev, st.st_ino) in seen:  # only a link can lead to a folder walked before
                rel = display_text(p.relative_to(root).as_posix())
                reason = (
                    f"a symbolic link to {_symlink_target(p)}, a folder already read "
                    "(a loop or a second path to it); not followed"
                    if p.is_symlink()
                    else "a folder already read through a symbolic link; not read twice"
                )
                row("SYMLINK_LOOP", f"{rel} is {reason}")
                continue
            seen.add((st.st_dev, st.st_ino))
            keep.append(d)
        dirnames[:] = sorted(keep)
        for f in sorted(filenames):
            p = Path(dirpath) / f
            rel = display_text(p.relative_to(root).as_posix())  # the source column names root
            if p.is_file():
                if (what := unsupported_input(f)) is not None:
                    row("UNSUPPORTED_COMPRESSION", unsupported_message(rel, what))
                else:
                    files.append(p)
            elif (bad := _bad_symlink(p)) is not None:
                if bad[0] == "SYMLINK_LOOP" or f.lower().endswith(INPUT_SUFFIXES):
                    row(bad[0], f"{rel} is a {bad[1]}")
            elif (what := special_file(p)) is not None and f.lower().endswith(INPUT_SUFFIXES):
                row("NOT_A_REGULAR_FILE", f"{rel} is a {what}, not a regular file; not read")
    files.sort()
    return files, errors


@dataclass
class _PathSource:
    """A source named by its path (the `source` column of its records and errors)."""

    path: Path  # a str for an object-store URI (fs.Location); Path would fold its `//`
    # progress: bytes of the file consumed so far (compressed bytes for a compressed input)
    _bytes_read: int = field(default=0, init=False, repr=False, compare=False)
    _reader: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return display_text(str(self.path))

    def _size(self) -> int | None:
        """The input's size on disk (a local file; None for an object-store key: not metered)."""
        try:
            st = None if fs.is_uri(self.path) else os.stat(self.path)
        except OSError:
            return None
        if st is None:
            return None
        return 0 if stat_mod.S_ISDIR(st.st_mode) else st.st_size  # a folder's own entry: no bytes

    def read_position(self) -> tuple[int, int] | None:
        """(bytes consumed, bytes in all) of this input, for a progress percentage when its record
        count is unknown without reading it (WARC, compressed JSONL). Compressed inputs count
        compressed bytes: the position of the file under the decompressor."""
        total = self._size()
        if total is None:
            return None
        reader = self._reader
        if reader is not None and getattr(reader, "closed", False):
            self._bytes_read = total  # read to the end (or to the damage that stopped it)
        elif reader is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):  # no tell(): unmetered
                self._bytes_read = max(self._bytes_read, reader.tell())
        return min(self._bytes_read, total), total


# ---------------------------------------------------------------- folder of HTML files
@dataclass(frozen=True)
class _PageFile:
    """One saved page of a folder (local or under an object-store prefix), not read yet."""

    rel: str  # its path inside the folder, shown in errors and kept as source_file
    url: str  # the operator's URL, else the file's own file:/s3: URI
    origin: str  # url_map | sidecar | file
    read: Callable[[], tuple[bytes, float]]  # -> (bytes, mtime in seconds)


def _check_size(size: int, cap: int) -> None:
    if size > cap:
        raise ValueError(f"file is {size} bytes, over the {cap}-byte cap")


def _page_batches(
    name: str,
    pages: Iterable[_PageFile],
    max_bytes: int,
    batch_size: int,
    first_errors: list[ErrorRow],
    batch_max_bytes: int,
) -> Iterator[RecordBatch]:
    """Saved pages -> record batches: each page a row, or an error row (READ_FAILED, TOO_LARGE,
    GZIP_CORRUPT, EMPTY_FILE) that never stops the folder. The one loop for local folders and
    object-store prefixes."""
    rows: list[dict[str, Any]] = []
    errors: list[ErrorRow] = list(first_errors)
    held = _Held(batch_max_bytes)
    for index, page in enumerate(pages):
        data = b""
        try:
            data, mtime = page.read()
            data = _decompressed_page(data, max_bytes)  # on failure `data` keeps the raw bytes
        except (OSError, ValueError, EOFError, zlib.error) as exc:
            code = "READ_FAILED"
            if isinstance(exc, EOFError | zlib.error):
                code = _corrupt_code(codec_of(data[:6]))
            if isinstance(exc, ValueError):
                code = "TOO_LARGE"
            msg = display_text(f"{page.rel}: {exc}")
            errors.append(ErrorRow(name, index, page.url, "read", code, msg))
        else:
            if not data.strip():
                msg = f"{page.rel}: file is empty"
                errors.append(ErrorRow(name, index, page.url, "read", "EMPTY_FILE", msg))
            else:
                row = {
                    "source": name,
                    "offset": index,
                    "url": page.url,
                    "fetched_at": datetime.fromtimestamp(mtime, UTC),
                    "body": data,
                    "url_origin": page.origin,
                    "source_file": page.rel,
                }
                if held.full_before(rows, row):
                    yield _chunks(rows, errors, ["url_origin", "source_file"])
                    rows, errors = [], []
                rows.append(row)
        if len(rows) + len(errors) >= batch_size:
            yield _chunks(rows, errors, ["url_origin", "source_file"])
            rows, errors, held.held = [], [], 0
    if rows or errors:
        yield _chunks(rows, errors, ["url_origin", "source_file"])


@dataclass
class FolderSource(_PathSource):
    """A folder (searched recursively) or a single HTML file.

    URL priority: <link rel=canonical>/og:url (decided at extraction) > urls.csv sidecar > file: URL.
    """

    max_bytes: int = 50_000_000
    kind: str = "folder"
    url_map: dict[str, str] | None = None
    limits: InputsPolicy = field(default_factory=InputsPolicy)
    files: list[Path] = field(init=False)
    sidecar: dict[str, str] = field(init=False)
    unreadable: list[ErrorRow] = field(init=False)

    def __post_init__(self) -> None:
        self.unreadable = []
        if self.path.is_file():
            self.files = [self.path]
            base = self.path.parent
        else:
            base = self.path
            found, self.unreadable = walk_files(self.path)
            self.files = [p for p in found if p.name.lower().endswith(HTML_SUFFIXES)]
        self.sidecar, bad = _read_sidecar(base, self.name)
        self.unreadable += bad
        self.base = base
        self._total: int | None = None

    def _size(self) -> int | None:
        """Bytes of the folder's HTML files (stat once, when a progress bar first asks)."""
        if self._total is None:
            total = 0
            for f in self.files:
                with contextlib.suppress(OSError):
                    total += f.stat().st_size
            self._total = total
        return self._total

    def _given_url(self, file: Path, rel: str) -> tuple[str | None, str]:
        """The operator's URL for a file: --url-map first, then the urls.csv sidecar."""
        for table, origin in ((self.url_map or {}, "url_map"), (self.sidecar, "sidecar")):
            for key in (rel, file.name, str(file), str(file.resolve())):
                if key in table:
                    return table[key], origin
        return None, "file"

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        def pages() -> Iterator[_PageFile]:
            for file in self.files:
                rel = file.relative_to(self.base).as_posix()
                given, origin = self._given_url(file, rel)

                def read(file: Path = file) -> tuple[bytes, float]:
                    stat = file.stat()
                    self._bytes_read += stat.st_size
                    _check_size(stat.st_size, self.max_bytes)
                    return file.read_bytes(), stat.st_mtime

                yield _PageFile(display_text(rel), given or file.resolve().as_uri(), origin, read)

        return _page_batches(
            self.name,
            pages(),
            self.max_bytes,
            batch_size,
            self.unreadable,
            self.limits.batch_max_bytes,
        )


SIDECAR_CODE = "URL_SIDECAR_INVALID"
_SIDECAR_LOST = "the files keep their locations as URLs"


def _sidecar_rows(fh: BinaryIO, source: str, where: str) -> tuple[dict[str, str], list[ErrorRow]]:
    """file -> URL from a urls.csv sidecar (columns file|path and url), and an error row for each
    record it cannot use (a line over the list cap, a csv error, a file or URL not valid UTF-8).

    The sidecar only names the pages' URLs: a bad record costs its mapping (the file it names keeps
    its file: URL), never the folder's pages nor the rest of the batch (it stopped the whole audit
    with exit 2)."""
    out: dict[str, str] = {}
    errors: list[ErrorRow] = []

    def error(row: CsvRow, why: str) -> None:
        msg = f"{where} record {row.number}: {why}; the file it names keeps its location as URL"
        errors.append(ErrorRow(source, None, None, "read", SIDECAR_CODE, display_text(msg)))

    rows = csv_rows(fh)
    header = next(rows, None)
    if header is None:
        return out, errors
    if header.problem:
        error(header, header.problem)
        return out, errors
    # a repeated column name means its last column, as with csv.DictReader before
    cols = {name: i for i, name in enumerate(header.cells)}

    def cell(cells: list[str], name: str) -> str:
        i = cols.get(name)
        return cells[i].strip() if i is not None and i < len(cells) else ""

    for row in rows:
        if row.problem:
            error(row, row.problem)
            continue
        name = cell(row.cells, "file") or cell(row.cells, "path")
        url = cell(row.cells, "url")
        if row.undecodable and "\ufffd" in name + url:
            error(row, f"file {name[:200]!r} or its URL is not valid UTF-8")
        elif name and url:
            out[name] = url
    return out, errors


def _read_sidecar(folder: Path, source: str) -> tuple[dict[str, str], list[ErrorRow]]:
    path = folder / "urls.csv"
    if not path.is_file():
        return {}, []
    where = display_text(str(path))
    try:
        with path.open("rb") as fh:
            return _sidecar_rows(fh, source, where)
    except OSError as exc:
        msg = f"cannot read URL sidecar {where}: {exc.strerror or exc}; {_SIDECAR_LOST}"
        return {}, [ErrorRow(source, None, None, "read", SIDECAR_CODE, display_text(msg))]


# ---------------------------------------------------------------- JSONL
_JSONL_RESERVED = {"url", "html", "text", "fetched_at", "status", "content_type"}


@dataclass
class JsonlSource(_PathSource):
    """One JSON object per line with `url` and `html` (or `text`); other fields become columns."""

    max_bytes: int = 50_000_000
    kind: str = "jsonl"
    limits: InputsPolicy = field(default_factory=InputsPolicy)

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        rows: list[dict[str, Any]] = []
        errors: list[ErrorRow] = []
        extra: dict[str, None] = {}
        line_no = 0
        emitted = 0  # records and error rows yielded so far: a file that yields none is one row
        held = _Held(self.limits.batch_max_bytes)
        self._fields: set[str] = set()  # extra field names of the file so far (its columns)
        try:
            fh, self._reader = _open_input(self.path)
        except OSError as exc:
            yield _error_batch(self.name, None, None, "read", "READ_FAILED", display_text(str(exc)))
            return
        try:
            wide = wide_bom(fh.peek(4)[:4]) if hasattr(fh, "peek") else None  # type: ignore[attr-defined]
        except Exception:  # a damaged stream fails again on the first line read, reported there
            wide = None
        if wide is not None:  # UTF-16/32 with a BOM (PowerShell's default): lines are recoded
            fh = Utf8Lines(fh, wide)  # type: ignore[assignment]
        with self._reader, fh:
            try:
                for raw, size in bounded_lines(
                    fh, self.limits.max_line_bytes, self.limits.max_decompressed_bytes
                ):
                    line_no += 1
                    if raw is None:
                        errors.append(
                            ErrorRow(
                                self.name,
                                line_no,
                                None,
                                "read",
                                "LINE_TOO_LARGE",
                                f"line {line_no} is {size} bytes, over inputs.max_line_bytes"
                                f" ({self.limits.max_line_bytes}); skipped without reading it whole",
                            )
                        )
                    else:
                        n = len(rows)
                        self._guarded_parse(raw, line_no, rows, errors, extra)
                        if len(rows) > n and held.full_before(rows[:-1], rows[-1]):
                            emitted += len(rows) - 1 + len(errors)
                            yield _chunks(rows[:-1], errors, list(extra))
                            rows, errors = rows[-1:], []
                    if len(rows) + len(errors) >= batch_size:
                        emitted += len(rows) + len(errors)
                        yield _chunks(rows, errors, list(extra))
                        rows, errors, extra, held.held = [], [], {}, 0
            except _TooMuch as exc:
                errors.append(
                    ErrorRow(
                        self.name, line_no + 1, None, "read", "DECOMPRESSED_TOO_LARGE", str(exc)
                    )
                )
            except (EOFError, OSError, zlib.error) as exc:
                errors.append(
                    ErrorRow(
                        self.name,
                        line_no + 1,
                        None,
                        "read",
                        "GZIP_TRUNCATED"
                        if getattr(fh, "codec", "gzip") == "gzip"
                        else "COMPRESSED_CORRUPT",
                        f"input is truncated or corrupt after line {line_no}: {exc}",
                    )
                )
        if not emitted and not rows and not errors:
            # no lines at all, or only blank ones; a file that failed to decompress already has
            # its one error row and is not also called empty
            what = (
                "file has no lines" if line_no == 0 else f"file holds only {line_no} blank line(s)"
            )
            errors.append(ErrorRow(self.name, None, None, "read", "EMPTY_FILE", what))
        if rows or errors:
            yield _chunks(rows, errors, list(extra))

    def _guarded_parse(
        self,
        raw: bytes,
        line_no: int,
        rows: list[dict[str, Any]],
        errors: list[ErrorRow],
        extra: dict[str, None],
    ) -> None:
        """`_parse_line`, but any exception costs this line one error row, never the lines before
        it in the batch nor the rest of the file (a bad record is one error row, issue 15)."""
        try:
            self._parse_line(raw, line_no, rows, errors, extra)
        except Exception as exc:
            msg = display_text(f"{type(exc).__name__}: {exc}")[:300]
            errors.append(
                ErrorRow(
                    self.name, line_no, None, "read", "RECORD_INVALID", f"line {line_no}: {msg}"
                )
            )

    def _parse_line(
        self,
        raw: bytes,
        line_no: int,
        rows: list[dict[str, Any]],
        errors: list[ErrorRow],
        extra: dict[str, None],
    ) -> None:
        if not raw.strip():
            return

        def error(code: str, message: str, url: str | None = None) -> None:
            errors.append(ErrorRow(self.name, line_no, url, "read", code, message))

        if len(raw) > self.max_bytes:
            error("TOO_LARGE", f"line {line_no} is {len(raw)} bytes")
            return
        try:
            obj = json.loads(raw)
        except RecursionError:
            error("JSON_TOO_DEEP", f"line {line_no}: RecursionError: JSON nested too deeply")
            return
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int over 4300 digits
            error("JSON_DECODE", f"line {line_no}: {type(exc).__name__}: {exc}")
            return
        if not isinstance(obj, dict):
            error(
                "NOT_AN_OBJECT",
                f"line {line_no}: expected a JSON object, got {type(obj).__name__}",
            )
            return
        limits = self.limits
        if (raw.count(b"[") + raw.count(b"{")) > limits.max_json_depth and (
            json_depth(obj, limits.max_json_depth) > limits.max_json_depth
        ):
            error(
                "JSON_TOO_DEEP",
                f"line {line_no}: nested deeper than inputs.max_json_depth ({limits.max_json_depth})",
            )
            return
        big = oversized_field(obj, limits.max_field_bytes, keep=("html", "text"))
        if big is not None:
            error(
                "FIELD_TOO_LARGE",
                f"line {line_no}: field {big[:80]!r} is over inputs.max_field_bytes"
                f" ({limits.max_field_bytes})",
            )
            return
        url = obj.get("url")
        if url is not None and not isinstance(url, str):
            # dropping it would keep the page under a made-up identity (source#line)
            error("BAD_URL", f"line {line_no}: 'url' must be a string, got {type(url).__name__}")
            return
        html, text = obj.get("html"), obj.get("text")
        if not isinstance(html, str) and not isinstance(text, str):
            errors.append(
                ErrorRow(
                    self.name,
                    line_no,
                    url,
                    "read",
                    "MISSING_FIELDS",
                    f"line {line_no}: needs an 'html' or 'text' string field",
                )
            )
            return
        row: dict[str, Any] = {
            "source": self.name,
            "offset": line_no,
            "url": url,
            "fetched_at": _parse_ts(obj.get("fetched_at")),
            "status": http_status(obj.get("status")),
            "content_type": obj.get("content_type")
            if isinstance(obj.get("content_type"), str)
            else None,
            "body": utf8_bytes(html) if isinstance(html, str) else None,
            "given_text": text if isinstance(text, str) and not isinstance(html, str) else None,
        }
        bad_key = next((k for k in obj if has_surrogates(k)), None)
        if bad_key is not None:
            error(
                "RECORD_INVALID",
                f"line {line_no}: field name {ascii(bad_key)[:80]} is not valid Unicode",
            )
            return
        long_key = next((k for k in obj if len(k) > MAX_FIELD_NAME_CHARS), None)
        if long_key is not None:
            # each name becomes a column name of pages.parquet, held by every reader of it: 256
            # names of 5 MB each would make a footer of over a gigabyte
            error(
                "FIELD_TOO_LARGE",
                f"line {line_no}: a field name of {len(long_key)} characters"
                f" ({long_key[:40]!r}…), over {MAX_FIELD_NAME_CHARS}",
                url,
            )
            return
        new = [k for k in obj if k not in _JSONL_RESERVED and k not in self._fields]
        if len(self._fields) + len(new) > limits.max_extra_fields:
            # each name is a column of every page: records that each bring new names would
            # build a table of 100,000 columns (minutes and gigabytes for a 2 MB file)
            error(
                "TOO_MANY_FIELDS",
                f"line {line_no}: {len(new)} new field name(s) ({new[0][:40]!r}, …) would give"
                f" the file more than inputs.max_extra_fields ({limits.max_extra_fields}) columns",
                url,
            )
            return
        self._fields.update(new)
        for key, value in obj.items():
            if key in _JSONL_RESERVED:
                continue
            # a field named like a record column (body, source, offset, given_text) must not replace
            # what the reader set: it would swap the scanned page or break the run's accounting
            key = f"input_{key}" if key in row else key
            extra[key] = None
            row[key] = (
                json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value
            )
        rows.append(row)


def _stream_code(exc: BaseException) -> str:
    """The error code of a decompression failure ('' for other exceptions)."""
    if isinstance(exc, _TooMuch):
        return "DECOMPRESSED_TOO_LARGE"
    return "COMPRESSED_CORRUPT" if isinstance(exc, CorruptStream) else ""


class _Capped:
    """A decompressed stream that raises _TooMuch past inputs.max_decompressed_bytes (WARC files
    compressed whole: warcio reads them in blocks, no line cap applies)."""

    def __init__(self, fh: BinaryIO, limits: InputsPolicy) -> None:
        self._fh, self._cap, self._total = fh, limits.max_decompressed_bytes, 0
        self.ended = False  # a read met the end of the stream (of a stream read up to damage: it)

    def _count(self, data: bytes) -> bytes:
        self._total += len(data)
        if self._total > self._cap:
            raise _TooMuch(f"more than {self._cap} bytes after decompression; the rest is cut")
        return data

    def _end(self, data: bytes, size: int) -> bytes:
        self.ended = self.ended or (not data and size != 0)
        return data

    def read(self, size: int = -1) -> bytes:
        return self._end(self._count(self._fh.read(size)), size)

    def readline(self, size: int = -1) -> bytes:
        return self._end(self._count(self._fh.readline(size)), size)

    @property
    def damage(self) -> CorruptStream | None:
        """What broke the stream, once a read has met it (`open_decompressed`'s up_to_damage)."""
        return getattr(self._fh, "damage", None) if self.ended else None

    @property
    def good(self) -> int:
        """Bytes decompressed before the damage (`damage`)."""
        return int(getattr(self._fh, "good", 0))

    @property
    def codec(self) -> str:
        """The codec of the stream (`open_decompressed`)."""
        return str(getattr(self._fh, "codec", ""))

    def close(self) -> None:
        self._fh.close()


def json_depth(obj: Any, limit: int) -> int:
    """Nesting depth of a parsed JSON value (iterative; stops once past `limit`)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return deepest


# The longest extra field name a JSONL record may bring (it names a column of pages.parquet).
MAX_FIELD_NAME_CHARS = 1024


def oversized_field(row: dict[str, Any], limit: int, *, keep: tuple[str, ...]) -> str | None:
    """Name of the first field (other than `keep`) whose text or JSON form is over `limit` bytes."""
    for key, value in row.items():
        if key in keep or value is None:
            continue
        if isinstance(value, str | bytes):
            size = len(value)
        elif isinstance(value, dict | list):
            size = len(json.dumps(value, ensure_ascii=False))
        else:
            continue
        if size > limit:
            return str(key)
    return None


def _parse_ts(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


# ---------------------------------------------------------------- WARC / ARC
def _quiet_warcio() -> None:
    """Keep warcio's log lines off the terminal: they quote hostile WARC headers raw (a
    WARC-Target-URI with a space is logged whole, escape sequences included); what they report
    ends up in the page's URL or in an error row instead."""
    log = logging.getLogger("warcio")
    if not log.handlers:
        log.addHandler(logging.NullHandler())
    log.propagate = False


def _warc_damage(exc: BaseException, at: int | None, *, is_load_failure: bool) -> tuple[str, str]:
    """(code, one-line message) for a WARC/ARC stream warcio cannot read on from byte `at`.

    Why: warcio's own exceptions say what broke in its code ("'NoneType' object has no attribute
    'startswith'" for a header cut short, "cannot fit 'int' into an index-sized integer" for a
    Content-Length of 30 digits) and quote the bytes it met, not what is wrong with the file."""
    code = _stream_code(exc)
    if code:
        return code, f"unreadable from byte {at}: {exc}"
    if isinstance(exc, EOFError):
        return "WARC_TRUNCATED", f"the file ends inside the record at byte {at}"
    if isinstance(exc, HeaderTooLarge):
        return "WARC_CORRUPT", f"record at byte {at}: {exc} (inputs.max_warc_header_bytes)"
    if isinstance(exc, HeaderDamaged):
        return "WARC_CORRUPT", f"the record header at byte {at} is damaged or cut short ({exc})"
    if is_load_failure:  # "Unknown archive format, first line: [...]": not a record header at all
        head = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        head = head.encode("ascii", "backslashreplace").decode("ascii")[:200]
        return "WARC_CORRUPT", f"no WARC/ARC record header at byte {at} ({head})"
    return (
        "WARC_CORRUPT",
        f"the record header at byte {at} is damaged or cut short ({type(exc).__name__})",
    )


# warcio's message when one gzip member holds several records (a WARC gzipped whole, `gzip x.warc`):
# set on the iterator so that the case is told apart from damage and the file read as one stream
_WHOLE_GZIP = "several WARC records in one gzip member"


def _whole_codec(codec: str | None) -> str | None:
    """`codec` when it compresses a WARC file whole (bzip2, xz, zstd), None for gzip (warcio reads
    it member by member, each member a place to resume at) and for a plain file.

    Why: a stream compressed whole has one place to start reading, its first byte; a record it
    holds can only be passed over by decompressing it."""
    return None if codec in (None, "gzip") else codec


def _archive(stream: BinaryIO, max_header_bytes: int, blank: SkipMeter | None) -> Any:
    """warcio's record iterator over `stream`, quiet on damage (err_count tells us instead), with
    a message of ours for several records in one gzip member, its header blocks bounded
    (`io.warc_headers`) and its runs of blank lines read in blocks, counted on `blank` (None: no
    bound; `io.warc_gaps`)."""
    from warcio.archiveiterator import ArchiveIterator

    it = ArchiveIterator(stream, arc2warc=True)
    it.INC_RECORD = ""
    it.GZIP_ERR_MSG = _WHOLE_GZIP
    return bound_gaps(bound_headers(it, max_header_bytes), blank)


def _member_ended(it: Any) -> bool:
    """Whether the record warcio has just read to its end closed its gzip member (always true for
    a plain stream).

    Why: warcio's offset after a record is the raw file position less what it holds unread; when a
    gzip member goes on with another record, what it holds is decompressed text and the offset
    drifts (backwards, even below 0). A record that does not end its member makes the member one
    of several records, read whole by `_OneMember`."""
    reader = it.reader
    if reader is None or reader.decompressor is None:
        return True
    return bool(getattr(reader.decompressor, "eof", True)) and reader.empty() and not it.next_line


class _OneMember:
    """The decompressed bytes of the one gzip member starting at raw byte `start` of `fh`, then
    the end of the stream. `end` is the raw byte after the member once it is read to its end;
    `truncated` is set when the file ends inside it."""

    def __init__(self, fh: BinaryIO, start: int) -> None:
        fh.seek(start)
        self._fh, self._raw = fh, start
        self._d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self.end: int | None = None
        self.truncated = False

    def read(self, size: int = -1) -> bytes:
        size = size if size and size > 0 else 1 << 16
        out = b""
        while not out and not self._d.eof:
            data = self._d.unconsumed_tail
            if not data:
                data = self._fh.read(1 << 16)
                self._raw += len(data)
                if not data:
                    self.truncated = True
                    return b""
            out = self._d.decompress(data, size)
        if self._d.eof and self.end is None:
            self.end = self._raw - len(self._d.unused_data)
        return out

    def close(self) -> None:
        """The file is closed by its owner."""


def _ends_inside_member(fh: BinaryIO, at: int) -> bool:
    """Whether the bytes from `at` to the end of `fh` are a gzip member cut short.

    Why: warcio takes a gzip member that ends inside a record header for the end of the file, so
    a per-record gzip WARC cut inside its last record lost that record without a word."""
    fh.seek(at)
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    fed = False
    try:
        while not d.eof and (chunk := fh.read(1 << 16)):
            fed = fed or bool(chunk.strip())
            while chunk and not d.eof:
                d.decompress(chunk, 1 << 20)
                chunk = d.unconsumed_tail
    except zlib.error:
        return False
    return fed and not d.eof


class _Inflated(Exception):
    """A gzip member expanded past the budget before its end was found."""


def _next_gzip_member(fh: BinaryIO, at: int, budget: int | None = None) -> int | None:
    """Where the gzip member after the one starting at byte `at` starts, None when none follows.

    Why: in a per-record gzip WARC (the standard layout) one damaged record used to cost every
    record after it; each member is independent, so reading goes on at the next one. A member that
    does not decompress, or expands past `budget` bytes, gives the next member that starts a
    record, looked for in the raw bytes (`_record_member_after`): a bomb's end costs as much time
    as it expands to (a 17 MB member of 16 GiB: about a minute)."""
    fh.seek(at)
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pos, out = at, 0
    try:
        while not d.eof:
            chunk = fh.read(1 << 16)
            if not chunk:
                return None  # the member runs to the end of the file
            pos += len(chunk)
            data = chunk
            while data and not d.eof:
                out += len(d.decompress(data, 1 << 20))  # dropped: only the member's end matters
                data = d.unconsumed_tail
                if budget is not None and out > budget:
                    raise _Inflated
        end = pos - len(d.unused_data)
    except (zlib.error, _Inflated):
        return _record_member_after(fh, at + 1)
    fh.seek(end)
    return end if fh.read(1) else None


# what a WARC or ARC record starts with (an ARC v1 record line: URL, IP, 14-digit date, ...)
_RECORD_START = re.compile(rb"WARC/\d|filedesc://|[a-zA-Z][\w+.-]*:\S* \S+ \d{14} ")


_GZIP_MAGIC = b"\x1f\x8b\x08"
_HEAD_BYTES = 4096  # raw bytes of a gzip member read to see whether it opens a record


def _opens_record(raw: bytes) -> bool:
    """Whether gzip data starting with `raw` opens with a WARC/ARC record header (its first 64
    bytes decompressed)."""
    try:
        head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, 64)
    except zlib.error:
        return False
    return bool(_RECORD_START.match(head))


def _starts_record(fh: BinaryIO, pos: int) -> bool:
    """Whether a gzip member starting at byte `pos` of `fh` opens with a WARC/ARC record header."""
    fh.seek(pos)
    return _opens_record(fh.read(_HEAD_BYTES))


def _next_record_member(fh: BinaryIO, at: int, budget: int | None = None) -> int | None:
    """The next gzip member after byte `at` that starts a WARC/ARC record (None when none does);
    a member is decompressed at most `budget` bytes to find its end (`_next_gzip_member`).

    Members that continue a record (a payload split over several members) are passed over, so
    reading on after damage does not report each of them as a record header of its own."""
    pos: int | None = at
    while pos is not None and (pos := _next_gzip_member(fh, pos, budget)) is not None:
        if _starts_record(fh, pos):
            return pos
    return None


def _record_member_after(fh: BinaryIO, at: int) -> int | None:
    """The first gzip member starting at or after raw byte `at` that opens a WARC/ARC record,
    found by its magic number in the raw bytes, nothing decompressed but each candidate's head.

    Why: the end of a gzip member is known only by decompressing it whole, which a bomb makes as
    long as it likes. A record that shares a member with the one passed over (a WARC gzipped
    whole) is not found this way: the caller's error row says so. The raw bytes are read once,
    forward, each candidate's head checked in memory: junk made of magic numbers costs time in
    proportion to its size (reading a block from each candidate on, as before session 23, cost a
    megabyte a candidate)."""
    fh.seek(at)
    base, buf, eof = at, b"", False
    while not eof:
        block = fh.read(1 << 20)
        eof = not block
        buf += block
        start, hit = 0, -1
        while (hit := buf.find(_GZIP_MAGIC, start)) >= 0:
            if not eof and len(buf) - hit < _HEAD_BYTES:
                break  # its head goes on in the next block
            if _opens_record(buf[hit : hit + _HEAD_BYTES]):
                return base + hit
            start = hit + 1
        # keep where a candidate still to check, or a magic number cut by the block, starts
        cut = hit if hit >= 0 else max(len(buf) - len(_GZIP_MAGIC) + 1, start, 0)
        base, buf = base + cut, buf[cut:]
    return None


def _holds(fh: Any, at: int) -> bool:
    """Whether `fh` can go back to raw byte `at`: a seekable file always, a stream read forward
    (`ForwardReader`) while it still keeps that byte."""
    return not isinstance(fh, ForwardReader) or at >= fh.earliest


def _leap_forward(fh: ForwardReader) -> Callable[[int], int | None]:
    """`_record_member_after` for a stream read forward: from raw byte `at`, or from the first
    byte still kept when `at` is before it.

    Why that loses no member: the bytes before it were all fed to the decompressor of the member
    being passed over without ending it (warcio reads no further than one block past a member's
    end, and the reader keeps more than that), so no member starts there."""
    return lambda at: _record_member_after(fh, max(at, fh.earliest))  # type: ignore[arg-type]


def _next_warc_line(fh: BinaryIO, at: int) -> int | None:
    """In a plain WARC, the first `WARC/1.0` or `WARC/1.1` line after byte `at` (None if none).

    A payload line of the same text is a false start: it fails as a record and reading goes on
    from there again, so it costs an error row, never a record."""
    fh.seek(at + 1)
    pos, tail = at + 1, b""
    while block := fh.read(1 << 20):
        hay = tail + block
        m = _WARC_LINE.search(hay)
        if m:
            return pos - len(tail) + m.start() + 1
        tail = hay[-16:]
        pos += len(block)
    return None


_WARC_LINE = re.compile(rb"\nWARC/1\.[01]\r?\n")


# why a record that is no page is not read (`WarcSource._leapt` says so when it passes one over)
_NOT_A_PAGE = "not a page record (response, resource or conversion)"
# what `WarcSource._pass_over` says of a run of blank lines over the budget (`io.warc_gaps`)
_BLANK_RUN = "a run of blank lines before"


def _target(record: Any) -> str | None:
    """The WARC-Target-URI of warcio's current record, if any."""
    return None if record is None else record.rec_headers.get_header("WARC-Target-URI")


@dataclass
class _WarcScan:
    """What reading one WARC file has gathered so far, across the places it read on from after damage."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    errors: list[ErrorRow] = field(default_factory=list)
    seen_any: bool = False
    page_records: int = 0
    offset: int | None = 0
    prev: tuple[int | None, str | None] = (None, None)
    floor: int = 0  # where the part being read starts: reading on only ever moves past it
    end: int | None = 0  # in a gzip WARC, the raw byte after the last record read
    resume_at: int | None = None  # where the next record starts, to read on from after damage
    member_at: int | None = None  # the raw start of a gzip member that holds several records
    stopped: bool = False  # the part ended on damage (an error row says so)
    held: _Held = field(default_factory=lambda: _Held(0))  # bytes of `rows` (set by the source)
    whole: Any = None  # the decompressed stream of a file compressed whole (`_Capped`)
    record: Any = None  # warcio's last record (how much of it the stream held: a cut one)
    # bytes decompressed only to pass over things, per run and for the file (set by the source)
    meter: SkipMeter = field(default_factory=lambda: SkipMeter(0, 0))


@dataclass
class _Part:
    """How one part of a WARC file is read: raw gzip members (`base` 0) or one gzip member of
    several records decompressed by `_OneMember` (offsets are `base` + the position in it, and
    its first `skip` records were read before)."""

    resync: Callable[[int], int | None] | None
    gzip: bool = False
    member: bool = False
    base: int = 0
    skip: int = 0
    # a gzip WARC read member by member: the next member after a raw byte that starts a record,
    # found in the raw bytes (`_record_member_after`; `_leap_forward` for a stream read forward)
    leap: Callable[[int], int | None] | None = None
    # the codec of a file compressed whole (`_whole_codec`): no place to leap to, reading stops
    whole: str | None = None
    # False for a stream read forward (`io.forward`): a gzip member of several records is read
    # again whole only while the stream keeps its start (`_holds`), else it is one error row and
    # reading goes on after it
    seekable: bool = True

    @property
    def budgeted(self) -> bool:
        """Whether bytes decompressed only to reach the next record count against
        inputs.max_warc_skip_bytes: in a gzip WARC (past the budget, the next gzip member that
        starts a record is found in the raw bytes; read forward from a stream that cannot seek,
        `io.forward`) and in one compressed whole (reading stops). A plain WARC costs what
        reading it costs: it is read through."""
        return self.leap is not None or self.whole is not None


@dataclass
class WarcSource(_PathSource):
    """Response/resource records of a WARC or ARC file (gzipped or not), via warcio.

    A truncated or corrupt file yields every record before the damage plus one error row.
    """

    max_bytes: int = 50_000_000
    kind: str = "warc"
    limits: InputsPolicy = field(default_factory=InputsPolicy)

    def _stream(self, fh: BinaryIO) -> BinaryIO:
        """The WARC bytes of `fh`: warcio reads gzip (record by record) itself; a whole file in
        bzip2, xz or zstd is decompressed here, under inputs.max_decompressed_bytes."""
        codec = _whole_codec(codec_of(fh.peek(6)[:6]))  # type: ignore[attr-defined]
        if codec is None:
            return fh
        whole = open_decompressed(fh, codec, up_to_damage=True)
        return _Capped(whole, self.limits)  # type: ignore[return-value]

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        lim = self.limits
        meter = SkipMeter(lim.max_warc_skip_bytes, lim.max_warc_skip_total_bytes)
        st = _WarcScan(held=_Held(lim.batch_max_bytes), meter=meter)
        try:
            fh = self._reader = fs.open_input(self.path)
        except OSError as exc:
            yield _error_batch(self.name, None, None, "read", "READ_FAILED", str(exc))
            return
        _quiet_warcio()
        with fh:
            head = fh.peek(6)[:6]  # type: ignore[attr-defined]
            codec = None if codec_of(head) else cut_magic(head, self.name)
            if codec is not None:  # the whole file is the start of a magic number
                st.errors.append(magic_cut_row(self.name, codec, len(head)))
            else:
                yield from self._parts(fh, st, batch_size)
        if st.whole is not None and st.whole.damage is not None:
            self._cut_short(st)
        if not st.errors and st.page_records == 0:
            what = (
                "no WARC/ARC records found"
                if not st.seen_any
                else "no response, resource or conversion records"
            )
            st.errors.append(ErrorRow(self.name, None, None, "read", "NO_PAGE_RECORDS", what))
        if st.rows or st.errors:
            yield _chunks(st.rows, st.errors, [])

    def _cut_short(self, st: _WarcScan) -> None:
        """One row for the damage that ended the stream of a file compressed whole, read up to it
        (`io.cut_streams`), in the row of the record it cuts when there is one."""
        whole, rec = st.whole, st.record
        last = None
        if rec is not None and (left := int(getattr(rec.raw_stream, "limit", 0) or 0)) > 0:
            last = CutRecord(st.offset, _target(rec), rec.rec_type, left)
        elif st.seen_any:
            last = CutRecord(st.offset, None, "", 0)
        cut_short(self.name, whole.damage, whole.codec, whole.good, st.errors, last)

    def _parts(self, fh: BinaryIO, st: _WarcScan, batch_size: int) -> Iterator[RecordBatch]:
        """Read `fh` part by part: from the start, then from each place reading goes on at (after
        damage, or after a gzip member of several records), each strictly after the last."""
        # a seekable file: damage costs its own record, reading goes on at the next one
        resync = self._resync(fh)
        seekable = resync is not None
        stream = self._stream(fh)
        if isinstance(stream, _Capped):
            st.whole = stream
        codec = codec_of(fh.peek(6)[:6])  # type: ignore[attr-defined]
        gzipped = codec == "gzip"
        leap = (lambda at: _record_member_after(fh, at)) if gzipped and resync else None
        if gzipped and not seekable:  # a stream that cannot seek: read forward (`io.forward`)
            ahead = ForwardReader(fh)
            fh = stream = ahead  # type: ignore[assignment]
            leap = _leap_forward(ahead)
            # damage too: read on at the next gzip member after it that starts a record, found
            # reading forward, as a file on disk reads on (before session 26 the rest of the
            # stream was skipped)
            resync = lambda at, ahead=leap: ahead(at + 1)  # noqa: E731
        plain = _Part(resync, gzip=gzipped, leap=leap, whole=_whole_codec(codec), seekable=seekable)
        part = plain
        while True:
            st.resume_at = st.member_at = None
            st.stopped = False
            one = None
            if part.member:  # a gzip member of several records, decompressed whole
                one = _OneMember(fh, part.base)
                it = self._records(_Capped(one, self.limits), part, st.meter)  # type: ignore[arg-type]
            else:
                it = self._records(stream, part, st.meter)
            try:
                yield from self._segment(it, st, batch_size, part)
            except (_TooMuch, CorruptStream) as exc:  # met reading to a record's end (below)
                self._stream_ended(st, _target(it.record), exc)
            if one is not None and not st.stopped:
                if one.truncated:
                    msg = f"the file ends inside the gzip member at byte {part.base}"
                    self._damaged(st, None, part.base, "WARC_TRUNCATED", msg)
                elif one.end is not None:
                    fh.seek(one.end)
                    st.resume_at = one.end if fh.read(1) else None
            elif (
                part.gzip
                and not st.stopped
                and st.member_at is None
                and st.end is not None
                and _holds(fh, st.end)  # a stream read forward keeps its last bytes
                and _ends_inside_member(fh, st.end)
            ):
                msg = f"the file ends inside the gzip member at byte {st.end}"
                self._damaged(st, None, st.end, "WARC_TRUNCATED", msg)
            if st.member_at is not None:
                st.floor = m = st.member_at
                if seekable:
                    resync = lambda _at, m=m: _next_record_member(fh, m, self._budget)  # noqa: E731
                    leap = lambda _at, m=m: _record_member_after(fh, m + 1)  # noqa: E731
                else:  # a stream: from the member's start if still kept, else the first kept
                    resync = leap = lambda _at, m=m: plain.leap(m + 1)  # type: ignore[misc]
                part = _Part(resync, leap=leap, member=True, base=m, skip=1)
                continue
            if st.resume_at is None or st.resume_at <= st.floor:
                return
            st.floor = st.end = st.resume_at
            part = plain
            fh.seek(st.resume_at)

    def _records(self, stream: BinaryIO, part: _Part, meter: SkipMeter) -> Any:
        """warcio's records of `stream` for `part` (`_archive`), a run of blank lines between them
        counted on `meter` (inputs.max_warc_skip_bytes a run, inputs.max_warc_skip_total_bytes
        for the file) where the part is budgeted."""
        blank = meter if part.budgeted else None
        return _archive(stream, self.limits.max_warc_header_bytes, blank)

    def _resync(self, fh: BinaryIO) -> Callable[[int], int | None] | None:
        """Where to read on after damage at a byte, for a seekable file: the next gzip member that
        starts a record (one member per record, the standard layout) or, in a plain WARC, the next
        `WARC/1.x` line. None for a stream compressed whole (bzip2, xz, zstd): no place to resume."""
        if not fh.seekable():
            return None
        codec = codec_of(fh.peek(6)[:6])  # type: ignore[attr-defined]
        if codec == "gzip":
            return lambda at: _next_record_member(fh, at, self._budget)
        return (lambda at: _next_warc_line(fh, at)) if codec is None else None

    def _damaged(
        self,
        st: _WarcScan,
        resync: Callable[[int], int | None] | None,
        at: int | None,
        code: str,
        msg: str,
        url: str | None = None,
    ) -> None:
        """One error row for damage at byte `at`, and where reading goes on (if anywhere: only ever
        past where the part being read starts, so no record is read twice and reading ends)."""
        nxt = resync(max(at, st.floor)) if resync is not None and at is not None else None
        if nxt is not None and nxt <= st.floor:
            nxt = None
        rest = (
            f"read on at the next record (byte {nxt})"
            if nxt is not None
            else "the rest of the file was skipped"
        )
        st.errors.append(ErrorRow(self.name, at, url, "read", code, f"{msg}; {rest}"))
        st.resume_at = nxt
        st.stopped = True

    def _segment(
        self, it: Any, st: _WarcScan, batch_size: int, part: _Part
    ) -> Iterator[RecordBatch]:
        """Records of `it` into `st` (full batches yielded) until its end, the first damage or, in
        a gzip WARC, the first record that does not end its gzip member (`st.member_at`)."""
        from warcio.exceptions import ArchiveLoadFailed

        resync, skip = part.resync, part.skip
        # the record after which a run of blank lines is over the budget (True: over the total)
        gap: list[tuple[int, bool]] = []

        def record_offset() -> int:
            """The record's offset, once warcio has read past it and the blank lines after it
            (a run over the budget is noted in `gap`, and said after the record's own row)."""
            try:
                return int(part.base + it.get_record_offset())
            except BlankLinesTooLong as exc:  # warcio has not moved past the record
                gap.append((part.base + int(it.offset), isinstance(exc, SkipTotalSpent)))
                return gap[-1][0]

        while True:
            errs_before = it.err_count
            try:
                record = next(it)
            except StopIteration:
                return
            except Exception as exc:
                # warcio raises a variety of types on damage; anything here means the rest is
                # unreadable. warcio's `offset` is where the record it failed on starts.
                at = part.base + it.offset if isinstance(it.offset, int) else st.offset
                if isinstance(exc, BlankLinesTooLong):  # at the start of the file or of a member
                    start = st.floor if at is None else at
                    what = f"at byte {start}: {_BLANK_RUN} a record header"
                    self._pass_over(st, part, start, None, what, isinstance(exc, SkipTotalSpent))
                    return
                code, msg = _warc_damage(
                    exc, at, is_load_failure=isinstance(exc, ArchiveLoadFailed)
                )
                if str(exc) == _WHOLE_GZIP:  # a stream that cannot seek back to read the member
                    code, msg = (
                        "WARC_CORRUPT",
                        f"several records share the gzip member before byte {at}",
                    )
                self._damaged(st, resync, at, code, msg)
                return
            if skip:  # read before, as the first record of this gzip member
                skip -= 1
                record_offset()
                if self._part_ends(it, st, part, gap):
                    return
                continue
            if it.err_count > errs_before:
                # the previous record's Content-Length was wrong: the file is damaged from there on
                bad_offset, bad_url = st.prev
                if st.rows and st.rows[-1]["offset"] == bad_offset:
                    st.rows.pop()
                    st.page_records -= 1
                msg = f"record at byte {bad_offset} is truncated or has a wrong Content-Length"
                self._damaged(st, resync, bad_offset, "WARC_TRUNCATED", msg, bad_url)
                return
            st.seen_any = True
            st.record = record
            url = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type not in ("response", "resource", "conversion"):
                if self._leapt(it, record, st, part, _NOT_A_PAGE, url):
                    return
                st.offset = record_offset()
                st.prev = (st.offset, url)
                if self._part_ends(it, st, part, gap):
                    return
                continue
            st.page_records += 1
            damaged = False
            try:
                # read the payload before asking for the offset: warcio's get_record_offset()
                # skips the unread payload of the current record
                row = self._row(record, url, 0)
            except (_TooMuch, CorruptStream) as exc:  # the decompressed stream ends here
                # (no get_record_offset(): it would read on into the failing stream)
                self._stream_ended(st, url, exc)
                return
            except EOFError as exc:
                at = record_offset()
                self._damaged(st, resync, at, "WARC_TRUNCATED", f"record at byte {at}: {exc}", url)
                return
            except Exception as exc:  # a damaged payload: keep going with the next record
                damaged = isinstance(exc, PayloadDamaged)
                st.offset = record_offset()
                st.errors.append(
                    ErrorRow(
                        self.name,
                        st.offset,
                        url,
                        "read",
                        "WARC_RECORD_CORRUPT",
                        f"record at byte {st.offset}: {type(exc).__name__}: {exc}"[:400],
                    )
                )
            else:
                if isinstance(row, ErrorRow) and self._leapt(
                    it, record, st, part, row.message, url
                ):
                    return
                st.offset = record_offset()
                st.prev = (st.offset, url)
                if isinstance(row, ErrorRow):
                    st.errors.append(
                        ErrorRow(row.source, st.offset, row.url, row.stage, row.code, row.message)
                    )
                else:
                    row["offset"] = st.offset
                    if st.held.full_before(st.rows, row):
                        yield _chunks(st.rows, st.errors, [])
                        st.rows, st.errors = [], []
                    st.rows.append(row)
            if it.err_count > errs_before:  # damage noticed while reading this record's payload
                if st.rows and st.rows[-1]["offset"] == st.offset:
                    st.rows.pop()
                if damaged and st.errors and st.errors[-1].offset == st.offset:
                    st.errors.pop()  # the payload stopped where the record did: said once, below
                msg = f"record at byte {st.offset} is truncated or has a wrong Content-Length"
                self._damaged(st, resync, st.offset, "WARC_TRUNCATED", msg, url)
                return
            if len(st.rows) + len(st.errors) >= batch_size:
                yield _chunks(st.rows, st.errors, [])
                st.rows, st.errors, st.held.held = [], [], 0
            if self._part_ends(it, st, part, gap):
                return

    @property
    def _budget(self) -> int:
        """Bytes decompressed only to find where a record or a gzip member ends (and so where the
        next record starts): `inputs.max_warc_skip_bytes`."""
        return self.limits.max_warc_skip_bytes

    def _leapt(
        self, it: Any, record: Any, st: _WarcScan, part: _Part, what: str, url: str | None
    ) -> bool:
        """For a record the reader is done with (`what`: why, e.g. its payload is over the cap, or
        it is no page) whose Content-Length leaves more than `inputs.max_warc_skip_bytes` to read,
        in a compressed WARC: True after one error row, reading to go on at the next gzip member
        that starts a record or to stop (`_past`); also True after one row, the file stopping
        there, when what is left would take the file past inputs.max_warc_skip_total_bytes of
        bytes passed over (`SkipMeter`). False (read the record to its end, as warcio does, the
        bytes counted) otherwise, and always in a plain WARC, where that costs no more than
        reading the file.

        Why: warcio reaches the next record by decompressing the rest of this one, so time grew
        with what the file expands to, whoever sets its Content-Length (a 17 MB gzip member
        holding one 16 GiB record: 42-48 s; a 2.5 MB .warc.xz holding one: 73-82 s)."""
        left = int(getattr(record.raw_stream, "limit", 0) or 0)
        if not part.budgeted or (left <= self._budget and st.meter.spend(left)):
            return False  # read to its end by warcio, counted (`SkipMeter`)
        at = part.base + int(it.offset)  # this record's start (in a gzip WARC, its member's)
        head = f"record at byte {at}: {what}, with {left} bytes of the record still to come"
        self._pass_over(st, part, at, url, f"{head} (its Content-Length)", left <= self._budget)
        st.offset = at
        return True

    def _pass_over(
        self, st: _WarcScan, part: _Part, at: int, url: str | None, what: str, total: bool = False
    ) -> None:
        """One TOO_LARGE row for `what`, at byte `at`, left undecompressed as it is over
        inputs.max_warc_skip_bytes, and where reading goes on (`_past`); or, `total`, as passing
        over it would take the file over inputs.max_warc_skip_total_bytes: the file stops there."""
        if total:
            cap = self.limits.max_warc_skip_total_bytes
            msg = (
                f"{what}, past inputs.max_warc_skip_total_bytes ({cap}) bytes decompressed in this"
                f" file only to pass over records and blank lines ({st.meter.spent} so far): the"
                " records after it in this file are not read; raise"
                " inputs.max_warc_skip_total_bytes to read them"
            )
            nxt = None
        else:
            nxt, rest = self._past(part, at)
            msg = f"{what}, over inputs.max_warc_skip_bytes ({self._budget}): {rest}"
        st.errors.append(ErrorRow(self.name, at, url, "read", "TOO_LARGE", msg))
        st.resume_at = nxt
        st.stopped = True

    def _part_ends(self, it: Any, st: _WarcScan, part: _Part, gap: list[tuple[int, bool]]) -> bool:
        """After a record: whether reading this part stops there, as the run of blank lines after
        it is over the budget (`gap`: one row, reading goes on past them, `_past`) or its gzip
        member holds more records (`_member_goes_on`)."""
        if gap:
            at, total = gap[0]
            what = f"after the record at byte {at}: {_BLANK_RUN} the next record header"
            self._pass_over(st, part, at, None, what, total)
            return True
        return self._member_goes_on(it, st, part)

    @staticmethod
    def _past(part: _Part, at: int) -> tuple[int | None, str]:
        """Where reading goes on after the record at byte `at`, left unread, and the error row's
        words for it: in a gzip WARC, the next gzip member that starts a record, found in the raw
        bytes; in a file compressed whole (bzip2, xz, zstd), nowhere: it has no member to resume
        at, so the records after it are lost, and the row says which key reads them."""
        if part.leap is None:
            return None, (
                f"the file is compressed whole ({part.whole}), with no gzip member to resume at,"
                " so the records after it in this file are not read; raise"
                " inputs.max_warc_skip_bytes to read them"
            )
        nxt = part.leap(at + 1)
        where = (
            f"read on at the next gzip member that starts a record (byte {nxt})"
            if nxt is not None
            else "no later gzip member starts a record: the rest of the file was skipped"
        )
        return nxt, (
            "its gzip member is not decompressed to its end, so a record that shares it is not"
            f" read; {where}"
        )

    def _stream_ended(self, st: _WarcScan, url: str | None, exc: BaseException) -> None:
        """One error row where the decompressed stream ends (past inputs.max_decompressed_bytes,
        or damaged): nothing after it can be read.

        Why: warcio reads to a record's end when asked where the next one starts; in a file
        compressed whole, meeting the end there escaped the reader (`SOURCE_FAILED` in an audit),
        and the pages read before it in the batch were lost."""
        msg = f"record after byte {st.offset}: {exc}"
        st.errors.append(ErrorRow(self.name, None, url, "read", _stream_code(exc), msg))
        st.stopped = True

    def _member_goes_on(self, it: Any, st: _WarcScan, part: _Part) -> bool:
        """After a record of a gzip WARC read in members: True (and `st.member_at` or an error row
        set) when its gzip member holds more records, so that the member is read whole next.

        From a stream that cannot seek (object storage, a pipe) the member is read whole too
        while the stream still holds its start (`forward.KEEP`, 4 MiB: a first record under
        that, compressed). Why: such a stream kept the member's first record and lost the rest
        (one row), so a WARC gzipped whole (`gzip crawl.warc`) read from S3 gave one page; a file
        on disk gave them all (session 27)."""
        if not part.gzip:
            return False
        if _member_ended(it):
            st.end = it.offset
            return False
        at = st.offset if st.offset is not None else st.floor
        # a file reads it again whole unless warcio's offset drifted before the part; a stream
        # while it keeps the member's start
        held = at >= st.floor if part.seekable else _holds(it.reader.stream, at)
        if held:
            st.member_at = at
        elif not part.seekable:
            # its start dropped by the stream: one row, reading goes on at the next gzip member
            # after it that starts a record (before session 26 the rest of the stream was skipped)
            msg = (
                f"several records share the gzip member at byte {at}, whose start the stream no"
                f" longer holds (the input cannot seek back; its first record is over {KEEP >> 20}"
                " MiB compressed): the records after that one in the member are not read"
            )
            self._damaged(st, part.resync, at, "WARC_CORRUPT", msg)
        else:
            msg = f"several records share the gzip member at byte {at} (the input cannot seek back)"
            self._damaged(st, None, at, "WARC_CORRUPT", msg)
        return True

    def _row(self, record: Any, url: str | None, offset: int) -> dict[str, Any] | ErrorRow:
        if url is None:  # the standard requires it of response, resource and conversion records
            msg = f"{record.rec_type} record has no WARC-Target-URI header; its payload not read"
            return ErrorRow(self.name, offset, None, "read", "BAD_URL", msg)
        status: int | None = None
        ctype: str | None = None
        if record.http_headers is not None:
            status = http_status(record.http_headers.get_statuscode())
            ctype = record.http_headers.get_header("Content-Type")
        else:
            ctype = record.rec_headers.get_header("Content-Type")
        # a record the crawler says it cut (RFC: length, time, disconnect, unspecified)
        cut = (record.rec_headers.get_header("WARC-Truncated") or "").strip().lower()
        damaged: PayloadDamaged | None = None
        try:
            body = _payload(record, self.max_bytes, truncated=bool(cut))
        except ImportError as exc:
            return ErrorRow(self.name, offset, url, "read", "UNSUPPORTED_COMPRESSION", str(exc))
        except PayloadDamaged as exc:  # unless the file itself ends inside the record (below)
            damaged, body = exc, b""
        if len(body) > self.max_bytes:
            return ErrorRow(
                self.name, offset, url, "read", "TOO_LARGE", f"payload over {self.max_bytes} bytes"
            )
        if getattr(record.raw_stream, "limit", 0) > 0:
            if record.raw_stream.read(1):
                raise damaged or ValueError("payload encoding is damaged (e.g. wrong chunk sizes)")
            # the file ended before Content-Length bytes: a truncated last record
            raise EOFError(
                f"payload is {record.raw_stream.limit} bytes short of its Content-Length"
            )
        if damaged is not None:
            raise damaged
        if cut and not body:  # the crawler dropped it: never seen, not an empty page
            over = cut == "length"
            return ErrorRow(
                self.name,
                offset,
                url,
                "read",
                "TOO_LARGE" if over else "WARC_TRUNCATED",
                "payload not archived: "
                + ("over the crawler's body cap" if over else "the crawler cut it")
                + f" (WARC-Truncated: {display_text(cut[:40])})",
            )
        date = record.rec_headers.get_header("WARC-Date")
        if record.rec_type == "conversion":  # WET: extracted text, no HTML
            return {
                "source": self.name,
                "offset": offset,
                "url": url,
                "fetched_at": _parse_ts(date),
                "given_text": body.decode("utf-8", "replace"),
            }
        return {
            "source": self.name,
            "offset": offset,
            "url": url,
            "fetched_at": _parse_ts(date),
            "status": status,
            "content_type": ctype,
            "body": body,
        }


# Content codings one response may list (urllib3 stops at 5, as does the crawler)
_MAX_CODINGS = 4


def _payload(record: Any, cap: int, *, truncated: bool = False) -> bytes:
    """A WARC record's payload, de-chunked and decoded from its Content-Encoding, at most `cap + 1`
    bytes (`read_encoded` says why warcio does not decode it; `truncated`: WARC-Truncated).

    A list of codings (`gzip, br`: RFC 9110 lists them in the order applied) is decoded last
    first, each layer under the same cap; `identity` is no coding. Before session 21 a list was
    no coding we knew: the still-encoded body became BINARY_CONTENT, the page unscanned."""
    headers = record.http_headers
    value = (headers.get_header("Content-Encoding") or "").strip().lower() if headers else ""
    codings = [c.strip() for c in value.split(",") if c.strip() not in ("", "identity")]
    if not codings or not all(c in PAYLOAD_ENCODINGS for c in codings):
        return record.content_stream().read(cap + 1)  # type: ignore[no-any-return]
    if len(codings) > _MAX_CODINGS:
        raise PayloadDamaged(f"{len(codings)} content codings, more than {_MAX_CODINGS}")
    stream = record.raw_stream
    if (headers.get_header("Transfer-Encoding") or "").strip().lower() == "chunked":
        from warcio.bufferedreaders import ChunkedDataReader

        stream = ChunkedDataReader(stream)
    data = read_encoded(stream, codings[-1], cap, truncated=truncated)
    for coding in reversed(codings[:-1]):
        if len(data) > cap:
            break
        data = read_encoded(io.BytesIO(data), coding, cap, truncated=truncated)
    return data


# ---------------------------------------------------------------- Parquet
@dataclass
class ParquetSource(_PathSource):
    """Parquet with `url` and `html` or `text` columns; other columns are kept."""

    kind: str = "parquet"
    limits: InputsPolicy = field(default_factory=InputsPolicy)
    max_bytes: int = 50_000_000

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        try:
            pf = open_parquet(self._open_parquet)
        except (OSError, pa.ArrowException) as exc:
            yield _error_batch(
                self.name, None, None, "read", "PARQUET_CORRUPT", f"cannot open Parquet file: {exc}"
            )
            return
        bad = _bad_parquet_types(pf.schema_arrow)
        if bad:
            yield _error_batch(self.name, None, None, "read", "PARQUET_BAD_TYPES", bad)
            return
        if pf.metadata.num_rows == 0:
            yield _error_batch(
                self.name, None, None, "read", "EMPTY_FILE", "Parquet file has no rows"
            )
            return
        names = pf.schema_arrow.names
        if "html" not in names and "text" not in names:
            yield _error_batch(
                self.name,
                None,
                None,
                "read",
                "MISSING_FIELDS",
                "Parquet input needs an 'html' or 'text' column",
            )
            return
        extra = [n for n in names if n not in _JSONL_RESERVED and n != "body"]
        if len(extra) > self.limits.max_extra_fields:  # 20,000 columns of 20 rows took minutes
            yield _error_batch(
                self.name,
                None,
                None,
                "read",
                "TOO_MANY_FIELDS",
                f"Parquet file has {len(extra)} extra columns, over inputs.max_extra_fields"
                f" ({self.limits.max_extra_fields}); write the columns to keep to a new file",
            )
            return
        start = 0
        meta = pf.metadata
        try:
            plan = page_plan(
                pf, self._open_parquet, self.limits.max_parquet_page_bytes, self._cell_cap
            )
            for g in range(meta.num_row_groups):
                if g in plan.refused:
                    yield from self._huge_group(pf, start, g, batch_size, *plan.refused[g])
                    start += meta.row_group(g).num_rows
                    continue
                if g in plan.streamed:
                    yield from self._streamed_group(
                        pf, start, g, batch_size, plan.streamed[g], extra
                    )
                    start += meta.row_group(g).num_rows
                    self._bytes_read = (self._size() or 0) * start // max(meta.num_rows, 1)
                    continue
                for batch in parquet_batches(pf, batch_size, self.limits.batch_max_bytes, [g]):
                    yield from self._rows(batch, start, extra)
                    start += batch.num_rows
                    self._bytes_read = (self._size() or 0) * start // max(meta.num_rows, 1)
        except (OSError, pa.ArrowException) as exc:
            yield _error_batch(
                self.name,
                start,
                None,
                "read",
                "PARQUET_CORRUPT",
                f"unreadable from row {start}: {exc}",
            )

    def _open_parquet(self) -> Any:
        return fs.open_random_access(self.path) if fs.is_uri(self.path) else self.path

    def _cell_cap(self, column: str) -> int:
        """The most bytes one cell of `column` (a path, `tags.list.element`) may hold."""
        top = column.split(".")[0]
        return self.max_bytes if top in CONTENT_COLUMNS else self.limits.max_field_bytes

    def _huge_group(
        self,
        pf: Any,
        start: int,
        group: int,
        batch_size: int,
        column: str,
        size: int,
        kind: str,
        detail: str,
    ) -> Iterator[RecordBatch]:
        """An error row for each record of a row group that holds a page Arrow would decode
        whole past `inputs.max_parquet_page_bytes` (`page_plan`: a dictionary page that large, a
        data page that large of cells over their cap, or one with a cell over its cap that is
        not decoded a value at a time here): none of its rows can be read without decoding that
        page whole. TOO_LARGE when the column is html or text, else FIELD_TOO_LARGE (both count
        as unscanned content for the gate). Each row names its URL when the group's url column
        is small enough to read (`_group_urls`); `detail` ends its message.

        Why one row per record: the run's accounting (inputs = pages + errors) and the gate count
        records; one row for the group counted thirty unread pages as one."""
        code = "TOO_LARGE" if column.split(".")[0] in CONTENT_COLUMNS else "FIELD_TOO_LARGE"
        rows = pf.metadata.row_group(group).num_rows
        span = f"row {start}" if rows == 1 else f"rows {start}-{start + rows - 1}"
        why = (
            f"({span}, {rows} in row group {group}) not read: column"
            f" {column[:80]!r} has a {kind} page of {size} bytes, over"
            f" inputs.max_parquet_page_bytes ({self.limits.max_parquet_page_bytes}){detail}"
        )
        urls = self._group_urls(pf, group, column)
        step = max(batch_size, 1)
        for first in range(0, rows, step):
            errors = []
            for i in range(first, min(rows, first + step)):
                url = urls[i] if urls else None
                errors.append(
                    ErrorRow(self.name, start + i, url, "read", code, f"row {start + i} {why}")
                )
            yield RecordBatch(records_table([]), errors)

    def _streamed_group(
        self, pf: Any, start: int, group: int, batch_size: int, columns: list[str], extra: list[str]
    ) -> Iterator[RecordBatch]:
        """The records of a row group one of whose text columns has a data page over
        `inputs.max_parquet_page_bytes` holding a cell over its cap among smaller ones
        (`page_plan`): that column decoded a value at a time (`streamed_batches`), the cell over
        the cap passed over unread and its record an error row as any over-cap cell's, the
        others records. Should a page turn out unreadable on the way, each record not yet given
        is an error row PARQUET_CORRUPT, and the next row groups are read."""
        caps = {c: self._cell_cap(c) for c in columns}
        limit = self.limits.max_parquet_page_bytes
        done = 0
        handle = open_handle(self._open_parquet)
        try:
            for batch, over in streamed_batches(
                pf, handle, group, columns, caps, limit, batch_size, self.limits.batch_max_bytes
            ):
                yield from self._rows(batch, start + done, extra, over)
                done += batch.num_rows
        except (PageError, OSError, pa.ArrowException) as exc:
            rows = pf.metadata.row_group(group).num_rows
            if isinstance(exc, PageError):
                column = (exc.column or columns[0])[:80]
                why = f"column {column!r} of row group {group}: a page cannot be read ({exc})"
            else:
                why = f"row group {group} is unreadable ({exc})"
            errors = [
                ErrorRow(self.name, i, None, "read", "PARQUET_CORRUPT", f"row {i}: {why}")
                for i in range(start + done, start + rows)
            ]
            yield RecordBatch(records_table([]), errors)
        finally:
            handle.close()

    def _group_urls(self, pf: Any, group: int, column: str) -> list[str | None] | None:
        """The url column of a row group that is not read, when it is not the oversized column
        and its chunk is under `inputs.max_parquet_page_bytes` once decompressed; None otherwise.
        URLs over `inputs.max_field_bytes` or not text are None."""
        meta = pf.metadata.row_group(group)
        names = [meta.column(c).path_in_schema for c in range(meta.num_columns)]
        if column.split(".")[0] == "url" or "url" not in names:
            return None
        chunk = meta.column(names.index("url"))
        if chunk.total_uncompressed_size > self.limits.max_parquet_page_bytes:
            return None
        try:
            col = pf.read_row_group(group, columns=["url"]).column("url")
        except (OSError, pa.ArrowException):
            return None
        sizes = cell_bytes(col)
        cap = self.limits.max_field_bytes
        try:
            urls = col.to_pylist()
        except UnicodeDecodeError:  # a URL that is not UTF-8: read with U+FFFD
            urls = python_cells(col)
        return [
            u if isinstance(u, str) and n <= cap else None for u, n in zip(urls, sizes, strict=True)
        ]

    def _rows(
        self,
        batch: pa.RecordBatch,
        start: int,
        extra: list[str],
        over: dict[str, dict[int, int]] | None = None,
    ) -> Iterator[RecordBatch]:
        """One Arrow batch -> record batches: over-cap cells are error rows before any is decoded
        (`TOO_LARGE` for html/text, `FIELD_TOO_LARGE` for another text column), and the other
        rows are decoded at most `inputs.batch_max_bytes` of cells at a time (`decoded_parts`).
        `over` gives the sizes of cells passed over unread ({column: {row: bytes}}, null in
        `batch`: `streamed_batches`)."""
        names = batch.schema.names
        sizes = {n: cell_bytes(batch.column(n)) for n in names}
        for n, cells in (over or {}).items():
            for i, size in cells.items():
                sizes[n][i] = size
        zero = [0] * batch.num_rows
        content = [
            max(h, t) for h, t in zip(sizes.get("html", zero), sizes.get("text", zero), strict=True)
        ]
        fields = [n for n in names if n not in CONTENT_COLUMNS]

        def url_of(i: int) -> str | None:
            if "url" not in names or sizes["url"][i] > self.limits.max_field_bytes:
                return None
            try:
                url = batch.column("url")[i].as_py()
            except UnicodeDecodeError:  # not UTF-8: the row's error says it has no URL
                return None
            return url if isinstance(url, str) else None

        errors: list[ErrorRow] = []
        keep: list[int] = []
        for i in range(batch.num_rows):
            off = start + i
            big = next((n for n in fields if sizes[n][i] > self.limits.max_field_bytes), None)
            if content[i] > self.max_bytes:
                why = f"row {off}: html/text is {content[i]} bytes, over {self.max_bytes}"
                errors.append(ErrorRow(self.name, off, url_of(i), "read", "TOO_LARGE", why))
            elif big is not None:
                why = f"row {off}: column {big[:80]!r} is over inputs.max_field_bytes"
                errors.append(ErrorRow(self.name, off, None, "read", "FIELD_TOO_LARGE", why))
            else:
                keep.append(i)
        weights = [sum(col[i] for col in sizes.values()) for i in range(batch.num_rows)]
        parts = decoded_parts(batch, keep, weights, self.limits.batch_max_bytes)
        for part, decoded in parts:
            out = [
                row
                for i, r in zip(part, python_rows(decoded), strict=True)
                if (row := self._record(r, start + i, extra, errors)) is not None
            ]
            yield RecordBatch(safe_records_table(out, extra, errors), errors)
            errors = []
        if errors:
            yield RecordBatch(safe_records_table([], extra, errors), errors)

    def _record(
        self, r: dict[str, Any], off: int, extra: list[str], errors: list[ErrorRow]
    ) -> dict[str, Any] | None:
        """One decoded row as a record, or None after adding its error row (no html nor text, an
        extra column whose JSON form is over inputs.max_field_bytes)."""
        html, text = r.get("html"), r.get("text")
        url = r.get("url") if isinstance(r.get("url"), str) else None
        if isinstance(html, bytes):
            html_b: bytes | None = html
        elif isinstance(html, str):
            html_b = html.encode("utf-8", "surrogatepass")
        else:
            html_b = None
        if html_b is None and not isinstance(text, str):
            why = f"row {off}: html and text are both empty"
            errors.append(ErrorRow(self.name, off, url, "read", "MISSING_FIELDS", why))
            return None
        big = oversized_field({k: r.get(k) for k in extra}, self.limits.max_field_bytes, keep=())
        if big is not None:
            why = f"row {off}: column {big[:80]!r} is over inputs.max_field_bytes"
            errors.append(ErrorRow(self.name, off, None, "read", "FIELD_TOO_LARGE", why))
            return None
        row = {k: r.get(k) for k in extra}
        fetched = r.get("fetched_at")
        ctype = r.get("content_type")
        row.update(
            source=self.name,
            offset=off,
            url=url,
            fetched_at=fetched if isinstance(fetched, datetime) else _parse_ts(fetched),
            status=http_status(r.get("status")),
            content_type=ctype if isinstance(ctype, str) else None,
            body=html_b,
            given_text=text if html_b is None else None,
        )
        return row


_PARQUET_TYPES = {
    "url": (pa.types.is_string, pa.types.is_large_string, pa.types.is_null),
    "html": (
        pa.types.is_string,
        pa.types.is_large_string,
        pa.types.is_binary,
        pa.types.is_large_binary,
        pa.types.is_null,
    ),
    "text": (pa.types.is_string, pa.types.is_large_string, pa.types.is_null),
}


def _bad_parquet_types(schema: pa.Schema) -> str | None:
    """Why a Parquet file's url/html/text columns cannot be read as such (ints, structs…), or None."""

    def value_type(
        name: str,
    ) -> pa.DataType:  # a dictionary column (pandas' category) is its values
        t = schema.field(name).type
        return t.value_type if pa.types.is_dictionary(t) else t

    bad = [
        f"{name} is {_plain_type_name(schema.field(name).type)}"
        for name, tests in _PARQUET_TYPES.items()
        if name in schema.names and not any(t(value_type(name)) for t in tests)
    ]
    if not bad:
        return None
    return "unusable column type(s): " + ", ".join(bad) + " (url must be text, html text or binary)"


# how Arrow spells a dictionary-encoded leaf (`open_parquet` reads text leaves so)
_DICTIONARY_TYPE = re.compile(r"dictionary<values=([^,]+), indices=[^>]*>")


def _plain_type_name(t: pa.DataType) -> str:
    """`t` as the file's writer would name it: a dictionary-encoded leaf as its values' type."""
    return _DICTIONARY_TYPE.sub(r"\1", str(t))


# ---------------------------------------------------------------- detection
def is_url_list(path: Path) -> bool:
    return (path.is_file() and path.name.lower().endswith(URL_LIST_SUFFIXES)) or str(path) == "-"


def detect_kind(path: Path) -> str:
    """Kind of input by name, then by sniffing the first bytes."""
    if str(path) == "-":
        return "urls"
    if fs.is_uri(path):
        return _detect_remote_kind(str(path))
    if not path.exists():
        bad = _bad_symlink(path)
        if bad is not None:
            raise UsageError(
                f"input {path} is a {bad[1]}", hint="point at the file or folder itself"
            )
        raise UsageError(f"input not found: {path}")
    if path.is_dir():
        return "folder"
    if special_file(path) is not None:
        return "special"
    return _kind_by_name(path.name) or _sniff(path)


def _kind_by_name(name: str) -> str | None:
    """The input kind a file name's suffix says (None: sniff the first bytes)."""
    name = name.lower()
    for kind, suffixes in (
        ("warc", WARC_SUFFIXES),
        ("jsonl", JSONL_SUFFIXES),
        ("parquet", PARQUET_SUFFIXES),
        ("folder", HTML_SUFFIXES),
        ("urls", URL_LIST_SUFFIXES),
    ):
        if name.endswith(suffixes):
            return kind
    return None


def _sniff(path: fs.Location) -> str:
    """The kind of input by its first bytes, decompressed (up to any damage: a WARC compressed
    whole and cut short is still a WARC)."""
    try:
        fh, raw = _open_input(path, up_to_damage=True)
        with raw, fh:
            head = fh.read(2048)
    except (OSError, EOFError, zlib.error):
        head = b""
    stripped = head.lstrip()
    if stripped.startswith(b"WARC/"):
        return "warc"
    if head.startswith(b"PAR1"):
        return "parquet"
    if stripped.startswith(b"{"):
        return "jsonl"
    if stripped[:1] == b"<":
        return "folder"
    if stripped.startswith((b"http://", b"https://")):
        return "urls"
    return "unknown"


@dataclass
class UnreadableSource(_PathSource):
    """An input of unknown kind: one error row, the batch goes on."""

    kind: str = "unknown"

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        if fs.is_uri(self.path):
            size = fs.size(self.path) or 0
        else:
            size = self.path.stat().st_size if self.path.exists() else 0
        code = "EMPTY_FILE" if size == 0 else "UNKNOWN_FORMAT"
        msg = (
            "file is empty" if size == 0 else "not a folder, HTML, JSONL, WARC/ARC or Parquet input"
        )
        head = self._head() if size else b""
        if size and (what := unsupported_codec(str(self.path), head)) is not None:
            code, msg = "UNSUPPORTED_COMPRESSION", unsupported_message("input", what)
        elif size and (cut := self._cut_row(head)) is not None:
            yield RecordBatch(records_table([]), [cut])
            return
        yield _error_batch(self.name, None, None, "read", code, msg)

    def _head(self) -> bytes:
        try:
            with fs.open_input(self.path) as fh:
                return fh.read(8)
        except OSError:
            return b""

    def _cut_row(self, head: bytes) -> ErrorRow | None:
        """The row of a bzip2, xz or zstd stream cut short before a byte of it decompressed
        (inside its magic number, or its header): not UNKNOWN_FORMAT, which says the bytes were
        read and not recognised. None otherwise."""
        codec = codec_of(head)
        if codec is None:
            cut = cut_magic(head, self.name)
            return None if cut is None else magic_cut_row(self.name, cut, len(head))
        if codec == "gzip":
            return None
        try:
            fh, raw = _open_input(self.path, up_to_damage=True)
            with raw, fh:
                nothing = not fh.read(1)
                damage = getattr(fh, "damage", None)
        except OSError:
            return None
        return undecompressed_row(self.name, damage, codec) if nothing and damage else None


@dataclass
class SpecialFileSource(_PathSource):
    """A FIFO, device or socket given as input: refused up front (never opened: it could block or
    never end), one error row."""

    kind: str = "special"

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        what = special_file(self.path) or "special file"
        yield _error_batch(
            self.name,
            None,
            None,
            "read",
            "NOT_A_REGULAR_FILE",
            f"input is a {what}, not a regular file or folder; not read",
        )


def open_source(
    path: str | Path,
    *,
    max_bytes: int = 50_000_000,
    limits: InputsPolicy | None = None,
    url_map: dict[str, str] | None = None,
) -> Source:
    """A record source for one local input (URL lists are the crawler's, see `trustaudit crawl`)."""
    limits = limits or _DEFAULT_LIMITS
    if fs.is_uri(path):
        return _open_remote_source(str(path), max_bytes=max_bytes, limits=limits, url_map=url_map)
    p = fs.local_path(path) or Path(path)
    kind = detect_kind(p)
    if kind == "special":
        return SpecialFileSource(p)
    return _source_of_kind(
        kind,
        p,
        folder=FolderSource,
        max_bytes=max_bytes,
        limits=limits,
        url_map=url_map,
        crawl_hint=f"fetch it first: trustaudit crawl {p} --out RUN",
    )


_CONTAINER_SOURCES: dict[str, Any] = {
    "jsonl": JsonlSource,
    "warc": WarcSource,
    "parquet": ParquetSource,
}


def _source_of_kind(
    kind: str,
    path: Any,
    *,
    folder: Any,
    max_bytes: int,
    limits: InputsPolicy,
    url_map: dict[str, str] | None,
    crawl_hint: str,
) -> Source:
    """The one kind -> source dispatch, for a local path and an object-store key alike (only the
    folder class and the hint differ), so a new input kind is added in one place."""
    if kind == "folder":
        return folder(path, max_bytes=max_bytes, url_map=url_map, limits=limits)
    if kind in _CONTAINER_SOURCES:
        return _CONTAINER_SOURCES[kind](path, max_bytes=max_bytes, limits=limits)
    if kind == "urls":
        raise UsageError(f"{path} is a URL list", hint=crawl_hint)
    return UnreadableSource(path)


def open_sources(
    path: str | Path,
    *,
    max_bytes: int = 50_000_000,
    limits: InputsPolicy | None = None,
    url_map: dict[str, str] | None = None,
) -> list[Source]:
    """Sources for one input; a folder also expands the WARC/JSONL/Parquet files inside it.

    `url_map` (from `--url-map`): file path (relative to the folder, bare name or absolute) -> URL.
    """
    kw: dict[str, Any] = {"max_bytes": max_bytes, "limits": limits}
    if fs.is_uri(path):
        return _open_remote_sources(str(path), url_map=url_map, **kw)
    p = fs.local_path(path) or Path(path)
    if not p.is_dir():
        return [open_source(p, url_map=url_map, **kw)]
    out: list[Source] = []
    folder = FolderSource(p, max_bytes=max_bytes, url_map=url_map, limits=limits or _DEFAULT_LIMITS)
    if folder.files or folder.unreadable:
        out.append(folder)
    files, _ = walk_files(p)
    for f in files:
        name = f.name.lower()
        if name.endswith(WARC_SUFFIXES + JSONL_SUFFIXES + PARQUET_SUFFIXES):
            out.append(open_source(f, **kw))
    if not out:
        out.append(EmptyFolderSource(p))
    return out


@dataclass
class EmptyFolderSource(_PathSource):
    """A folder with no readable input: one error row, so the run still accounts for it."""

    kind: str = "folder"

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        yield _error_batch(
            self.name,
            None,
            None,
            "read",
            "NO_INPUT_FILES",
            "folder holds no HTML, JSONL, WARC/ARC or Parquet file",
        )


# ---------------------------------------------------------------- object stores (s3://, gs://)
def _detect_remote_kind(uri: str) -> str:
    """`detect_kind` for a URI: a prefix with keys under it is a folder; a key by name, then
    by its first bytes. A missing key or bucket is a usage error, as a missing local path is."""
    what = fs.kind(uri)
    if what == "missing":
        raise UsageError(f"input not found: {uri}", hint="check the key (docs/storage.md)")
    if what == "dir":
        return "folder"
    return _kind_by_name(uri.rsplit("/", 1)[-1]) or _sniff(uri)


def _open_remote_source(
    uri: str, *, max_bytes: int, limits: InputsPolicy, url_map: dict[str, str] | None
) -> Source:
    """`open_source` for one object-store key (the readers stream it; no local copy)."""
    return _source_of_kind(
        _detect_remote_kind(uri),
        uri,  # the sources keep the URI string as their path and name
        folder=RemoteFolderSource,
        max_bytes=max_bytes,
        limits=limits,
        url_map=url_map,
        crawl_hint="fetch it first: trustaudit crawl FILE",
    )


def _open_remote_sources(
    uri: str, *, max_bytes: int, limits: InputsPolicy | None, url_map: dict[str, str] | None
) -> list[Source]:
    """`open_sources` for a URI: a prefix expands to its HTML pages and container files."""
    limits = limits or _DEFAULT_LIMITS
    kw: dict[str, Any] = {"max_bytes": max_bytes, "limits": limits, "url_map": url_map}
    if _detect_remote_kind(uri) != "folder":
        return [_open_remote_source(uri, **kw)]
    out: list[Source] = []
    folder = RemoteFolderSource(uri, max_bytes=max_bytes, url_map=url_map, limits=limits)  # type: ignore[arg-type]
    if folder.files or folder.unreadable:
        out.append(folder)
    for entry in folder.entries:
        if entry.rel.lower().endswith(WARC_SUFFIXES + JSONL_SUFFIXES + PARQUET_SUFFIXES):
            out.append(_open_remote_source(entry.location, **kw))
    if not out:
        out.append(EmptyFolderSource(uri))  # type: ignore[arg-type]
    return out


@dataclass
class RemoteFolderSource:
    """HTML pages under an object-store prefix (`s3://bucket/crawl/`), read key by key.

    Same URL priority as FolderSource: canonical/og:url > --url-map > the prefix's `urls.csv` >
    the object's own URI (where a local folder would give a file: URL).
    """

    path: str
    max_bytes: int = 50_000_000
    kind: str = "folder"
    url_map: dict[str, str] | None = None
    limits: InputsPolicy = field(default_factory=InputsPolicy)
    entries: list[fs.Entry] = field(init=False)
    files: list[fs.Entry] = field(init=False)
    sidecar: dict[str, str] = field(init=False)
    unreadable: list[ErrorRow] = field(init=False)

    @property
    def name(self) -> str:
        return display_text(self.path)

    def __post_init__(self) -> None:
        self.entries = fs.list_files(self.path)
        self.files = [e for e in self.entries if e.rel.lower().endswith(HTML_SUFFIXES)]
        self.unreadable = [
            ErrorRow(
                self.name,
                None,
                None,
                "read",
                "UNSUPPORTED_COMPRESSION",
                unsupported_message(display_text(e.rel), what),
            )
            for e in self.entries
            if (what := unsupported_input(e.rel)) is not None
        ]
        self.sidecar = {}
        if any(e.rel == "urls.csv" for e in self.entries):
            sidecar = fs.join(self.path, "urls.csv")
            where = display_text(sidecar)
            try:
                data = fs.read_bytes(sidecar, max_bytes=self.max_bytes)
            except (OSError, ValueError) as exc:
                msg = f"cannot read URL sidecar {where}: {exc}; {_SIDECAR_LOST}"
                self.unreadable.append(
                    ErrorRow(self.name, None, None, "read", SIDECAR_CODE, display_text(msg))
                )
            else:
                self.sidecar, bad = _sidecar_rows(io.BytesIO(data), self.name, where)
                self.unreadable += bad

    def _given_url(self, entry: fs.Entry) -> tuple[str | None, str]:
        base = entry.rel.rsplit("/", 1)[-1]
        for table, origin in ((self.url_map or {}, "url_map"), (self.sidecar, "sidecar")):
            for key in (entry.rel, base, entry.location):
                if key in table:
                    return table[key], origin
        return None, "file"

    def batches(self, batch_size: int) -> Iterator[RecordBatch]:
        def pages() -> Iterator[_PageFile]:
            for entry in self.files:
                given, origin = self._given_url(entry)

                def read(entry: fs.Entry = entry) -> tuple[bytes, float]:
                    _check_size(entry.size, self.max_bytes)
                    data = fs.read_bytes(entry.location, max_bytes=self.max_bytes)
                    return data, entry.mtime_ns / 1e9

                yield _PageFile(display_text(entry.rel), given or entry.location, origin, read)

        return _page_batches(
            self.name,
            pages(),
            self.max_bytes,
            batch_size,
            self.unreadable,
            self.limits.batch_max_bytes,
        )


__all__ = [
    "FolderSource",
    "JsonlSource",
    "ParquetSource",
    "RecordBatch",
    "RemoteFolderSource",
    "Source",
    "SpecialFileSource",
    "UnreadableSource",
    "WarcSource",
    "detect_kind",
    "io",
    "is_url_list",
    "open_source",
    "open_sources",
]
