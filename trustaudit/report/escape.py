"""Make hostile page strings inert in every output format.

Page text, titles and URLs are attacker-controlled: they must not execute in HTML, break Markdown
tables, or run as formulas when a CSV is opened in a spreadsheet.
"""

from __future__ import annotations

import functools
import html
import re
from urllib.parse import urlsplit

_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]|[\U000e0000-\U000e007f]"
)


def strip_invisible(text: str) -> str:
    """Drop control, zero-width, bidi and tag characters (they hide or reorder text)."""
    return _CONTROL.sub("", text)


def one_line(text: str | None, limit: int = 300) -> str:
    if not text:
        return ""
    return _one_line(str(text), limit)


@functools.lru_cache(maxsize=1 << 16)  # domains and reasons repeat across thousands of rows
def _one_line(text: str, limit: int) -> str:
    text = " ".join(strip_invisible(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def md(text: str | None, limit: int = 300) -> str:
    """Text for a Markdown table cell: no HTML, no pipes, no links or images, one line."""
    t = html.escape(one_line(text, limit), quote=True)
    return re.sub(r"([\\`*_\[\]|!#<>()])", r"\\\1", t)


def csv_cell(text: str | None, limit: int = 2000) -> str:
    """Defuse spreadsheet formulas (=, +, -, @, tab, CR) by prefixing a quote."""
    t = one_line(text, limit)
    return "'" + t if t[:1] in ("=", "+", "-", "@", "\t", "\r") else t


def safe_href(url: str | None) -> str | None:
    """Only http(s) URLs become links; everything else (javascript:, data:, …) stays text."""
    if not url:
        return None
    try:
        scheme = urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return None
    return url.strip() if scheme in ("http", "https") else None


def html_text(text: str | None, limit: int = 500) -> str:
    return html.escape(one_line(text, limit), quote=True)
