"""The corpus stages at scale: syndication + claims over synthetic pages, batch by batch.

Writes `--pages` synthetic pages (short texts; a share of them near-duplicate copies on other
domains; some with an entity and a price) as Parquet shards under a work folder (never committed),
then runs, each in its own process with psutil sampling its whole process tree:

- `local`: corpus_stages.run_local (batches of --batch pages, key partitions spilled to Parquet);
- `ray`:   run/ray_corpus.corpus_signals_ray on a local Ray instance (--ray-cpus), group-bys
  through Ray's hash shuffle; `ray-files`: the same with the keys shuffled through Parquet
  partitions the map tasks write (`spill=`);
- `single`: today's scoring.corpus.corpus_signals on --single-pages pages (one process, all pages);
- `parity`: the batched driver (batches of 100) against corpus_signals on the ≈800 real pages of
  ../shared/corpora, extracted as a run extracts them; fails unless every value is identical.

Prints per-stage seconds and the peak RSS of every process. Asserts nothing about speed.

Usage: python bench/corpus_scale.py [--pages 1000000] [--modes parity,local,ray-files,ray,single]
       [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
COLUMNS = ["doc_id", "text", "registered_domain", "published", "fetched_at", "title", "entity"]


# --------------------------------------------------------------------------- synthetic corpus
def write_shards(
    folder: Path, pages: int, *, shard_rows: int = 100_000, dup_share: float = 0.05, seed: int = 7
) -> list[Path]:
    """Parquet shards of `pages` synthetic pages: 60-90 random words from a 20k-word vocabulary;
    `dup_share` of the pages are copies (5% of words swapped) of an original on another domain,
    in clusters of 2-6; one page in 20 names one of 2,000 products and a price."""
    import polars as pl

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(20_000)])
    paths = []
    for shard, start in enumerate(range(0, pages, shard_rows)):
        path = folder / f"pages-{shard:04d}.parquet"
        paths.append(path)
        n = min(shard_rows, pages - start)
        if path.is_file() and pl.scan_parquet(path).select(pl.len()).collect().item() == n:
            continue
        length = rng.integers(60, 90, n)
        words = rng.integers(0, len(vocab), (n, 90))
        # copies: page i copies page i - k (same shard) with some words swapped
        is_copy = rng.random(n) < dup_share
        is_copy[:6] = False
        back = rng.integers(1, 6, n)
        src = np.where(is_copy, np.arange(n) - back, np.arange(n))
        words = words[src].copy()
        length = length[src]
        swap = (rng.random((n, 90)) < 0.05) & is_copy[:, None]
        words[swap] = rng.integers(0, len(vocab), int(swap.sum()))
        texts = [" ".join(vocab[w[:m]]) for w, m in zip(words, length, strict=True)]
        product = rng.integers(0, 2000, n)
        has_claim = rng.random(n) < 0.05
        price = np.where(rng.random(n) < 0.9, 49, rng.integers(5, 500, n))
        texts = [
            f"{t} The product {p} costs €{c}.00 at most shops." if h else t
            for t, p, c, h in zip(texts, product, price, has_claim, strict=True)
        ]
        ids = np.arange(start, start + n)
        frame = pl.DataFrame(
            {
                "doc_id": [f"{(i * 2654435761) % 2**40:010x}{i:07d}" for i in ids],
                "text": texts,
                "registered_domain": [f"d{d}.example" for d in rng.integers(0, max(pages // 20, 2), n)],
                "published": pl.Series([None] * n, dtype=pl.Date),
                "fetched_at": pl.Series([None] * n, dtype=pl.Datetime("us", "UTC")),
                "title": [f"Page {i} title" for i in ids],
                "entity": [f"product {p}" if h else None for p, h in zip(product, has_claim, strict=True)],
            }
        )  # fmt: skip
        frame.write_parquet(path, row_group_size=20_000)
    return paths


def _real_pages():  # type: ignore[no-untyped-def]
    """The real pages of ../shared/corpora as a run's pages table (extraction in memory)."""
    sys.path.insert(0, str(HERE))
    from realpages import real_pages

    from trustaudit.api import extract_pages

    records = [{"url": u, "html": h.decode("utf-8", "replace")} for u, h in real_pages()]
    return extract_pages(records).pages


