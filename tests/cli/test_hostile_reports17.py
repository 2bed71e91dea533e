"""Session-17 red team, second pass, through the CLI: a bad `urls.csv` sidecar costs its folder's
URL map, not the batch; hostile page strings stay inert in the Markdown reports."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from helpers import article_html

NOW = ["--now", "2026-11-01"]


def audit(runner, app, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["audit", *args, "--workers", "1", "-q", *NOW])


def balanced(run: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    acc = json.loads((run / "manifest.json").read_text())["stages"]["ingest"]["accounting"]
    assert acc["balanced"], acc
    return pl.read_parquet(run / "pages.parquet"), pl.read_parquet(run / "errors.parquet")


def test_a_folder_with_a_bad_sidecar_is_audited_and_the_batch_goes_on(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Before: `trustaudit: error: cannot read URL sidecar …/urls.csv: 'utf-8' codec can't
    decode byte 0xff`, exit 2, no run. Now the sidecar's bad record is one error row, its page is
    audited under its file: URL, and the other folder's pages keep their mapped URLs."""
    bad, good = tmp_path / "bad", tmp_path / "good"
    for folder, name in ((bad, "p"), (good, "q")):
        folder.mkdir()
        (folder / f"{name}.html").write_text(article_html(f"Page {name}", url=None))
    (bad / "urls.csv").write_bytes(b"file,url\np.html,https://p.example/\xff\n")
    (good / "urls.csv").write_text("file,url\nq.html,https://q.example/\n", encoding="utf-8")
    run = tmp_path / "run"
    res = audit(runner, app, str(bad), str(good), "--out", str(run))
    assert res.exit_code == 0, res.output
    pages, errors = balanced(run)
    urls = sorted(pages["url"])
    assert urls[0].startswith("file://") and urls[0].endswith("/bad/p.html")
    assert urls[1] == "https://q.example/"
    assert errors["code"].to_list() == ["URL_SIDECAR_INVALID"]
    assert "record 1: file 'p.html' or its URL is not valid UTF-8" in errors["message"][0]
