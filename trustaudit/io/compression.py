"""Compressed inputs: gzip, bzip2, xz and zstd, read as streams under the readers' limits.

Corpora arrive compressed in whatever the producer chose (`.jsonl.zst` from datasets, `.warc.gz`
from crawlers, `.jsonl.bz2` / `.xz` from archives). Each codec here is recognised by its magic
bytes (a name can lie), decompressed while reading, so the `[inputs]` caps
(`max_decompressed_bytes`, `max_line_bytes`, the per-page byte cap) bound memory exactly as for
gzip. bzip2 and xz are the standard library's; zstd is pyarrow's codec (already a dependency).
Formats that are not read (lz4, brotli, archives such as zip or 7z) are named so that the reader
can say so in one error row (`UNSUPPORTED_COMPRESSION`) instead of skipping the file.
"""

from __future__ import annotations

import bz2
import io
import lzma
import zlib
from typing import Any, BinaryIO

# Readable codecs by magic bytes (gzip first: the common case).
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
# The suffix each readable codec's files carry: `x.jsonl.zst` is read as `x.jsonl`.
COMPRESSED_SUFFIXES: tuple[str, ...] = (".gz", ".bz2", ".xz", ".zst")
# Formats recognised but not read: by magic bytes, then by suffix.
_UNSUPPORTED_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"PK\x03\x04", "zip archive"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"),
    (b"Rar!\x1a\x07", "rar archive"),
    (b"\x1f\x9d", "Unix compress (.Z)"),
    (b"LZIP", "lzip"),
)
UNSUPPORTED_SUFFIXES: dict[str, str] = {
    ".lz4": "lz4",
    ".br": "brotli",
    ".zip": "zip archive",
    ".7z": "7z archive",
    ".rar": "rar archive",
    ".z": "Unix compress (.Z)",
    ".lz": "lzip",
    ".lzma": "lzma",
    ".sz": "snappy",
    ".snappy": "snappy",
    ".tar": "tar archive",
    ".tgz": "tar archive (gzip)",
}
READABLE = "gzip, bzip2, xz and zstd"


class CorruptStream(EOFError):
    """A compressed stream that is truncated or damaged (the records before it are kept).

    `cut` tells a stream cut short (the file ends before the codec's end marker) from damage."""

    def __init__(self, message: str, *, cut: bool = False) -> None:
        super().__init__(message)
        self.cut = cut


def codec_of(head: bytes) -> str | None:
    """The readable codec whose magic bytes start `head` (gzip, bzip2, xz, zstd), else None."""
    return next((name for magic, name in _MAGIC if head.startswith(magic)), None)


def unsupported_codec(name: str, head: bytes = b"") -> str | None:
    """What a file is when it is compressed or archived in a format the readers do not read:
    by its first bytes, then by its last suffix (brotli has no magic); None otherwise."""
    hit = next((what for magic, what in _UNSUPPORTED_MAGIC if head.startswith(magic)), None)
    if hit is not None:
        return hit
    lower = name.lower()
    return next((what for suf, what in UNSUPPORTED_SUFFIXES.items() if lower.endswith(suf)), None)


def cut_magic(head: bytes, name: str = "") -> str | None:
    """The readable codec (bzip2, xz, zstd) whose magic number a file cut inside it starts
    with: `head` is the whole file, shorter than the magic number and the start of it (two bytes
    at least, or one when the name's suffix names the codec); None otherwise.

    Why: `codec_of` needs the whole magic number, so a `.warc.xz` of its first 3 bytes was read
    as a plain WARC ("no WARC/ARC record header") and one without a suffix as UNKNOWN_FORMAT."""
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    for magic, codec in _MAGIC[1:]:
        short = 0 < len(head) < len(magic) and magic.startswith(head)
        if short and (len(head) >= 2 or suffix == _SUFFIX_OF[codec]):
            return codec
    return None


_SUFFIX_OF = {"bzip2": "bz2", "xz": "xz", "zstd": "zst"}
# raw bytes read at a time by the decompressors below
_RAW_BLOCK = 1 << 16
# what a decompressor raises on damage (pyarrow's errors are OSError or ValueError)
_CODEC_ERRORS = (EOFError, OSError, lzma.LZMAError, ValueError, zlib.error)


