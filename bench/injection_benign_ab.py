"""Paired A/B of the benign-shape screen (trustaudit/injection/benign.py): the same pages scanned with the
screen on and off, so a payload lost or a false positive removed is seen case by case.

- real pages of ../shared/corpora (distinct copies): pages with any finding, off vs on;
- every payload family of bench/injection_lofo.py, hidden alone (8 hiding places in turn) and embedded
  in a hidden block of ordinary prose (display:none or white-on-white): detected off vs on, and the
  payloads the screen loses.

Usage: nice .venv/bin/python bench/injection_benign_ab.py [--semantic auto|off] [--show 10]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import trustaudit.injection as inj  # noqa: E402
from bench.injection_eval import TECHNIQUES  # noqa: E402
from bench.injection_lofo import load_families  # noqa: E402
from bench.realpages import real_pages  # noqa: E402
from trustaudit.policy.injection import InjectionPolicy  # noqa: E402

PLACES = ("display_none", "comment", "script", "attr_alt", "template", "offscreen", "base64")
PROSE = (
    "The market opened at eight on Saturday with fish, cheese and bread from the valley.",
    "Farmers from the upper valley brought the first chestnuts of the season to the square.",
    "The council says the car park will stay free until the end of the year for visitors.",
    "Musicians played on the steps of the town hall while children queued for ice cream.",
)
HOST = "<html><body><h1>Market day</h1><p>{a}</p>{x}<p>{b}</p></body></html>"


def _hidden(html: str, policy: InjectionPolicy, *, screen: bool) -> bool:
    """Whether the page has a non-visible finding, with the screen on or off."""
    saved = inj.screen_hits, inj.drop_benign_findings
    if not screen:
        inj.screen_hits = lambda text, hits, *a, **k: hits  # type: ignore[assignment]
        inj.drop_benign_findings = lambda findings, *a, **k: findings  # type: ignore[assignment]
    try:
        return any(f["technique"] != "visible" for f in inj.scan_html(html, policy).findings)
    finally:
        inj.screen_hits, inj.drop_benign_findings = saved


def _ab(pages: list[str], policy: InjectionPolicy) -> tuple[list[bool], list[bool]]:
    return [_hidden(p, policy, screen=False) for p in pages], [
        _hidden(p, policy, screen=True) for p in pages
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--semantic", choices=("auto", "on", "off"), default="auto")
    ap.add_argument("--show", type=int, default=10, help="lost payloads printed at most")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    policy = InjectionPolicy(semantic=args.semantic)
    rng = random.Random(args.seed)

    real = [body.decode("utf-8", "replace") for _, body in real_pages(distinct=True)]
    off, on = _ab(real, policy)
    print(f"real pages (distinct): {len(real)}; with a hidden finding off {sum(off)}, on {sum(on)}")

    builders: dict[str, Callable[[str, int], str]] = {
        "alone": lambda p, i: HOST.format(
            a=PROSE[0], b=PROSE[1], x=TECHNIQUES[PLACES[i % len(PLACES)]](p)
        ),
        "embedded": lambda p, i: HOST.format(
            a=PROSE[0],
            b=PROSE[1],
            x=f'<div style="{rng.choice(["display:none", "color:#fff;background:#fff"])}">'
            f"{' '.join(rng.sample(PROSE, 2))} {p} {' '.join(rng.sample(PROSE, 2))}</div>",
        ),
    }
    lost: list[str] = []
    print(
        f"\n{'family':22s} {'n':>4s} {'alone off':>10s} {'on':>5s} {'embedded off':>13s} {'on':>5s}"
    )
    for fam, payloads in load_families().items():
        cells = []
        for how, build in builders.items():
            pages = [build(p.text, i) for i, p in enumerate(payloads)]
            off, on = _ab(pages, policy)
            cells += [sum(off), sum(on)]
            lost += [
                f"{fam} {how}: {p.text[:100]}"
                for p, a, b in zip(payloads, off, on, strict=True)
                if a and not b
            ]
        print(
            f"{fam:22s} {len(payloads):4d} {cells[0]:10d} {cells[1]:5d} {cells[2]:13d} {cells[3]:5d}"
        )
    print(f"\npayload cases the screen loses: {len(lost)}")
    for line in lost[: args.show]:
        print("  ", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
