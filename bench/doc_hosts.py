"""Recall on attacks planted in technical documentation: the hole a documentation false-positive fix
could open.

Instructions planted in a README or a manual for a coding agent are a real attack, and every rule
that lets reference text go (bench/techdocs.py's false positives) must still catch them. This bench
puts the payloads of bench/injection_lofo.py's families into documentation pages of this machine
(bench/techdocs.py's sources) instead of news and blog pages, each payload once hidden (a random
technique of `injection_lofo.HIDDEN`) and once in plain sight (a ``<p>`` after a random ``</p>``),
and scans each page with the packaged policy and head.

A case is caught when the page has a finding that quarantines it (at or above ``min_score``, not
quoted; of a hidden technique for a hidden payload, any for a visible one) that its host page
alone does not have (the same technique and snippet): a host that is flagged anyway catches
nothing. The packaged head was trained on these families, so the figures are in-sample for the
model: the bench compares two trees (run it with each on ``PYTHONPATH``), it does not estimate
recall on unseen attacks (bench/injection_lofo.py does).

Usage: .venv/bin/python bench/doc_hosts.py [--hosts 60] [--per-family 12] [--show 5]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.injection_eval import TECHNIQUES, insert  # noqa: E402
from bench.injection_lofo import HIDDEN, _visible, load_families  # noqa: E402
from bench.techdocs import (  # noqa: E402
    HOST_SOURCES,
    live,
    page_html,
    pages_of,
    sources,
    trained_on,
)
from trustaudit.injection import scan_html  # noqa: E402
from trustaudit.policy.injection import InjectionPolicy  # noqa: E402


def _keyed(text: str) -> str:
    return hashlib.sha256(f"doc-hosts:{text}".encode()).hexdigest()


def doc_hosts(n: int) -> list[str]:
    """`n` documentation pages, drawn by a keyed hash over every installed source (the same pages
    on every tree), as HTML."""
    skip = trained_on()
    # round 1's sources only (not `man`, nor session 20's held-out ones): the host sample stays put
    files = [
        f
        for name, pats in sources([]).items()
        if name in HOST_SOURCES
        for f in pages_of(name, pats, 400, skip)
    ]
    files.sort(key=_keyed)
    return [page_html(f) for f in files[:n]]


def _marks(findings: list[dict], min_score: float, *, hidden: bool) -> set[tuple[str, str]]:
    """The quarantining findings of a page as (technique, snippet) (hidden ones only if `hidden`)."""
    return {
        (f["technique"], " ".join(str(f.get("snippet", "")).split()))
        for f in live(findings, min_score)
        if not hidden or f["technique"] != "visible"
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--hosts", type=int, default=60, help="documentation host pages")
    ap.add_argument("--per-family", type=int, default=12, help="payloads a family at most")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--show", type=int, default=0, help="print this many misses")
    args = ap.parse_args(argv)
    min_score = InjectionPolicy().min_score
    rng = random.Random(args.seed)
    hosts = doc_hosts(args.hosts)
    own = [
        (_marks(r, min_score, hidden=True), _marks(r, min_score, hidden=False))
        for r in (scan_html(h).findings for h in hosts)
    ]
    payloads = []
    for _fam, plist in sorted(load_families().items()):
        payloads += sorted(plist, key=lambda p: _keyed(p.text))[: args.per_family]
    t0 = time.perf_counter()
    caught: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    misses: list[str] = []
    for p in payloads:
        tech = rng.choice(HIDDEN)
        for kind, fragment in (("hidden", TECHNIQUES[tech](p.text)), ("visible", _visible(p.text))):
            h = rng.randrange(len(hosts))
            page = insert(hosts[h], fragment, rng)
            hidden = kind == "hidden"
            new = _marks(scan_html(page).findings, min_score, hidden=hidden) - own[h][not hidden]
            row = caught[p.family]
            col = 0 if hidden else 2
            row[col] += bool(new)
            row[col + 1] += 1
            if not new:
                misses.append(
                    f"{p.family} {kind}/{tech if hidden else 'visible'}: {p.text[:110]!r}"
                )
    print(
        f"{len(hosts)} documentation hosts, {len(payloads)} payloads [{time.perf_counter() - t0:.0f}s]"
    )
    print(f"{'family':24s} {'hidden':>10s} {'visible':>10s}")
    tot = [0, 0, 0, 0]
    for fam, row in sorted(caught.items()):
        tot = [a + b for a, b in zip(tot, row, strict=True)]
        print(f"{fam:24s} {row[0]:4d}/{row[1]:<5d} {row[2]:4d}/{row[3]:<5d}")
    print(f"{'all':24s} {tot[0]:4d}/{tot[1]:<5d} {tot[2]:4d}/{tot[3]:<5d}")
    for m in misses[: args.show]:
        print("   miss", m)
    return 0


if __name__ == "__main__":
    sys.exit(main())
