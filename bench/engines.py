"""Wall time of `audit` per engine and per checkout, alternating runs (issue 16's figures).

    python bench/engines.py --corpus real --repeat 3             # local vs --engine ray, 797 real pages
    python bench/engines.py --corpus demo --before OTHER_CHECKOUT  # this checkout vs another, local engine

Each run is a fresh `python -m trustaudit audit ... --fresh` subprocess (start-up included, as a user
sees it); runs alternate so a neighbour's load falls on both sides. Prints the median of each side and
whether the scores (url, trust_score, band, reasons) are identical across all runs.
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


def _run(checkout: Path, inputs: list[str], out: Path, extra: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(checkout), RAY_USAGE_STATS_ENABLED="0")
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    cmd = [sys.executable, "-m", "trustaudit", "audit", *inputs, "--out", str(out), "--fresh"]
    cmd += ["--now", "2026-11-01", "--quiet", *extra]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {res.returncode}:\n{res.stderr[-3000:]}")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=["demo", "real"], default="real")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--before", type=Path, help="another checkout: compare its local engine to ours"
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
    times: dict[str, list[float]] = {name: [] for name in sides}
    scores = []
    for i in range(args.repeat):
        for name, (checkout, extra) in sides.items():
            out = work / f"{name}-{i}"
            times[name].append(_run(checkout, inputs, out, extra))
            scores.append(
                pl.read_parquet(out / "scores.parquet")
                .select("url", "trust_score", "band", "reasons")
                .sort("url")
            )
    med = {name: round(statistics.median(t), 2) for name, t in times.items()}
    a, b = list(med)
    print(
        json.dumps(
            {
                "corpus": args.corpus,
                "pages": scores[0].height,
                "runs": {k: [round(x, 2) for x in v] for k, v in times.items()},
                "median_s": med,
                f"{b}_over_{a}": round(med[b] / med[a], 3),
                "identical_scores": all(s.equals(scores[0]) for s in scores),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
