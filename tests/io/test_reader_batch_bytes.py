"""Readers cut their batches by bytes (`inputs.batch_max_bytes`) as well as by count, so a reader
never holds many large records at once (12 JSONL records of 45 MB: 1.7 GB in the reader before,
424 MB after; docs/limits.md, session 18)."""

from __future__ import annotations

from pathlib import Path

from helpers import article_html, write_jsonl, write_warc

from trustaudit.io.readers import FolderSource, JsonlSource, WarcSource, open_sources
from trustaudit.policy.inputs import InputsPolicy

LIMITS = InputsPolicy(batch_max_bytes=50_000)


def _page(i: int) -> str:
    return article_html(f"Page {i}", body_extra="<p>" + "padding " * 2_500 + "</p>")  # ≈ 22 KB


def _held(batches: list) -> list[tuple[int, int]]:  # type: ignore[type-arg]
    """(records, bytes of bodies) of each batch a reader yields."""
    out = []
    for b in batches:
        col = b.records.column("body").to_pylist() if b.records.num_rows else []
        out.append((b.records.num_rows, sum(len(x or b"") for x in col)))
    return out


def _assert_cut(held: list[tuple[int, int]], total: int) -> None:
    assert sum(n for n, _ in held) == total
    assert all(size <= 50_000 or n == 1 for n, size in held), held
    assert max(n for n, _ in held) == 2  # two records of ≈ 22 KB fit, a third does not


def test_jsonl_reader_cuts_its_batches_by_bytes(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "p.jsonl",
        [{"url": f"https://j.example/{i}", "html": _page(i)} for i in range(7)],
        raw_lines=["not json"],
    )
    batches = list(JsonlSource(path, limits=LIMITS).batches(64))
    _assert_cut(_held(batches), 7)
    assert [e.code for b in batches for e in b.errors] == ["JSON_DECODE"]
    offsets = [o for b in batches for o in b.records.column("offset").to_pylist()]
    assert offsets == list(range(1, 8))


def test_folder_reader_cuts_its_batches_by_bytes(tmp_path: Path) -> None:
    for i in range(7):
        (tmp_path / f"p{i}.html").write_text(_page(i))
    (tmp_path / "empty.html").write_text("")
    batches = list(FolderSource(tmp_path, limits=LIMITS).batches(64))
    _assert_cut(_held(batches), 7)
    assert [e.code for b in batches for e in b.errors] == ["EMPTY_FILE"]


def test_warc_reader_cuts_its_batches_by_bytes(tmp_path: Path) -> None:
    path = write_warc(
        tmp_path / "p.warc.gz", [(f"https://w.example/{i}", _page(i)) for i in range(7)]
    )
    batches = list(WarcSource(path, limits=LIMITS).batches(64))
    _assert_cut(_held(batches), 7)
    urls = [u for b in batches for u in b.records.column("url").to_pylist()]
    assert urls == [f"https://w.example/{i}" for i in range(7)]


def test_a_folder_input_passes_its_limits_to_the_folder_reader(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(_page(0))
    (folder,) = open_sources(tmp_path, limits=LIMITS)
    assert isinstance(folder, FolderSource) and folder.limits.batch_max_bytes == 50_000