# --------------------------------------------------------------------------- one measured mode
def _child(mode: str, shards: list[Path], work: Path, args: argparse.Namespace) -> dict:  # type: ignore[type-arg]
    """Runs in the measured process; returns stage seconds and counts."""
    import polars as pl

    from trustaudit.policy import Policy

    policy = Policy()
    if mode == "local":
        from trustaudit.corpus_stages import run_local

        run = run_local(
            shards, policy, work=work / "local", batch_rows=args.batch, partitions=args.partitions
        )
        return {
            "seconds": run.seconds,
            "pages": run.pages,
            "edges": run.edges,
            "clustered": run.clustered,
        }
    if mode in ("ray", "ray-files"):
        import ray
        import ray.data

        from trustaudit.run.ray_corpus import corpus_signals_ray, settle_fsspec_import

        settle_fsspec_import()

        # one Polars thread per worker: Ray already runs one task per CPU
        ray.init(num_cpus=args.ray_cpus, include_dashboard=False, log_to_driver=False,
                 object_store_memory=args.object_store_mb * 1024 * 1024,
                 runtime_env={"env_vars": {"POLARS_MAX_THREADS": "1"},
                              "worker_process_setup_hook": settle_fsspec_import})  # fmt: skip
        ds = ray.data.read_parquet([str(p) for p in shards]).select_columns(COLUMNS)
        run = corpus_signals_ray(
            ds,
            policy,
            out=work / f"{mode}-out",
            partitions=args.partitions,
            batch_rows=args.ray_batch,
            spill=work / "ray-spill" if mode == "ray-files" else None,
        )
        ray.shutdown()
        return {"seconds": run.seconds, "edges": run.edges, "clustered": run.clustered}
    if mode == "single":
        from trustaudit.scoring.corpus import corpus_signals

        t0 = time.perf_counter()
        pages = pl.scan_parquet(shards).head(args.single_pages).collect()
        t1 = time.perf_counter()
        out = corpus_signals(pages, None, policy, None)
        return {
            "seconds": {"read": t1 - t0, "corpus_signals": time.perf_counter() - t1},
            "pages": out.height,
        }
    if mode == "parity":
        from polars.testing import assert_frame_equal

        from trustaudit.corpus_stages import CLAIM_COLUMNS, SYNDICATION_COLUMNS, run_local
        from trustaudit.scoring.corpus import corpus_signals

        pages = _real_pages()
        src = work / "real-pages.parquet"
        pages.write_parquet(src)
        old = corpus_signals(pages, None, policy, None).sort("doc_id")
        run = run_local([src], policy, work=work / "real", batch_rows=100, partitions=4)
        new = pl.read_parquet(run.output).sort("doc_id")
        cols = ["doc_id", *SYNDICATION_COLUMNS, *CLAIM_COLUMNS]
        assert_frame_equal(new.select(cols), old.select(cols))
        return {"seconds": run.seconds, "pages": pages.height, "identical": True,
                "clustered": run.clustered}  # fmt: skip
    raise SystemExit(f"unknown mode {mode}")


def measure(mode: str, shards: list[Path], work: Path, args: argparse.Namespace) -> dict:  # type: ignore[type-arg]
    """Run one mode in a child process; sample the RSS of the child and all its descendants."""
    import psutil

    out = work / f"{mode}.json"
    cmd = [sys.executable, __file__, "--child", mode, "--work", str(work), *_pass_through(args)]
    env = {**os.environ, "PYTHONPATH": f"{REPO}:{os.environ.get('PYTHONPATH', '')}",
           "RAY_AUTH_MODE": "disabled", "HF_HUB_OFFLINE": "1"}  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=open(out, "w"))  # noqa: SIM115 - closed by exit
    peaks: dict[int, tuple[int, str, int]] = {}  # pid -> (peak rss, name, peak rss - shared)
    done = threading.Event()

    def sample() -> None:
        root = psutil.Process(proc.pid)
        while not done.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                break
            for p in procs:
                try:
                    mem = p.memory_info()
                    name = p.name()
                except psutil.Error:
                    continue
                old = peaks.get(p.pid, (0, name, 0))
                # shared pages (Ray's object store mapped into a worker) count in RSS too; the
                # name is the task the process ran at its peak (Ray renames idle workers)
                peaks[p.pid] = (
                    max(old[0], mem.rss),
                    name if mem.rss > old[0] else old[1],
                    max(old[2], mem.rss - mem.shared),
                )
            time.sleep(0.1)

    thread = threading.Thread(target=sample, daemon=True)
    t0 = time.perf_counter()
    thread.start()
    rc = proc.wait()
    done.set()
    thread.join()
    wall = time.perf_counter() - t0
    if rc != 0:
        return {"mode": mode, "failed": rc, "wall": wall}
    res = json.loads(out.read_text().strip().splitlines()[-1])
    res.update(mode=mode, wall=wall, peaks=sorted(peaks.values(), reverse=True))
    return res