class _Raw:
    """The compressed file under a decompressor, read from where it stands: `last` is where the
    block read last starts (the damage a decompressor meets is in it), and from `slow_from` on
    each read gives one byte, so that a decompressor read again (`salvage`) fails on the byte
    that is damaged and gives everything before it: fed a block, it fails the whole call, and
    the output of the bytes before the damage in the block is lost."""

    closed = False  # pyarrow's PythonFile asks

    def __init__(self, fh: Any, slow_from: int | None = None) -> None:
        self._fh = fh
        self._slow = slow_from
        self.pos = 0
        self.last = 0

    def read(self, n: int | None = -1) -> bytes:
        n = _RAW_BLOCK if n is None or n < 0 else n
        if self._slow is not None:
            n = 1 if self.pos >= self._slow else min(n, self._slow - self.pos)
        self.last = self.pos
        data: bytes = self._fh.read(n)
        self.pos += len(data)
        return data

    def close(self) -> None:
        """The file is closed by its owner."""


def _start_of(fh: Any) -> int | None:
    """Where `fh` stands, to read it again from there; None when it cannot seek back."""
    try:
        return int(fh.tell()) if fh.seekable() else None
    except (OSError, AttributeError, ValueError):
        return None


def _read_again(again: Any, skip: int, step: int) -> bytes:
    """What the decompressing raw stream `again`, read from its start, gives after its first
    `skip` bytes and before its damage (at most 1 MiB and 64 KiB: what one read of the
    BufferedReader over it asks for), read `step` bytes at a time past `skip`."""
    buf, out = bytearray(_RAW_BLOCK), bytearray()
    try:
        while skip > 0:
            n = again.readinto(memoryview(buf)[: min(skip, len(buf))])
            if not n:
                return b""
            skip -= n
        while len(out) < (1 << 20) + _RAW_BLOCK and (n := again.readinto(memoryview(buf)[:step])):
            out += buf[:n]
    except _CODEC_ERRORS:
        pass
    return bytes(out)


class _ArrowStream(io.RawIOBase):
    """A pyarrow decompressing stream as a Python raw stream (readinto), with its errors as
    CorruptStream, so BufferedReader gives it readline and peek like the stdlib codecs.

    pyarrow drops what a read that fails had decompressed (a read of 1 MiB from a stream cut
    short gave nothing of the last MiB before the cut), so each read asks for at most 64 KiB and
    `salvage` reads that last part again."""

    def __init__(self, fh: Any, codec: str, slow_from: int | None = None) -> None:
        import pyarrow as pa

        self._fh = fh
        self._start = _start_of(fh)  # where to read the stream again
        self._raw = _Raw(fh, slow_from)
        self._stream = pa.CompressedInputStream(pa.PythonFile(self._raw, mode="r"), codec)
        self._codec = codec
        self._given = 0  # bytes given so far

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        import pyarrow as pa

        try:
            data = self._stream.read(min(len(b), _RAW_BLOCK))
        except (pa.ArrowInvalid, pa.ArrowIOError) as exc:
            raise CorruptStream(
                f"{self._codec} stream is truncated or corrupt: {exc}", cut="runcated" in str(exc)
            ) from None
        n = len(data)
        b[:n] = data
        self._given += n
        return n

    def salvage(self) -> bytes:
        """After a read failed: what it had decompressed before the damage, read again from the
        stream's start, the bytes given before passed over, the rest a byte at a time (0.5 µs
        a byte) and its compressed bytes from the block that failed on a byte at a time too; b""
        when the file cannot seek back (object storage)."""
        if self._start is None:
            return b""
        self._fh.seek(self._start)
        again = _ArrowStream(self._fh, self._codec, slow_from=self._raw.last)
        return _read_again(again, self._given, 1)

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            super().close()


