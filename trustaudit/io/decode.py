"""Bytes -> str for HTML: BOM, then HTTP charset, then <meta charset>, then detection, then UTF-8.

Returns which rule decided, so a mojibake report can be traced to its cause.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any

from trustaudit.io.charset_labels import (
    META_X_USER_DEFINED,
    X_USER_DEFINED,
    Label,
    resolve_label,
)

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.IGNORECASE)


def charset_from_content_type(content_type: str | None) -> str | None:
    """The `charset=` parameter of a Content-Type header, if any."""
    if not content_type:
        return None
    m = re.search(r"charset\s*=\s*[\"']?([^;\"'\s]+)", content_type, re.IGNORECASE)
    return m.group(1) if m else None


# ISO-2022-JP's escape sequences (to ASCII, JIS X 0201 Roman or Katakana, JIS X 0208 or 0212)
_ISO2022_ESCAPES = re.compile(rb"\x1b(?:\(|\$\(?)[@-Z]")


@dataclass(frozen=True)
class Reading:
    """`read_html`'s answer: the page's text as a browser reads it, the codec and the rule that
    decided (`bom`, `header`, `meta`, `meta-overridden-by-valid-utf8`, `valid-utf8`, `detected`,
    `detected-not-web`, `fallback-utf8`), reason strings ("CHARSET_IGNORED: …"), and `others`:
    the page as other readers would read it, where that text differs (a Python reader honouring
    a label browsers ignore, or a detector's pick browsers never make; for ISO-2022-JP, a reader
    ignoring the label), each as (how it was read, text), to be scanned apart."""

    text: str
    encoding: str
    decided_by: str
    notes: tuple[str, ...] = ()
    others: tuple[tuple[str, str], ...] = ()


def decode_html(data: bytes, http_charset: str | None = None) -> tuple[str, str, str]:
    """Decode HTML bytes; returns (text, encoding, decided_by). See `read_html`."""
    r = read_html(data, http_charset)
    return r.text, r.encoding, r.decided_by


def read_html(data: bytes, http_charset: str | None = None) -> Reading:
    """Decode HTML bytes: BOM, then the HTTP charset, then <meta charset>, then valid UTF-8, then
    detection, labels resolved as browsers resolve them (`io.charset_labels`, the WHATWG table).

    A label browsers ignore (UTF-7, EBCDIC, `unicode_escape`) or read as nothing (the
    replacement encoding: ISO-2022-KR, HZ) is passed over as they do, with a CHARSET_IGNORED
    note; what Python's codec of that label reads is one of `others`, since a Python reader
    honouring it sees that text (an injection written in UTF-7 is found there). A detector's pick
    that no browser makes (EBCDIC for a page of EBCDIC prose and an ASCII injection) is read as
    windows-1252 instead, the detector's reading one of `others`. A page labelled ISO-2022-JP
    with escape sequences is read as ISO-2022-JP even when it is valid UTF-8 (as browsers do:
    escapes inside words hid them from a UTF-8 reading), and its bytes without the escapes, as a
    reader ignoring the label sees them, are one of `others`."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return Reading(data[len(bom) :].decode(enc, "replace"), enc, "bom")
    ignored: list[tuple[str, Label]] = []
    header = resolve_label(http_charset)
    if header is not None and header.codec is not None:
        return _labelled(data, header.codec, "header")
    if header is not None:
        ignored.append(("the HTTP Content-Type", header))
    m = _META_RE.search(data[:4096])
    meta = resolve_label(m.group(1).decode("ascii", "ignore")) if m else None
    if meta is not None and meta.codec is None:
        ignored.append(("<meta charset>", meta))
        meta = None
    if meta is None or meta.codec is None:
        r = _unlabelled(data)
    else:
        # a <meta> naming x-user-defined means windows-1252 (HTML's prescan); a header, itself
        enc = META_X_USER_DEFINED if meta.codec == X_USER_DEFINED else meta.codec
        # pages that declare a single-byte charset but are really UTF-8 are common; trust valid
        # UTF-8, but not over ISO-2022-JP with escapes: its bytes are 7-bit (valid UTF-8), and a
        # browser follows the label, so `ESC ( B` inside a word hid it from a UTF-8 reading
        jis = enc == "iso2022_jp" and b"\x1b" in data
        if enc != "utf-8" and not jis and _is_utf8(data):
            r = Reading(data.decode("utf-8"), "utf-8", "meta-overridden-by-valid-utf8")
        else:
            r = _labelled(data, enc, "meta")
    if not ignored:
        return r
    others = list(r.others)
    notes = []
    for where, label in ignored:
        read = label.other is not None and _add_reading(others, r.text, data, label.other)
        notes.append(_ignored(where, label, scanned=read))
    return Reading(r.text, r.encoding, r.decided_by, (*notes, *r.notes), tuple(others))


