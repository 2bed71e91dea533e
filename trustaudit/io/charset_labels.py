"""Charset labels as browsers read them: the WHATWG Encoding Standard's label table.

Why: a page's `Content-Type` charset or `<meta charset>` decides what text the injection scan
reads. Python knows many encodings no browser decodes (UTF-7, EBCDIC, `unicode_escape`, `rot13`),
so a label naming one turned a page whose injection a browser (and any reader that ignores the
label) shows in plain ASCII into noise for the scanner: `+Ignore +all` under `utf-7` is CJK
noise, ASCII under `cp500` is control characters. Browsers resolve a label through one table
(https://encoding.spec.whatwg.org/#names-and-labels); a label not in it is ignored. The label
`replacement` and the ISO-2022-KR/CN and HZ labels name the *replacement* encoding, which a
browser shows as one U+FFFD.

`resolve_label` returns what a label means here: a Python codec that implements a WHATWG
encoding, `REPLACEMENT`, or the Python codec of a label only Python knows (`python_only`), so the
caller can ignore the label as a browser does and still scan what a Python reader of the page
(`requests` honours the header charset with Python's codecs) would read.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Any

__all__ = ["META_X_USER_DEFINED", "REPLACEMENT", "X_USER_DEFINED", "Label", "resolve_label"]

REPLACEMENT = "replacement"

# The Encoding Standard's x-user-defined: bytes 0x00–0x7F are ASCII, 0x80–0xFF the private-use
# characters U+F780–U+F7FF (a browser shows them as boxes, not as letters). Python has no codec
# of it: one is registered here, under its WHATWG name. Why: read as windows-1252, as it was
# before session 26, the high bytes of a page served with this header became letters no
# browser shows. A <meta> naming it means windows-1252 (HTML's prescan says so).
X_USER_DEFINED = "x-user-defined"
META_X_USER_DEFINED = "cp1252"
_XUD_DECODE = "".join(map(chr, range(0x80))) + "".join(chr(0xF780 + i) for i in range(0x80))
_XUD_ENCODE = codecs.charmap_build(_XUD_DECODE)


class _XudIncrementalDecoder(codecs.IncrementalDecoder):
    def decode(self, data: Any, final: bool = False) -> str:  # any buffer (3.12's Buffer)
        return codecs.charmap_decode(data, self.errors, _XUD_DECODE)[0]


class _XudIncrementalEncoder(codecs.IncrementalEncoder):
    def encode(self, text: str, final: bool = False) -> bytes:
        return codecs.charmap_encode(text, self.errors, _XUD_ENCODE)[0]


def _search_x_user_defined(name: str) -> codecs.CodecInfo | None:
    """Python's codec lookup for x-user-defined (`name` arrives lower-cased, `-` as `_`)."""
    if name.replace("_", "-") != X_USER_DEFINED:
        return None
    return codecs.CodecInfo(
        name=X_USER_DEFINED,
        encode=lambda text, errors="strict": codecs.charmap_encode(text, errors, _XUD_ENCODE),
        decode=lambda data, errors="strict": codecs.charmap_decode(data, errors, _XUD_DECODE),
        incrementalencoder=_XudIncrementalEncoder,
        incrementaldecoder=_XudIncrementalDecoder,
    )


codecs.register(_search_x_user_defined)

