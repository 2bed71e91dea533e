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
- `template_form`: a `<template>` holding the payload beside a reply form;
- `inside_form`: a hidden sign-up `<form>`, the payload in a paragraph inside it (session 28);
- `after_prose`: a hidden block of ordinary prose (paragraphs of other real pages, 300–1,200
  characters), the payload in a paragraph after it;
- `inside_prose`: the payload inside one hidden paragraph of such prose, 300–1,200 characters
  before it and 100–400 after (where BIPIA puts its attacks: inside the content read).

Per cover: recall, and `cond`, recall among the cases whose `hidden` baseline is found (a cover
that costs nothing has `cond` 1.0). Session 27 wrote the fixes from one bench case and toy pages
before this bench existed; seed 1 may be read, the others are held out (counts only). Session 28
added the two prose covers before changing the scanner for them, on the same terms. It scans
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


def _prose(r: random.Random, pool: list[str], least: int, most: int) -> str:
    """Paragraphs of `pool` (other real pages' prose) drawn with `r`, about `least`–`most`
    characters, cut after a sentence (else after a word): an attacker pads with whole sentences."""
    size = r.randint(least, most)
    out = ""
    while len(out) < size:
        out = f"{out} {r.choice(pool)}".strip()
    cut = max(out.rfind(". ", 0, size), out.rfind("! ", 0, size), out.rfind("? ", 0, size)) + 1
    if cut < least // 2:
        cut = out.rfind(" ", 0, size)
    return obf._esc(out[: cut if cut > least // 2 else size])


COVERS: dict[str, Callable[[str, random.Random, list[str]], str]] = {
    "hidden": lambda t, r, pool: f"<div style='display:none'><p>{t}</p></div>",
    "ui_name": lambda t, r, pool: (
        f"<div class='{r.choice(_UI_NAMES)}' style='display:none'><p>{t}</p></div>"
    ),
    "dialog_role": lambda t, r, pool: (
        f"<div role='dialog' aria-modal='true' hidden><p>{t}</p></div>"
    ),
    "beside_input": lambda t, r, pool: (
        f"<div style='display:none'><input type='hidden' name='ref' value='1'><p>{t}</p></div>"
    ),
    "signup_popup": lambda t, r, pool: (
        f"<div class='{r.choice(_UI_NAMES[:3])}' style='display:none'><h3>Stay in touch</h3>"
        f"<p>{t}</p>{_FORM}</div>"
    ),
    "template_form": lambda t, r, pool: (
        f"<template><div class='reply-note'><p>{t}</p></div><form><textarea name='c'></textarea>"
        "<button>Send</button></form></template>"
    ),
    "inside_form": lambda t, r, pool: (
        f"<form action='/subscribe' style='display:none'><p>{t}</p><label>Your email</label>"
        "<input name='email'><button>Subscribe</button></form>"
    ),
    "after_prose": lambda t, r, pool: (
        f"<div style='display:none'><p>{_prose(r, pool, 300, 1200)}</p><p>{t}</p></div>"
    ),
    "inside_prose": lambda t, r, pool: (
        f"<div style='display:none'><p>{_prose(r, pool, 300, 1200)} {t} "
        f"{_prose(r, pool, 100, 400)}</p></div>"
    ),
}


_PROSE = ("after_prose", "inside_prose")


def _found(findings: list[dict], text: str, prose: bool) -> bool:
    """Whether `findings` catch the payload `text`: any finding, or under a prose cover one whose
    snippet holds 20 characters of the payload (the prose alone may be flagged: `prose alone`)."""
    if not prose:
        return bool(findings)
    key = " ".join(text.split())
    probes = {key[i : i + 20] for i in range(0, max(1, len(key) - 19), 10)}
    return any(p in " ".join(f["snippet"].split()) for f in findings for p in probes)


def paragraphs(pages: list[str]) -> list[str]:
    """The prose paragraphs (`<p>` of 120 characters or more) of `pages`, one line each."""
    from selectolax.lexbor import LexborHTMLParser

    out = []
    for html in pages:
        for node in LexborHTMLParser(html).css("p"):
            text = " ".join(node.text(separator=" ").split())
            if len(text) >= 120 and text.count(" ") >= 15:
                out.append(text)
    return out


def build_cases(
    families: dict[str, list[str]], hosts: list[str], seed: int, n: int, pool: list[str]
) -> list[dict[str, str]]:
    """`n` cases: one payload (framed half the time), host and insertion point, a page per cover;
    the prose covers' paragraphs come from `pool`."""
    rng = random.Random(seed)
    payloads = [(fam, p) for fam, ps in sorted(families.items()) for p in ps]
    cases = []
    for _ in range(n):
        fam, payload = rng.choice(payloads)
        text = rng.choice(obf.FRAMES).format(p=payload) if rng.random() < 0.5 else payload
        host = rng.choice(hosts)
        prng = random.Random(rng.random())
        state = prng.getstate()
        case = {"family": fam, "text": text}
        for cover, make in COVERS.items():
            prng.setstate(state)  # the same name choice and insertion point for every cover
            case[cover] = obf.insert(host, make(obf._esc(text), prng, pool), prng)
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
    table: dict[str, list[str]] = {c: [] for c in COVERS}  # (and `prose alone`)
    for seed in args.seeds:
        hosts = obf.host_pages(args.corpora, seed, args.hosts)
        # the prose of other real pages than the hosts (not a copy of the host's visible text)
        others = obf.host_pages(args.corpora, seed + 10_000, 40)
        pool = paragraphs([h for h in others if h not in hosts][:30])
        cases = build_cases(families, hosts, seed, args.per_seed, pool)
        found = {
            c: [_found(scan_html(k[c]).findings, k["text"], c in _PROSE) for k in cases]
            for c in COVERS
        }
        alone = [
            bool(scan_html(obf.insert(h, COVERS["after_prose"]("", r, pool), r)).findings)
            for h, r in ((h, random.Random(seed * 1000 + i)) for i, h in enumerate(hosts))
        ]
        table.setdefault("prose alone", []).append(f"{sum(alone) / len(alone):.3f}".rjust(16))
        base = found["hidden"]
        for c in COVERS:
            got = found[c]
            cond = sum(g for g, b in zip(got, base, strict=True) if b) / max(1, sum(base))
            table[c].append(f"{sum(got) / len(got):.3f} ({cond:.3f})")
    for c, cells in table.items():
        print(c.ljust(14), " ".join(x.rjust(16) for x in cells))
    print(
        "recall (cond: among the cases whose `hidden` baseline is found); under a prose cover only"
        " a finding on the payload counts;\n`prose alone`: hosts flagged for the prose cover's"
        " paragraphs hidden with no payload (one per host)"
    )


if __name__ == "__main__":
    main()
