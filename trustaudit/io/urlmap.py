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
    try:
        with open(p, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            fields = {_key(f): f for f in (reader.fieldnames or []) if f}
            fcol = _pick(fields, file_column, FILE_COLUMNS, "file", p)
            ucol = _pick(fields, url_column, URL_COLUMNS, "url", p)
            for row in reader:
                name = (row.get(fcol) or "").strip().removeprefix("./")
                url = (row.get(ucol) or "").strip()
                if name and url and name not in out:
                    out[name] = url
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"cannot read --url-map {p}: {exc}") from None
    return out
