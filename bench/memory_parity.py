"""Before/after parity of the signal and score stages over a finished run (issue 16: batched
coherence, syndication and claims must give the scores of the one-call path).

    python bench/memory_parity.py RUN --before OTHER_CHECKOUT [--work DIR]

Copies RUN's merged tables twice, recomputes signals.parquet and scores.parquet in each copy with
the local engine's path of this checkout and of OTHER_CHECKOUT (`git archive COMMIT | tar -x -C
DIR`), each in its own process, and compares scores, signals, domains and the flagged links frame
for frame (values, dtypes, order).
`bench/memory.py --work W` leaves runs of 1x and 10x the real pages under W/run-local-1x, -10x.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

_RESCORE = """
import shutil, sys
from datetime import date
from pathlib import Path
from trustaudit.io.rundir import RunDir
from trustaudit.policy import load_policy
from trustaudit.run.local import LocalExecutor
from trustaudit.run.signals import compute_signals, score_run
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(dst, ignore_errors=True)
dst.mkdir(parents=True)
for name in ("pages.parquet", "links.parquet", "errors.parquet", "manifest.json"):
    shutil.copy(src / name, dst / name)
policy = load_policy(None, environ={})
run = RunDir.at(dst)
corpus_map = LocalExecutor(2).corpus_map(policy, dst / ".work" / "corpus")
out = compute_signals(run, policy, now=date(2026, 11, 1), corpus_map=corpus_map)
score_run(run, policy)
print(out["families"]["corpus"])
"""


def rescore(checkout: Path, run: Path, out: Path) -> str:
    """signals + score over `run`'s tables with `checkout`'s code; returns the corpus family's
    manifest word (computed, or distributed when syndication and claims ran in batches)."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "HF_HUB_OFFLINE": "1"}
    res = subprocess.run(
        [sys.executable, "-c", _RESCORE, str(run), str(out)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if res.returncode != 0:
        raise SystemExit(f"{checkout}: {res.stderr[-2000:]}")
    return res.stdout.strip().splitlines()[-1]


def main(argv: list[str] | None = None) -> int:
    import polars as pl
    from polars.testing import assert_frame_equal

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="trustaudit-parity-"))
    how_before = rescore(args.before.resolve(), args.run, work / "before")
    how_after = rescore(HERE.parent, args.run, work / "after")
    print(f"corpus family: before {how_before!r}, after {how_after!r}")
    same = True
    for table in ("scores", "signals", "domains", "links"):
        a = pl.read_parquet(work / "before" / f"{table}.parquet")
        b = pl.read_parquet(work / "after" / f"{table}.parquet")
        try:
            assert_frame_equal(b, a)
            print(f"{table}.parquet: identical ({a.height} rows, {a.width} columns)")
        except AssertionError as exc:
            same = False
            print(f"{table}.parquet: DIFFERENT: {str(exc)[:500]}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
