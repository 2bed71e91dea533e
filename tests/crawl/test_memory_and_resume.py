"""Peak memory under a gzip bomb and a 300 MiB body, and kill -9 safety of the resumable crawl."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.crawl.conftest import make_policy
from tests.crawl.crawl_faultserver import FaultServer, gzip_bomb
from trustaudit.crawl import crawl_urls
from trustaudit.crawl.journal import read_committed

pytestmark = pytest.mark.network
REPO = Path(__file__).resolve().parents[2]

# The fetch runs in a child process so its peak RSS is its own. VmHWM, not ru_maxrss: Linux carries
# ru_maxrss across fork+exec, so the child would report the (large) pytest parent's RSS.
_CHILD = r"""
import json, sys
import psutil
from trustaudit.crawl.fetch import Fetcher, FetchConfig
from trustaudit.crawl.ssrf import Guard
base, cap = sys.argv[1], int(sys.argv[2])
f = Fetcher(FetchConfig(user_agent="t", max_body_bytes=cap, total_timeout_s=20), Guard(allow_private=True))
assert f.fetch(base + "/page/warm").ok  # imports, TLS context and threads exist before the baseline
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
before = max(psutil.Process().memory_info().rss, hwm())
results = {p: f.fetch(base + p).error_code for p in sys.argv[3:]}
peak = hwm()
print(json.dumps({"results": results, "before": before, "peak": peak}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc (Linux)")
def test_gzip_bomb_and_huge_body_stay_near_the_cap(server: FaultServer) -> None:
    gzip_bomb()
    cap = 10 * 1024 * 1024
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, server.base, str(cap), "/bomb", "/huge?nolength=1", "/huge"],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["results"] == {
        "/bomb": "TOO_LARGE",
        "/huge?nolength=1": "TOO_LARGE",
        "/huge": "TOO_LARGE",
    }
    growth_mib = (data["peak"] - data["before"]) / 2**20
    # The bomb inflates to 300 MiB; the body buffer may hold the 10 MiB cap plus one 64 KiB read.
    assert growth_mib < cap / 2**20 + 4, f"peak RSS grew {growth_mib:.1f} MiB"


_CRAWL_CHILD = r"""
import sys
from pathlib import Path
from trustaudit.crawl import crawl_urls
from trustaudit.policy import load_policy
pol = load_policy(environ={}, overrides={"crawl": {"allow_private": True, "delay_s": 0, "concurrency": 4,
      "commit_rows": 5, "commit_interval_s": 0.2, "ignore_robots": True}})
crawl_urls([sys.argv[1]], Path(sys.argv[2]), pol)
"""


def _committed(run: Path) -> int:
    """Rows committed so far (0 while the first part is not readable yet)."""
    try:
        return sum(t.num_rows for t in read_committed(run / "crawl"))
    except Exception:
        return 0


def test_kill_minus_9_then_resume_fetches_each_url_once(tmp_path: Path) -> None:
    hosts = [FaultServer(latency_s=0.05).start() for _ in range(4)]
    try:
        urls = tmp_path / "urls.txt"
        lines = [f"{h.base}/page/{i}" for i in range(20) for h in hosts]
        urls.write_text("\n".join(lines) + "\n", encoding="utf-8")
        run = tmp_path / "run"
        child = subprocess.Popen(
            [sys.executable, "-c", _CRAWL_CHILD, str(urls), str(run)], cwd=REPO
        )
        journal = run / "crawl" / "journal.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            # kill once a part is committed (journal lines alone can precede the commit on a busy
            # machine, and a kill before any commit tests nothing)
            if journal.exists() and journal.read_text().count("\n") >= 2 and _committed(run):
                break
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        # the killed child's last request may still be inside a server handler (its latency): let
        # it drain, so "one in flight per host" below measures the resumed crawl, not a dead process
        drain = time.monotonic() + 10
        while any(h.active for h in hosts) and time.monotonic() < drain:
            time.sleep(0.01)
        first = {
            r["offset"]: r["url"] for t in read_committed(run / "crawl") for r in t.to_pylist()
        }
        assert 0 < len(first) < len(lines), "kill landed before the first or after the last commit"
        hits_before = [dict(h.hits) for h in hosts]
        policy = make_policy(allow_private=True, concurrency=4, ignore_robots=True)
        stats = crawl_urls([str(urls)], run, policy)
        assert stats.resumed == len(first)
        rows = [r for t in read_committed(run / "crawl") for r in t.to_pylist()]
        offsets = [r["offset"] for r in rows]
        assert sorted(offsets) == list(range(1, len(lines) + 1))  # each URL exactly once
        assert all(r["error_code"] is None for r in rows)
        for url in first.values():  # committed before the kill: not fetched again
            h = next(h for h in hosts if url.startswith(h.base))
            path = url[len(h.base) :]
            assert h.hits[path] == 1, url
        for h, before_hits in zip(hosts, hits_before, strict=True):
            assert h.max_active == 1  # one request in flight per host, across both runs
            assert all(h.hits[p] <= before_hits.get(p, 0) + 1 for p in h.hits)
        again = crawl_urls([str(urls)], run, policy)  # a third run has nothing to do
        assert again.requests == 0 and again.resumed == len(lines)
    finally:
        for h in hosts:
            h.stop()


def test_fresh_starts_over(server: FaultServer, tmp_path: Path) -> None:
    urls = tmp_path / "u.txt"
    urls.write_text(f"{server.base}/page/1\n", encoding="utf-8")
    pol = make_policy(allow_private=True)
    crawl_urls([str(urls)], tmp_path / "run", pol)
    crawl_urls([str(urls)], tmp_path / "run", pol)
    assert server.hits["/page/1"] == 1
    crawl_urls([str(urls)], tmp_path / "run", pol, fresh=True)
    assert server.hits["/page/1"] == 2
    assert sum(t.num_rows for t in read_committed(tmp_path / "run" / "crawl")) == 1
