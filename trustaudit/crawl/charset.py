"""Charset decision for fetched bodies: BOM -> HTTP header -> <meta> -> detection -> UTF-8.

Why an explicit order: the HTML standard puts the BOM above everything and the transport header above
the document's own claim; detection is a last resort because it guesses. We record which rule decided
(`crawl_charset_source`) so a mojibake report can be traced to its cause.
"""

from __future__ import annotations

import codecs
import re

from trustaudit.io.charset_labels import META_X_USER_DEFINED, X_USER_DEFINED, resolve_label

__all__ = ["decide_charset", "header_charset", "normalize_charset"]

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: its BOM starts with FF FE too
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.I)
_PARAM_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.I)
# The HTML standard maps these labels to windows-1252, a superset that decodes what servers mean.
_TO_CP1252 = {"ascii", "iso8859-1", "latin-1"}
_META_SCAN_BYTES = 4096
_DETECT_BYTES = 64 * 1024
_FEW_HIGH_BYTES = 24  # below this many non-ASCII bytes the detector is guessing
_TYPOGRAPHY = frozenset("«»“”‘’‚„–—…°©®™€£¥§¶·•¡¿ºª±×÷ \xa0")
_CP1252_SLACK = 0.1  # chaos-ratio tolerance when preferring windows-1252 among near-ties


def normalize_charset(label: str | None) -> str | None:
    """Python codec name for a charset label, or None when Python has no such codec."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except (LookupError, ValueError):
        return None
    return "cp1252" if name in _TO_CP1252 else name


def header_charset(content_type: str | None) -> str | None:
    """The `charset=` parameter of a Content-Type value, normalised (None if absent/unknown)."""
    if not content_type:
        return None
    m = _PARAM_CHARSET.search(content_type)
    return normalize_charset(m.group(1)) if m else None


def decide_charset(body: bytes, content_type: str | None) -> tuple[str, str]:
    """Return (codec name, rule) where rule is one of bom/header/meta/detected/default."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, "bom"
    hc = header_charset(content_type)
    if hc:
        return hc, "header"
    m = _META_CHARSET.search(body[:_META_SCAN_BYTES])
    if m:
        mc = normalize_charset(m.group(1).decode("ascii", "replace"))
        if mc == X_USER_DEFINED:
            mc = META_X_USER_DEFINED  # a <meta> naming it means windows-1252 (HTML's prescan)
        if mc:
            # A document cannot declare itself UTF-16 in an ASCII-compatible meta tag (HTML spec).
            return ("utf-8" if mc.startswith("utf-16") else mc), "meta"
    sample = body[:_DETECT_BYTES]
    if sample:
        try:
            # Cut at most 3 bytes so a multi-byte sequence split by the sample edge still passes.
            sample.decode("utf-8") if len(body) <= _DETECT_BYTES else _decode_prefix(sample)
            if any(b > 0x7F for b in sample):
                return "utf-8", "detected"
        except UnicodeDecodeError:
            pass
        else:
            return "utf-8", "default"
        best = _detect(sample)
        if best:
            return best, "detected"
    return "utf-8", "default"


def _decode_prefix(sample: bytes) -> str:
    for cut in range(4):
        try:
            return sample[: len(sample) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    raise UnicodeDecodeError("utf-8", sample, 0, 1, "not utf-8")


def _detect(sample: bytes) -> str | None:
    from charset_normalizer import from_bytes

    high = sum(b > 0x7F for b in sample)
    if high < _FEW_HIGH_BYTES:
        # Too little evidence for a statistical guess (measured: '<html>hi \xe9</html>' came back
        # as johab). A handful of accented letters in otherwise ASCII text is almost always
        # windows-1252; take it when every high byte decodes to a letter or common typography.
        try:
            text = sample.decode("cp1252")
        except UnicodeDecodeError:
            text = ""
        if text and all(c.isalpha() or c in _TYPOGRAPHY for c in text if ord(c) > 0x7F):
            return "cp1252"

    matches = list(from_bytes(sample))
    if not matches:
        return None
    best = matches[0]
    # charset-normalizer ranks cp1250/cp1258 above cp1252 for Western text it cannot tell apart
    # (measured: Portuguese/French latin-1 pages came back as cp1250). windows-1252 is the web's
    # common legacy charset and the HTML standard's default, so prefer it when it is nearly as clean.
    for m in matches:
        if m.encoding == "cp1252" and m.chaos <= best.chaos + _CP1252_SLACK:
            return "cp1252"
    # only an encoding browsers use (WHATWG): the audit reads the page by this name as by a
    # header, and a pick such as EBCDIC cp875 turned an ASCII injection into noise
    for m in matches:
        label = resolve_label(m.encoding)
        if label is not None and label.codec is not None:
            return label.codec
    return "cp1252"  # the web's default for unlabelled legacy pages (as io.decode reads them)
