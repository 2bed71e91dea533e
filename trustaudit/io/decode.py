"""Bytes -> str for HTML: BOM, then HTTP charset, then <meta charset>, then detection, then UTF-8.

Returns which rule decided, so a mojibake report can be traced to its cause.
"""

from __future__ import annotations

import codecs
import re

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE)


def _known(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name.strip().strip("\"'")).name
    except LookupError:
        return None


def charset_from_content_type(content_type: str | None) -> str | None:
    """The `charset=` parameter of a Content-Type header, if any."""
    if not content_type:
        return None
    m = re.search(r"charset\s*=\s*[\"']?([^;\"'\s]+)", content_type, re.IGNORECASE)
    return m.group(1) if m else None


def decode_html(data: bytes, http_charset: str | None = None) -> tuple[str, str, str]:
    """Decode HTML bytes; returns (text, encoding, decided_by)."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(enc, "replace"), enc, "bom"
    header_enc = _known(http_charset)
    if header_enc:
        return data.decode(header_enc, "replace"), header_enc, "header"
    m = _META_RE.search(data[:4096])
    meta_enc = _known(m.group(1).decode("ascii", "ignore")) if m else None
    if meta_enc:
        enc = meta_enc
        # pages that declare a single-byte charset but are really UTF-8 are common; trust valid UTF-8
        if enc not in ("utf-8",) and _is_utf8(data):
            return data.decode("utf-8"), "utf-8", "meta-overridden-by-valid-utf8"
        return data.decode(enc, "replace"), enc, "meta"
    if _is_utf8(data):
        return data.decode("utf-8"), "utf-8", "valid-utf8"
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data[:65536]).best()
    except Exception:  # detection is best-effort
        best = None
    if best is not None and best.encoding:
        return data.decode(best.encoding, "replace"), best.encoding, "detected"
    return data.decode("utf-8", "replace"), "utf-8", "fallback-utf8"


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def looks_binary(data: bytes) -> bool:
    """NUL bytes or many control characters in the head: not HTML/text."""
    head = data[:4096]
    if not head:
        return False
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    if b"\x00" in head:
        return True
    ctrl = sum(1 for b in head if b < 9 or 13 < b < 32)
    return ctrl / len(head) > 0.10
