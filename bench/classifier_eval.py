"""Does an offline prompt-injection classifier add recall over the rules at the same false-positive rate?

Issue 2 allows a classifier stage only if a model ships inside a pip package (no hub download at run
time) and only if it adds recall over the rules at the same false-positive rate. The one package on PyPI
found to ship its weights is securevector-guardian-model 1.4.0 (Apache-2.0: word and character TF-IDF with
logistic regression, pure-Python inference, 2 MB wheel). Transformer classifiers (llm-guard, pytector and
others) download their models from the hub; jailguard ships its head but fetches its MiniLM embedder.

Method:
- The classifier reads what the rules read: every hidden segment of a page (`collect_segments`) and every
  visible line of 20+ characters. A page's classifier score is the highest over those texts.
- Thresholds are set on the 797 real clean pages: `t0` keeps rules-or-classifier at the rules' own false
  positives (none), `t1` allows 1 % of the pages (the issue's budget).
- Recall is compared on payloads inserted into real host pages with the generator of injection_eval.py.
  Only texts the insertion added count for the classifier (host texts never do), so a host page that
  crosses `t1` on its own cannot make a case look found.

Usage: make bench-classifier   (installs the candidate into .bench-clf/ with pip --target; never a
       dependency of trustaudit)
       PYTHONPATH=.bench-clf .venv/bin/python bench/classifier_eval.py [--per-pool N] [--workers 2]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is not a package

from injection_eval import (
    DEFAULT_CORPORA,
    clean_page_paths,
    inserted_cases,
    load_payloads,
    read_gz,
)

from trustaudit.injection import scan_html
from trustaudit.injection.detect import strip_invisible
from trustaudit.injection.html_scan import collect_segments

_MIN_LINE = 20
_MAX_TEXT = 2000

_model: Any = None
_memo: dict[str, float] = {}
_hosts: list[str] = []
_host_texts: dict[int, set[str]] = {}


def _load_model() -> Any:
    try:
        from svguardian import resolve_runtime
        from svguardian.model.pure_infer import PureGuardian
    except ImportError:
        sys.exit(
            "securevector-guardian-model is not importable: run `make bench-classifier`, or put "
            "`pip install --target DIR securevector-guardian-model==1.4.0` on PYTHONPATH"
        )
    return PureGuardian.load(resolve_runtime(download=False))


def _init(hosts: list[str]) -> None:
    global _model
    _model = _load_model()
    _hosts[:] = hosts


def _score(text: str) -> float:
    s = _memo.get(text)
    if s is None:
        s = _memo[text] = float(_model.predict(text)["malicious_score"])
    return s


def texts_of(html: str) -> tuple[set[str], set[str]]:
    """(hidden texts, visible lines) the classifier reads on one page."""
    segs, visible = collect_segments(html)
    hidden = {strip_invisible(s.text).strip()[:_MAX_TEXT] for s in segs}
    lines = {ln.strip()[:_MAX_TEXT] for ln in visible.split("\n") if len(ln.strip()) >= _MIN_LINE}
    return {t for t in hidden if t}, lines


def _clean_page(path: str) -> tuple[str, float, bool, float]:
    """(path, classifier page score, rules flagged it, the bundle's own threshold)."""
    html = read_gz(Path(path))
    hidden, lines = texts_of(html)
    best = max((_score(t) for t in hidden | lines), default=0.0)
    return path, best, bool(scan_html(html).findings), float(_model.threshold)


def _case(job: tuple[int, str, str]) -> tuple[bool, float]:
    """(rules found it, classifier score of the texts the insertion added) for one inserted case."""
    host_i, tech, html = job
    if host_i not in _host_texts:
        h, v = texts_of(_hosts[host_i])
        _host_texts[host_i] = h | v
    findings = scan_html(html).findings
    if tech == "visible":
        rules = bool(findings)
    else:
        rules = any(f["technique"] != "visible" for f in findings)
    hidden, lines = texts_of(html)
    added = (hidden | lines) - _host_texts[host_i]
    return rules, max((_score(t) for t in added), default=0.0)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--hosts", type=int, default=40)
    ap.add_argument("--per-pool", type=int, default=80, help="payloads per pool (0 = all)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    paths = clean_page_paths(args.corpora)
    hosts_paths = rng.sample([p for p in paths if p.stat().st_size > 4000], args.hosts)
    hosts = [read_gz(p) for p in hosts_paths]
    t_start = time.perf_counter()
    with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(hosts,)) as pool:
        clean = list(pool.map(_clean_page, [str(p) for p in paths], chunksize=8))
        scores = sorted((s for _, s, rules, _ in clean if not rules), reverse=True)
        own = clean[0][3]
        rules_fp = sum(rules for _, _, rules, _ in clean)
        budget = int(0.01 * len(clean)) - rules_fp  # pages the classifier may add within 1 %
        t0 = scores[0] + 1e-9 if scores else 0.0
        t1 = scores[budget] + 1e-9 if 0 <= budget < len(scores) else t0
        print(f"real clean pages: {len(clean)}; rules flag {rules_fp}")
        print(
            f"classifier at its own threshold {own:.2f}: flags {sum(s >= own for s in scores)} "
            f"pages ({sum(s >= own for s in scores) / len(clean):.1%})"
        )
        print(f"t0 (no added false positive) = {t0:.4f}; t1 (1 % of pages) = {t1:.4f}")
        worst = sorted(clean, key=lambda r: -r[1])[:3]
        for p, s, _, _ in worst:
            print(f"   highest clean page {s:.4f}  {Path(p).parent.name}/{Path(p).name}")

        cases = inserted_cases(load_payloads(args.corpora), hosts, rng, args.per_pool)
        jobs = [(h, tech, html) for _, _, tech, h, html in cases]
        keys = [(pool_name, variant, tech) for pool_name, variant, tech, _, _ in cases]
        results = list(pool.map(_case, jobs, chunksize=16))
    print(f"\ninserted cases: {len(jobs)} ({time.perf_counter() - t_start:.0f} s in all)")

    table: dict[tuple[str, str, str], list[tuple[bool, float]]] = defaultdict(list)
    for (pool_name, variant, tech), res in zip(keys, results, strict=True):
        group = "visible" if tech == "visible" else "hidden"
        table[(group, pool_name, variant)].append(res)
    print(
        f"{'':26s} {'rules':>7s} {'+clf@t0':>8s} {'+clf@t1':>8s} {'clf@t0 alone':>13s} {'cases':>6s}"
    )
    for group in ("hidden", "visible"):
        for pool_name in ("tune", "heldout"):
            for variant in ("framed", "raw"):
                rows = table[(group, pool_name, variant)]
                if not rows:
                    continue
                n = len(rows)
                r = sum(a for a, _ in rows) / n
                r0 = sum(a or s >= t0 for a, s in rows) / n
                r1 = sum(a or s >= t1 for a, s in rows) / n
                c0 = sum(s >= t0 for _, s in rows) / n
                label = f"{group} {pool_name} {variant}"
                print(f"{label:26s} {r:7.3f} {r0:8.3f} {r1:8.3f} {c0:13.3f} {n:6d}")


if __name__ == "__main__":
    main()
