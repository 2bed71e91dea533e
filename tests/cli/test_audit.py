"""`trustaudit audit` end to end through the CLI, for every input format, with accounting and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import article_html, write_jsonl, write_warc

from trustaudit.exit_codes import ExitCode

NOW = ["--now", "2026-11-01"]


def audit(runner, app, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["audit", *args, "--workers", "1", *NOW])


def check_run(out: Path, *, pages: int, errors: int) -> dict:  # type: ignore[type-arg]
    """The contract other tools rely on, plus the accounting invariant."""
    scores = pl.read_parquet(out / "scores.parquet")
    assert {"url", "registered_domain", "trust_score", "band", "reasons"} <= set(scores.columns)
    assert scores["trust_score"].is_between(0, 1).all()
    assert set(scores["band"]) <= {"quarantine", "medium", "trusted"}
    assert scores.schema["reasons"] == pl.List(pl.String)
    page_df = pl.read_parquet(out / "pages.parquet")
    assert {"url", "text"} <= set(page_df.columns)
    assert page_df["doc_id"].is_unique().all()
    err = pl.read_parquet(out / "errors.parquet")
    assert {"source", "offset", "url", "stage", "code", "message"} <= set(err.columns)
    summary = json.loads((out / "reports" / "summary.json").read_text())
    acc = summary["accounting"]
    assert (acc["pages"], acc["errors"]) == (pages, errors), (acc, err.to_dicts())
    assert acc["inputs"] == acc["pages"] + acc["errors"] and acc["balanced"] is True
    for name in ("quarantine.csv", "quarantine.md", "domains.csv"):
        assert (out / "reports" / name).is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert (
        manifest["policy_hash"]
        and manifest["inputs"]
        and manifest["stages"]["report"]["status"] == "done"
    )
    return summary


def test_folder_input(runner, app, html_folder: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    res = audit(runner, app, str(html_folder), "--out", str(out))
    assert res.exit_code == 0, res.output
    check_run(out, pages=3, errors=2)
    errs = pl.read_parquet(out / "errors.parquet")
    assert sorted(errs["code"]) == ["BINARY_CONTENT", "EMPTY_FILE"]
    urls = set(pl.read_parquet(out / "scores.parquet")["url"])
    assert "https://alpha.example.com/a" in urls and "https://beta.example.net/b" in urls


def test_jsonl_warc_and_parquet_inputs_in_one_call(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    j = write_jsonl(
        tmp_path / "in.jsonl.gz",
        [
            {"url": "https://j.example/1", "html": article_html("J1"), "entity": "E"},
            {"url": "https://j.example/2", "text": "plain text " * 80},
        ],
        raw_lines=["{broken"],
    )
    w = write_warc(
        tmp_path / "in.warc.gz",
        [("https://w.example/1", article_html("W1")), ("https://w.example/2", article_html("W2"))],
    )
    p = tmp_path / "in.parquet"
    pq.write_table(pa.table({"url": ["https://p.example/1"], "html": [article_html("P1")]}), p)
    out = tmp_path / "run"
    res = audit(runner, app, str(j), str(w), str(p), "--out", str(out))
    assert res.exit_code == 0, res.output
    check_run(out, pages=5, errors=1)
    pages = pl.read_parquet(out / "pages.parquet")
    assert pages.filter(pl.col("url") == "https://j.example/1")["entity"][0] == "E"
    assert set(pages["source"].str.split("/").list.last()) == {
        "in.jsonl.gz",
        "in.warc.gz",
        "in.parquet",
    }


def test_duplicate_urls_keep_the_first_and_account_for_the_rest(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    page = article_html("Same", links=[("https://amzn.to/x", "buy")])
    j = write_jsonl(tmp_path / "d.jsonl", [{"url": "https://dup.example/a", "html": page}] * 3)
    out = tmp_path / "run"
    assert audit(runner, app, str(j), "--out", str(out)).exit_code == 0
    check_run(out, pages=1, errors=2)
    assert pl.read_parquet(out / "errors.parquet")["code"].to_list() == [
        "DUPLICATE_URL",
        "DUPLICATE_URL",
    ]
    assert (
        pl.read_parquet(out / "links.parquet").height == 2
    )  # home + amzn of the kept copy only, not 3x


def test_blocklist_and_allowlist_flags(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    j = write_jsonl(
        tmp_path / "l.jsonl",
        [
            {"url": "https://www.bad.example/a", "html": article_html("Bad")},
            {"url": "https://good.example/a", "html": article_html("Good")},
        ],
    )
    block = tmp_path / "block.txt"
    block.write_text("||bad.example^\n")
    allow = tmp_path / "allow.txt"
    allow.write_text("# ok\n0.0.0.0 good.example\n")
    info = tmp_path / "info.csv"
    info.write_text("domain,created\ngood.example,2001-01-01\n")
    out = tmp_path / "run"
    res = audit(
        runner,
        app,
        str(j),
        "--out",
        str(out),
        "--blocklist",
        str(block),
        "--allowlist",
        str(allow),
        "--domain-info",
        str(info),
    )
    assert res.exit_code == 0, res.output
    scores = {r["url"]: r for r in pl.read_parquet(out / "scores.parquet").to_dicts()}
    bad = scores["https://www.bad.example/a"]
    assert (
        bad["band"] == "quarantine"
        and bad["hard_quarantine"]
        and "DOMAIN_BLOCKLISTED" in bad["reasons"]
    )
    assert scores["https://good.example/a"]["domain_score"] == 1.0
    qcsv = (out / "reports" / "quarantine.csv").read_text()
    assert "www.bad.example" in qcsv


def test_json_output_is_summary(runner, app, html_folder: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    res = audit(runner, app, str(html_folder), "--out", str(out), "--json")
    assert res.exit_code == 0
    summary = json.loads(res.stdout)
    assert summary == json.loads((out / "reports" / "summary.json").read_text())
    assert sum(summary["bands"].values()) == summary["pages"] == 3


def test_quiet_prints_one_line(runner, app, html_folder: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = audit(runner, app, str(html_folder), "--out", str(tmp_path / "r"), "--quiet")
    assert res.exit_code == 0
    assert res.stdout.strip().count("\n") == 0 and "3 pages" in res.stdout


def test_nothing_readable_is_exit_2_with_error_rows(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(1, 256)) * 8)  # deterministic: never sniffed as text
    out = tmp_path / "run"
    res = audit(runner, app, str(empty), str(binary), "--out", str(out))
    assert res.exit_code == ExitCode.USAGE == 2
    assert "nothing could be read" in res.output and "Traceback" not in res.output
    codes = sorted(pl.read_parquet(out / "errors.parquet")["code"])
    assert codes == ["EMPTY_FILE", "UNKNOWN_FORMAT"]


def test_usage_errors_are_one_line(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    urls = tmp_path / "urls.txt"
    urls.write_text("https://example.com/\n")
    res = audit(runner, app, str(tmp_path / "missing"), "--out", str(tmp_path / "r"))
    assert res.exit_code == 2 and "input not found" in res.output
    res = audit(
        runner,
        app,
        str(urls),
        "--out",
        str(tmp_path / "r2"),
        "--blocklist",
        str(tmp_path / "nope.txt"),
    )
    assert res.exit_code == 2 and "file not found" in res.output
    res = runner.invoke(
        app, ["audit", str(urls), "--out", str(tmp_path / "r3"), "--now", "yesterday"]
    )
    assert res.exit_code == 2 and "--now" in res.output


def test_rerun_after_completion_is_idempotent(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    assert audit(runner, app, str(html_folder), "--out", str(out)).exit_code == 0
    first = pl.read_parquet(out / "scores.parquet").sort("doc_id")
    run_id = json.loads((out / "manifest.json").read_text())["run_id"]
    assert audit(runner, app, str(html_folder), "--out", str(out)).exit_code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["run_id"] == run_id and manifest["stages"]["ingest"]["batches_resumed"] >= 1
    assert pl.read_parquet(out / "scores.parquet").sort("doc_id").equals(first)
    assert audit(runner, app, str(html_folder), "--out", str(out), "--fresh").exit_code == 0
    assert json.loads((out / "manifest.json").read_text())["run_id"] != run_id


def _corpus(folder: Path, n: int) -> Path:
    folder.mkdir()
    for i in range(n):
        (folder / f"p{i:03d}.html").write_text(
            article_html(f"Page {i}", url=f"https://site{i % 5}.example/p{i}")
        )
    return folder


def test_interrupted_run_resumes_without_duplicates(
    runner, app, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import trustaudit.run.local as pipeline  # where the local executor calls extraction

    corpus = _corpus(tmp_path / "c", 10)
    policy = tmp_path / "p.toml"
    policy.write_text("[extract]\nbatch_size = 2\n")
    real = pipeline.extract_records
    calls = {"n": 0}

    def flaky(records, pol):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(records, pol)

    monkeypatch.setattr(pipeline, "extract_records", flaky)
    out = tmp_path / "run"
    res = audit(runner, app, str(corpus), "--out", str(out), "--policy", str(policy))
    assert res.exit_code == 130 and "re-run the same command to resume" in res.output
    assert len(list((out / "parts").glob("*.done"))) == 2
    monkeypatch.setattr(pipeline, "extract_records", real)
    res = audit(runner, app, str(corpus), "--out", str(out), "--policy", str(policy))
    assert res.exit_code == 0, res.output
    check_run(out, pages=10, errors=0)
    assert (
        json.loads((out / "manifest.json").read_text())["stages"]["ingest"]["batches_resumed"] == 2
    )


@pytest.mark.slow
def test_kill_9_then_rerun_completes_exactly_once(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c", 40)
    policy = tmp_path / "p.toml"
    policy.write_text("[extract]\nbatch_size = 2\n")
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-m",
        "trustaudit",
        "audit",
        str(corpus),
        "--out",
        str(out),
        "--policy",
        str(policy),
        "--workers",
        "1",
        "--quiet",
        *NOW,
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list((out / "parts").glob("*.done"))) < 4:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = len(list((out / "parts").glob("*.done")))
    assert 4 <= done_before < 20
    assert not (out / "scores.parquet").exists()
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    check_run(out, pages=40, errors=0)
    assert (
        json.loads((out / "manifest.json").read_text())["stages"]["ingest"]["batches_resumed"]
        >= done_before
    )


def test_process_pool_gives_the_same_result(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = _corpus(tmp_path / "c", 12)
    policy = tmp_path / "p.toml"
    policy.write_text("[extract]\nbatch_size = 3\n")
    a, b = tmp_path / "a", tmp_path / "b"
    assert audit(runner, app, str(corpus), "--out", str(a), "--policy", str(policy)).exit_code == 0
    res = runner.invoke(
        app,
        ["audit", str(corpus), "--out", str(b), "--policy", str(policy), "--workers", "2", *NOW],
    )
    assert res.exit_code == 0, res.output
    cols = ["doc_id", "trust_score", "band", "reasons"]
    assert (
        pl.read_parquet(a / "scores.parquet")
        .select(cols)
        .sort("doc_id")
        .equals(pl.read_parquet(b / "scores.parquet").select(cols).sort("doc_id"))
    )


def test_cache_reuses_unchanged_pages_and_reextracts_changed_ones(
    runner, app, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import trustaudit.run.local as pipeline  # where the local executor calls extraction

    corpus = _corpus(tmp_path / "c", 6)
    j = write_jsonl(
        tmp_path / "x.jsonl",
        [{"url": "https://j.example/1", "html": article_html("J"), "entity": "E1"}],
    )
    cache = tmp_path / "cache"
    a, b = tmp_path / "a", tmp_path / "b"
    res = audit(runner, app, str(corpus), str(j), "--out", str(a), "--cache", str(cache))
    assert res.exit_code == 0, res.output
    m = json.loads((a / "manifest.json").read_text())["stages"]["ingest"]["cache"]
    assert (m["hits"], m["misses"]) == (0, 7)

    (corpus / "p002.html").write_text(article_html("Changed page", url="https://site2.example/p2"))
    seen: list[int] = []
    real = pipeline.extract_records

    def counting(records, pol):  # type: ignore[no-untyped-def]
        seen.append(records.num_rows)
        return real(records, pol)

    monkeypatch.setattr(pipeline, "extract_records", counting)
    res = audit(runner, app, str(corpus), str(j), "--out", str(b), "--cache", str(cache))
    assert res.exit_code == 0, res.output
    assert sum(seen) == 1  # only the changed page went through extraction
    m = json.loads((b / "manifest.json").read_text())["stages"]["ingest"]["cache"]
    assert (m["hits"], m["misses"]) == (6, 1)
    memo = json.loads((b / "manifest.json").read_text())["stages"]["signals"]["memo"]
    assert memo["misses"] == ["corpus", "linkflags", "page"]  # one page changed: all recomputed
    fresh = tmp_path / "nocache"
    assert audit(runner, app, str(corpus), str(j), "--out", str(fresh)).exit_code == 0
    sig = [pl.read_parquet(x / "signals.parquet").sort("doc_id") for x in (b, fresh)]
    assert sig[0].equals(sig[1])  # the cached run computes exactly what an uncached one does
    cols = ["doc_id", "url", "title", "text", "source", "offset", "entity"]
    pa_, pb = (pl.read_parquet(x / "pages.parquet").select(cols).sort("doc_id") for x in (a, b))
    changed = pb.filter(pl.col("title") == "Changed page")
    assert changed.height == 1
    assert pa_.filter(pl.col("doc_id") != changed["doc_id"][0]).equals(
        pb.filter(pl.col("doc_id") != changed["doc_id"][0])
    )
    la, lb = (pl.read_parquet(x / "links.parquet").sort(["doc_id", "href"]) for x in (a, b))
    assert la.height == lb.height


def test_cache_restores_unchanged_sources_without_reading_them(
    runner, app, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Nightly common case: unchanged inputs are not even read; a changed shard is, page by page."""
    import trustaudit.io.readers as readers
    import trustaudit.run.local as pipeline  # where the local executor calls extraction

    shard_a = write_warc(
        tmp_path / "a.warc.gz",
        [(f"https://a{i}.example/p", article_html(f"A {i}")) for i in range(4)],
    )
    truncated = tmp_path / "b.warc.gz"
    write_warc(truncated, [(f"https://b{i}.example/p", article_html(f"B {i}")) for i in range(3)])
    truncated.write_bytes(truncated.read_bytes()[:-40])  # a read error row must survive the cache
    cache = tmp_path / "cache"
    first, again, moved = tmp_path / "r1", tmp_path / "r2", tmp_path / "r3"
    res = audit(
        runner, app, str(shard_a), str(truncated), "--out", str(first), "--cache", str(cache)
    )
    assert res.exit_code == 0, res.output
    assert len(list((cache / "sources").iterdir())) == 2

    reads: list[str] = []
    real_batches = readers.WarcSource.batches

    def counting_batches(self, batch_size):  # type: ignore[no-untyped-def]
        reads.append(self.name)
        return real_batches(self, batch_size)

    def no_extraction(records, pol):  # type: ignore[no-untyped-def]
        raise AssertionError("an unchanged source was extracted again")

    monkeypatch.setattr(readers.WarcSource, "batches", counting_batches)
    monkeypatch.setattr(pipeline, "extract_records", no_extraction)
    res = audit(
        runner, app, str(shard_a), str(truncated), "--out", str(again), "--cache", str(cache)
    )
    assert res.exit_code == 0, res.output
    assert reads == []
    m1, m2 = (
        json.loads((r / "manifest.json").read_text())["stages"]["ingest"] for r in (first, again)
    )
    assert m2["accounting"] == m1["accounting"] and m2["accounting"]["balanced"]
    assert m2["cache"]["hits"] == m1["pages"] and m2["cache"]["misses"] == 0
    memo = json.loads((again / "manifest.json").read_text())["stages"]["signals"]["memo"]
    assert memo == {"hits": ["corpus", "linkflags", "page"], "misses": []}
    for name in ("pages", "errors", "links", "scores"):
        a, b = (pl.read_parquet(r / f"{name}.parquet") for r in (first, again))
        assert a.drop("fetched_at", strict=False).equals(b.drop("fetched_at", strict=False)), name
    assert m1["errors"] >= 1 and pl.read_parquet(again / "errors.parquet").height == m1["errors"]

    # the same bytes under another path are another source (its name is in every row): read again
    monkeypatch.undo()
    copy = tmp_path / "copy.warc.gz"
    copy.write_bytes(shard_a.read_bytes())
    res = audit(runner, app, str(copy), "--out", str(moved), "--cache", str(cache))
    assert res.exit_code == 0, res.output
    pages = pl.read_parquet(moved / "pages.parquet")
    assert set(pages["source"]) == {str(copy)}


