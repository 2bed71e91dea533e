"""Damage in a `.warc.gz` read from a stream that cannot seek (object storage, a pipe), session 26:
before, the damaged record was one error row and the rest of the stream was skipped, where a file
on disk reads on at the next record; now the stream reads on too, at the next gzip member after
the damage that starts a record, found reading forward (`io.forward`), the same rows as from
disk."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from helpers import NoSeek, collect

from tests.io.test_warc_member_skip import page
from trustaudit.io import readers
from trustaudit.io.readers import open_source

A, B, C = (gzip.compress(page(h)) for h in ("a.example", "b.example", "c.example"))
DAMAGE = {
    # deflate data garbled inside the second member
    "garbled": A + B[:20] + bytes(x ^ 0x55 for x in B[20:60]) + B[60:] + C,
    # the second member cut in half, the third right after it
    "cut": A + B[: len(B) // 2] + C,
    # the second member's CRC wrong
    "crc": A + B[:-8] + b"\0\0\0\0" + B[-4:] + C,
}


def read(data: bytes, tmp_path: Path, mp: pytest.MonkeyPatch | None) -> tuple[list, list]:  # type: ignore[type-arg]
    p = tmp_path / "d.warc.gz"
    p.write_bytes(data)
    if mp is not None:
        mp.setattr(readers.fs, "open_input", lambda _p: io.BufferedReader(NoSeek(data)))
    rows, errors = collect(open_source(p), cap=100)
    return [(r["url"], r["offset"]) for r in rows], [(e.code, e.offset, e.message) for e in errors]


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_stream_reads_on_after_damage_as_a_file_does(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = read(DAMAGE[damage], tmp_path, None)
    stream = read(DAMAGE[damage], tmp_path, monkeypatch)
    assert stream == disk
    rows, errors = stream
    assert [u for u, _ in rows] == ["https://a.example/a", "https://c.example/a"]
    ((code, at, msg),) = errors
    assert code.startswith("WARC_") and at == len(A)
    assert msg.endswith(f"read on at the next record (byte {len(DAMAGE[damage]) - len(C)})")


def test_damage_with_no_record_after_it_skips_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = read(A + B[: len(B) // 2], tmp_path, monkeypatch)
    assert stream == read(A + B[: len(B) // 2], tmp_path, None)
    rows, errors = stream
    assert [u for u, _ in rows] == ["https://a.example/a"]
    assert [(c, at) for c, at, _ in errors] == [("WARC_TRUNCATED", len(A))]
    assert errors[0][2].endswith("the rest of the file was skipped")


def test_a_last_member_cut_short_is_named_as_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A last gzip member of two records, cut inside its trailer: the stream said "several
    records share the gzip member" (WARC_CORRUPT); now, as a file on disk, that the file ends
    inside it (the stream still holds the member; the disk reads it again whole and keeps its
    second record, which the stream cannot)."""
    tail = gzip.compress(page("c.example") + page("d.example"))
    data = A + tail[:-4]
    rows, errors = read(data, tmp_path, monkeypatch)
    assert [u for u, _ in rows] == ["https://a.example/a", "https://c.example/a"]
    assert [(c, at) for c, at, _ in errors] == [("WARC_TRUNCATED", len(A))]
    assert errors[0][2].startswith(f"the file ends inside the gzip member at byte {len(A)}")
    assert read(data, tmp_path, None)[1] == errors  # the same row from disk


def test_a_whole_member_of_several_records_is_told_within_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telling a member cut short from a whole one decompresses it at most
    inputs.max_warc_skip_bytes: past that it is a member of several records (one row), and
    reading goes on after it."""
    from tests.io.test_warc_member_skip import record
    from trustaudit.policy.inputs import InputsPolicy

    big = record("https://b.example/a", b"<p>" + b"x" * 3_000_000 + b"</p>")
    shared = gzip.compress(page("s.example") + big)
    data = A + shared + C
    p = tmp_path / "s.warc.gz"
    p.write_bytes(data)
    monkeypatch.setattr(readers.fs, "open_input", lambda _p: io.BufferedReader(NoSeek(data)))
    told: list[tuple[bool, int]] = []
    member_cut = readers._member_cut

    def spy(*args: object) -> tuple[bool, int]:
        told.append(member_cut(*args))  # type: ignore[arg-type]
        return told[-1]

    monkeypatch.setattr(readers, "_member_cut", spy)
    limits = InputsPolicy(max_warc_skip_bytes=1_000_000)
    rows, errors = collect(open_source(p, limits=limits), cap=100)
    assert [r["url"] for r in rows] == [f"https://{h}.example/a" for h in "asc"]
    assert [(e.code, e.offset) for e in errors] == [("WARC_CORRUPT", len(A))]
    assert "several records share the gzip member" in errors[0].message
    cut, used = told[0]  # (the last: the end of the stream, nothing left to read)
    assert not cut and 1_000_000 < used <= 1_000_000 + (1 << 20)  # stopped past the budget
