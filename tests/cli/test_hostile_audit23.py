"""Session-23 red team's open items through the CLI (docs/limits.md, "After this pass: a Parquet
data page with one huge cell")."""

from __future__ import annotations

from pathlib import Path

from helpers import arrow_decoded, article_html, balanced_run, mixed_page_parquet, spy_arrow_reads
from helpers import audit_cli as audit


def test_a_parquet_page_of_one_huge_cell_among_small_ones_is_read_a_value_at_a_time(
    runner, app, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Before: a data page over inputs.max_parquet_page_bytes whose average cell is under the
    cap was handed to Arrow, which decodes a page whole (one 1.8 GB cell among 2,000 small ones,
    an 80 KB file, took the audit to 3.7 GB). Now its values' lengths are read as a stream and
    its column decoded a value at a time: the huge cell's record is a TOO_LARGE row with its URL,
    the small ones and the pages around them are pages, the run balances, and Arrow is never
    asked for that column of that row group."""
    monkeypatch.setenv("TRUSTAUDIT_INPUTS__MAX_PARQUET_PAGE_BYTES", "1000000")
    monkeypatch.setenv("TRUSTAUDIT_EXTRACT__MAX_RECORD_BYTES", "300000")
    folder = tmp_path / "in"
    folder.mkdir()
    good = [article_html(url=None), article_html("Second", url=None)]
    mixed_page_parquet(folder / "mixed.parquet", good, small=60)
    (folder / "page.html").write_text(article_html(url="https://h.example.org/a"))
    calls = spy_arrow_reads(monkeypatch)
    run = tmp_path / "run"
    res = audit(runner, app, str(folder), "--out", str(run))
    assert res.exit_code == 0, res.output
    got, errors = balanced_run(run)
    small = {f"https://m.example.org/{i}" for i in range(61) if i != 30}
    goods = {f"https://g.example.org/{i}" for i in range(4)}
    assert set(got["url"].to_list()) == small | goods | {"https://h.example.org/a"}
    assert errors.select("offset", "url", "code").rows() == [
        (32, "https://m.example.org/30", "TOO_LARGE")
    ]
    assert errors["message"][0] == "row 32: html/text is 2500003 bytes, over 300000"
    assert not arrow_decoded(calls, 65, 1, "html") and arrow_decoded(calls, 65, 0, "html")