def _add_reading(others: list[tuple[str, str]], text: str, data: bytes, codec: str) -> bool:
    """Add `data` read with Python's `codec` to `others` unless it reads as `text` or as one of
    them already (True when it is, or was, among them)."""
    if any(how == codec for how, _ in others):
        return True
    try:
        other = data.decode(codec, "replace")
    except Exception:  # a codec that fails on its own terms reads nothing more
        return False
    if other == text:
        return False
    others.append((codec, other))
    return True


def _labelled(data: bytes, enc: str, rule: str) -> Reading:
    text = data.decode(enc, "replace")
    if enc == "iso2022_jp" and b"\x1b" in data:
        plain = _ISO2022_ESCAPES.sub(b"", data).decode("utf-8", "replace")
        if plain != text:
            note = (
                f"CHARSET_ALSO_SCANNED: {enc} with escape sequences; its bytes as ASCII without"
                " them (what a reader ignoring the label sees) were scanned apart"
            )
            return Reading(
                text, enc, rule, (note,), (("ASCII without its escape sequences", plain),)
            )
    return Reading(text, enc, rule)


def _unlabelled(data: bytes) -> Reading:
    if _is_utf8(data):
        return Reading(data.decode("utf-8"), "utf-8", "valid-utf8")
    try:
        from charset_normalizer import from_bytes

        matches = [m.encoding for m in from_bytes(data[:65536]) if m.encoding]
    except Exception:  # detection is best-effort
        matches = []
    # the detector's best pick among the encodings browsers use (it ranks mac_latin2 over
    # cp1250 for German in cp1252, and EBCDIC cp875 alone for EBCDIC prose around ASCII)
    for name in matches:
        label = resolve_label(name)
        if label is not None and label.codec is not None:
            return Reading(data.decode(label.codec, "replace"), label.codec, "detected")
    best = matches[0] if matches else None
    if best is not None:
        # a codec no browser picks (the detector named EBCDIC cp875 for EBCDIC prose around an
        # ASCII injection, which it turned into noise): windows-1252, the web's default for
        # unlabelled legacy pages, and the detector's reading scanned apart
        others: list[tuple[str, str]] = []
        text = data.decode("cp1252", "replace")
        read = _add_reading(others, text, data, best)
        also = f", the {best} reading scanned apart" if read else ""
        note = (
            f"CHARSET_ALSO_SCANNED: detection named {best}, an encoding browsers do not"
            f" decode; read as windows-1252{also}"
        )
        return Reading(text, "cp1252", "detected-not-web", (note,), tuple(others))
    return Reading(data.decode("utf-8", "replace"), "utf-8", "fallback-utf8")


def _ignored(where: str, label: Label, *, scanned: bool) -> str:
    what = (
        "the replacement encoding (a browser shows one U+FFFD)"
        if label.replacement
        else "an encoding browsers do not decode"
    )
    also = f"; the page as {label.other} reads it was scanned apart" if scanned else ""
    return (
        f"CHARSET_IGNORED: {where} names {label.label[:40]!r}, {what} (WHATWG Encoding);"
        f" read as the other rules decide{also}"
    )


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


# ---------------------------------------------------------------- evidence over rejection
# File signatures of content that is never a web page: such bodies are error rows, everything else
# is decoded and scanned (a NUL byte or UTF-16 without a BOM must not hide a page from the audit).
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip data"),
    (b"BZh", "bzip2 data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"\x28\xb5\x2f\xfd", "zstd data"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"),
    (b"\x7fELF", "ELF executable"),
    (b"MZ\x90\x00", "Windows executable"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"\x1aE\xdf\xa3", "Matroska/WebM media"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
    (b"PAR1", "Parquet file"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00\x00\x01\x00", "ICO image"),
)
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd]")
_SAMPLE_CHARS = 65_536