class _StdlibStream(io.RawIOBase):
    """bzip2 or xz decompressed as a raw stream: each read gives what the codec has given so far,
    streams written one after another (pbzip2, `xz -T`) are read on, and bytes after a stream that
    do not start another are ignored, as `BZ2File` and `LZMAFile` do.

    Why not those: they fill a buffer before giving a byte, and a stream cut short raised there,
    so everything it had decompressed since the last full buffer was lost (a `.warc.xz` cut short
    lost its records after its last whole MiB; one under 1 MiB lost all)."""

    def __init__(self, fh: Any, codec: str, slow_from: int | None = None) -> None:
        self._fh = fh
        self._start = _start_of(fh)
        self._raw = _Raw(fh, slow_from)
        self._codec = codec
        self._new: Any = lzma.LZMADecompressor if codec == "xz" else bz2.BZ2Decompressor
        # what the codec raises on bytes that are no stream (after a stream's end: ignored)
        self._trailing: type[Exception] = lzma.LZMAError if codec == "xz" else OSError
        self._d = self._new()
        self._eof = False
        self._given = 0
        self._failed = False  # the codec failed on damage (not on the end of the file)

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        size = len(b)
        data = b""
        while not data and not self._eof:
            if self._d.eof:  # the next stream, if any
                raw = self._d.unused_data or self._raw.read(_RAW_BLOCK)
                if not raw:
                    self._eof = True
                    break
                self._d = self._new()
                try:
                    data = self._d.decompress(raw, size)
                except self._trailing:
                    self._eof = True
                continue
            raw = b""
            if self._d.needs_input:
                raw = self._raw.read(_RAW_BLOCK)
                if not raw:
                    raise CorruptStream(
                        f"{self._codec} stream is truncated or corrupt: Compressed file ended"
                        " before the end-of-stream marker was reached",
                        cut=True,
                    )
            try:
                data = self._d.decompress(raw, size)
            except _CODEC_ERRORS:
                self._failed = True
                raise
        n = len(data)
        b[:n] = data
        self._given += n
        return n

    def salvage(self) -> bytes:
        """After the codec failed on damage: what the failing read had decompressed before it,
        read again from the stream's start with the block that failed fed a byte at a time; b""
        after a cut (nothing was lost: the end of the file fails no read that gave bytes) or
        when the file cannot seek back."""
        if not self._failed or self._start is None:
            return b""
        self._fh.seek(self._start)
        again = _StdlibStream(self._fh, self._codec, slow_from=self._raw.last)
        return _read_again(again, self._given, _RAW_BLOCK)


class _UpToDamage(io.RawIOBase):
    """A decompressing raw stream that gives every byte decompressed before damage, then ends as
    if the file did; `damage` says what broke (None while nothing has) and `good` how many bytes
    came out before it.

    Why: a reader over a stream that raises loses what the failing read had gathered (the
    BufferedReader's whole buffer), and warcio takes the error for the end of the file, so a
    WARC compressed whole and cut short gave "no WARC/ARC records found"."""

    def __init__(self, raw: Any, codec: str) -> None:
        self._raw = raw
        self._codec = codec
        self.damage: CorruptStream | None = None
        self.good = 0
        self._rest = b""  # what the raw stream's `salvage` gave back, given before the end

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.damage is not None:
            data, self._rest = self._rest[: len(b)], self._rest[len(b) :]
            b[: len(data)] = data
            self.good += len(data)
            return len(data)
        try:
            n: int = self._raw.readinto(b)
        except CorruptStream as exc:
            self.damage = exc
        except _CODEC_ERRORS as exc:
            self.damage = CorruptStream(f"{self._codec} stream is truncated or corrupt: {exc}")
        else:
            self.good += n
            return n
        self._rest = self._raw.salvage()
        return self.readinto(b)

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


