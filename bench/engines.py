"""Wall time of `audit` per engine and per checkout, alternating runs (issue 16's figures).

    python bench/engines.py --corpus real --repeat 3             # local vs --engine ray, 797 real pages
    python bench/engines.py --corpus demo --before OTHER_CHECKOUT  # this checkout vs another, local engine
    python bench/engines.py --corpus real --ray-before OTHER_CHECKOUT  # + another checkout's Ray engine

Each run is a fresh `python -m trustaudit audit ... --fresh` subprocess (start-up included, as a user
sees it); runs alternate so a neighbour's load falls on both sides. Prints the median wall time of each
side, the median CPU seconds of its whole process tree (the driver, pool workers, and every Ray
process: psutil samples the tree every 0.1 s, each process's own user+system time), the 1-minute load
average before each run, and whether the scores (url, trust_score, band, reasons) are identical
across all runs. On a shared machine, CPU seconds move far less with the neighbours' load than wall.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

DEMO = [
    "fixtures/corpus/pages",
    "fixtures/corpus/extra.jsonl",
    "--allowlist",
    "fixtures/corpus/allowlist.txt",
    "--blocklist",
    "fixtures/corpus/blocklist.txt",
    "--domain-info",
    "fixtures/corpus/domain_info.csv",
]


def _inputs(corpus: str, work: Path) -> list[str]:
    if corpus == "demo":
        return [str(ROOT / a) if a.startswith("fixtures/") else a for a in DEMO]
    from realpages import write_warc_shards

    return [str(p) for p in write_warc_shards(work / "warc", n_shards=2)]


def _tree_cpu(proc: subprocess.Popen[bytes]) -> float:
    """CPU seconds of `proc` and all its descendants until it exits (each process's own user +
    system time, last sample; a process's reaped children are not counted twice)."""
    import psutil

    root = psutil.Process(proc.pid)
    seen: dict[tuple[int, float], float] = {}
    while proc.poll() is None:
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            tree = []
        for p in tree:
            try:
                t = p.cpu_times()
                seen[(p.pid, p.create_time())] = t.user + t.system
            except psutil.Error:
                continue
        time.sleep(0.1)
    return sum(seen.values())


def _run(checkout: Path, inputs: list[str], out: Path, extra: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process tree) of one audit."""
    env = dict(os.environ, PYTHONPATH=str(checkout), RAY_USAGE_STATS_ENABLED="0")
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    cmd = [sys.executable, "-m", "trustaudit", "audit", *inputs, "--out", str(out), "--fresh"]
    cmd += ["--now", "2026-11-01", "--quiet", *extra]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=checkout, env=env, stdout=subprocess.DEVNULL, stderr=err)
        cpu = _tree_cpu(proc)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode(errors="replace")[-3000:]
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{tail}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["demo", "real"], default="real")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--before", type=Path, help="another checkout: compare its local engine to ours"
    )
    ap.add_argument(
        "--ray-before", type=Path, help="another checkout: add its Ray engine as a third side"
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-engines-"))
    inputs = _inputs(args.corpus, work)
    w = ["--workers", str(args.workers)]
    sides = (
        {"before": (args.before.resolve(), w), "after": (ROOT, w)}
        if args.before
        else {"local": (ROOT, w), "ray": (ROOT, [*w, "--engine", "ray"])}
    )
    if args.ray_before:
        sides["ray_before"] = (args.ray_before.resolve(), [*w, "--engine", "ray"])
    times: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    loads: dict[str, list[float]] = {name: [] for name in sides}
    scores = []
    for i in range(args.repeat):
        for name, (checkout, extra) in sides.items():
            out = work / f"{name}-{i}"
            loads[name].append(round(os.getloadavg()[0], 1))
            wall, cpu = _run(checkout, inputs, out, extra)
            times[name].append(wall)
            cpus[name].append(cpu)
            scores.append(
                pl.read_parquet(out / "scores.parquet")
                .select("url", "trust_score", "band", "reasons")
                .sort("url")
            )
    med = {name: round(statistics.median(t), 2) for name, t in times.items()}
    cpu_med = {name: round(statistics.median(t), 2) for name, t in cpus.items()}
    a, b, *rest = list(med)
    ratios = {f"{x}_over_{a}": round(med[x] / med[a], 3) for x in (b, *rest)}
    cpu_ratios = {f"{x}_over_{a}": round(cpu_med[x] / cpu_med[a], 3) for x in (b, *rest)}
    print(
        json.dumps(
            {
                "corpus": args.corpus,
                "pages": scores[0].height,
                "runs": {k: [round(x, 2) for x in v] for k, v in times.items()},
                "cpu_runs": {k: [round(x, 2) for x in v] for k, v in cpus.items()},
                "load_before_run": loads,
                "median_s": med,
                "median_cpu_s": cpu_med,
                "wall_ratio": ratios,
                "cpu_ratio": cpu_ratios,
                "identical_scores": all(s.equals(scores[0]) for s in scores),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
