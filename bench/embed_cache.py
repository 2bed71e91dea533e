"""Memory and lookup time of the paragraph-embedding cache a worker opens (`trustaudit.embed.cache`).

Usage: python bench/embed_cache.py [--vectors 200000] [--dim 384] [--lookups 20000] [--against REV]

Writes a cache of `--vectors` random float16 vectors in the current part format, opens it in a fresh
process, looks up `--lookups` random known keys and prints the times and the process's memory growth:
RSS, and private memory (RSS less file-backed pages, which the workers share and the kernel may drop);
bytes per cached vector leave out the vectors returned to the caller.
`--against REV` does the same with the `cache.py` of another revision (`git show REV:...`, its own
part format written by that code) for a before/after. A nightly run meets tens of millions of
paragraphs, so the figure that matters is bytes per cached vector in *each* worker.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = textwrap.dedent(
    """
    import importlib.util, json, sys, time
    import numpy as np, psutil
    spec = importlib.util.spec_from_file_location("cache_under_test", sys.argv[1])
    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)

    class Never:
        name, dim = "bench", int(sys.argv[3])
        def encode(self, texts):
            raise AssertionError("a cached text was recomputed")

    n, lookups = int(sys.argv[4]), int(sys.argv[5])
    rng = np.random.default_rng(1)
    texts = [f"paragraph {i}" for i in rng.integers(0, n, lookups)]
    def private():  # resident and not file-backed: what each worker pays on its own
        m = psutil.Process().memory_info()
        return m.rss - m.shared
    rss0, own0 = psutil.Process().memory_info().rss, private()
    t0 = time.perf_counter()
    cache = mod.CachedEmbedder(Never(), __import__("pathlib").Path(sys.argv[2]))
    cache.encode(texts[:1])
    t1 = time.perf_counter()
    out = cache.encode(texts)
    t2 = time.perf_counter()
    rss, own = psutil.Process().memory_info().rss - rss0, private() - own0
    print(json.dumps({"open_s": t1 - t0, "lookup_us": (t2 - t1) / lookups * 1e6,
                      "rss_mb": rss / 2**20, "private_mb": own / 2**20,
                      "bytes_per_vector": (own - out.nbytes) / n, "rows": len(out)}))
    """
)


def write_cache(module: Path, folder: Path, n: int, dim: int) -> None:
    """Fill `folder` through the module's own writer (one batch: one part)."""
    import numpy as np

    spec = importlib.util.spec_from_file_location("cache_writer", module)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)

    class Random:
        name = "bench"

        def __init__(self) -> None:
            self.dim = dim
            self.rng = np.random.default_rng(0)

        def encode(self, texts: list[str]) -> np.ndarray:
            return self.rng.standard_normal((len(texts), dim)).astype(np.float32)

    mod.CachedEmbedder(Random(), folder).encode([f"paragraph {i}" for i in range(n)])


def measure(module: Path, args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "cache"
        write_cache(module, folder, args.vectors, args.dim)
        argv = [str(module), str(folder), str(args.dim), str(args.vectors), str(args.lookups)]
        out = subprocess.run(
            [sys.executable, "-c", CHILD, *argv],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    return json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", type=int, default=200_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--lookups", type=int, default=20_000)
    ap.add_argument("--against", help="another revision's trustaudit/embed/cache.py")
    args = ap.parse_args()
    modules = {"this checkout": ROOT / "trustaudit" / "embed" / "cache.py"}
    with tempfile.TemporaryDirectory() as tmp:
        if args.against:
            old = Path(tmp) / "cache_old.py"
            old.write_text(
                subprocess.run(
                    ["git", "-C", str(ROOT), "show", f"{args.against}:trustaudit/embed/cache.py"],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
            )
            modules = {args.against: old, **modules}
        print(f"{args.vectors:,} cached vectors of {args.dim} dims, {args.lookups:,} lookups")
        print(
            f"{'cache.py':<16} {'open s':>8} {'µs/lookup':>10} {'RSS MB':>8} {'private MB':>11} {'B/vector':>9}"
        )
        for label, module in modules.items():
            r = measure(module, args)
            print(
                f"{label:<16} {r['open_s']:>8.2f} {r['lookup_us']:>10.1f} {r['rss_mb']:>8.1f}"
                f" {r['private_mb']:>11.1f} {r['bytes_per_vector']:>9.0f}"
            )


if __name__ == "__main__":
    main()
