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


def test_bytes_give_a_percentage_when_records_are_unknown() -> None:
    rp = RichProgress(Console(file=io.StringIO(), width=200))  # records unknown
    rp.start("extract")
    assert "%" not in _render(rp)
    rp.advance("extract", 7, errors=2)
    rp.position("extract", 250, 1000)
    text = _render(rp)
    assert "25%" in text and "7 items" in text  # bytes for the bar, records for the count
    rp.advance("extract", 3)
    rp.position("extract", 1000, 1000)
    assert "100%" in _render(rp) and "10 items" in _render(rp)
    rp.done("extract")
    rp.start("signals")
    assert "8 pages" in _render(rp)  # pages = records - errors, not bytes
    known = RichProgress(Console(file=io.StringIO(), width=200), records=10)
    known.start("extract")
    known.advance("extract", 4)
    known.position("extract", 900, 1000)  # a record total is the better measure: kept
    assert "40%" in _render(known)


def test_audit_of_a_gzipped_jsonl_reports_bytes_read(
    runner, app, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import gzip
    import json
    import random

    from helpers import article_html

    rng = random.Random(5)
    lines = [
        json.dumps(
            {"url": f"https://p{i}.example.com/", "html": article_html(f"P{i} {rng.random()}")}
        )
        for i in range(120)
    ]
    src = tmp_path / "dump.jsonl.gz"
    src.write_bytes(gzip.compress("\n".join(lines).encode()))
    seen: list[tuple[int, int, str]] = []
    original = RichProgress.position

    def record(self: RichProgress, stage: str, done: int, total: int, *, skipped: int = 0) -> None:
        original(self, stage, done, total, skipped=skipped)
        seen.append((done, total, _render(self)))

    monkeypatch.setattr(RichProgress, "position", record)
    from trustaudit.io.meter import ReadMeter

    monkeypatch.setattr(ReadMeter.__init__, "__kwdefaults__", {"clock": lambda: 0.0, "every_s": -1})
    policy = tmp_path / "p.toml"
    policy.write_text("[extract]\nbatch_size = 16\n", encoding="utf-8")
    res = runner.invoke(
        app,
        ["audit", str(src), "--out", str(tmp_path / "run"), "-w", "1", "--policy", str(policy)],
    )
    assert res.exit_code == 0, res.output
    size = src.stat().st_size
    assert seen and all(total == size for _, total, _ in seen)
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and any(0 < d < size for d in done), done
    assert done[-1] > size * 0.9
    assert any(re.search(r"\b[1-9]\d?%", text) for _, _, text in seen)  # a percentage below 100


def test_skipped_work_counts_as_done_but_not_in_rate_or_eta(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import trustaudit.cli.progress as progress

    now = [0.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    rp = RichProgress(Console(file=io.StringIO(), width=200), records=100)
    rp.start("extract")
    now[0] = 10.0  # restoring 90 committed records took 10 s
    rp.skip("extract", 90)
    text = _render(rp)
    assert "90%" in text and "90 items" in text and "ETA -:--:--" in text and "- /s" in text
    now[0] = 15.0  # then 5 records extracted in 5 s: 1 a second, 5 to go
    rp.advance("extract", 5)
    text = _render(rp)
    assert "95%" in text and "1.0 /s" in text and "ETA 0:00:05" in text, text
    bytes_bar = RichProgress(Console(file=io.StringIO(), width=200))  # records unknown
    now[0] = 0.0
    bytes_bar.start("extract")
    now[0] = 4.0
    bytes_bar.skip("extract", 50)
    bytes_bar.position("extract", 600, 1000, skipped=500)  # a restored input of 500 bytes
    now[0] = 6.0
    bytes_bar.advance("extract", 10)
    bytes_bar.position("extract", 700, 1000, skipped=500)  # 200 bytes read in 2 s
    text = _render(bytes_bar)
    assert "70%" in text and "60 items" in text and "5.0 /s" in text and "ETA 0:00:03" in text


def test_a_resumed_audit_reports_what_it_skipped(runner, app, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import gzip
    import json

    from helpers import article_html

    import trustaudit.run.local as local
    from trustaudit.io.meter import ReadMeter

    srcs = []
    for name in ("a", "b"):
        lines = [
            json.dumps(
                {"url": f"https://{name}{i}.example.com/", "html": article_html(f"{name}{i}")}
            )
            for i in range(32)
        ]
        srcs.append(tmp_path / f"{name}.jsonl.gz")
        srcs[-1].write_bytes(gzip.compress("\n".join(lines).encode()))
    policy = tmp_path / "p.toml"
    policy.write_text("[extract]\nbatch_size = 16\n", encoding="utf-8")
    real, calls = local.extract_records, {"n": 0}

    def flaky(records, pol):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:  # the first batch of b: a is done
            raise KeyboardInterrupt
        return real(records, pol)

    monkeypatch.setattr(local, "extract_records", flaky)
    args = ["audit", *map(str, srcs), "--out", str(tmp_path / "run"), "-w", "1"]
    assert runner.invoke(app, [*args, "--policy", str(policy)]).exit_code == 130
    monkeypatch.setattr(local, "extract_records", real)
    monkeypatch.setattr(ReadMeter.__init__, "__kwdefaults__", {"clock": lambda: 0.0, "every_s": -1})
    seen: list[tuple[int, int, int]] = []
    bars: list[RichProgress] = []
    original = RichProgress.position

    def record(self: RichProgress, stage: str, done: int, total: int, *, skipped: int = 0) -> None:
        original(self, stage, done, total, skipped=skipped)
        seen.append((done, total, skipped))
        bars.append(self)

    monkeypatch.setattr(RichProgress, "position", record)
    res = runner.invoke(app, [*args, "--policy", str(policy)])
    assert res.exit_code == 0, res.output
    size_a, total = srcs[0].stat().st_size, sum(s.stat().st_size for s in srcs)
    assert seen[-1][:2] == (total, total)
    assert seen[-1][2] == size_a, seen  # a's bytes were read through, not worked on
    assert bars[-1]._skipped["extract"] == 32 and bars[-1]._count["extract"] == 64
