"""robots.txt matching: time for rules with many `*`, and RFC 9309 conformance against other matchers.

Timing: the rule `Disallow: /*a*a...*a b` (k stars) against a path of L `a`s and no `b`, the input
on which a backtracking regex tries every way to place the stars (about L^k / k! steps). Prints the
time of one `allowed()` call for each k; `--rev REV` also times robots.py as it was at REV, each k
in a child process killed after `--timeout` seconds.

Conformance (`--conformance`): runs tests/crawl/data/robots_cases.json (Google's robots_test.cc,
Protego's tests, RFC 9309 examples) through the current code, through robots.py at `--rev REV`
(per case in a child process, a case past `--timeout` counts as failed) and, with `--protego`,
through Protego (`pip install --target DIR protego` and put DIR on PYTHONPATH).

Usage: .venv/bin/python bench/robots_bench.py [--stars 8 10 20] [--path-len 30] [--rev REV]
       .venv/bin/python bench/robots_bench.py --conformance [--rev REV] [--protego]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trustaudit.crawl import robots as current  # noqa: E402

CASES = ROOT / "tests" / "crawl" / "data" / "robots_cases.json"
_OLD: ModuleType | None = None  # robots.py at --rev, loaded once per child process


def load_revision(rev: str) -> Path:
    """Write robots.py as it was at `rev` to a temporary file and return its path."""
    src = subprocess.run(
        ["git", "show", f"{rev}:trustaudit/crawl/robots.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "robots_at_rev.py"
    path.write_bytes(src)
    return path


def _old_module(path: str) -> ModuleType:
    global _OLD
    if _OLD is None:
        spec = importlib.util.spec_from_file_location("robots_at_rev", path)
        assert spec and spec.loader
        _OLD = importlib.util.module_from_spec(spec)
        sys.modules["robots_at_rev"] = _OLD  # dataclasses look their module up there
        spec.loader.exec_module(_OLD)
    return _OLD


def _old_allowed(path: str, body: str, agent: str, url: str) -> bool:
    # The old parser expected the lower-cased product token the cache gave it.
    return bool(_old_module(path).parse_robots(body, agent.strip().lower()).allowed(url))


def _old_time(path: str, body: str, url: str) -> float:
    rules = _old_module(path).parse_robots(body, "x")
    t0 = time.perf_counter()
    rules.allowed(url)
    return time.perf_counter() - t0


class Child:
    """One worker process; a call past the timeout kills it and starts another."""

    def __init__(self) -> None:
        self.ctx = mp.get_context("fork")
        self.pool = self.ctx.Pool(1)

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], timeout: float) -> Any:
        try:
            return self.pool.apply_async(fn, args).get(timeout)
        except mp.TimeoutError:
            self.pool.terminate()
            self.pool = self.ctx.Pool(1)
            return None

    def close(self) -> None:
        self.pool.terminate()


def star_rule(k: int) -> str:
    return "User-agent: *\nDisallow: /" + "*a" * k + "b\n"


def timing(args: argparse.Namespace) -> None:
    path = "https://x.example/" + "a" * args.path_len
    old = load_revision(args.rev) if args.rev else None
    child = Child() if old else None
    print(f"rule /*a*a...b with k stars against a path of {args.path_len} 'a's (no match)")
    for k in args.stars:
        rules = current.parse_robots(star_rule(k), "x")
        runs = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            assert rules.allowed(path)
            runs.append(time.perf_counter() - t0)
        line = f"stars={k:>3}  current: {statistics.median(runs) * 1e6:8.1f} µs"
        if child and old:
            took = child.call(_old_time, (str(old), star_rule(k), path), args.timeout)
            line += f"   at {args.rev}: " + (
                f"{took:.3f} s" if took is not None else f"> {args.timeout:.0f} s (killed)"
            )
        print(line)
    if child:
        child.close()


def conformance(args: argparse.Namespace) -> None:
    cases = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
    results: dict[str, list[bool]] = {}
    results["current"] = [
        current.parse_robots(c["body"], c["user_agent"]).allowed(c["url"]) is c["allowed"]
        for c in cases
    ]
    if args.rev:
        old, child = load_revision(args.rev), Child()
        results[f"rev {args.rev}"] = [
            child.call(_old_allowed, (str(old), c["body"], c["user_agent"], c["url"]), args.timeout)
            is c["allowed"]
            for c in cases
        ]
        child.close()
    if args.protego:
        from protego import Protego  # type: ignore[import-not-found]

        name = "protego " + importlib.metadata.version("protego")
        results[name] = [
            Protego.parse(c["body"]).can_fetch(c["url"], c["user_agent"]) is c["allowed"]
            for c in cases
        ]
    for name, ok in results.items():
        print(f"{name:>16}: {sum(ok)}/{len(ok)} cases pass")
        if args.failures:
            for c, good in zip(cases, ok, strict=True):
                if not good:
                    print(f"    {c['source'][:60]}  {c['user_agent']!r} {c['url'][:60]!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stars", type=int, nargs="+", default=[8, 10, 20])
    ap.add_argument("--path-len", type=int, default=30)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--rev", help="also measure trustaudit/crawl/robots.py at this git revision")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per child call (--rev)")
    ap.add_argument("--conformance", action="store_true", help="run the RFC 9309 case file")
    ap.add_argument("--protego", action="store_true", help="also run Protego on the cases")
    ap.add_argument("--failures", action="store_true", help="list the failing cases")
    args = ap.parse_args()
    if args.conformance:
        conformance(args)
    else:
        timing(args)


if __name__ == "__main__":
    main()
