"""`audit --engine local|ray`: the same run directory and the same scores, on one machine or a
Ray cluster of two nodes; a killed Ray run resumes without duplicates."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import polars as pl
import pytest
from helpers import article_html
from polars.testing import assert_frame_equal
from s3server import S3, moto_endpoint_fixture, s3_fixture  # noqa: F401 - the fixtures

from trustaudit.scoring.coherence import COHERENCE_COLUMNS

REPO = Path(__file__).resolve().parents[2]
NOW = ["--now", "2026-11-01"]
DEMO = [
    "fixtures/corpus/pages",
    "fixtures/corpus/extra.jsonl",
    "--allowlist",
    "fixtures/corpus/allowlist.txt",
    "--blocklist",
    "fixtures/corpus/blocklist.txt",
    "--domain-info",
    "fixtures/corpus/domain_info.csv",
    "--labels",
    "fixtures/corpus/labels.csv",
    *NOW,
]
CONTRACT = ["url", "trust_score", "band", "reasons"]


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    # the checkout under test, on every Ray worker this command or `ray start` launches
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    env.update(RAY_USAGE_STATS_ENABLED="0", **extra)
    return env


def _audit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "trustaudit", "audit", *args, "--quiet"]
    return subprocess.run(
        cmd, cwd=REPO, env=env or _env(), capture_output=True, text=True, timeout=600
    )


def _scores(run: Path) -> pl.DataFrame:
    return pl.read_parquet(run / "scores.parquet").select(CONTRACT)


def _manifest(run: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((run / "manifest.json").read_text())


def _balanced(run: Path) -> dict:  # type: ignore[type-arg]
    ingest = _manifest(run)["stages"]["ingest"]
    acc = ingest["accounting"]
    assert acc["balanced"] and acc["inputs"] == acc["pages"] + acc["errors"]
    assert pl.read_parquet(run / "pages.parquet")["doc_id"].is_unique().all()
    return ingest


def test_ray_address_needs_engine_ray(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = runner.invoke(
        app, ["audit", str(tmp_path), "--out", str(tmp_path / "r"), "--ray-address", "h:6379"]
    )
    assert res.exit_code == 2 and "--engine ray" in res.output
    res = runner.invoke(
        app, ["audit", str(tmp_path), "--out", str(tmp_path / "r"), "--engine", "spark"]
    )
    assert res.exit_code == 2


def test_unreachable_ray_address_is_a_usage_error(runner, app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("ray")
    (tmp_path / "a.html").write_text(article_html("A", url="https://a.example/"))
    port = _free_port()  # nobody listens there
    res = runner.invoke(
        app,
        [
            "audit",
            str(tmp_path),
            "--out",
            str(tmp_path / "r"),
            "--engine",
            "ray",
            "--ray-address",
            f"127.0.0.1:{port}",
        ],
    )
    assert res.exit_code == 2 and f"cannot reach the Ray cluster at 127.0.0.1:{port}" in res.output


# batches of 16 pages: coherence's corpus-wide parts are merged over several batches
BATCHES = {"TRUSTAUDIT_ENGINE__CORPUS_BATCH_PAGES": "16"}


@pytest.fixture(scope="module")
def local_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local engine's run of the demo corpus, the reference of the Ray runs below (read only;
    one audit for the module instead of one per test)."""
    local = tmp_path_factory.mktemp("engines") / "local"
    res = _audit(*DEMO, "--out", str(local), "--workers", "1", env=_env(**BATCHES))
    assert res.returncode == 0, res.stderr
    return local


