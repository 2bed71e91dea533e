"""A stream that cannot seek (object storage, a pipe), read forward, its last bytes kept.

Why: a `.warc.gz` from such a stream had nowhere to go past a record over the payload cap but
through it, decompressing it to its end (a 17 MB gzip member of 16 GiB: about 45 s, whatever
`inputs.max_warc_skip_bytes` said). The next gzip member that starts a record can be found by
reading the compressed bytes forward (`readers._record_member_after`), far cheaper than
decompressing them; what that search needs is to go back a little, to the candidate it found
(at most its block of 1 MiB behind) and to the bytes warcio read past the end of a member (at
most one block of 16 KiB), and then to read on from there: `ForwardReader` keeps the last
`keep` bytes read for that, and reads forward to any later position.
"""

from __future__ import annotations

from typing import BinaryIO

__all__ = ["KEEP", "ForwardReader"]

_BLOCK = 1 << 20  # bytes read at a time to pass over what is not wanted
KEEP = 4 << 20  # the last bytes read that `ForwardReader` keeps to go back to, by default


class ForwardReader:
    """`fh` read forward from its first byte, the last `keep` bytes read kept, so that `seek` goes
    to any position from `earliest` on (forward: the bytes between are read and dropped)."""

    def __init__(self, fh: BinaryIO, keep: int = KEEP) -> None:
        self._fh, self._keep = fh, keep
        self._kept = bytearray()  # the bytes [_end - len(_kept), _end) of the stream
        self._end = 0  # bytes read from `fh`
        self._pos = 0  # where the next read starts, from `earliest` to `_end`

    @property
    def earliest(self) -> int:
        """The first position `seek` can go back to."""
        return self._end - len(self._kept)

    def tell(self) -> int:
        return self._pos

    def seekable(self) -> bool:
        """False: `seek` goes back only as far as `earliest`."""
        return False

    def readable(self) -> bool:
        return True

    def _take(self, data: bytes) -> None:
        self._kept += data
        self._end += len(data)
        if len(self._kept) > self._keep:
            del self._kept[: len(self._kept) - self._keep]  # CPython: no copy of what is kept

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes (-1: all that is left), fewer when some were read before a `seek`
        back: those first."""
        if self._pos < self._end:
            start = self._pos - self.earliest
            stop = len(self._kept) if size < 0 else min(len(self._kept), start + size)
            self._pos += stop - start
            return bytes(self._kept[start:stop])
        data = self._fh.read(size)
        if size < 0:  # all that is left: nothing later to go back to
            self._end += len(data)
            self._kept.clear()
        else:
            self._take(data)
        self._pos = self._end
        return data

    def seek(self, pos: int, whence: int = 0) -> int:
        """Go to byte `pos` (from the start only): back to `earliest` at most, forward as far as
        the stream goes. OSError before `earliest`."""
        if whence != 0 or pos < self.earliest:
            raise OSError(f"cannot seek back to byte {pos} of a stream read forward")
        while self._end < pos and (data := self._fh.read(min(_BLOCK, pos - self._end))):
            self._take(data)
        self._pos = min(pos, self._end)
        return self._pos

    def close(self) -> None:
        """The stream is closed by its owner."""
