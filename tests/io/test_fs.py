"""trustaudit.io.fs and remote_run: one API over local paths and object stores (moto on 127.0.0.1)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import article_html, write_jsonl, write_warc
from s3server import S3, moto_endpoint_fixture, s3_fixture  # noqa: F401 - the fixtures

from trustaudit.errors import RunDirError, UsageError
from trustaudit.io import fs, remote_run
from trustaudit.io.readers import detect_kind, open_sources
from trustaudit.policy.inputs import InputsPolicy


def collect(sources):  # type: ignore[no-untyped-def]
    rows, errors = [], []
    for source in sources:
        for batch in source.batches(64):
            rows += batch.records.to_pylist()
            errors += batch.errors
    return rows, errors


# ---------------------------------------------------------------- names
def test_uri_or_path() -> None:
    assert fs.is_uri("s3://b/k") and fs.is_uri("gs://b/k") and fs.is_uri("S3://b/k")
    assert not fs.is_uri("file:///tmp/x") and not fs.is_uri("/tmp/x") and not fs.is_uri("run")
    assert not fs.is_uri(Path("s3:/b/k"))
    assert fs.local_path("file:///tmp/a%20b") == Path("/tmp/a b")
    assert fs.local_path("s3://b/k") is None
    assert fs.normalize("file:///tmp/x") == "/tmp/x"
    assert fs.normalize("s3://b/runs/x/") == "s3://b/runs/x"  # never folded to s3:/ by Path


def test_env_endpoint_and_region_become_pyarrow_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:7")
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    uri = fs._with_env_options("s3://b/k")
    assert "endpoint_override=127.0.0.1%3A7" in uri and "scheme=http" in uri
    assert "region=eu-west-3" in uri
    # the URI's own options win
    assert "127.0.0.1%3A5" in fs._with_env_options("s3://b/k?endpoint_override=127.0.0.1:5")
    assert fs._with_env_options("gs://b/k") == "gs://b/k"


# ---------------------------------------------------------------- local and s3, same answers
@pytest.fixture(params=["local", "s3"])
def tree(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same small tree on the local disk or in a bucket; returns its root location."""
    files = {"a.txt": b"alpha", "sub/b.txt": b"bravo!", "sub/deeper/c.bin": b"\x00" * 10}
    files |= {"../t2/sibling.txt": b"not under t/"}  # a sibling prefix that starts with "t"
    if request.param == "local":
        for rel, data in files.items():
            (tmp_path / "t" / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / "t" / rel).write_bytes(data)
        return str(tmp_path / "t")
    s3: S3 = request.getfixturevalue("s3")
    for rel, data in files.items():
        s3.put(f"t/{rel}".replace("t/../", ""), data)
    return s3.uri("t")


@pytest.mark.network
def test_list_kind_size_read(tree: str) -> None:
    entries = fs.list_files(tree)
    assert [(e.rel, e.size) for e in entries] == [
        ("a.txt", 5),
        ("sub/b.txt", 6),
        ("sub/deeper/c.bin", 10),
    ]
    assert entries[1].location == f"{tree}/sub/b.txt" and entries[1].mtime_ns > 0
    assert fs.kind(tree) == "dir" and fs.kind(f"{tree}/a.txt") == "file"
    assert fs.kind(f"{tree}/nope") == "missing" and fs.size(f"{tree}/nope") is None
    assert fs.size(f"{tree}/sub/b.txt") == 6
    assert fs.read_bytes(f"{tree}/sub/b.txt", max_bytes=6) == b"bravo!"
    with pytest.raises(ValueError, match="5-byte cap"):
        fs.read_bytes(f"{tree}/sub/b.txt", max_bytes=5)
    assert fs.list_files(f"{tree}/nope") == []


@pytest.mark.network
def test_streaming_reader_peeks_and_reads_lines(tree: str) -> None:
    with fs.open_input(f"{tree}/a.txt") as fh:
        assert fh.peek(2)[:2] == b"al"  # type: ignore[attr-defined]
        assert fh.readline(3) == b"alp"
        assert fh.read() == b"ha"


@pytest.mark.network
def test_write_bytes_is_whole_and_leaves_no_temp(tree: str) -> None:
    target = f"{tree}/out/result.json"
    fs.write_bytes(target, b'{"ok": 1}')
    fs.write_bytes(target, b'{"ok": 2}')
    assert fs.read_bytes(target, max_bytes=100) == b'{"ok": 2}'
    assert [e.rel for e in fs.list_files(f"{tree}/out")] == ["result.json"]
    fs.delete_file(target)
    fs.delete_file(target)  # a missing file is not an error
    assert fs.kind(target) == "missing"


