"""A/B the injection scanner against an earlier revision, fairly on a noisy machine.

Wall-clock runs of two versions taken minutes apart on a shared VM differ by up to ±30 % from the
machine alone. Here both scanners run in one process and alternate page by page over the 797 real
pages, so both see the same phase of the machine; the order within each pair flips every page. It
also counts scans whose findings agree (real pages carry almost none: `injection_eval.py --dump` is
the thorough check).

Usage: .venv/bin/python bench/scan_ab.py [REV] [--reps 3] [--semantic auto|on|off]   (REV defaults to HEAD~1)
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is not a package

from realpages import real_pages

from trustaudit import injection as current
from trustaudit.io.decode import decode_html
from trustaudit.policy.injection import InjectionPolicy

ROOT = Path(__file__).resolve().parents[1]


def load_revision(rev: str, into: Path) -> object:
    """Import `trustaudit.injection` as it was at `rev`, as the package `injection_at_rev`."""
    pkg = into / "injection_at_rev"
    pkg.mkdir()
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, "trustaudit/injection/"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in names:
        rel = Path(name).relative_to("trustaudit/injection")
        # the data files too (the intent lexicon, the classifier): without them the old scanner
        # fails quietly and looks fast
        blob = subprocess.run(
            ["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".py"):
            blob = blob.replace(b"trustaudit.injection", b"injection_at_rev")
        (pkg / rel).write_bytes(blob)
    sys.path.insert(0, str(into))
    return importlib.import_module("injection_at_rev")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("rev", nargs="?", default="HEAD~1")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--semantic",
        choices=("auto", "on", "off"),
        default="auto",
        help="injection.semantic of the current scanner (off: its lexical part alone)",
    )
    args = ap.parse_args()
    policy = InjectionPolicy(semantic=args.semantic)
    pages = [decode_html(body, None)[0] for _, body in real_pages()]
    with tempfile.TemporaryDirectory() as tmp:
        old = load_revision(args.rev, Path(tmp))
        old_scan = old.scan_html  # type: ignore[attr-defined]

        def new_scan(html: str) -> current.ScanResult:
            return current.scan_html(html, policy)

        for html in pages[:30]:  # warm both (regex caches, automata)
            old_scan(html)
            new_scan(html)
        clock = time.process_time
        t_old = t_new = 0.0
        same = 0
        for rep in range(args.reps):
            for i, html in enumerate(pages):
                first_old = (i + rep) % 2 == 0
                for which in ("old", "new") if first_old else ("new", "old"):
                    t = clock()
                    found = (old_scan if which == "old" else new_scan)(html).findings
                    dt = clock() - t
                    if which == "old":
                        t_old += dt
                        old_found = found
                    else:
                        t_new += dt
                        new_found = found
                same += old_found == new_found
        n = args.reps * len(pages)
    print(
        f"{args.rev}: {t_old / n * 1000:.3f} ms/page  current: {t_new / n * 1000:.3f} ms/page  "
        f"-> {t_old / t_new:.2f}x  ({same} of {n} scans with identical findings)"
    )


if __name__ == "__main__":
    main()