def binary_signature(data: bytes) -> str | None:
    """What a body is when its first bytes name a non-text format (image, archive, PDF…), else None."""
    for magic, what in _MAGIC:
        if data.startswith(magic):
            return what
    if data[4:8] == b"ftyp":
        return "MP4/QuickTime media"
    if data.startswith(b"RIFF") and data[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return f"RIFF {data[8:12].decode().strip()} media"
    return None


def wide_encoding(data: bytes) -> str | None:
    """UTF-16/32 without a BOM, told by where the zero bytes fall in the head (ASCII-heavy markup).

    HTML is mostly ASCII, so a UTF-16LE page has a zero at almost every odd offset and almost none at
    even ones; UTF-32 has three zeros in each group of four.
    """
    head = data[:4096]
    n = len(head) // 4 * 4
    if n < 8 or b"\x00" not in head:
        return None
    head = head[:n]
    groups = n // 4
    for enc, zeros in (("utf-32-le", (1, 2, 3)), ("utf-32-be", (0, 1, 2))):
        hits = sum(all(head[i + z] == 0 for z in zeros) for i in range(0, n, 4))
        if hits / groups > 0.9:
            return enc
    even, odd = head[0::2], head[1::2]
    even_zero, odd_zero = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_zero > 0.6 and even_zero < 0.1:
        return "utf-16-le"
    if even_zero > 0.6 and odd_zero < 0.1:
        return "utf-16-be"
    return None


# Four whitespace-separated ASCII words with no NUL between them: 8-bit text. In UTF-16/32 every
# ASCII character carries a zero byte, and CJK code units almost never spell this by chance.
# Bytes are first mapped (in C) to a = printable ASCII, space = whitespace, NUL = anything else, so a
# real UTF-16 body is rejected by one substring test instead of a regex step per byte.
_CLASSES = bytes(
    0x61 if 0x21 <= b <= 0x7E else 0x20 if b in (0x09, 0x0A, 0x0D, 0x20) else 0 for b in range(256)
)
_NARROW_WORDS = re.compile(rb"(?:a{2,40} ){4}")


def narrow_text(data: bytes) -> int | None:
    """Offset of 8-bit (ASCII/UTF-8) prose in a body that otherwise looks UTF-16/32, else None."""
    classes = data.translate(_CLASSES)
    if b"aa " not in classes:
        return None
    m = _NARROW_WORDS.search(classes)
    return m.start() if m else None


@dataclass(frozen=True)
class Decoded:
    """A body made text: `text` is None when it is not text at all (then `error` says why)."""

    text: str | None
    encoding: str | None
    reasons: tuple[str, ...] = ()
    error: str | None = None
    # other readings of the page that a reader could see (`Reading.others`): scanned apart
    others: tuple[tuple[str, str], ...] = ()


def control_share(text: str) -> float:
    """Share of control and replacement characters in a sample of `text` (0 for empty text)."""
    sample = text[:_SAMPLE_CHARS]
    if len(text) > 2 * _SAMPLE_CHARS:  # a binary tail behind an honest head counts too
        sample += text[-_SAMPLE_CHARS:]
    return len(_CONTROL.findall(sample)) / len(sample) if sample else 0.0


def decode_document(
    data: bytes, http_charset: str | None = None, *, max_binary_share: float = 0.10
) -> Decoded:
    """Bytes of a page -> text, stripping NULs and detecting BOM-less UTF-16/32, with reason codes.

    Only bodies with a binary signature, or still mostly control characters after decoding, are not
    text. Reasons are "CODE: detail" strings (DECODED_UTF16, DECODED_UTF32, BINARY_BYTES_STRIPPED).
    """
    what = binary_signature(data)
    if what is not None:
        return Decoded(None, None, error=f"binary content ({what}, {len(data)} bytes), not HTML")
    reasons: list[str] = []
    others: tuple[tuple[str, str], ...] = ()
    bom = any(data.startswith(b) for b, _ in _BOMS)
    wide = None if bom else wide_encoding(data)
    bom_wide = wide_bom(data)
    if (wide or bom_wide) and (hit := narrow_text(data)) is not None:
        # a wide head (or BOM) must not decide for 8-bit text elsewhere in the body: decoded as
        # UTF-16 that text turns into CJK-looking noise and an injection in it is never scanned
        said = f"byte-order mark says {bom_wide}" if bom_wide else f"head looks like {wide}"
        if bom_wide:
            data = data[len(next(b for b, e in _BOMS if e == bom_wide)) :]
        nuls = data.count(b"\x00")
        data = data.replace(b"\x00", b"")
        reasons.append(
            f"BINARY_BYTES_STRIPPED: {said} but 8-bit text follows at byte {hit};"
            f" {nuls} NUL byte(s) removed and the rest decoded as 8-bit text"
        )
        wide = None
        bom = False
    if wide is not None:
        text = data[: len(data) // 4 * 4 if "32" in wide else len(data) // 2 * 2].decode(
            wide, "replace"
        )
        code = "DECODED_UTF32" if "32" in wide else "DECODED_UTF16"
        reasons.append(f"{code}: no byte-order mark; decoded as {wide} by its byte pattern")
        encoding = wide
    else:
        if not bom and b"\x00" in data:
            nuls = data.count(b"\x00")
            data = data.replace(b"\x00", b"")
            reasons.append(f"BINARY_BYTES_STRIPPED: {nuls} NUL byte(s) removed before decoding")
        reading = read_html(data, http_charset)
        text, encoding, decided_by = reading.text, reading.encoding, reading.decided_by
        reasons.extend(reading.notes)
        others = reading.others
        if (
            decided_by in ("header", "meta")
            and encoding.startswith(("utf-16", "utf-32"))
            and (hit := narrow_text(data)) is not None
        ):
            # a Content-Type or <meta> charset of UTF-16 over an 8-bit body turned it into noise
            # and hid what it says (browsers read <meta charset=utf-16> as UTF-8 too)
            reasons.append(
                f"BINARY_BYTES_STRIPPED: {decided_by} says {encoding} but 8-bit text is at byte"
                f" {hit}; decoded as 8-bit text"
            )
            text, encoding = data.replace(b"\x00", b"").decode("utf-8", "replace"), "utf-8"
    if "\x00" in text:
        nuls = text.count("\x00")
        text = text.replace("\x00", "")
        reasons.append(f"BINARY_BYTES_STRIPPED: {nuls} NUL character(s) removed after decoding")
    share = control_share(text)
    if share > max_binary_share:
        return Decoded(
            None,
            encoding,
            tuple(reasons),
            error=f"binary content: {share:.0%} control characters after decoding as {encoding}",
        )
    others = tuple((how, o.replace("\x00", "")) for how, o in others)
    return Decoded(text, encoding, tuple(reasons), others=others)


def wide_bom(head: bytes) -> str | None:
    """The codec of a UTF-16/32 byte-order mark at the start of `head` (None for UTF-8 or none).

    Why: line-based inputs (JSONL, URL lists) are split on the byte 0x0A, which in UTF-16 is half
    of a character: Windows PowerShell 5.1 writes `>` and `Out-File` as UTF-16LE with a BOM, and such
    a file used to become one broken record per half-line instead of its records."""
    return next((enc for bom, enc in _BOMS if head.startswith(bom) and enc != "utf-8"), None)


class Utf8Lines:
    """A binary stream that starts with a UTF-16/32 byte-order mark, read back as UTF-8 lines.

    `readline(size)` keeps the contract of a binary file (at most `size` bytes, ending at the
    first newline), so line caps apply to the recoded text; undecodable units become U+FFFD."""

    _CHUNK = 1 << 16

    def __init__(self, fh: Any, encoding: str) -> None:
        bom = next(b for b, e in _BOMS if e == encoding)
        fh.read(len(bom))
        self._fh = fh
        self._decoder = codecs.getincrementaldecoder(encoding)("replace")
        self._buf = b""
        self._done = False

    def readline(self, size: int = -1) -> bytes:
        while not self._done and b"\n" not in self._buf and (size < 0 or len(self._buf) < size):
            chunk = self._fh.read(self._CHUNK)
            self._done = not chunk
            self._buf += self._decoder.decode(chunk, final=self._done).encode("utf-8")
        cut = self._buf.find(b"\n")
        end = len(self._buf) if cut < 0 else cut + 1
        if size >= 0:
            end = min(end, size)
        line, self._buf = self._buf[:end], self._buf[end:]
        return line

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> Utf8Lines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
