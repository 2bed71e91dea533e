"""Bytes -> str for HTML: BOM, then HTTP charset, then <meta charset>, then detection, then UTF-8.

Returns which rule decided, so a mojibake report can be traced to its cause.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any

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
        text, encoding, decided_by = decode_html(data, http_charset)
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
    return Decoded(text, encoding, tuple(reasons))


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