def test_ray_engine_gives_the_local_scores_on_the_demo_corpus(
    local_demo: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ray")
    local, ray_run = local_demo, tmp_path / "ray"
    batches = BATCHES
    # the demo is far below engine.distributed_corpus_min_pages: lower it so the Ray steps run
    env = _env(TRUSTAUDIT_ENGINE__DISTRIBUTED_CORPUS_MIN_PAGES="0", **batches)
    res = _audit(*DEMO, "--out", str(ray_run), "--engine", "ray", "--workers", "2", env=env)
    assert res.returncode == 0, res.stderr
    assert_frame_equal(_scores(ray_run), _scores(local))
    assert_frame_equal(
        pl.read_parquet(ray_run / "scores.parquet"), pl.read_parquet(local / "scores.parquet")
    )
    assert _manifest(ray_run)["engine"]["name"] == "ray"
    assert _manifest(local)["engine"]["name"] == "local"
    # syndication, claims and coherence's maps ran as Ray steps; local kept corpus_signals
    families = {
        r: _manifest(r)["stages"]["signals"]["families"]["corpus"] for r in (ray_run, local)
    }
    assert families == {
        ray_run: "distributed (syndication, claims, coherence)",
        local: "computed",
    }
    assert not (ray_run / ".work" / "corpus").exists()  # the spill folder is cleaned up
    # the demo has a syndicated cluster and claim groups: the parity is not of empty columns
    signals = pl.read_parquet(ray_run / "signals.parquet")
    assert signals.get_column("syndication_cluster_id").drop_nulls().n_unique() >= 1
    assert signals.get_column("claim_group").drop_nulls().n_unique() >= 2
    assert signals.height > 16  # several coherence batches
    coherence = list(COHERENCE_COLUMNS)
    assert signals.get_column("coherence_score").drop_nulls().n_unique() >= 5
    local_signals = pl.read_parquet(local / "signals.parquet")
    assert_frame_equal(signals.select(coherence), local_signals.select(coherence))
    assert_frame_equal(signals, local_signals)
    assert _balanced(ray_run)["errors"] == _balanced(local)["errors"] > 0


def test_ray_finishes_a_run_the_local_engine_half_wrote(tmp_path: Path) -> None:
    """The Ray engine's read tasks cut the sources into the driver's batches: a run directory the
    local engine half wrote is resumed by `--engine ray` (committed parts read past, never
    extracted twice) into the local engine's scores and accounting."""
    pytest.importorskip("ray")
    policy = tmp_path / "p.toml"
    policy.write_text("[extract]\nbatch_size = 8\n")
    args = [*DEMO, "--policy", str(policy)]
    local, out = tmp_path / "local", tmp_path / "ray"
    assert _audit(*args, "--out", str(local), "--workers", "1").returncode == 0
    shutil.copytree(local, out)
    markers = sorted((out / "parts").glob("*.done"))
    assert len(markers) >= 6
    for marker in markers[1::2]:  # every other part as if the run had been killed before it
        for f in (out / "parts").glob(marker.stem + ".*"):
            f.unlink()
    (out / "scores.parquet").unlink()
    # below engine.distributed_corpus_min_pages the Ray engine runs syndication and claims as the
    # local engine's spilled batches from engine.local_corpus_min_pages on (lowered to 1 here),
    # and coherence on the driver (no Ray task below that threshold)
    env = _env(TRUSTAUDIT_ENGINE__LOCAL_CORPUS_MIN_PAGES="1")
    res = _audit(*args, "--out", str(out), "--engine", "ray", "--workers", "2", env=env)
    assert res.returncode == 0, res.stderr
    family = _manifest(out)["stages"]["signals"]["families"]["corpus"]
    assert family == "distributed (syndication, claims)"
    ingest = _balanced(out)
    assert ingest["batches_resumed"] == len(markers[::2])
    assert ingest["batches"] == len(markers) - len(markers[::2])
    assert ingest["accounting"] == _balanced(local)["accounting"]
    assert sorted(m.name for m in (out / "parts").glob("*.done")) == [m.name for m in markers]
    assert_frame_equal(_scores(out), _scores(local))
    assert _manifest(out)["engine"]["reads"] == "workers"


@pytest.mark.network
def test_ray_reads_object_store_inputs_on_its_workers(
    s3: S3, local_demo: Path, tmp_path: Path
) -> None:
    """Inputs on an S3-compatible store (a local server): the Ray engine's read tasks open the
    keys themselves (the AWS environment reaches the workers) and give the local scores (the
    module's local run: its corpus batches of 16 change no score, tests/run/test_memory_batches)."""
    pytest.importorskip("ray")
    s3.put_tree(REPO / "fixtures" / "corpus" / "pages", "pages")
    s3.put("extra.jsonl", (REPO / "fixtures" / "corpus" / "extra.jsonl").read_bytes())
    local, out = local_demo, tmp_path / "ray"
    remote = [s3.uri("pages"), s3.uri("extra.jsonl"), *DEMO[2:]]
    res = _audit(*remote, "--out", str(out), "--engine", "ray", "--workers", "2", env=_env())
    assert res.returncode == 0, res.stderr
    assert _balanced(out)["accounting"] == _balanced(local)["accounting"]
    assert_frame_equal(_scores(out).sort("url"), _scores(local).sort("url"))
    assert _manifest(out)["engine"]["reads"] == "workers"


# ------------------------------------------------------------------ a cluster of two nodes
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`ray start --block` in a session of its own: the test stops exactly the processes it started
    (`ray stop` would stop every Ray instance on the machine, other users' included)."""
    ray_bin = str(Path(sys.executable).with_name("ray"))
    cmd = [ray_bin, "start", *args, "--num-cpus", "1", "--object-store-memory", str(80 << 20)]
    cmd += ["--disable-usage-stats", "--block"]
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + 120
    while b"Ray runtime started" not in log.read_bytes():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"ray start failed: {log.read_text()[-2000:]}")
        time.sleep(0.5)
    return proc


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@contextmanager
def _two_node_cluster(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """A Ray head and a second node, separate processes of one CPU each; yields (address, env)."""
    env = _env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    # Ray's socket paths must fit in 107 bytes: pytest's tmp_path is too deep for them
    temp = Path(tempfile.mkdtemp(prefix="tr", dir="/tmp"))
    address = f"127.0.0.1:{_free_port()}"
    started: list[subprocess.Popen[bytes]] = []
    try:
        head_args = ["--head", "--port", address.split(":")[1], "--include-dashboard", "false"]
        started.append(
            _ray_start([*head_args, "--temp-dir", str(temp)], tmp_path / "head.log", env)
        )
        started.append(_ray_start(["--address", address], tmp_path / "node.log", env))
        yield address, env
    finally:
        for proc in reversed(started):
            _stop(proc)
        shutil.rmtree(temp, ignore_errors=True)


def _corpus(folder: Path, n: int) -> Path:
    folder.mkdir()
    for i in range(n):
        (folder / f"p{i:03d}.html").write_text(
            article_html(f"Page {i}", url=f"https://site{i % 5}.example/p{i}")
        )
    (folder / f"p{n:03d}.html").write_bytes(b"")  # one record that becomes an error row
    return folder


@pytest.mark.slow
def test_two_node_cluster_run_killed_and_resumed(tmp_path: Path) -> None:
    """Items 4 and 5 of issue 16: a run on a two-node cluster is killed mid-way (the driver, SIGKILL),
    re-run, and finishes with every record accounted once and the local engine's scores."""
    pytest.importorskip("ray")
    corpus = _corpus(tmp_path / "c", 60)
    policy = tmp_path / "p.toml"
    policy.write_text("[extract]\nbatch_size = 2\n\n[engine]\ndistributed_corpus_min_pages = 0\n")
    common = [str(corpus), "--policy", str(policy), *NOW]
    local = tmp_path / "local"
    assert _audit(*common, "--out", str(local), "--workers", "1").returncode == 0
    out = tmp_path / "ray"
    with _two_node_cluster(tmp_path) as (address, env):
        args = [*common, "--out", str(out), "--engine", "ray", "--ray-address", address]
        cmd = [sys.executable, "-m", "trustaudit", "audit", *args, "--quiet"]
        proc = subprocess.Popen(
            cmd,
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not list((out / "parts").glob("*.done")):
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        _stop(proc)
        done_before = len(list((out / "parts").glob("*.done")))
        assert 1 <= done_before < 31, "the kill must land mid-way"
        assert not (out / "scores.parquet").exists()
        res = _audit(*args, env=env)
        assert res.returncode == 0, res.stderr
        manifest = _manifest(out)
    assert manifest["engine"] == {"name": "ray", "nodes": 2, "cpus": 2, "reads": "workers"}
    ingest = _balanced(out)
    assert ingest["batches_resumed"] >= done_before
    assert ingest["accounting"] == _balanced(local)["accounting"]
    assert ingest["pages"] == 60 and ingest["errors"] == 1
    assert_frame_equal(_scores(out), _scores(local))
