"""Read progress in bytes (io/meter.py): WARC and compressed JSONL report how far into the file the
readers are, so the extract bar has a percentage without counting records first."""

from __future__ import annotations

import bz2
import gzip
import json
import random
from pathlib import Path

from helpers import write_warc

from trustaudit.io.meter import ReadMeter, with_read_position
from trustaudit.io.readers import open_source
from trustaudit.progress import NullProgress


def _jsonl(n: int) -> bytes:
    rng = random.Random(3)  # varied text, so the compressed file is large enough to stream
    return b"".join(
        json.dumps({"url": f"https://p{i}.example.com/", "html": rng.randbytes(400).hex()}).encode()
        + b"\n"
        for i in range(n)
    )


def _positions(path: Path) -> list[tuple[int, int]]:
    src = open_source(path)
    seen = [src.read_position()]
    for _ in src.batches(50):
        seen.append(src.read_position())
    seen.append(src.read_position())
    return [p for p in seen if p is not None]


def test_compressed_jsonl_and_warc_report_compressed_bytes(tmp_path: Path) -> None:
    data = _jsonl(6000)  # bzip2 decompresses 900 kB blocks: several of them
    gz, bz = tmp_path / "a.jsonl.gz", tmp_path / "a.jsonl.bz2"
    gz.write_bytes(gzip.compress(data))
    bz.write_bytes(bz2.compress(data))
    warc = write_warc(
        tmp_path / "w.warc.gz",
        [(f"https://w{i}.example.com/", "<p>x</p>" * 900) for i in range(300)],
    )
    for path in (gz, bz, warc):
        pos = _positions(path)
        size = path.stat().st_size
        assert pos[0] == (0, size), path.name  # known before a byte is read
        assert all(total == size for _, total in pos)
        done = [d for d, _ in pos]
        assert done == sorted(done) and done[-1] == size, path.name
        assert any(0 < d < size for d in done), path.name  # in between, not 0 then 100%


class _Src:
    def __init__(self, read: int, size: int | None) -> None:
        self.read, self.size = read, size

    def read_position(self) -> tuple[int, int] | None:
        return None if self.size is None else (self.read, self.size)


def test_meter_sums_sources_in_order_and_throttles() -> None:
    now = [0.0]
    # the first source was restored from a cache (never read): the second has started, so it is done
    sources = [_Src(0, 100), _Src(30, 50), _Src(0, 10)]
    meter = ReadMeter(sources, clock=lambda: now[0], every_s=1.0)
    assert meter.position() == (130, 160)
    sources[1].read = 50
    assert meter.position() == (130, 160)  # within every_s: the last value
    now[0] = 2.0
    assert meter.position() == (150, 160)
    assert ReadMeter([_Src(0, 1), _Src(0, None)]).position() is None  # an object-store key


class _Bar:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []
        self.skipped: list[int] = []
        self.advanced = 0

    def start(self, stage: str, total: int | None = None) -> None: ...

    def advance(self, stage: str, n: int = 1, *, errors: int = 0) -> None:
        self.advanced += n

    def done(self, stage: str, info: str = "") -> None: ...

    def position(self, stage: str, done: int, total: int, *, skipped: int = 0) -> None:
        self.calls.append((stage, done, total))
        self.skipped.append(skipped)


def test_with_read_position_feeds_bars_that_can_show_it() -> None:
    plain = NullProgress()
    assert with_read_position(plain, []) is plain  # nothing to show it on: unchanged
    bar = _Bar()
    wrapped = with_read_position(bar, [_Src(5, 20)])
    wrapped.advance("extract", 3)
    wrapped.advance("signals", 1)
    assert bar.advanced == 4 and bar.calls == [("extract", 5, 20)]


def test_a_restored_source_counts_at_once_and_as_skipped(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # a resumed run: source 0 restored whole (never read), source 1 half done before (its committed
    # batches are read through and skipped), then worked on
    sources = [_Src(0, 100), _Src(0, 60), _Src(0, 40)]
    meter = ReadMeter(sources, clock=lambda: 0.0, every_s=-1)
    assert meter.position() == (0, 200)
    assert meter.finish(0) == 100 and meter.finish(0) == 0  # once
    assert meter.position() == (100, 200)  # before the next source starts
    now = [0.0]
    monkeypatch.setattr(
        ReadMeter.__init__, "__kwdefaults__", {"clock": lambda: now[0], "every_s": 1.0}
    )
    bar = _Bar()
    wrapped = with_read_position(bar, sources)
    wrapped.skip("extract", 7, source=0)  # type: ignore[attr-defined]
    assert bar.advanced == 7 and bar.calls[-1] == ("extract", 100, 200) and bar.skipped[-1] == 100
    sources[1].read, now[0] = 30, 2.0
    wrapped.skip("extract", 3)  # type: ignore[attr-defined]
    assert bar.skipped[-1] == 130  # read through for committed batches only
    sources[1].read, now[0] = 60, 4.0
    wrapped.advance("extract", 3)
    assert bar.calls[-1] == ("extract", 160, 200) and bar.skipped[-1] == 130
    sources[2].read = 20
    wrapped.skip("extract", 1)  # type: ignore[attr-defined]
    assert bar.calls[-1][1] == 160  # throttled: not read again yet
    now[0] = 6.0
    wrapped.advance("extract", 3)  # one stretch of bytes for both steps: split by records
    assert bar.calls[-1][1] == 180 and bar.skipped[-1] == 135
