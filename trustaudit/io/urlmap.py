"""`--url-map FILE`: a saved-page corpus's own manifest (CSV of file -> URL) gives folder pages their URLs.

Why: most saved-page corpora ship such a CSV; without it pages get `file:` URLs and no domain, and
copying the folder to add a `urls.csv` sidecar is a chore. The mapped URL is the operator's URL: it
decides the page's identity and domain (a page's own canonical tag never overrides it).
"""

from __future__ import annotations

import csv
from pathlib import Path

from trustaudit.errors import UsageError

__all__ = ["FILE_COLUMNS", "URL_COLUMNS", "read_url_map"]

# Column names tried in order when the flags do not name them (lower-cased, stripped, spaces and
# hyphens read as underscores: "Saved As" and "Original-URL" match saved_as and original_url).
FILE_COLUMNS = ("file", "path", "filename", "file_name", "filepath", "file_path", "local_path",
                "saved_as", "name")  # fmt: skip
URL_COLUMNS = ("url", "uri", "original_url", "source_url", "page_url", "link", "href")
_MAX_MAP_BYTES = 512_000_000


def _key(name: str) -> str:
    return "_".join(name.strip().lower().replace("-", " ").split())


def _pick(fields: dict[str, str], wanted: str | None, candidates: tuple[str, ...], what: str,
          path: Path) -> str:  # fmt: skip
    if wanted is not None:
        key = _key(wanted)
        if key not in fields:
            raise UsageError(
                f"--url-map {path}: no {what} column {wanted!r} (has: {', '.join(fields.values())})"
            )
        return fields[key]
    for name in candidates:
        if name in fields:
            return fields[name]
    flag = "--url-map-file-column" if what == "file" else "--url-map-url-column"
    raise UsageError(
        f"--url-map {path}: cannot tell which column holds the {what}"
        f" (has: {', '.join(fields.values())})",
        hint=f"name it with {flag} (auto-detected: {', '.join(candidates)})",
    )


def _first_bad_line(p: Path) -> int:
    """The number of the first line of `p` that is not UTF-8 (the decoder reads blocks, so its
    error gives no line)."""
    with open(p, "rb") as fh:
        for n, line in enumerate(fh, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return n
    return 0


def read_url_map(
    path: str | Path, *, file_column: str | None = None, url_column: str | None = None
) -> dict[str, str]:
    """file -> URL from a CSV with a header. Keys are the file column as written (relative to the
    input folder, a bare file name or an absolute path); the first row for a file wins."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"--url-map file not found (or not a regular file): {p}")
    if p.stat().st_size > _MAX_MAP_BYTES:
        raise UsageError(f"--url-map {p} is over {_MAX_MAP_BYTES} bytes")
    out: dict[str, str] = {}
    reader = None
    try:
        with open(p, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            fields = {_key(f): f for f in (reader.fieldnames or []) if f}
            if not fields:
                raise UsageError(f"--url-map {p} has no header row (a CSV of file and URL columns)")
            fcol = _pick(fields, file_column, FILE_COLUMNS, "file", p)
            ucol = _pick(fields, url_column, URL_COLUMNS, "url", p)
            for row in reader:
                name = (row.get(fcol) or "").strip().removeprefix("./")
                url = (row.get(ucol) or "").strip()
                if name and url and name not in out:
                    out[name] = url
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        # one line that says where: the map decides every page's identity, so the audit stops
        # before any work rather than give some pages file: URLs (docs/limits.md, session 18)
        at = f" after line {reader.line_num}" if reader is not None else ""
        why = str(exc)
        if isinstance(exc, UnicodeDecodeError):
            at, why = f" line {_first_bad_line(p)}", "not UTF-8 text (save it as UTF-8)"
        elif "field larger than field limit" in why:
            why = f"a cell over {csv.field_size_limit()} characters (not a file name or a URL)"
        raise UsageError(f"cannot read --url-map {p}{at}: {why}") from None
    return out
