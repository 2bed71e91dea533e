"""Stage progress: percentage and ETA when the total is known, real counts in every stage."""

from __future__ import annotations

import io
import re
from pathlib import Path

import polars as pl
from rich.console import Console

from trustaudit.cli.progress import RichProgress, expected_records


def _render(rp: RichProgress) -> str:
    out = Console(file=io.StringIO(), width=200, color_system=None)
    out.print(rp._bar.make_tasks_table(rp._bar.tasks))
    return out.file.getvalue()  # type: ignore[attr-defined]


def test_extract_shows_percentage_and_eta_and_later_stages_show_pages() -> None:
    console = Console(file=io.StringIO(), width=200)
    rp = RichProgress(console, records=10)
    rp.start("extract")
    rp.advance("extract", 4, errors=1)
    text = _render(rp)
    assert "40%" in text and "4 items" in text and "ETA" in text
    rp.advance("extract", 6)
    rp.done("extract")
    rp.start("signals")
    text = _render(rp)
    assert "9 pages" in text  # 10 records - 1 error, shown while signals is still running
    assert not re.search(r"(?<![\d,])0 items", text)


def test_unknown_total_has_no_percentage_and_low_estimate_is_dropped() -> None:
    rp = RichProgress(Console(file=io.StringIO(), width=200), records=2)
    rp.start("extract")
    rp.advance("extract", 5)
    assert rp._bar.tasks[0].total is None and "%" not in _render(rp)
    score = RichProgress(Console(file=io.StringIO(), width=200), pages=1234)
    score.start("signals")
    assert "1,234 pages" in _render(score)


def test_expected_records(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.html").write_text("x")
    (tmp_path / "a" / "sub").mkdir()
    (tmp_path / "a" / "sub" / "y.htm.gz").write_bytes(b"")
    (tmp_path / "a" / "urls.csv").write_text("file,url\n")
    page = tmp_path / "p.html"
    page.write_text("p")
    assert expected_records([str(tmp_path / "a"), str(page)]) == 3
    (tmp_path / "d.jsonl").write_text('{"url": "a"}\n\n{"url": "b"}\n{"url": "c"}')
    assert expected_records([str(tmp_path / "d.jsonl")]) == 3  # lines, blank ones aside
    pl.DataFrame({"url": ["u1", "u2"], "html": ["<p>1</p>", "<p>2</p>"]}).write_parquet(
        tmp_path / "a" / "e.parquet"
    )
    assert expected_records([str(tmp_path / "a"), str(tmp_path / "d.jsonl")]) == 2 + 2 + 3
    (tmp_path / "g.jsonl.gz").write_bytes(b"")
    assert expected_records([str(tmp_path / "g.jsonl.gz")]) is None  # compressed: unknown
    (tmp_path / "a" / "more.warc.gz").write_bytes(b"")
    assert expected_records([str(tmp_path / "a")]) is None
