"""What the session-19 HTML caps cost an ordinary page (docs/limits.md, "Red-team pass, session 19").

Usage: python bench/html_caps_cost.py [--corpora DIR] [--reps N]

`io.html_attrs.limit_attributes` and `limit_names` run on every HTML page before any parser sees it.
This times them (process CPU) over the real HTML pages of ../shared/corpora, next to one lexbor parse
and one trafilatura extraction of the same pages, and prints each per page and per MB: the caps are
meant to cost a small fraction of what extraction already spends.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import trafilatura
from selectolax.lexbor import LexborHTMLParser

from trustaudit.io.html_attrs import limit_attributes, limit_names
from trustaudit.policy import Policy


def _pages(root: Path) -> list[str]:
    out = []
    for f in sorted(root.rglob("*.htm*")):
        try:
            out.append(f.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return out


def _cpu(fn, pages: list[str]) -> float:  # type: ignore[no-untyped-def]
    t = time.process_time()
    for p in pages:
        fn(p)
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--corpora", type=Path, default=Path(__file__).parents[1] / ".." / "shared" / "corpora"
    )
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    inputs = Policy().inputs
    pages = _pages(args.corpora)
    if not pages:
        raise SystemExit(f"no HTML pages under {args.corpora}")
    mb = sum(len(p) for p in pages) / 1e6

    def caps(p: str) -> object:
        return limit_names(
            limit_attributes(p, inputs.max_html_attributes).html, inputs.max_html_names
        )

    print(f"{len(pages)} pages, {mb:.1f} MB (characters)")
    for rep in range(args.reps):
        c = _cpu(caps, pages)
        lex = _cpu(LexborHTMLParser, pages)
        tra = _cpu(trafilatura.extract, pages)
        print(
            f"rep {rep + 1}: caps {1000 * c / len(pages):.2f} ms/page ({1000 * c / mb:.1f} ms/MB); "
            f"lexbor parse {1000 * lex / len(pages):.2f} ms/page; trafilatura {1000 * tra / len(pages):.2f} "
            f"ms/page; caps / trafilatura {c / tra:.1%}"
        )


if __name__ == "__main__":
    main()