def _pass_through(args: argparse.Namespace) -> list[str]:
    return [
        "--pages", str(args.pages), "--batch", str(args.batch), "--partitions", str(args.partitions),
        "--ray-cpus", str(args.ray_cpus), "--single-pages", str(args.single_pages),
        "--ray-batch", str(args.ray_batch),
        "--object-store-mb", str(args.object_store_mb),
    ]  # fmt: skip


def report(res: dict, label: str) -> None:  # type: ignore[type-arg]
    print(f"\n-- {label}")
    if "failed" in res:
        print(f"  FAILED (exit {res['failed']}) after {res['wall']:.1f} s")
        return
    stages = " | ".join(f"{k} {v:.1f} s" for k, v in res["seconds"].items())
    print(f"  stages: {stages}")
    extra = {k: res[k] for k in ("pages", "edges", "clustered", "identical") if k in res}
    print(f"  wall {res['wall']:.1f} s  {extra}")
    peaks = res["peaks"]
    top = peaks[0] if peaks else (0, "?", 0)
    private = max((p[2] for p in peaks), default=0)
    print(
        f"  processes sampled: {len(peaks)}; largest peak RSS {top[0] / 2**20:.0f} MiB ({top[1]}); "
        f"largest peak RSS minus shared pages {private / 2**20:.0f} MiB"
    )
    for rss, name, own in peaks[:6]:
        print(f"    {rss / 2**20:8.0f} MiB  ({own / 2**20:6.0f} MiB not shared)  {name}")
    verdict = "yes" if top[0] < 2 * 2**30 else "NO"
    print(f"  every process under 2 GiB: {verdict}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=1_000_000)
    ap.add_argument("--batch", type=int, default=50_000)
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--modes", default="parity,local,ray-files,ray,single")
    ap.add_argument("--single-pages", type=int, default=200_000, help="size for the old path")
    ap.add_argument("--ray-cpus", type=int, default=2)
    ap.add_argument("--ray-batch", type=int, default=20_000, help="pages per Ray map batch")
    ap.add_argument("--object-store-mb", type=int, default=512)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="trustaudit-corpus-scale-"))
    shards = sorted((work / "shards").glob("pages-*.parquet"))
    if args.child:
        res = _child(args.child, shards, work, args)
        print(json.dumps(res))
        return
    t0 = time.perf_counter()
    shards = write_shards(work / "shards", args.pages)
    print(f"\n== corpus stages at scale: {args.pages:,} synthetic pages in {len(shards)} Parquet "
          f"shards ({time.perf_counter() - t0:.0f} s to write, under {work})")  # fmt: skip
    for mode in args.modes.split(","):
        label = {
            "local": f"local driver (batches of {args.batch:,}, {args.partitions} key partitions)",
            "ray": f"local Ray ({args.ray_cpus} CPUs, batches of {args.ray_batch:,}, "
            f"{args.partitions} key partitions)",
            "ray-files": f"local Ray, keys shuffled through Parquet partitions ({args.ray_cpus} "
            f"CPUs, batches of {args.ray_batch:,}, {args.partitions} partitions)",
            "single": "old single-process corpus_signals on "
            f"{min(args.single_pages, args.pages):,} pages",
            "parity": "batched driver vs corpus_signals on the real pages",
        }[mode]
        report(measure(mode, shards, work, args), label)


if __name__ == "__main__":
    main()