def test_damaged_source_bundle_is_a_miss_not_an_error(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    corpus = _corpus(tmp_path / "c", 4)
    cache = tmp_path / "cache"
    assert (
        audit(
            runner, app, str(corpus), "--out", str(tmp_path / "a"), "--cache", str(cache)
        ).exit_code
        == 0
    )
    (bundle,) = (cache / "sources").iterdir()
    (bundle / "meta.json").write_text("{not json")
    res = audit(runner, app, str(corpus), "--out", str(tmp_path / "b"), "--cache", str(cache))
    assert res.exit_code == 0, res.output
    m = json.loads((tmp_path / "b" / "manifest.json").read_text())["stages"]["ingest"]
    assert m["pages"] == 4 and m["cache"]["hits"] == 4  # served page by page from SQLite instead
    assert json.loads((bundle / "meta.json").read_text())["pages"] == 4  # and the bundle rebuilt


def test_score_command_rescoring_with_a_new_policy(
    runner, app, html_folder: Path, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "run"
    assert audit(runner, app, str(html_folder), "--out", str(out)).exit_code == 0
    before = pl.read_parquet(out / "scores.parquet").sort("doc_id")
    assert (before["band"] != "quarantine").all()
    strict = tmp_path / "strict.toml"
    strict.write_text("[bands]\nquarantine_below = 0.99\ntrusted_from = 0.995\n")
    res = runner.invoke(app, ["score", str(out), "--policy", str(strict), "--json"])
    assert res.exit_code == 0, res.output
    after = pl.read_parquet(out / "scores.parquet").sort("doc_id")
    assert after["trust_score"].to_list() == before["trust_score"].to_list()
    assert (after["band"] == "quarantine").all()
    assert json.loads(res.stdout)["bands"]["quarantine"] == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["policy"]["bands"]["quarantine_below"] == 0.99
    res = runner.invoke(app, ["score", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "run directory not found" in res.output


@pytest.mark.network
def test_url_lists_are_crawled_then_audited(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import http.server
    import threading

    pages = {"/a": article_html("Served A", url=None), "/b": article_html("Served B", url=None)}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                self.send_response(404)
                self.end_headers()
                return
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        urls = tmp_path / "urls.txt"
        urls.write_text(
            f"# two pages, one missing, one malformed\n{base}/a\n{base}/b\n{base}/missing\nnot a url\n"
        )
        policy = tmp_path / "p.toml"
        policy.write_text("[crawl]\nallow_private = true\nignore_robots = true\ndelay_s = 0.0\n")
        out = tmp_path / "run"
        res = audit(runner, app, str(urls), "--out", str(out), "--policy", str(policy))
        assert res.exit_code == 0, res.output
        check_run(out, pages=2, errors=2)
        assert set(pl.read_parquet(out / "pages.parquet")["title"]) == {"Served A", "Served B"}
        codes = set(pl.read_parquet(out / "errors.parquet")["code"])
        assert codes == {"HTTP_404", "BAD_URL"}
        # without --allow-private the loopback server is never reached
        res = audit(runner, app, str(urls), "--out", str(tmp_path / "run2"))
        assert res.exit_code == 2
        assert set(pl.read_parquet(tmp_path / "run2" / "errors.parquet")["code"]) >= {
            "SSRF_BLOCKED"
        }
    finally:
        server.shutdown()


def test_anchor_file_adds_anchor_domains(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    j = write_jsonl(
        tmp_path / "a.jsonl",
        [
            {
                "url": "https://wiki.trusted-anchor.example/x",
                "html": article_html("Anchor", links=[("https://target.example/p", "ref")]),
            },
            {"url": "https://target.example/p", "html": article_html("Target")},
        ],
    )
    anchors = tmp_path / "anchors.txt"
    anchors.write_text("trusted-anchor.example\n")
    out = tmp_path / "run"
    res = audit(runner, app, str(j), "--out", str(out), "--anchors", str(anchors))
    assert res.exit_code == 0, res.output
    scores = {r["url"]: r for r in pl.read_parquet(out / "scores.parquet").to_dicts()}
    assert "ANCHOR_PRESENCE" in scores["https://target.example/p"]["reasons"]
    dom = pl.read_parquet(out / "domains.parquet").filter(
        pl.col("registered_domain") == "target.example"
    )
    assert dom["anchor_count"][0] == 1
    base = tmp_path / "base"
    assert audit(runner, app, str(j), "--out", str(base)).exit_code == 0
    plain = {r["url"]: r for r in pl.read_parquet(base / "scores.parquet").to_dicts()}
    assert (
        scores["https://target.example/p"]["domain_score"]
        > plain["https://target.example/p"]["domain_score"]
    )


def test_site_wide_affiliate_disclosure_outside_the_article_is_honoured(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    shop = [(f"https://amzn.to/x{i}", f"deal {i}") for i in range(12)]
    aside = (
        "<aside><small>When you purchase through links on our site, we may earn an affiliate "
        "commission.</small></aside>"
    )
    corpus = tmp_path / "c"
    corpus.mkdir()
    with_aside = article_html("Deals", url="https://deals.example/a", links=shop)
    (corpus / "a.html").write_text(with_aside.replace("<article>", aside + "<article>"))
    (corpus / "b.html").write_text(
        article_html("Deals too", url="https://deals2.example/b", links=shop)
    )
    out = tmp_path / "run"
    assert audit(runner, app, str(corpus), "--out", str(out)).exit_code == 0
    sig = pl.read_parquet(out / "signals.parquet").sort("url")
    assert sig["disclosure_on_page"].to_list() == [True, False]
    assert sig["quarantine_affiliate"].to_list() == [False, True]


def test_since_reuses_unchanged_inputs_of_a_previous_run(
    runner, app, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import trustaudit.io.readers as readers

    a = write_warc(
        tmp_path / "a.warc.gz",
        [(f"https://a{i}.example/p", article_html(f"A {i}")) for i in range(3)],
    )
    b = write_warc(
        tmp_path / "b.warc.gz",
        [(f"https://b{i}.example/p", article_html(f"B {i}")) for i in range(3)],
    )
    prev, nxt, bad = tmp_path / "prev", tmp_path / "next", tmp_path / "bad"
    assert audit(runner, app, str(a), str(b), "--out", str(prev)).exit_code == 0
    write_warc(b, [(f"https://b{i}.example/p", article_html(f"B {i} v2")) for i in range(3)])
    reads: list[str] = []
    real_batches = readers.WarcSource.batches

    def counting_batches(self, batch_size):  # type: ignore[no-untyped-def]
        reads.append(self.name)
        return real_batches(self, batch_size)

    monkeypatch.setattr(readers.WarcSource, "batches", counting_batches)
    res = audit(runner, app, str(a), str(b), "--out", str(nxt), "--since", str(prev))
    assert res.exit_code == 0, res.output
    assert reads == [str(b)]  # only the changed shard was read
    ingest = json.loads((nxt / "manifest.json").read_text())["stages"]["ingest"]
    assert ingest["since"]["sources_reused"] == 1 and ingest["since"]["pages"] == 3
    assert ingest["accounting"] == {"inputs": 6, "pages": 6, "errors": 0, "balanced": True}
    titles = sorted(pl.read_parquet(nxt / "pages.parquet")["title"].to_list())
    assert titles == ["A 0", "A 1", "A 2", "B 0 v2", "B 1 v2", "B 2 v2"]

    # usage errors: the run being written, a missing run, an unfinished run
    res = audit(runner, app, str(a), "--out", str(nxt), "--since", str(nxt))
    assert res.exit_code == 2 and "--since must name an earlier run" in res.output
    res = audit(runner, app, str(a), "--out", str(bad), "--since", str(tmp_path / "nope"))
    assert res.exit_code == 2 and "run directory not found" in res.output
    manifest = json.loads((prev / "manifest.json").read_text())
    manifest["stages"]["ingest"]["status"] = "running"
    (prev / "manifest.json").write_text(json.dumps(manifest))
    res = audit(runner, app, str(a), "--out", str(bad), "--since", str(prev))
    assert res.exit_code == 2 and "did not finish" in res.output
