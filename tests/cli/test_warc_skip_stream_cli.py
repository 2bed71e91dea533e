"""Passing over WARC records from object storage, and a total per file, end to end (docs/limits.md,
"After this pass: passing over records in a stream that cannot seek, and a total per file")."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from helpers import article_html, balanced_run, zeros_member
from helpers import audit_cli as audit
from s3server import S3, moto_endpoint_fixture, s3_fixture  # noqa: F401 - the fixtures

HTTP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"


def _record(host: str, body: bytes, length: int | None = None) -> bytes:
    http = HTTP + body
    return (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://" + host.encode() + b"/a\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % (len(http) if length is None else length)
    ) + http


def _page(host: str) -> bytes:
    return _record(host, article_html(url=f"https://{host}/a").encode()) + b"\r\n\r\n"


@pytest.mark.network
def test_warcs_from_object_storage_pass_over_under_a_budget_and_a_total(
    runner, app, s3: S3, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """From S3 (a stream that cannot seek), a record of 16 MiB over the payload cap was
    decompressed to its end, whatever inputs.max_warc_skip_bytes (1 MB here) said: now one
    TOO_LARGE row naming it, and reading goes on at the next gzip member. A file of runs of
    blank lines each under that budget (900 KB) was read whole: now past
    inputs.max_warc_skip_total_bytes (3 MB here) one TOO_LARGE row, the pages before it kept."""
    monkeypatch.setenv("TRUSTAUDIT_INPUTS__MAX_WARC_SKIP_BYTES", "1000000")
    monkeypatch.setenv("TRUSTAUDIT_INPUTS__MAX_WARC_SKIP_TOTAL_BYTES", "3000000")
    monkeypatch.setenv("TRUSTAUDIT_EXTRACT__MAX_RECORD_BYTES", "1000000")
    n = 16 << 20
    bomb = zeros_member(_record("bomb.example.org", b"", len(HTTP) + n), n, b"\r\n\r\n")
    s3.put(
        "bomb.warc.gz",
        gzip.compress(_page("a.example.org")) + bomb + gzip.compress(_page("b.example.org")),
    )
    runs = [gzip.compress(_page(f"m{i}.example.org") + b"\r\n" * 450_000) for i in range(6)]
    s3.put("runs.warc.gz", b"".join(runs) + gzip.compress(_page("last.example.org")))
    run = tmp_path / "run"
    res = audit(runner, app, s3.uri("bomb.warc.gz"), s3.uri("runs.warc.gz"), "--out", str(run))
    assert res.exit_code == 0, res.output
    got, errors = balanced_run(run)
    assert sorted(got["url"].to_list()) == sorted(
        [f"https://{h}.example.org/a" for h in ("a", "b", "m0", "m1", "m2", "m3")]
    )
    rows = list(zip(errors["url"].to_list(), errors["message"].to_list(), strict=True))
    assert errors["code"].to_list() == ["TOO_LARGE"] * 2
    (bomb_url, bomb_msg), (run_url, run_msg) = sorted(rows, key=lambda r: r[0] is None)
    assert bomb_url == "https://bomb.example.org/a"
    assert "over inputs.max_warc_skip_bytes (1000000)" in bomb_msg
    assert "read on at the next gzip member that starts a record" in bomb_msg
    assert run_url is None
    assert "past inputs.max_warc_skip_total_bytes (3000000)" in run_msg


@pytest.mark.network
def test_a_damaged_warc_from_object_storage_reads_on_after_the_damage(
    runner, app, s3: S3, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Session 26: a gzip member cut short in a `.warc.gz` on S3 was one error row and the rest
    of the file skipped (a file on disk read on); now the pages after it are read too."""
    # mtime=0: the inflater of the cut member reads on into the next member's header, whose
    # timestamp otherwise decides by the second whether the bytes read as truncated or corrupt
    first = gzip.compress(_page("a.example.org"), mtime=0)
    second = gzip.compress(_page("b.example.org"), mtime=0)
    last = gzip.compress(_page("c.example.org"), mtime=0)
    s3.put("cut.warc.gz", first + second[: len(second) // 2] + last)
    run = tmp_path / "run"
    res = audit(runner, app, s3.uri("cut.warc.gz"), "--out", str(run))
    assert res.exit_code == 0, res.output
    got, errors = balanced_run(run)
    assert sorted(got["url"].to_list()) == ["https://a.example.org/a", "https://c.example.org/a"]
    assert errors["code"].to_list() == ["WARC_TRUNCATED"]
    assert errors["message"][0].endswith(
        f"read on at the next record (byte {len(first) + len(second) // 2})"
    )


@pytest.mark.network
def test_a_warc_gzipped_whole_on_object_storage_gives_every_page(
    runner, app, s3: S3, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Session 27: a WARC gzipped whole (`gzip crawl.warc`, one member of every record) on S3 gave
    its first page and one WARC_CORRUPT row ("several records share the gzip member…"); a file on
    disk gave every page. Now the stream reads the member whole as the disk does."""
    hosts = [f"p{i}.example.org" for i in range(5)]
    s3.put("whole.warc.gz", gzip.compress(b"".join(_page(h) for h in hosts)))
    run = tmp_path / "run"
    res = audit(runner, app, s3.uri("whole.warc.gz"), "--out", str(run))
    assert res.exit_code == 0, res.output
    got, errors = balanced_run(run)
    assert sorted(got["url"].to_list()) == sorted(f"https://{h}/a" for h in hosts)
    assert errors.height == 0