@pytest.mark.network
def test_fingerprint_follows_changes(s3: S3) -> None:
    s3.put("c/one.jsonl", b"{}\n")
    before = fs.fingerprint_uri(s3.uri("c"))
    file_before = fs.fingerprint_uri(s3.uri("c/one.jsonl"))
    assert before["kind"] == "folder" and before["files"] == 1
    s3.put("c/two.jsonl", b"{}\n")
    assert fs.fingerprint_uri(s3.uri("c"))["sha256"] != before["sha256"]
    s3.put("c/one.jsonl", b'{"a": 1}\n')
    after = fs.fingerprint_uri(s3.uri("c/one.jsonl"))
    assert after["bytes"] == 9 and after["sha256"] != file_before["sha256"]
    assert fs.fingerprint_uri(s3.uri("c/none"))["kind"] == "missing"


@pytest.mark.network
def test_missing_bucket_is_a_usage_error(s3: S3) -> None:
    with pytest.raises(UsageError, match="bucket not found: no-such-bucket"):
        fs.kind("s3://no-such-bucket/x")
    with pytest.raises(UsageError, match="bucket not found: no-such-bucket"):
        fs.list_files("s3://no-such-bucket/x")


# ---------------------------------------------------------------- readers on a bucket
@pytest.mark.network
def test_readers_read_every_format_from_a_bucket(s3: S3, tmp_path: Path) -> None:
    s3.put("c/pages/a.html", article_html("Alpha", url=None).encode())
    s3.put("c/pages/b.html.gz", gzip.compress(article_html("Beta", url=None).encode()))
    s3.put("c/urls.csv", b"file,url\npages/a.html,https://alpha.example.com/a\n")
    jl = write_jsonl(tmp_path / "x.jsonl", [{"url": "https://j.example/1", "html": "<p>j</p>"}])
    s3.put("c/data/x.jsonl.gz", gzip.compress(jl.read_bytes()))
    warc = write_warc(tmp_path / "w.warc.gz", [("https://w.example/1", "<p>w</p>")])
    s3.put("c/data/w.warc.gz", warc.read_bytes())
    buf = pa.BufferOutputStream()
    pq.write_table(pa.table({"url": ["https://p.example/1"], "html": ["<p>p</p>"]}), buf)
    s3.put("c/data/p.parquet", buf.getvalue().to_pybytes())

    assert detect_kind(s3.uri("c/data/w.warc.gz")) == "warc"  # type: ignore[arg-type]
    sources = open_sources(s3.uri("c"))
    assert sorted(s.kind for s in sources) == ["folder", "jsonl", "parquet", "warc"]
    rows, errors = collect(sources)
    assert errors == []
    urls = sorted(r["url"] for r in rows)
    assert urls == [
        "https://alpha.example.com/a",  # from the urls.csv at the prefix
        "https://j.example/1",
        "https://p.example/1",
        "https://w.example/1",
        s3.uri("c/pages/b.html.gz"),  # no sidecar entry: the object's own URI
    ]
    by_url = {r["url"]: r for r in rows}
    assert b"Beta" in by_url[s3.uri("c/pages/b.html.gz")]["body"]  # gunzipped


@pytest.mark.network
def test_line_cap_holds_on_a_stream(s3: S3) -> None:
    """A JSONL line over inputs.max_line_bytes is skipped while streaming, not read whole."""
    big = json.dumps({"url": "https://big.example/", "html": "x" * 5000})
    ok = json.dumps({"url": "https://ok.example/", "html": "<p>fine</p>"})
    s3.put("l.jsonl", f"{big}\n{ok}\n".encode())
    limits = InputsPolicy(max_line_bytes=1000)
    rows, errors = collect(open_sources(s3.uri("l.jsonl"), limits=limits))
    assert [r["url"] for r in rows] == ["https://ok.example/"]
    assert [(e.code, e.offset) for e in errors] == [("LINE_TOO_LARGE", 1)]


@pytest.mark.network
def test_unknown_and_empty_objects_are_error_rows(s3: S3) -> None:
    s3.put("odd/blob.bin", b"\x00\x01\x02 not a page")
    s3.put("odd/empty.bin", b"")
    _, errors = collect(
        open_sources(s3.uri("odd/blob.bin")) + open_sources(s3.uri("odd/empty.bin"))
    )
    assert [(e.source, e.code) for e in errors] == [
        (s3.uri("odd/blob.bin"), "UNKNOWN_FORMAT"),
        (s3.uri("odd/empty.bin"), "EMPTY_FILE"),
    ]


