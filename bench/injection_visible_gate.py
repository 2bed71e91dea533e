"""What the gate of requests in plain sight (`injection._visible_requests`) sends to the model, on the
pages `bench/injection_lofo.py` builds: per family, the visible cases whose payload reaches the model
through that gate; on the real pages and the hard negatives, the sentences it reads.

No model and no folds: a cheap, exact count to compare two versions of the gate (run it under each
revision's PYTHONPATH) before a leave-one-family-out run says what the model makes of them. The
cases are built as `injection_lofo.main` builds them (same seed, same host pages, same insertion), so
a count here is a count of that run's visible cases.

Usage: nice .venv/bin/python bench/injection_visible_gate.py [--hosts 40] [--seed 13] [--show]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import trustaudit.injection as inj  # noqa: E402
from bench import injection_lofo as lofo  # noqa: E402
from trustaudit.policy.injection import InjectionPolicy  # noqa: E402


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=lofo.DEFAULT_CORPORA)
    ap.add_argument("--hosts", type=int, default=40)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument(
        "--show",
        action="store_true",
        help="print the sentences read on real pages and hard negatives",
    )
    args = ap.parse_args(argv)

    policy = InjectionPolicy(semantic="auto")
    read: list[str] = []
    gate = inj._visible_requests

    def spy(asks, visible, pol, source, visible_low=None):  # type: ignore[no-untyped-def]
        before = len(asks)
        gate(asks, visible, pol, source, visible_low)
        read.extend(a.text for a in asks[before:])

    inj._visible_requests = spy  # type: ignore[assignment]

    def scan(html: str) -> tuple[list[dict], list[str]]:
        read.clear()
        res, _ = inj.scan_html_asks(html, policy)
        return res.findings, list(read)

    rng = random.Random(args.seed)
    fams = lofo.load_families(args.corpora)
    payloads = [p for ps in fams.values() for p in ps]
    pages = [lofo.read_gz(p) for p in lofo.clean_page_paths(args.corpora)]
    real = [scan(h) for h in pages]
    quiet = [i for i, (fs, _) in enumerate(real) if not fs and len(pages[i]) > 4000]
    hosts = [pages[i] for i in rng.sample(quiet, min(args.hosts, len(quiet)))]
    cases = lofo.build_cases(payloads, hosts, rng)
    hard = lofo.load_hard_negatives()
    hard_cases = [
        lofo.insert(hosts[rng.randrange(len(hosts))], lofo._visible(t), rng) for t, _, _ in hard
    ]

    real_read = [r for _, r in real]
    print(
        f"real pages with a sentence read: {sum(map(bool, real_read))} of {len(pages)}; sentences: {sum(map(len, real_read))}"
    )
    hard_read = [scan(h)[1] for h in hard_cases]
    print(f"hard negatives read: {sum(map(bool, hard_read))} of {len(hard)}")
    if args.show:
        for r in real_read:
            for t in r:
                print("   real:", t[:160])
        for r, (_, kind, _) in zip(hard_read, hard, strict=True):
            for t in r:
                print(f"   hard ({kind}):", t[:160])
    got: Counter[str] = Counter()
    total: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    for c in cases:
        if c.technique != "visible":
            continue
        p = payloads[c.payload]
        body = _key(p.text)
        hit = any(_key(t)[:40] in body or body[:40] in _key(t) for t in scan(c.html)[1])
        got[p.family] += hit
        total[p.family] += 1
        if p.family == "own-class":
            langs[p.lang] += hit
    print("\nvisible cases whose payload the gate sends to the model")
    for fam in total:
        print(f"   {fam:22s} {got[fam]:4d} / {total[fam]}")
    print("own-class by language: " + " ".join(f"{k} {v}" for k, v in sorted(langs.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
