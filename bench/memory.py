"""Peak memory of `audit` as the corpus grows (issue 16: "with either engine, peak RSS of `audit`
over ten times the real pages is within 1.5x of one time over").

Usage: python bench/memory.py [--times 1 10] [--engine local ray] [--work DIR] [--baseline]
                              [--checkout OTHER_CHECKOUT]

For each size it writes the real pages of ../shared/corpora that many times, each copy on its own
mirror host (distinct URLs and registered domains, `realpages.write_mirror_shards`), in two WARC
shards per copy, runs `python -m trustaudit audit ... --workers 2 --fresh` and prints: pages, wall
time, the peak RSS of the audit process itself (wait4: exact) and of its whole process tree (the
extraction workers, Ray's raylet and workers; psutil, sampled every 50 ms: a sum of RSS, so pages
shared between processes count once per process), and the ratio of each size to the first.
`--baseline` adds the demo corpus (13 records): the start-up cost every run pays. `--checkout`
runs another checkout's trustaudit (e.g. `git archive COMMIT | tar -x -C DIR`) for a before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from realpages import write_mirror_shards  # noqa: E402

DEMO = ["fixtures/corpus/pages", "fixtures/corpus/extra.jsonl"]


def tree_rss(root: psutil.Process) -> int:
    """Summed RSS (bytes) of a process and all its descendants now."""
    try:
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            continue
    return total


def measure(inputs: list[str], out: Path, *extra: str, checkout: Path = HERE.parent) -> dict:  # type: ignore[type-arg]
    """One `audit` subprocess: wall time, peak RSS of the process and of its tree, the manifest."""
    cmd = [sys.executable, "-m", "trustaudit", "audit", *inputs, "--out", str(out), "--fresh"]
    cmd += ["--workers", "2", "--quiet", "--now", "2026-11-01", *extra]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env["PYTHONPATH"] = str(checkout)
    env.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env, cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    root = psutil.Process(proc.pid)
    peak = 0
    phases: dict[str, int] = {}  # the audit process's peak RSS per phase the manifest shows
    phase, polled = "start", 0.0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, tree_rss(root))
        if time.perf_counter() - polled > 0.5:
            phase, polled = _phase(out, phase), time.perf_counter()
        try:
            own = root.memory_info().rss
        except psutil.Error:
            own = 0
        phases[phase] = max(phases.get(phase, 0), own)
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {code}:\n{stderr[-3000:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    return {
        "pages": manifest["stages"]["ingest"]["pages"],
        "wall_s": round(wall, 1),
        "process_mb": round(usage.ru_maxrss / 1024),
        "tree_mb": round(max(peak, usage.ru_maxrss * 1024) / (1 << 20)),
        "stages_s": {k: v.get("seconds") for k, v in manifest["stages"].items()},
        "phase_mb": {k: round(v / (1 << 20)) for k, v in phases.items()},
    }


def _phase(out: Path, current: str) -> str:
    """Where the run is, from its manifest: ingest (reading, extracting, merging), signals (and
    score), report. The manifest is rewritten atomically, so a read sees a whole one."""
    try:
        stages = json.loads((out / "manifest.json").read_text()).get("stages", {})
    except (OSError, ValueError):
        return current
    if "score" in stages:
        return "report"
    if stages.get("ingest", {}).get("status") == "done":
        return "signals+score"
    return "ingest" if stages else current


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--times", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--engine", nargs="+", choices=["local", "ray"], default=["local"])
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--baseline", action="store_true", help="also the demo corpus (start-up cost)")
    ap.add_argument("--checkout", type=Path, default=HERE.parent, help="the trustaudit to run")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="trustaudit-memory-"))
    print(f"\n== peak RSS of audit as the corpus grows (real pages N times, 2 workers; {work})")
    print(f"  trustaudit from {args.checkout.resolve()}")
    print("  engine corpus      pages   wall s  process MB  tree MB  x first (process, tree)")
    for engine in args.engine:
        extra = ["--engine", engine]
        first: dict | None = None  # type: ignore[type-arg]
        sizes: list[tuple[str, list[str]]] = []
        if args.baseline:
            sizes.append(("demo", [str(HERE.parent / p) for p in DEMO]))
        for n in args.times:
            shards = write_mirror_shards(work / f"x{n}", replicas=n, per_replica=2)
            sizes.append((f"{n}x real", [str(p) for p in shards]))
        for label, inputs in sizes:
            out = work / f"run-{engine}-{label.split()[0]}"
            row = measure(inputs, out, *extra, checkout=args.checkout.resolve())
            if first is None and label != "demo":
                first = row
            ratio = (
                f"{row['process_mb'] / first['process_mb']:.2f}, {row['tree_mb'] / first['tree_mb']:.2f}"
                if first is not None and label != "demo"
                else "-"
            )
            print(
                f"  {engine:<6} {label:<10} {row['pages']:>6} {row['wall_s']:>8} "
                f"{row['process_mb']:>11} {row['tree_mb']:>8}  {ratio}",
                flush=True,
            )
            print(f"         stage seconds: {row['stages_s']}", flush=True)
            print(f"         process peak MB by phase: {row['phase_mb']}", flush=True)


if __name__ == "__main__":
    main()
