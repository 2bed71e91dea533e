"""Does a page's own markup cover a hidden payload? Recall under covers an attacker gets for free.

The scanner does not ask the model about hidden text that is the site's own interface (a dialog, a
sign-up pop-up, a cookie banner, named so in a class or id, or an ARIA role) or a form's words
(`form_ui`). Those names and controls cost an attacker nothing: wrapped in one, a payload hidden
in plain `display:none` might be dropped. Each case here is one payload (the obfuscation bench's
families and frames, `injection_obfuscation.load_payloads`) hidden at one point of a real host page
under every cover in turn, so the covers are compared on the same payloads, hosts and insertion
points:

- `hidden`: a `<div style="display:none">` (the baseline);
- `ui_name`: the same div named as the site's interface (`modal`, `popup`, `newsletter-signup`,
  `cookie-consent`, `paywall`);
- `dialog_role`: `<div role="dialog" aria-modal="true" hidden>`;
- `beside_input`: the hidden div also holds an `<input type="hidden">`;
- `signup_popup`: a hidden sign-up pop-up, its heading, the payload, then its form;
- `template_form`: a `<template>` holding the payload beside a reply form.

Per cover: recall, and `cond`, recall among the cases whose `hidden` baseline is found (a cover
that costs nothing has `cond` 1.0). Session 27 wrote the fixes from one bench case and toy pages
before this bench existed; seed 1 may be read, the others are held out (counts only). It scans
with its own checkout's `trustaudit`; for an older revision, run it from a checkout of that one:

    .venv/bin/python bench/injection_covers.py --per-seed 60 --seeds 1 2 3 4 5
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is not a package
sys.path.insert(0, str(ROOT))  # this checkout's scanner, whatever is installed

import injection_obfuscation as obf  # noqa: E402

from trustaudit.injection import scan_html  # noqa: E402

_UI_NAMES = ("modal", "popup", "newsletter-signup", "cookie-consent", "paywall")
_FORM = (
    "<form action='/subscribe'><label>Your email</label><input name='email'>"
    "<button>Subscribe</button></form>"
)

COVERS: dict[str, Callable[[str, random.Random], str]] = {
    "hidden": lambda t, r: f"<div style='display:none'><p>{t}</p></div>",
    "ui_name": lambda t, r: (
        f"<div class='{r.choice(_UI_NAMES)}' style='display:none'><p>{t}</p></div>"
    ),
    "dialog_role": lambda t, r: f"<div role='dialog' aria-modal='true' hidden><p>{t}</p></div>",
    "beside_input": lambda t, r: (
        f"<div style='display:none'><input type='hidden' name='ref' value='1'><p>{t}</p></div>"
    ),
    "signup_popup": lambda t, r: (
        f"<div class='{r.choice(_UI_NAMES[:3])}' style='display:none'><h3>Stay in touch</h3>"
        f"<p>{t}</p>{_FORM}</div>"
    ),
    "template_form": lambda t, r: (
        f"<template><div class='reply-note'><p>{t}</p></div><form><textarea name='c'></textarea>"
        "<button>Send</button></form></template>"
    ),
}


def build_cases(
    families: dict[str, list[str]], hosts: list[str], seed: int, n: int
) -> list[dict[str, str]]:
    """`n` cases: one payload (framed half the time), host and insertion point, a page per cover."""
    rng = random.Random(seed)
    pool = [(fam, p) for fam, ps in sorted(families.items()) for p in ps]
    cases = []
    for _ in range(n):
        fam, payload = rng.choice(pool)
        text = rng.choice(obf.FRAMES).format(p=payload) if rng.random() < 0.5 else payload
        host = rng.choice(hosts)
        prng = random.Random(rng.random())
        state = prng.getstate()
        case = {"family": fam}
        for cover, make in COVERS.items():
            prng.setstate(state)  # the same name choice and insertion point for every cover
            case[cover] = obf.insert(host, make(obf._esc(text), prng), prng)
        cases.append(case)
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=obf.DEFAULT_CORPORA)
    ap.add_argument("--per-seed", type=int, default=60)
    ap.add_argument("--hosts", type=int, default=40)
    ap.add_argument("--seeds", type=int, nargs="+", default=(1, 2, 3, 4, 5))
    args = ap.parse_args()
    families = obf.load_payloads(args.corpora)
    print("cover".ljust(14), " ".join(f"seed {s}".rjust(16) for s in args.seeds))
    table: dict[str, list[str]] = {c: [] for c in COVERS}
    for seed in args.seeds:
        hosts = obf.host_pages(args.corpora, seed, args.hosts)
        cases = build_cases(families, hosts, seed, args.per_seed)
        found = {c: [bool(scan_html(k[c]).findings) for k in cases] for c in COVERS}
        base = found["hidden"]
        for c in COVERS:
            got = found[c]
            cond = sum(g for g, b in zip(got, base, strict=True) if b) / max(1, sum(base))
            table[c].append(f"{sum(got) / len(got):.3f} ({cond:.3f})")
    for c, cells in table.items():
        print(c.ljust(14), " ".join(x.rjust(16) for x in cells))
    print("recall (cond: among the cases whose `hidden` baseline is found)")


if __name__ == "__main__":
    main()
