"""report/evidence.py: the paragraphs a topic reason shows are the prose paragraphs the scorer saw."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from tests.report.fakerun import make_run, page
from trustaudit.embed import HashingEmbedder
from trustaudit.io.atomic import write_parquet
from trustaudit.policy import Policy
from trustaudit.report.evidence import page_evidence
from trustaudit.scoring.coherence import coherence_signals

HEADER = ["Daily Mix: today's stories", "Home | News | About", "By Staff Writer"]
STARS = "The telescope tracked the comet while astronomers logged its orbit across the galaxy {}."
BREAD = "Knead the dough until smooth, then let the yeast rise so the bread bakes a light crumb {}."
PROSE = [(STARS if i % 2 == 0 else BREAD).format(i) for i in range(8)]


def test_scorer_records_the_paragraphs_the_topic_statistics_saw() -> None:
    pages = pl.DataFrame({"doc_id": ["mix"], "paragraphs": [HEADER + PROSE]})
    row = coherence_signals(pages, Policy(), HashingEmbedder(256, min_word_len=4)).row(
        0, named=True
    )
    # title, navigation and byline are structure: the split and interleave saw the prose only
    assert row["coherence_topic_paragraphs"] == list(range(len(HEADER), len(HEADER) + 8))
    assert row["coherence_interleave"] > 0.1


def _run(tmp_path: Path, reason: str, **signals: object) -> list[dict]:
    run = make_run(tmp_path / "run", [page("https://mix.example/a", 0.3, reasons=[reason])])
    write_parquet(run.pages, run.read("pages").with_columns(paragraphs=pl.Series([HEADER + PROSE])))
    extra = {
        k: pl.Series([v], dtype=pl.List(pl.Int32) if isinstance(v, list) else pl.Int32)
        for k, v in signals.items()
    }
    write_parquet(run.signals, run.read("signals").with_columns(**extra))
    (entry,) = next(iter(page_evidence(run, run.read("scores")).values()))
    return entry["ev"]


def test_interleaved_shows_the_alternating_prose_not_the_header(tmp_path: Path) -> None:
    ev = _run(
        tmp_path,
        "COHERENCE_INTERLEAVED: paragraphs two apart 0.47 more similar (penalty 0.1)",
        coherence_topic_paragraphs=list(range(3, 11)),
    )
    assert [e["t"] for e in ev] == PROSE[:3]
    assert [e["w"] for e in ev] == ["¶4 · topic A", "¶5 · topic B", "¶6 · topic A again"]


def test_topic_shift_counts_the_split_in_prose_paragraphs(tmp_path: Path) -> None:
    ev = _run(
        tmp_path,
        "COHERENCE_TOPIC_SHIFT: halves similarity 0.1 vs within 0.6",
        coherence_topic_paragraphs=[3, 5, 6, 8, 9, 10],  # 4 and 7 were left out as structure
        coherence_split_at=3,
    )
    assert [e["t"] for e in ev] == [PROSE[3], PROSE[5]]  # positions 6 and 8 of the page
    assert [e["w"] for e in ev] == ["¶7 · before the split", "¶9 · after the split"]


def test_runs_without_the_record_fall_back_to_page_order(tmp_path: Path) -> None:
    ev = _run(tmp_path, "COHERENCE_INTERLEAVED: paragraphs two apart 0.47 (penalty 0.1)")
    assert [e["t"] for e in ev] == HEADER  # what older runs can show; nothing invented