class _Guarded(io.BufferedReader):
    """A decompressing reader whose codec errors (lzma.LZMAError, OSError from bz2, zlib.error from
    a damaged gzip body, a short stream) all surface as CorruptStream, so readers map one exception to one error row."""

    def __init__(self, raw: Any, codec: str) -> None:
        super().__init__(raw, buffer_size=1 << 20)
        self.codec = codec

    @property
    def damage(self) -> CorruptStream | None:
        """What broke a stream read up to its damage (`open_decompressed(up_to_damage=True)`);
        None while nothing has, and for a stream that raises instead."""
        return getattr(self.raw, "damage", None)

    @property
    def good(self) -> int:
        """Bytes decompressed before the damage (`damage`), given or still in the buffer."""
        return int(getattr(self.raw, "good", 0))

    def _guard(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except CorruptStream:
            raise
        except _CODEC_ERRORS as exc:
            if self.closed:
                raise
            raise CorruptStream(f"{self.codec} stream is truncated or corrupt: {exc}") from None

    def read(self, size: int | None = -1) -> bytes:
        return self._guard(super().read, size)  # type: ignore[no-any-return]

    def readline(self, size: int | None = -1) -> bytes:
        return self._guard(super().readline, size)  # type: ignore[no-any-return]

    def peek(self, size: int = 0) -> bytes:
        return self._guard(super().peek, size)  # type: ignore[no-any-return]


def open_decompressed(fh: BinaryIO, codec: str, *, up_to_damage: bool = False) -> BinaryIO:
    """A buffered reader (read, readline, peek) of `fh` decompressed with `codec` (`codec_of`):
    bzip2 and xz streams may be concatenated (as `pbzip2` and `xz -T` write them); zstd frames
    too. Truncated or damaged input raises CorruptStream while reading; with `up_to_damage`
    (bzip2, xz, zstd) it gives every byte decompressed before the damage and then ends, its
    `damage` saying what broke (`_UpToDamage`)."""
    raw: Any
    if codec == "gzip":
        import gzip

        raw = gzip.GzipFile(fileobj=fh)
    elif codec in ("bzip2", "xz"):
        raw = _StdlibStream(fh, codec)
    elif codec == "zstd":
        raw = _ArrowStream(fh, codec)
    else:
        raise ValueError(f"not a readable codec: {codec}")
    if up_to_damage and codec != "gzip":
        raw = _UpToDamage(raw, codec)
    return _Guarded(raw, codec)  # type: ignore[return-value]


def decompress_capped(data: bytes, codec: str, cap: int) -> bytes:
    """One compressed file held in memory (a saved page), decompressed to at most `cap` bytes:
    ValueError past the cap (read as a stream, so a bomb never expands whole), CorruptStream when
    truncated or damaged."""
    with open_decompressed(io.BytesIO(data), codec) as fh:
        out = fh.read(cap + 1)
    if len(out) > cap:
        raise ValueError(f"decompressed size exceeds {cap} bytes")
    return out


# HTTP Content-Encoding values a WARC payload is decoded from (RFC 9110 §8.4.1.3: x-gzip is gzip).
PAYLOAD_ENCODINGS = frozenset({"gzip", "x-gzip", "deflate", "br", "zstd"})
_PAYLOAD_READ = 1 << 16


class PayloadDamaged(ValueError):
    """A Content-Encoding payload that fails to decode after its first bytes decoded."""


class _Inflate:
    """zlib (gzip, or deflate with or without its zlib header), `max_length` bounded per call."""

    def __init__(self, wbits: int) -> None:
        self._d = zlib.decompressobj(wbits)

    @property
    def done(self) -> bool:
        return self._d.eof

    def feed(self, data: bytes, limit: int) -> bytes:
        return self._d.decompress(self._d.unconsumed_tail + data, limit)

    def more(self) -> bool:
        return bool(self._d.unconsumed_tail) and not self._d.eof

    @property
    def unused(self) -> bytes | None:
        """The bytes fed past the stream's end (a next gzip member, or trailing data)."""
        return self._d.unused_data


class _Unbrotli:
    """brotli with `output_buffer_limit` (brotli >= 1.2): one 16 KB block can expand to gigabytes.

    brotli keeps no `unused_data`: fed bytes past its stream's end, it fails the whole call. So
    the input is kept (up to `keep` bytes) and, when a call fails, replayed in a fresh decoder,
    the failing chunk a byte at a time, to tell a stream that ended inside it (what follows is
    `unused`, judged as gzip's trailing bytes are) from damage (the error stands)."""

    def __init__(self, keep: int = 0) -> None:
        import brotli  # installed with FastWARC; ImportError when it is not

        self._d = brotli.Decompressor()
        if not hasattr(self._d, "can_accept_more_data"):
            raise ImportError("brotli >= 1.2 is needed to decode a br payload with a bound")
        self._fed: bytearray | None = bytearray()  # the input so far, None past `keep`
        self._keep = keep
        self._emitted = 0  # output given so far (a replay drops as much)
        self._unused: bytes | None = None

    @property
    def done(self) -> bool:
        return self._unused is not None or bool(self._d.is_finished())

    def feed(self, data: bytes, limit: int) -> bytes:
        import brotli

        try:
            out = bytes(self._d.process(data, output_buffer_limit=limit))
        except brotli.error:
            ended = self._end_inside(data, limit)
            if ended is None:
                raise
            return ended
        if self._fed is not None and data:
            self._fed += data
            if len(self._fed) > self._keep:
                self._fed = None
        self._emitted += len(out)
        return out

    def _end_inside(self, data: bytes, limit: int) -> bytes | None:
        """The output of `data` up to the stream's end when the stream ends inside it (the bytes
        after it kept as `unused`), else None."""
        import brotli

        if self._fed is None:
            return None
        d = brotli.Decompressor()
        skip = self._emitted  # the replay's first output was given before: dropped
        out = bytearray()

        def run(chunk: bytes) -> None:
            nonlocal skip
            step = max(1, min(1 << 20, skip + limit - len(out)))
            got = bytes(d.process(chunk, output_buffer_limit=step))
            while True:
                cut = min(skip, len(got))
                skip -= cut
                out.extend(got[cut:])
                if d.can_accept_more_data() or d.is_finished() or len(out) >= limit:
                    return
                step = max(1, min(1 << 20, skip + limit - len(out)))
                got = bytes(d.process(b"", output_buffer_limit=step))

        try:
            run(bytes(self._fed))
            for j in range(len(data)):
                run(data[j : j + 1])
                if len(out) >= limit or d.is_finished():
                    self._d = d
                    if d.is_finished():
                        self._unused = data[j + 1 :]
                    self._emitted += len(out)
                    return bytes(out)
        except brotli.error:
            return None
        return None

    def more(self) -> bool:
        return not self.done and not self._d.can_accept_more_data()

    @property
    def unused(self) -> bytes | None:
        """The bytes fed past the stream's end (none when it ended where a chunk did)."""
        return self._unused if self._unused is not None else b""


def _payload_codecs(encoding: str, cap: int) -> list[Any]:
    if encoding == "br":
        return [lambda: _Unbrotli(cap)]
    if encoding == "deflate":  # zlib-wrapped as the RFC says, raw deflate as some servers send
        return [lambda: _Inflate(zlib.MAX_WBITS), lambda: _Inflate(-zlib.MAX_WBITS)]
    return [lambda: _Inflate(16 + zlib.MAX_WBITS)]


def read_encoded(src: BinaryIO, encoding: str, cap: int, *, truncated: bool = False) -> bytes:
    """The payload `src` decoded from its HTTP Content-Encoding (`PAYLOAD_ENCODINGS`), at most
    `cap + 1` bytes (the caller tells "over the cap" by the length), whatever the ratio.

    Why not warcio's `content_stream()`: it decodes a 16 KB block whole (a brotli block holds
    gigabytes), fails on every `br` payload with brotli >= 1.2 (`unused_data`), prints zlib's
    errors raw on stderr and keeps the page cut where a gzip body breaks. Here a body the codec
    rejects from its first bytes, or that ends before the codec gave a byte, is returned as stored
    (crawlers that save the decoded body under the original header); damage later, or a stream
    that ends before its end after giving bytes, raises PayloadDamaged (a page cut short would be
    scanned as if whole) unless the record says it was cut (`truncated`, WARC-Truncated: the part
    kept is read, as a plain body cut at the crawler's cap is). gzip members that follow the first
    are read too (as gzip and urllib3 do: data hidden in a second member is scanned); other bytes
    after a gzip, deflate or brotli stream's end raise PayloadDamaged (blanks and NULs aside;
    brotli has no members: a second stream is such data). ImportError means brotli is not
    installed.
    """
    if encoding == "zstd":
        return _read_zstd(src, cap, truncated=truncated)
    makers = _payload_codecs(encoding, cap)
    dec = makers[0]()
    errors: tuple[type[Exception], ...] = (zlib.error,)
    if encoding == "br":
        import brotli

        errors = (zlib.error, brotli.error)
    head = src.read(_PAYLOAD_READ)
    out = bytearray()
    # what was read while nothing came out, returned as stored if the codec stalls
    raw = bytearray()
    trailing: bytes | None = b""
    data = head
    while data and len(out) <= cap:
        if not out and len(raw) <= cap:
            raw += data
        try:
            out += dec.feed(data, cap + 1 - len(out))
            while dec.more() and len(out) <= cap:
                out += dec.feed(b"", cap + 1 - len(out))
        except errors as exc:
            if data is head and not out:
                if len(makers) > 1:  # raw deflate
                    makers, dec, raw = makers[1:], makers[1](), bytearray()
                    continue
                return head + src.read(cap + 1 - len(head))  # not encoded after all
            raise PayloadDamaged(f"{encoding} payload is damaged: {exc}") from None
        if dec.done:
            trailing = dec.unused
            if encoding in ("gzip", "x-gzip") and trailing is not None and trailing[:1] == b"\x1f":
                if len(trailing) < 2:
                    trailing += src.read(_PAYLOAD_READ)
                if trailing[:2] == b"\x1f\x8b":  # the next gzip member, under the same cap
                    dec, data, trailing = makers[0](), trailing, b""
                    continue
            break
        data = src.read(_PAYLOAD_READ)
    if len(out) > cap:
        return bytes(out)
    if not dec.done:  # the input ran out first
        if not out:
            return bytes(raw)
        if not truncated:
            raise PayloadDamaged(f"{encoding} payload ends before its stream does (cut short)")
    rest = trailing
    while True:  # the rest of `src` is read (and checked where the codec told its end)
        if rest is not None and rest.strip(b" \t\r\n\0"):
            raise PayloadDamaged(f"{encoding} payload has data after its end")
        chunk = src.read(_PAYLOAD_READ)
        if not chunk:
            break
        rest = chunk if rest is not None else None
    return bytes(out)


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
# a zstd frame's header and block overhead: a compressed payload this much over the cap cannot
# decode to less than the cap
_ZSTD_SLACK = 1 << 16


def _read_zstd(src: BinaryIO, cap: int, *, truncated: bool) -> bytes:
    """A `Content-Encoding: zstd` payload (browsers send it since 2024) decoded under `cap`, as
    `read_encoded` decodes the others, with pyarrow's codec.

    pyarrow's stream gives no byte of a read that fails, so the compressed payload is read first
    (at most `cap` + 64 KiB: zstd never shrinks data by less than that), and blanks and NULs after
    it are dropped when it fails with them, as after the other codings; a body that does not start
    as zstd is returned as stored;
    one that fails after its magic number raises PayloadDamaged (unless `truncated`, with bytes)."""
    raw = src.read(cap + _ZSTD_SLACK + 1)
    if len(raw) > cap + _ZSTD_SLACK:
        return raw  # over the cap decoded or not (the caller tells by the length)
    if not raw.startswith(_ZSTD_MAGIC):
        return raw  # not encoded after all
    out, exc = _unzstd(raw, cap)
    if exc is not None and (bare := raw.rstrip(b" \t\r\n\0")) != raw:
        out, exc = _unzstd(bare, cap)  # blanks or NULs after the stream's end (or inside it)
    if exc is not None and not (truncated and out):
        what = "ends before its stream does (cut short)" if "runcated" in exc else "is damaged"
        raise PayloadDamaged(f"zstd payload {what}: {exc[:120]}")
    return out


def _unzstd(data: bytes, cap: int) -> tuple[bytes, str | None]:
    """`data` decompressed as zstd, at most `cap + 1` bytes, and the error, if any."""
    import pyarrow as pa

    out = bytearray()
    try:
        stream = pa.CompressedInputStream(pa.BufferReader(data), "zstd")
        while len(out) <= cap:
            chunk = stream.read(_PAYLOAD_READ)
            if not chunk:
                break
            out += chunk
    except (OSError, pa.ArrowException) as exc:
        return bytes(out), str(exc)
    return bytes(out), None
