"""The real-page passages the injection scanner's gates send to the model, by probability (issue 13).

Why: the semantic head's thresholds (bench/train_intent.py) are set by the few passages of the
training pages that the gates ask about and that the head scores highest. Looking at them — and at
where they live in the HTML — is how the gate is improved: a passage that is a site's own UI (a
form's validation message, a sign-up call to action, a list of headline links) should not reach the
model at all. This lists, for both halves of the 797 real pages of ../shared/corpora, every passage
the gates ask about (``semantic=auto``), with

- its probability: *cross-fitted* on the training half (each half of the training pages scored by
  a head trained without it, as the thresholds are set), the final head's on the test half (which
  nothing was fitted on);
- its kind of place (covert / exposed / visible) and technique;
- its HTML location: the element holding it and its ancestors (tag, id, class, role, aria-*, data-*
  names), found by searching the page for the passage's opening.

Usage: .venv/bin/python bench/gate_negatives.py --cache /tmp/emb/e [--top 40] [--half train]
Decide rules on ``--half train``; measure them on the test half (train_intent.py's FP column).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.injection_eval import clean_page_paths, read_gz  # noqa: E402
from bench.injection_lofo import DEFAULT_CORPORA  # noqa: E402
from bench.train_intent import (  # noqa: E402
    FP_BUDGET,
    GROUPS,
    crossfit_proba,
    embed_cached,
    fit_fold,
    language_basis,
    training_data,
    without,
)

_ATTRS = ("id", "class", "role")


def _describe(node: object) -> str:
    """`tag#id.class[role=…][aria-…]` of one element."""
    attrs = getattr(node, "attributes", {}) or {}
    out = str(getattr(node, "tag", "?"))
    if attrs.get("id"):
        out += "#" + str(attrs["id"])[:30]
    for c in str(attrs.get("class") or "").split()[:4]:
        out += "." + c[:30]
    if attrs.get("role"):
        out += f"[role={attrs['role']}]"
    out += "".join(f"[{k}]" for k in attrs if k.startswith(("aria-", "data-")) and k not in _ATTRS)[
        :80
    ]
    return out


def html_location(html: str, passage: str, *, depth: int = 6) -> str:
    """The element whose text (or one of whose attributes) holds the passage's opening, and its
    ancestors, innermost first; "?" when the opening is not found as written."""
    from selectolax.lexbor import LexborHTMLParser

    probe = " ".join(passage.split())[:40]
    if len(probe) < 12:
        return "?"
    tree = LexborHTMLParser(html)
    found = None
    for node in tree.root.traverse() if tree.root is not None else ():
        if node.tag in ("-text", "-comment"):
            continue
        attrs = node.attributes or {}
        if any(probe in " ".join(str(v or "").split()) for v in attrs.values()):
            found = node
            break
        if probe in " ".join(node.text(deep=True).split()):
            found = node  # keep descending: the deepest element that holds it
    if found is None:
        return "comment or script?" if probe in " ".join(html.split()) else "?"
    chain = []
    node = found
    while node is not None and node.tag not in ("html", "body") and len(chain) < depth:
        chain.append(_describe(node))
        node = node.parent
    return " < ".join(chain)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--cache", type=Path, help="embedding cache stem (as train_intent.py)")
    ap.add_argument("--top", type=int, default=40, help="passages listed per kind and half")
    ap.add_argument("--half", choices=("train", "test", "both"), default="both")
    args = ap.parse_args(argv)

    data = training_data(args.corpora, args.seed, cache=args.cache)
    xp = embed_cached(data.pos, args.cache)
    xn = embed_cached(data.neg, args.cache)
    xt = embed_cached(data.test, args.cache)
    fam = data.pos_family
    head = fit_fold(xp, fam, np.ones(len(fam), dtype=bool), xn, data, args.seed, FP_BUDGET)
    print(f"final head: C={head.c}, thresholds {head.thresholds}")
    paths = clean_page_paths(args.corpora)
    halves = []
    if args.half in ("train", "both"):
        # on the embeddings the head is fitted on (fit_fold projects the language directions out)
        basis = language_basis(xn, data)
        p = crossfit_proba(
            without(xp, basis), fam, without(xn, basis), data, head.c, args.seed, "logistic"
        )
        halves.append(
            ("train (cross-fitted)", data.neg, data.neg_group, data.neg_page, data.neg_asked, p)
        )
    if args.half in ("test", "both"):
        p = head.proba(xt)
        halves.append(
            ("test (unseen)", data.test, data.test_group, data.test_page, data.test_asked, p)
        )
    pages: dict[int, str] = {}
    for name, texts, group, page, asked, p in halves:
        for g in GROUPS:
            sel = [k for k in np.argsort(-p) if asked[k] and group[k] == g and page[k] >= 0]
            thr = head.thresholds[g]
            print(f"\n== {name}, {g} (threshold {thr}): {len(sel)} asked passages ==")
            for k in sel[: args.top]:
                pg = int(page[k])
                if pg not in pages:
                    pages[pg] = read_gz(paths[pg])
                where = html_location(pages[pg], texts[k])
                flag = "*" if p[k] >= thr else " "
                print(
                    f"{flag}{p[k]:.4f} page {pg:3d} {paths[pg].name[:28]:28s} | {texts[k][:160]!r}"
                )
                print(f"          at {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
