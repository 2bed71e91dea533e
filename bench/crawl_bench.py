"""Crawl throughput against local servers with 20 ms latency, and a per-host concurrency check.

Each "host" is its own server on its own loopback address (127.0.0.2, 127.0.0.3, ...), so the
crawler's per-host politeness sees distinct hosts; each server records the most requests it saw at
once, which must be 1 (one request in flight per host).

Usage: .venv/bin/python bench/crawl_bench.py [--hosts 8] [--pages 40] [--latency 0.02]
                                            [--concurrency 8] [--delay 0]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.crawl.crawl_faultserver import FaultServer
from trustaudit.crawl import crawl_urls
from trustaudit.policy import load_policy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--pages", type=int, default=40, help="pages per host")
    ap.add_argument("--latency", type=float, default=0.02, help="server latency per request (s)")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--delay", type=float, default=0.0, help="per-host delay (s)")
    args = ap.parse_args()
    servers = [
        FaultServer(f"127.0.0.{i + 2}", latency_s=args.latency).start() for i in range(args.hosts)
    ]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            urls = Path(tmp) / "urls.txt"
            # interleave hosts the way a real list would not: worst case is all of one host first
            lines = [f"{s.base}/page/{i}" for s in servers for i in range(args.pages)]
            urls.write_text("\n".join(lines) + "\n", encoding="utf-8")
            policy = load_policy(
                environ={},
                overrides={"crawl": {"allow_private": True, "delay_s": args.delay,
                                     "concurrency": args.concurrency}},
            )  # fmt: skip
            t0 = time.perf_counter()
            stats = crawl_urls([str(urls)], Path(tmp) / "run", policy)
            wall = time.perf_counter() - t0
        per_host = [s.max_active for s in servers]
        ideal = args.pages * (args.latency + args.delay)
        print(f"hosts={args.hosts} pages/host={args.pages} latency={args.latency * 1000:.0f}ms "
              f"delay={args.delay}s concurrency={args.concurrency}")  # fmt: skip
        print(f"pages={stats.pages} errors={stats.errors} robots fetches={stats.robots_fetches}")
        print(f"wall={wall:.2f}s  throughput={stats.pages / wall:.1f} pages/s  "
              f"(lower bound per host {ideal:.2f}s -> at most {args.hosts * args.pages / ideal:.0f} pages/s)")  # fmt: skip
        print(f"max concurrent requests per host seen by the servers: {per_host}")
        ok = all(m == 1 for m in per_host) and stats.errors == 0
        print("per-host concurrency holds" if ok else "FAILED: per-host concurrency or errors")
        sys.exit(0 if ok else 1)
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()
