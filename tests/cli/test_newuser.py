"""What a new user of issue #17 tried, checked again on the merged code: a report that shows an eval
folder kept outside the run, every command quiet when its reader goes away, the API from a script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.report.test_html_trust_layer import _queries, trust_layer_run

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def test_report_eval_shows_an_eval_folder_outside_the_run(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    run = trust_layer_run(tmp_path / "run")
    out = tmp_path / "evals" / "nightly"
    q = _queries(run, tmp_path / "q.jsonl")
    runner.invoke(app, ["eval", str(q), "--run", str(run.root), "--out", str(out)])
    assert (out / "eval.json").is_file()
    res = runner.invoke(app, ["report", str(run.root)])
    assert res.exit_code == 0, res.output
    assert 'id="planted-eval"' not in run.report("report.html").read_text(encoding="utf-8")
    res = runner.invoke(app, ["report", str(run.root), "--eval", str(out)])
    assert res.exit_code == 0, res.output
    html = run.report("report.html").read_text(encoding="utf-8")
    section = html.split('id="planted-eval"')[1].split("<h2")[0]
    assert "2 queries, 4 results" in section and "not this run" not in section


def test_report_eval_without_an_eval_exits_2(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    run = trust_layer_run(tmp_path / "run")
    res = runner.invoke(app, ["report", str(run.root), "--eval", str(tmp_path / "nowhere")])
    assert res.exit_code == 2
    assert "no eval.json" in res.output


def test_explain_into_a_closed_pipe_exits_0_quietly(tmp_path: Path) -> None:
    """explain prints rich tables: rich's own broken-pipe handler exits 1 unless the CLI takes over."""
    run = trust_layer_run(tmp_path / "run")
    url = run.read("scores")["url"][0]
    proc = subprocess.Popen(
        [sys.executable, "-m", "trustaudit", "explain", str(run.root), url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # `| head -1` that has already gone: every write is EPIPE
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0, err
    assert err == b""


def test_report_panel_shows_the_score_before_the_hard_rule_cap(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    """weighted sum + adjustments must reach the trust score shown, or name the cap in between."""
    import polars as pl

    from tests.report.test_html import _data
    from trustaudit.io.atomic import write_parquet

    run = trust_layer_run(tmp_path / "run")
    scores = run.read("scores")
    capped = scores.filter(pl.col("hard_quarantine"))["doc_id"][0]
    scores = scores.with_columns(
        reference_score=pl.when(pl.col("doc_id") == capped)
        .then(0.55)
        .otherwise(pl.col("trust_score"))
    )
    write_parquet(run.scores, scores)
    res = runner.invoke(app, ["report", str(run.root)])
    assert res.exit_code == 0, res.output
    html = run.report("report.html").read_text(encoding="utf-8")
    detail = {d["id"]: d for d in _data(html, "data-pages")["detail"]}
    assert detail[capped]["ref"] == 0.55 and detail[capped]["score"] < 0.55
    assert "before the hard-rule cap" in html


README_API = """
import polars as pl
import trustaudit as ta

summary = ta.audit([{pages!r}], "runs/nb", blocklist=[{block!r}])
run = ta.read_run("runs/nb")
print(run.scores.filter(pl.col("band") == "quarantine").height, summary["pages"])
"""


def test_api_snippet_runs_as_a_plain_script(tmp_path: Path, html_folder: Path) -> None:
    """The README's API lines pasted into script.py, no `__main__` guard: worker processes
    re-import the script, so the API must not start them from its top level."""
    block = tmp_path / "block.txt"
    block.write_text("alpha.example.com\n", encoding="utf-8")
    script = tmp_path / "script.py"
    script.write_text(README_API.format(pages=str(html_folder), block=str(block)), encoding="utf-8")
    res = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    quarantined, pages = res.stdout.split()
    assert int(quarantined) >= 1 and int(pages) >= 3
    assert "top level of a script" in res.stderr  # says why it ran on one process


def test_api_refuses_explicit_workers_at_script_top_level(
    tmp_path: Path, html_folder: Path
) -> None:
    script = tmp_path / "script.py"
    script.write_text(
        f"import trustaudit as ta\nta.audit([{str(html_folder)!r}], 'runs/x', workers=2)\n",
        encoding="utf-8",
    )
    res = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert res.returncode == 1
    assert "UsageError" in res.stderr and "__main__" in res.stderr
    assert not (tmp_path / "runs" / "x" / "manifest.json").exists()


def test_api_under_a_main_guard_keeps_its_workers(tmp_path: Path, html_folder: Path) -> None:
    script = tmp_path / "script.py"
    script.write_text(
        "import trustaudit as ta\n\n\ndef main():\n"
        f"    ta.audit([{str(html_folder)!r}], 'runs/x', workers=2)\n\n\n"
        'if __name__ == "__main__":\n    main()\n',
        encoding="utf-8",
    )
    res = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert "top level" not in res.stderr
    assert (tmp_path / "runs" / "x" / "manifest.json").is_file()


def _closed_stdout_run(args: list[str]) -> tuple[int, bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "trustaudit", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=120), err


def test_a_failed_gate_into_a_closed_pipe_still_exits_1(tmp_path: Path, runner, app) -> None:  # type: ignore[no-untyped-def]
    """`trustaudit gate RUN | head -1` in CI: the reader leaving must not let the batch in."""
    from tests.gate import runfactory as rf

    pages = [rf.page(f"https://a{i}.example/", 0.2, blocklisted=True) for i in range(3)]
    run = rf.make_run(tmp_path / "run", pages)
    assert runner.invoke(app, ["gate", str(run)]).exit_code == 1
    code, err = _closed_stdout_run(["gate", str(run)])
    assert (code, err) == (1, b"")


def test_a_diff_condition_into_a_closed_pipe_still_exits_1(tmp_path: Path) -> None:
    from tests.gate import runfactory as rf

    url = "https://a.example/page"
    old = rf.make_run(tmp_path / "old", [rf.page(url, 0.9)])
    new = rf.make_run(tmp_path / "new", [rf.page(url, 0.2)])
    code, err = _closed_stdout_run(["diff", str(old), str(new), "--fail-on", "new-quarantine"])
    assert (code, err) == (1, b"")
    code, err = _closed_stdout_run(["diff", str(old), str(new)])
    assert (code, err) == (0, b"")


def test_tab_completion_offers_only_the_supported_api() -> None:
    code = (
        "import json, trustaudit as ta\n"
        "ta.audit; import trustaudit.pipeline\n"  # loaded names and subpackages stay hidden
        "print(json.dumps([n for n in dir(ta) if not n.startswith('_')]))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], env=ENV, capture_output=True, text=True, check=True
    )
    import json

    import trustaudit

    public = json.loads(res.stdout)
    assert public == sorted(n for n in trustaudit.__all__ if not n.startswith("_"))