@pytest.mark.network
def test_missing_key_input_is_a_usage_error(s3: S3) -> None:
    with pytest.raises(UsageError, match="input not found"):
        open_sources(s3.uri("absent.jsonl"))


# ---------------------------------------------------------------- staged runs
def _fake_run(root: Path, version: str) -> None:
    (root / "reports").mkdir(parents=True, exist_ok=True)
    (root / "scores.parquet").write_bytes(f"scores {version}".encode())
    (root / "reports" / "summary.json").write_text(version)
    (root / "manifest.json").write_text(json.dumps({"v": version}))
    (root / ".lock").write_text("")


@pytest.mark.network
def test_publish_is_manifest_last_and_drops_stale_files(
    s3: S3, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = s3.uri("runs/r")
    s3.put("runs/r/parts/old-00001.parquet", b"stale")
    s3.put("runs/r/manifest.json", b'{"v": "0"}')
    order: list[str] = []
    real = fs.upload_file
    monkeypatch.setattr(fs, "upload_file", lambda src, loc: (order.append(loc), real(src, loc)))
    with remote_run.staged_run(uri) as local:
        assert (local / "manifest.json").read_text() == '{"v": "0"}'  # pulled down
        (local / "manifest.json").unlink()
        (local / "parts" / "old-00001.parquet").unlink()
        _fake_run(local, "1")
    assert order[-1] == f"{uri}/manifest.json"
    assert s3.keys("runs/r") == [
        "runs/r/manifest.json",
        "runs/r/reports/summary.json",
        "runs/r/scores.parquet",
    ]
    assert not local.exists()  # the staging folder is removed once published


@pytest.mark.network
def test_crash_mid_upload_leaves_no_manifest_then_resumes(
    s3: S3, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = s3.uri("runs/c")
    with remote_run.staged_run(uri) as local:
        _fake_run(local, "1")
    real = fs.upload_file

    def flaky(src: Path, loc: str) -> None:
        if loc.endswith("summary.json"):
            raise OSError("connection reset")
        real(src, loc)

    monkeypatch.setattr(fs, "upload_file", flaky)
    with pytest.raises(OSError), remote_run.staged_run(uri) as local:
        _fake_run(local, "2")
    assert "runs/c/manifest.json" not in s3.keys("runs/c")  # never a manifest over stale tables
    assert (local / "manifest.json").read_text() == '{"v": "2"}'  # staging kept
    with pytest.raises(RunDirError, match="no finished run"):
        remote_run.StagedRun.pull(uri, must_exist=True)
    monkeypatch.setattr(fs, "upload_file", real)
    with remote_run.staged_run(uri) as again:
        assert again == local and (again / "manifest.json").read_text() == '{"v": "2"}'
    assert json.loads(s3.get("runs/c/manifest.json")) == {"v": "2"}
    assert s3.get("runs/c/reports/summary.json") == b"2"


@pytest.mark.network
def test_read_only_copy_is_thrown_away(s3: S3) -> None:
    uri = s3.uri("runs/ro")
    with remote_run.staged_run(uri) as local:
        _fake_run(local, "1")
    with remote_run.staged_run(uri, upload=False, must_exist=True) as copy:
        assert (copy / "scores.parquet").read_bytes() == b"scores 1"
        (copy / "scores.parquet").write_bytes(b"changed")
    assert not copy.exists()
    assert s3.get("runs/ro/scores.parquet") == b"scores 1"


def test_a_local_path_is_used_in_place(tmp_path: Path) -> None:
    with remote_run.staged_run(str(tmp_path / "run")) as local:
        assert local == tmp_path / "run"
    with remote_run.staged_run(f"file://{tmp_path}/run2") as local:
        assert local == tmp_path / "run2"


@pytest.mark.network
def test_a_bad_urls_csv_at_a_prefix_costs_its_record_not_the_prefix(s3: S3) -> None:
    """Before: `cannot read URL sidecar s3://…/urls.csv` (UsageError, exit 2 for the batch)."""
    s3.put("s/a.html", article_html("Alpha", url=None).encode())
    s3.put("s/b.html", article_html("Beta", url=None).encode())
    s3.put("s/urls.csv", b"file,url\na.html,https://a.example/\xff\nb.html,https://b.example/\n")
    rows, errors = collect(open_sources(s3.uri("s")))
    assert sorted(r["url"] for r in rows) == ["https://b.example/", s3.uri("s/a.html")]
    assert [e.code for e in errors] == ["URL_SIDECAR_INVALID"]
    assert "record 1: file 'a.html' or its URL is not valid UTF-8" in errors[0].message
