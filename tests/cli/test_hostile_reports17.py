"""Session-17 red team, second pass, through the CLI: a bad `urls.csv` sidecar costs its folder's
URL map, not the batch; hostile page strings stay inert in the Markdown reports."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import article_html
from helpers import audit_cli as audit
from helpers import balanced_run as balanced


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
    # the unreadable urls.csv record is an input record of its own: two pages and one sidecar
    # record in, two pages and one error row out (docs/audit.md, accounting)
    acc = json.loads((run / "manifest.json").read_text())["stages"]["ingest"]["accounting"]
    assert acc == {"inputs": 3, "pages": 2, "errors": 1, "balanced": True}


EVIL = "https://evil.example/:white_check_mark:/@org/team/?q=%23#12~~x~~"


def _jsonl(path: Path) -> Path:
    recs = [
        {"url": EVIL, "html": article_html(":lock: verified @admins", url=None)},
        {"url": "https://good.example/a", "html": article_html("Good", url=None)},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path


def _assert_inert(text: str) -> None:
    assert ":white_check_mark:" not in text and ":lock:" not in text  # no emoji for GitHub
    assert "@org" not in text and "@admins" not in text and "#12" not in text  # no ping, no ref
    assert "~~x~~" not in text  # no strikethrough


def test_quarantine_and_diff_markdown_leave_github_nothing_to_act_on(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Before: quarantine.md and diff.md carried `:white_check_mark:` (rendered ✅ in a PR
    comment), `@org/team` (a notification), `#12` (a cross-reference) and `~~x~~` as written, and
    diff.md quoted run folders in backticks a folder name could close. Now each is broken by a
    zero-width space or escaped; the URL still reads the same."""
    src = _jsonl(tmp_path / "in.jsonl")
    block = tmp_path / "block.txt"
    block.write_text("||evil.example^\n", encoding="utf-8")
    old, new = tmp_path / "old", tmp_path / "new `x` :tada: @org p~approved"
    res = audit(runner, app, str(src), "--out", str(old), "--blocklist", str(block))
    assert res.exit_code == 0, res.output
    qmd = (old / "reports" / "quarantine.md").read_text(encoding="utf-8")
    row = next(line for line in qmd.splitlines() if "evil.example" in line)
    _assert_inert(row)
    assert row.replace("\u200b", "").count("white\\_check\\_mark") == 1  # still readable
    res = audit(runner, app, str(src), "--out", str(new))
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["diff", str(old), str(new), "--out", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    dmd = (tmp_path / "d" / "diff.md").read_text(encoding="utf-8")
    assert "evil.example" in dmd  # the resolved quarantine is listed
    _assert_inert(dmd.replace("@org/team", "@org").replace(":tada:", ":lock:"))
    # a GitLab label glued to a project name (`p~approved`) is broken too (session 18)
    assert "new \\`x\\` :\u200btada: @\u200borg p\\~\u200bapproved" in dmd
