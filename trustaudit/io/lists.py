"""Allow/blocklist files and the domain-info CSV.

List formats accepted on any line: a plain domain, a hosts-file line (`0.0.0.0 example.org`), an
Adblock-style `||example.org^`, or a URL; `#` and `!` start comments. Entries are normalised to
lower-case registrable hosts; a listed domain covers its subdomains (matching is done on the page's
host and every parent of it, see scoring.domain).
"""

from __future__ import annotations

import csv
import hashlib
import os
import re
import stat
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from trustaudit.errors import UsageError
from trustaudit.hostname import ascii_host

_HOSTS_PREFIXES = ("0.0.0.0", "127.0.0.1", "::1", "::", "::0")
_DOMAIN_RE = re.compile(r"^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9-]{1,63}$")


def parse_list_line(line: str) -> str | None:
    """One list line -> a normalised domain, or None for comments/blank/invalid lines."""
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith(("!", "[")):
        return None
    parts = line.split()
    if len(parts) >= 2 and parts[0] in _HOSTS_PREFIXES:
        line = parts[1]
    elif len(parts) > 1:
        return None
    if line.startswith("||"):
        line = line[2:].split("^", 1)[0].split("$", 1)[0]
    if "://" in line:
        try:
            line = urlsplit(line).hostname or ""
        except ValueError:
            return None
    line = ascii_host(line.strip().strip("."))
    if line.startswith("*."):
        line = line[2:]
    if line in ("localhost", "local", "broadcasthost") or not _DOMAIN_RE.match(line):
        return None
    return line


def read_domain_list(path: str | Path) -> set[str]:
    """All domains of one list file; a missing or unreadable file is a usage error."""
    p = check_regular_file(path, "list file")
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read list file {p}: {exc.strerror or exc}") from None
    out = set()
    for line in text.splitlines():
        d = parse_list_line(line)
        if d:
            out.add(d)
    return out


def read_domain_lists(paths: tuple[str, ...] | list[str]) -> set[str]:
    out: set[str] = set()
    for p in paths:
        out |= read_domain_list(p)
    return out


def read_domain_info(path: str | Path) -> dict[str, date]:
    """CSV `domain,created` (ISO date; extra columns ignored) -> {domain: creation date}."""
    p = check_regular_file(path, "domain-info CSV")
    out: dict[str, date] = {}
    try:
        with open(p, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            fields = {f.lower() for f in (reader.fieldnames or [])}
            if not {"domain", "created"} <= fields:
                raise UsageError(
                    f"{p}: domain-info CSV needs columns domain,created (has: {sorted(fields)})"
                )
            for row in reader:
                row = {k.lower(): v for k, v in row.items() if k}
                domain = (row.get("domain") or "").strip().lower().strip(".")
                created = (row.get("created") or "").strip()[:10]
                try:
                    out[domain] = date.fromisoformat(created)
                except ValueError:
                    continue
    except OSError as exc:
        raise UsageError(f"cannot read domain-info CSV {p}: {exc.strerror or exc}") from None
    return out


# ------------------------------------------------------------------ files a run owns
MAX_LIST_BYTES = 512 << 20  # a list or labels file far beyond any real one is a mistake, not data


def check_regular_file(path: str | Path, what: str) -> Path:
    """`path` as a Path when it is a regular file; a FIFO (would hang), a device (never ends) or a
    folder is refused up front with exit 2."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise UsageError(f"cannot read {what} {p}: file not found") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what} {p}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (FIFO, device?)"
        raise UsageError(f"{what} {p} is {kind}", hint="pass a plain file")
    if st.st_size > MAX_LIST_BYTES:
        raise UsageError(f"{what} {p} is larger than {MAX_LIST_BYTES} bytes")
    return p


def copy_owned(src: str | Path, dest: Path, what: str) -> str:
    """Copy one list/labels file to `dest` (a run's inputs folder); returns its sha256."""
    p = check_regular_file(src, what)
    h = hashlib.sha256()
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "rb") as fin, open(dest, "wb") as fout:
        for chunk in iter(lambda: fin.read(1 << 20), b""):
            h.update(chunk)
            fout.write(chunk)
    return h.hexdigest()