# WHATWG encoding -> (the Python codec that implements it, its labels). Differences kept on
# purpose: GBK is decoded by the gb18030 decoder, Shift_JIS is Microsoft's (cp932), EUC-KR is
# windows-949 (cp949), Big5 is Big5-HKSCS, as in the standard.
_ENCODINGS: dict[str, tuple[str, str]] = {
    "utf-8": ("utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"),
    "ibm866": ("cp866", "866 cp866 csibm866 ibm866"),
    "iso-8859-2": (
        "iso8859-2",
        "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
    ),
    "iso-8859-3": (
        "iso8859-3",
        "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3",
    ),
    "iso-8859-4": (
        "iso8859-4",
        "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4",
    ),
    "iso-8859-5": (
        "iso8859-5",
        "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5"
        " iso_8859-5:1988",
    ),
    "iso-8859-6": (
        "iso8859-6",
        "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6"
        " iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
    ),
    "iso-8859-7": (
        "iso8859-7",
        "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597"
        " iso_8859-7 iso_8859-7:1987 sun_eu_greek",
    ),
    "iso-8859-8": (
        "iso8859-8",
        "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8"
        " iso88598 iso_8859-8 iso_8859-8:1988 visual",
    ),
    "iso-8859-8-i": ("iso8859-8", "csiso88598i iso-8859-8-i logical"),
    "iso-8859-10": (
        "iso8859-10",
        "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
    ),
    "iso-8859-13": ("iso8859-13", "iso-8859-13 iso8859-13 iso885913"),
    "iso-8859-14": ("iso8859-14", "iso-8859-14 iso8859-14 iso885914"),
    "iso-8859-15": ("iso8859-15", "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9"),
    "iso-8859-16": ("iso8859-16", "iso-8859-16"),
    "koi8-r": ("koi8-r", "cskoi8r koi koi8 koi8-r koi8_r"),
    "koi8-u": ("koi8-u", "koi8-ru koi8-u"),
    "macintosh": ("mac-roman", "csmacintosh mac macintosh x-mac-roman"),
    "windows-874": ("cp874", "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"),
    "windows-1250": ("cp1250", "cp1250 windows-1250 x-cp1250"),
    "windows-1251": ("cp1251", "cp1251 windows-1251 x-cp1251"),
    "windows-1252": (
        "cp1252",
        "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1"
        " iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
    ),
    # ASCII, then each high byte a private-use character (`X_USER_DEFINED`); a <meta> naming it
    # means windows-1252 (`META_X_USER_DEFINED`)
    "x-user-defined": ("x-user-defined", "x-user-defined"),
    "windows-1253": ("cp1253", "cp1253 windows-1253 x-cp1253"),
    "windows-1254": (
        "cp1254",
        "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989"
        " l5 latin5 windows-1254 x-cp1254",
    ),
    "windows-1255": ("cp1255", "cp1255 windows-1255 x-cp1255"),
    "windows-1256": ("cp1256", "cp1256 windows-1256 x-cp1256"),
    "windows-1257": ("cp1257", "cp1257 windows-1257 x-cp1257"),
    "windows-1258": ("cp1258", "cp1258 windows-1258 x-cp1258"),
    "x-mac-cyrillic": ("mac-cyrillic", "x-mac-cyrillic x-mac-ukrainian"),
    "gbk": (
        "gb18030",
        "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk",
    ),
    "gb18030": ("gb18030", "gb18030"),
    "big5": ("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    "euc-jp": ("euc_jp", "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    "iso-2022-jp": ("iso2022_jp", "csiso2022jp iso-2022-jp"),
    "shift_jis": (
        "cp932",
        "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
    ),
    "euc-kr": (
        "cp949",
        "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601"
        " ksc_5601 windows-949",
    ),
    "utf-16be": ("utf-16-be", "unicodefffe utf-16be"),
    "utf-16le": (
        "utf-16-le",
        "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le",
    ),
    # not in the standard (browsers ignore these labels); kept because a UTF-32 page is read by
    # its byte pattern anyway, and decode_document checks a wide label against 8-bit text
    "utf-32le": ("utf-32-le", "utf-32 utf-32le"),
    "utf-32be": ("utf-32-be", "utf-32be"),
}
_REPLACEMENT_LABELS = frozenset(
    ["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement"]
)
_CODEC_OF_LABEL: dict[str, str] = {
    label: codec for codec, labels in _ENCODINGS.values() for label in labels.split()
}
# Python's own spellings of the same codecs (`iso8859_2`, `euc_jp`, `utf_16_le`), as the crawler
# and the charset detector name what they decided: each is the WHATWG encoding it implements.
_WHATWG_CODECS = frozenset(codec for codec, _ in _ENCODINGS.values())
# Python codecs whose reading is not scanned apart: not text encodings of a page (punycode's
# decoder is quadratic in its input; idna reads host names; undefined always fails).
_NO_OTHER_READING = frozenset({"punycode", "idna", "undefined"})
_MAX_LABEL = 64  # the longest WHATWG label is 19 characters; longer is junk, never looked up
_ASCII_WHITESPACE = "\t\n\f\r "


@dataclass(frozen=True)
class Label:
    """What a charset label means: `codec` (a Python codec implementing a WHATWG encoding), or
    `replacement` (a WHATWG replacement label), or `python_only` (a codec Python has for a label
    browsers do not know). `other` is the Python codec of a label that browsers do not decode
    as Python would (python_only, or a replacement label Python can read), else None."""

    label: str
    codec: str | None = None
    replacement: bool = False
    other: str | None = None


def resolve_label(label: str | None) -> Label | None:
    """The meaning of a charset label (None when there is no label or it is junk)."""
    if not label:
        return None
    name = label.strip(_ASCII_WHITESPACE).strip("\"'").strip(_ASCII_WHITESPACE).lower()
    if not name or len(name) > _MAX_LABEL:
        return None
    if name in _REPLACEMENT_LABELS:
        return Label(name, replacement=True, other=_python_codec(name))
    if (codec := _CODEC_OF_LABEL.get(name)) is not None:
        return Label(name, codec)
    py = _python_codec(name)
    if py is None:
        return None
    if (codec := _CODEC_OF_LABEL.get(py)) is not None or py in _WHATWG_CODECS:
        return Label(name, codec or py)
    return Label(name, other=py)


def _python_codec(name: str) -> str | None:
    """Python's codec for `name` if it is a text encoding worth reading a page with, else None."""
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):  # ValueError: an embedded NUL
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NO_OTHER_READING:
        return None
    return info.name
