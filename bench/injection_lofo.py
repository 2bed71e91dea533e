"""Leave-one-family-out evaluation of the injection scanner (issue 13, item 4): figures that cannot flatter.

Payload *families* come from independent sources, each read where it lies (nothing third-party is copied
into the repo):
- ``bipia-text``, ``bipia-code``: BIPIA attack instructions (../shared/corpora/bipia, MIT);
- ``injecagent-dh``, ``injecagent-ds``: InjecAgent direct-harm and data-stealing instructions (MIT);
- ``greshake``: Greshake et al.'s planted payloads for browsing LLMs (MIT);
- ``html-injection-pages``: the payloads appended to that set's identical page pairs 141–200 (CC0);
- ``own-<intent>``: payloads written for this repo in 20 languages, one family per intent class
  (bench/data/injection/payloads/<lang>.json), so a left-out family is a whole attack *kind*; the
  lexicon was written while reading these, so for the lexicon they are in-sample;
- ``own-b``: one more payload per language and intent (bench/data/injection/payloads_b), written as a
  hold-out after the lexicon's first round; its misses (recall 0.075) drove the second round, so it is
  in-sample now;
- ``own-heldout``: one more payload per language and intent (bench/data/injection/heldout), written
  with other pretexts after the lexicon's second round and never used to change it;
- ``own-class``: intent-class templates in 20 languages (bench/data/injection/intent_classes.json:
  steering the reader's output, tool or action requests, requests to send data away, persona), written
  from the class descriptions to teach the semantic head the *class* rather than our own wording, each
  filled twice with seeded random slots (URLs, addresses, amounts, brands…); the lexicon never read them;
- ``own-class2`` (a training family only, not a case here: ``CLASS_SETS``): a second, independent set of
  class templates (bench/data/injection/intent_classes2.json) by another writer, varied in voice and framing,
  loaded by the same code; bench/train_intent.py adds it to the head's positives (``EXTRA``, ``--extra``);
  ``own-class3`` (intent_classes3.json, instructions after ordinary page content) is a third such set, trained
  on too since the seventh round of the head (``EXTRA`` holds both; ``--extra own-class2`` leaves it out).
- registry families (bench/injection_families_extra.py), each present only when its package is: ``bastioncorpus``
  and ``aegisrt`` (installed by the ``dev`` extra), ``pyrit``, ``basilisk``, ``agentdojo`` (wheels fetched by
  ``make families``, read as zips).

Each payload is inserted into a real page from ../shared/corpora (random host, random position, random
hiding technique; seeded) once hidden and once in plain sight, and scanned with ``scan_html``. A case is
*caught* when the scanner reports a finding of that kind (hidden: a non-visible finding; visible: any).

Leave-one-family-out: what is tuned (the decision threshold on the finding score, and the semantic
classifier when ``--semantic`` is given) is fitted on every family but one plus the negatives, then
recall is measured on the family left out; the table prints both. The lexicon itself is hand-written
(trustaudit/injection/data/intent_lexicon.json) and fixed across folds: docs/injection-intent.md says what
that means for these figures.

Negatives: the real pages of trafilatura-pages, article-extraction-benchmark and readability-test-pages
(false-positive rate = pages with any finding), and the hard negatives of bench/data/injection/hard_negatives
(security explainers, prompt tutorials, recipes, exam instructions, corrections, support macros, UI text in
several languages) inserted visibly into real pages that have no finding of their own.

Usage: .venv/bin/python bench/injection_lofo.py [--corpora PATH] [--hosts 40] [--seed 13] [--semantic]
"""

from __future__ import annotations

import argparse
import contextlib
import html as htmllib
import json
import multiprocessing
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.injection_eval import (  # noqa: E402
    TECHNIQUES,
    _esc,
    clean_page_paths,
    insert,
    read_gz,
)
from trustaudit.injection import COVERT, scan_html, scan_html_asks  # noqa: E402
from trustaudit.injection.intent import LANGUAGES  # noqa: E402
from trustaudit.injection.semantic import combine, decision_floor  # noqa: E402
from trustaudit.policy.injection import InjectionPolicy  # noqa: E402

DEFAULT_CORPORA = ROOT.parent / "shared" / "corpora"
DATA = ROOT / "bench" / "data" / "injection"
LANGS = LANGUAGES  # issue 13
INTENTS = ("override", "extraction", "exfiltration", "persona", "tool", "steer_ai")
# Hiding techniques that carry any script as it is (the encoded ones — base64, tag characters, zero-width
# — are obfuscations, measured by the normalisation work); a <template> is UI, not a hiding place.
HIDDEN = tuple(
    t for t in TECHNIQUES if t not in {"base64", "unicode_tags", "zero_width", "template"}
)


@dataclass(frozen=True, slots=True)
class Payload:
    """One attack text with where it comes from: family, language (ISO 639-1) and intent class."""

    text: str
    family: str
    lang: str
    intent: str


def _jsonl(path: Path, key: str) -> list[str]:
    return [json.loads(line)[key] for line in path.read_text(encoding="utf-8").splitlines() if line]


_TAG = re.compile(r"<[^>]+>")
_JS_STR = re.compile(r"\"((?:[^\"\\]|\\.){8,})\"")
_ATTR = re.compile(r"(?:alt|content|aria-label|title|data-[\w-]+)=\"([^\"]{8,})\"")
_COMMENT = re.compile(r"<!--(.*?)-->", re.S)


def _fragment_text(frag: str) -> str:
    """The instruction an html-injection-pages fragment carries (comment, JS string, attribute or text)."""
    import base64
    import binascii

    m = _COMMENT.search(frag) or (_JS_STR.search(frag) if "<script" in frag else None)
    text = _TAG.sub(" ", frag.split("<!--")[0]).rstrip("< ").strip()
    if m:
        s = m.group(1).strip()
    elif len(text) >= 8 and "<" not in text and text.count(" ") >= 2:
        s = text
    else:
        m = _ATTR.search(frag)
        s = m.group(1).strip() if m else text
    s = htmllib.unescape(" ".join(s.split()))
    if re.fullmatch(r"[A-Za-z0-9+/]{16,}={0,2}", s):
        with contextlib.suppress(binascii.Error, UnicodeDecodeError):
            s = base64.b64decode(s).decode("utf-8")
    return s


def _hip_payloads(corpora: Path) -> list[str]:
    """Payloads of html-injection-pages 141–200, whose clean and injected files differ only by them."""
    base = corpora / "html-injection-pages"
    out: list[str] = []
    for i in range(141, 201):
        clean = (base / f"clean/{i:03d}_clean.html").read_text(encoding="utf-8", errors="replace")
        inj = (base / f"injected/{i:03d}_injected.html").read_text(
            encoding="utf-8", errors="replace"
        )
        a = 0
        while a < min(len(clean), len(inj)) and clean[a] == inj[a]:
            a += 1
        b = 0
        while b < min(len(clean), len(inj)) - a and clean[-1 - b] == inj[-1 - b]:
            b += 1
        if not inj.startswith("<", a):  # the common prefix ended inside the payload's tag
            a = max(0, inj.rfind("<", 0, a))
        frag = inj[a : len(inj) - b]
        text = _fragment_text(frag)
        if text.count(" ") >= 2 and text not in out:  # prose, not a leftover style value
            out.append(text)
    return out


def load_families(corpora: Path = DEFAULT_CORPORA) -> dict[str, list[Payload]]:
    """Every payload family: name -> payloads (text, family, lang, intent), in a stable order.

    External families carry one intent each, the nearest class of what their source labels (BIPIA text
    tasks steer the reader's output, code tasks and InjecAgent direct harm are tool actions, InjecAgent
    data stealing is exfiltration, Greshake's payloads take over the persona).
    """
    fam: dict[str, list[Payload]] = {}

    def add(name: str, texts: Iterable[str], intent: str, lang: str = "en") -> None:
        fam[name] = [Payload(t, name, lang, intent) for t in texts if t.strip()]

    bip = corpora / "bipia"
    text_attacks = [
        x
        for split in ("train", "test")
        for v in json.loads((bip / f"text_attack_{split}.json").read_text()).values()
        for x in v
    ]
    code_attacks = [
        x
        for split in ("train", "test")
        for v in json.loads((bip / f"code_attack_{split}.json").read_text()).values()
        for x in v
    ]
    add("bipia-text", dict.fromkeys(text_attacks), "steer_ai")
    add("bipia-code", dict.fromkeys(code_attacks), "tool")
    ia = corpora / "injecagent"
    add("injecagent-dh", _jsonl(ia / "attacker_cases_dh.jsonl", "Attacker Instruction"), "tool")
    add(
        "injecagent-ds",
        _jsonl(ia / "attacker_cases_ds.jsonl", "Attacker Instruction"),
        "exfiltration",
    )
    puzzles = sorted((corpora / "greshake-llm-security/puzzles").glob("*.txt"))
    add("greshake", [p.read_text(encoding="utf-8") for p in puzzles], "persona")
    add("html-injection-pages", _hip_payloads(corpora), "steer_ai")
    own: dict[str, list[Payload]] = {f"own-{i}": [] for i in INTENTS}
    for lang in LANGS:
        path = DATA / "payloads" / f"{lang}.json"
        if not path.exists():
            continue
        for intent, texts in json.loads(path.read_text(encoding="utf-8")).items():
            own[f"own-{intent}"].extend(Payload(t, f"own-{intent}", lang, intent) for t in texts)
    fam.update(own)
    # The first held-out set: its misses drove the lexicon's second round, so it is tuning data now.
    second: list[Payload] = []
    for lang in LANGS:
        path = DATA / "payloads_b" / f"{lang}.json"
        if path.exists():
            for intent, texts in json.loads(path.read_text(encoding="utf-8")).items():
                second.extend(Payload(t, "own-b", lang, intent) for t in texts)
    if second:
        fam["own-b"] = second
    # Written after the lexicon's second round, never used to change it: the own payloads' hold-out.
    held: list[Payload] = []
    for lang in LANGS:
        path = DATA / "heldout" / f"{lang}.json"
        if path.exists():
            for intent, texts in json.loads(path.read_text(encoding="utf-8")).items():
                held.extend(Payload(t, "own-heldout", lang, intent) for t in texts)
    if held:
        fam["own-heldout"] = held
    fam["own-class"] = class_payloads()
    from bench.injection_families_extra import registry_families  # installed from a registry

    for name, rows in registry_families().items():
        fam[name] = [Payload(t, name, lang, intent) for t, lang, intent in rows]
    return fam


CLASS_INTENTS = {"steer": "steer_ai", "tool": "tool", "data": "exfiltration", "persona": "persona"}
# Template sets written from the class descriptions: family -> file under bench/data/injection.
# ``own-class`` is a family of the cases above; the others are training families only (the head's
# positives when bench/train_intent.py is asked for them), so adding one leaves the cases, their
# seeded draws and the cached scans as they were.
CLASS_SETS = {
    "own-class": "intent_classes.json",
    "own-class2": "intent_classes2.json",
    "own-class3": "intent_classes3.json",
}


def class_payloads(
    per_template: int = 2, seed: int = 13, *, family: str = "own-class"
) -> list[Payload]:
    """The ``own-class`` family (or another of `CLASS_SETS`): each template of its file filled
    `per_template` times with slot values drawn at random (seeded), in the order of the file."""
    spec = json.loads((DATA / CLASS_SETS[family]).read_text(encoding="utf-8"))
    slots: dict[str, list[str]] = spec["slots"]
    rng = random.Random(seed)
    out: list[Payload] = []
    rounds = [spec["templates"], spec.get("templates_more", {})]  # a later round draws after
    for lang, classes in ((lg, c) for r in rounds for lg, c in r.items()):
        for cls, templates in classes.items():
            for tpl in templates:
                for _ in range(per_template):
                    text = tpl.format(**{k: rng.choice(v) for k, v in slots.items()})
                    if all(text != p.text for p in out):
                        out.append(Payload(text, family, lang, CLASS_INTENTS[cls]))
    return out


def boundary_negatives(family: str = "own-class") -> list[tuple[str, str]]:
    """(text, language) of the boundary negatives of a `CLASS_SETS` file (intent_classes.json by
    default): imperatives a page addresses to people, in 20 languages (training negatives of the head)."""
    spec = json.loads((DATA / CLASS_SETS[family]).read_text(encoding="utf-8"))
    return [(t, lang) for lang, texts in spec["boundary"].items() for t in texts]


def load_hard_negatives(folder: str = "hard_negatives") -> list[tuple[str, str, str]]:
    """(text, language, category) for every hard negative under bench/data/injection/`folder`
    (one ``<lang>.json`` per language: category -> texts)."""
    out = []
    for path in sorted((DATA / folder).glob("*.json")):
        for cat, texts in json.loads(path.read_text(encoding="utf-8")).items():
            out.extend((t, path.stem, cat) for t in texts)
    return out


# ----------------------------------------------------------------------------------------------- cases


@dataclass(frozen=True, slots=True)
class Case:
    """A payload (index into the flat payload list, -1 for a negative) put into a host page."""

    payload: int
    technique: str  # a HIDDEN technique, or "visible"
    html: str


def _visible(p: str) -> str:
    return "<p>" + _esc(p).replace("\n", "<br>") + "</p>"


def build_cases(payloads: list[Payload], hosts: list[str], rng: random.Random) -> list[Case]:
    """Each payload once hidden (random technique) and once visible, each in a random host page."""
    cases = []
    for i, p in enumerate(payloads):
        tech = rng.choice(HIDDEN)
        cases.append(
            Case(i, tech, insert(hosts[rng.randrange(len(hosts))], TECHNIQUES[tech](p.text), rng))
        )
        cases.append(
            Case(i, "visible", insert(hosts[rng.randrange(len(hosts))], _visible(p.text), rng))
        )
    return cases


_LEXICAL = InjectionPolicy(semantic="off")


def _scan(html: str) -> list[dict]:
    """Lexical findings only: the packaged classifier was trained on every family, so it never
    scores a case here (``--semantic`` retrains it per fold instead)."""
    return scan_html(html, _LEXICAL).findings


# The scan's policy for --semantic (set by main before the workers fork: --max-chars, --max-tokens).
_ASK = InjectionPolicy(semantic="auto")


def _scan_asks(html: str) -> tuple[list[dict], list[tuple[str, float, str]]]:
    """Lexical findings and the passages the semantic layer would read (scan_html_asks)."""
    res, asked = scan_html_asks(html, _ASK)
    return res.findings, asked


def _with_model(
    lexical: float,
    asked: list[tuple[str, float, str]],
    prob: dict[str, float],
    thr: dict[str, float],
    *,
    hidden_only: bool,
    decides: Collection[str] = (),
) -> float:
    """A case's score once the fold's classifier read its passages (the scan's own combination),
    with the fold's threshold for the kind of place (covert, exposed, visible), deciding in the
    kinds `decides` names (`semantic.decision_floor`)."""
    from bench.train_intent import group_of

    pol = InjectionPolicy()
    best = lexical
    for text, lex, tech in asked:
        if hidden_only and tech == "visible":
            continue
        g = group_of(tech)
        floor = decision_floor(tech, covert=g == "covert", decides=decides, min_score=pol.min_score)
        s = combine(lex, prob[text], pol.semantic_weight, thr[g], floor)
        if s >= pol.min_score:
            best = max(best, s)
    return best


def _case_score(case: Case, findings: list[dict]) -> float:
    """Best score among the findings that count for the case (non-visible ones for a hidden payload)."""
    keep = [f for f in findings if case.technique == "visible" or f["technique"] != "visible"]
    return max((f["score"] for f in keep), default=0.0)


def _threshold(
    pos: list[float],
    real: list[float],
    hard: list[float],
    budget: float,
    hard_budget: float = 0.10,
) -> float:
    """The lowest score threshold (never below the policy's 0.5) whose false-positive rates stay
    within the issue's limits: `budget` of the real pages and `hard_budget` of the hard negatives.

    Candidates are the negatives' own scores: above the k-th highest (k = allowed false positives).
    """
    base = 0.5  # the policy default (injection.min_score)
    for neg, share in ((real, budget), (hard, hard_budget)):
        scores = sorted((s for s in neg if s > 0), reverse=True)
        k = int(share * len(neg))
        if len(scores) > k:
            base = max(base, scores[k] + 1e-6)
    # never tune below the default: a lower threshold would need its own FP measurement per page
    return min(base, max(pos, default=1.0))


def _rate(xs: list[bool]) -> str:
    return f"{sum(xs) / len(xs):.3f} ({sum(xs)}/{len(xs)})" if xs else "-"


def _semantic_folds(
    args: argparse.Namespace,
    cases: list[Case],
    scores: list[float],
    case_asks: list[list[tuple[str, float, str]]],
    real: list[list[dict]],
    real_asks: list[list[tuple[str, float, str]]],
    hard_scores: list[float],
    hard_asks: list[list[tuple[str, float, str]]],
    tech: list[list[dict]],
    tech_asks: list[list[tuple[str, float, str]]],
) -> Callable[[str], tuple[list[float], list[float], list[float]]]:
    """Embed once what every fold needs; return fold(family) -> (case scores, real-page scores,
    hard-negative scores) with a classifier trained without `family` (bench/train_intent.fit_fold:
    its positives and their variants from the other families, its C chosen among them, its
    negatives and thresholds from the training half of the real pages and the hard negatives —
    so the hard negatives' figure is in-sample here; bench/injection_blind.py counts unseen ones)."""
    from bench.train_intent import fit_fold, kept, lexical_columns, represent, training_data

    extra = [x for x in args.extra.split(",") if x]
    data = training_data(
        args.corpora,
        args.seed,
        cache=args.cache,
        extra=extra,
        extra_boundary=args.extra_boundary,
        draws=args.draws,
        techdocs=args.techdocs,
        hard_sets=args.hard_sets,
        hard2_weight=args.hard2_weight,
    )
    asked = sorted(
        {
            t
            for group in (case_asks, real_asks, hard_asks, tech_asks)
            for a in group
            for t, _, _ in a
        }
    )
    print(
        f"semantic: embedding {len(data.pos)} positives (with variants), {len(data.neg)} negative "
        f"passages, {len(asked)} asked passages",
        flush=True,
    )
    xp = represent(data.pos, args.cache, args.repr, args.lex_scale)
    xn = represent(data.neg, args.cache, args.repr, args.lex_scale)
    xa = represent(asked, args.cache, args.repr, args.lex_scale) if asked else xp[:0]
    real_lex = [max((f["score"] for f in fs), default=0.0) for fs in real]
    tech_lex = [max((f["score"] for f in fs), default=0.0) for fs in tech]

    def fold(fam: str) -> tuple[list[float], list[float], list[float]]:
        keep = kept(data.pos_family, fam)
        blind = not args.language_aware
        head = fit_fold(
            xp,
            data.pos_family,
            keep,
            xn,
            data,
            args.seed,
            kind=args.head,
            language_blind=blind,
            rule=args.thresholds,
            decides=[x for x in args.decides.split(",") if x],
            lexical=lexical_columns(args.repr),
        )
        probs = dict(zip(asked, head.proba(xa).tolist(), strict=True))
        th = head.thresholds
        LAST_FOLD.update(
            probs=probs, thr=th["covert"], c=head.c, thresholds=th, decides=head.decides
        )
        cs = [
            _with_model(s, a, probs, th, hidden_only=c.technique != "visible", decides=head.decides)
            for c, s, a in zip(cases, scores, case_asks, strict=True)
        ]
        rs = [
            _with_model(s, a, probs, th, hidden_only=False, decides=head.decides)
            for s, a in zip(real_lex, real_asks, strict=True)
        ]
        hs = [
            _with_model(s, a, probs, th, hidden_only=False, decides=head.decides)
            for s, a in zip(hard_scores, hard_asks, strict=True)
        ]
        LAST_FOLD["tech"] = [
            _with_model(s, a, probs, th, hidden_only=False, decides=head.decides)
            for s, a in zip(tech_lex, tech_asks, strict=True)
        ]
        return cs, rs, hs

    return fold


# The last fold's passage probabilities and hidden threshold (for --diagnose).
LAST_FOLD: dict[str, object] = {}


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def _threshold_bound(
    asked: list[tuple[str, float, str]],
    probs: dict[str, float],
    thr: dict[str, float],
    decides: Collection[str] = (),
) -> bool:
    """Whether a missed hidden payload's passage would have been a finding had the fold's threshold
    for its kind of place been 0.5: its probability is below that threshold but reaches what its
    location's prior needs (`combine` by noisy-or up to ``min_score``, or the floor where the fold's
    threshold decides, `decides`). ``--diagnose`` reports these as ``asked<thr``; the other
    ``asked`` misses score too low for any threshold."""
    from bench.train_intent import group_of

    pol = InjectionPolicy()
    for text, lex, tech in asked:
        if tech == "visible":
            continue
        p = probs[text]
        g = group_of(tech)
        floor = decision_floor(tech, covert=g == "covert", decides=decides, min_score=pol.min_score)
        if p < thr[g] and combine(lex, p, pol.semantic_weight, 0.5, floor) >= pol.min_score:
            return True
    return False


def _of_payload(text: str, body: str) -> bool:
    """Whether an asked passage `text` is (the opening of) the payload whose `_key` is `body`."""
    k = _key(text)
    return k[:40] in body or body[:40] in k


def by_host(
    p: Payload,
    lexical: float,
    asked: list[tuple[str, float, str]],
    probs: dict[str, float],
    thr: dict[str, float],
    cutoff: float,
    *,
    hidden_only: bool,
    decides: Collection[str] = (),
) -> bool:
    """Whether a case caught at `cutoff` owes it only to its host page's own passages: neither its
    lexical score nor a passage of the payload (matched as in `miss_reason`) reaches `cutoff` with
    the fold's model. Why: a fold's head can flag a host's own hidden passage, and so every case
    put into that host; ``--diagnose`` counts such catches (``via host``), which are no recall."""
    if lexical >= cutoff:
        return False
    mine = [a for a in asked if _of_payload(a[0], _key(p.text))]
    return _with_model(0.0, mine, probs, thr, hidden_only=hidden_only, decides=decides) < cutoff


def miss_reason(
    p: Payload, technique: str, asked: list[tuple[str, float, str]], html: str = ""
) -> str:
    """Why a hidden payload was missed: ``asked`` (the model read it and scored it below the
    threshold) or what kept it from the model, by the scan's own gate (`injection._shape_ask` on the
    payload alone): ``capped`` (the gate takes it alone: the page's other passages took the per-page
    budget, or it sits in a series of blocks hidden alike); ``not-prose`` (its opening is not a
    sentence); ``script`` (a script literal that is not a request to a model); ``not-request``
    (comments, attributes, meta…: not a request in the directive mood addressed to a model, the user
    or naming where to send); ``no-reader-word`` (hidden on purpose or in aria-hidden/noscript, but
    neither directive nor addressed to its reader nor naming the user or the reader's answer);
    ``host-markup`` (the insertion point fell inside the host page's own comment, template or
    script, so the payload is read as that place: a template is form UI, never asked)."""
    from trustaudit.injection import _QUIET, _shape_ask, _Shown
    from trustaudit.injection.semantic import prose_head

    body = _key(p.text)
    for text, _, tech in asked:
        if tech != "visible" and _of_payload(text, body):
            return "asked"
    if _shape_ask(p.text, technique, _ASK, _Shown(""), prose_head, every=False) is not None:
        if html:
            from trustaudit.injection.html_scan import collect_segments

            probe = p.text[:15]
            places = {s.technique for s in collect_segments(html)[0] if probe in s.text}
            if places and technique not in places:
                return "host-markup"
        return "capped"
    if technique in {"script", "form_ui"}:
        return "script"
    if not prose_head(p.text, _ASK.semantic_max_chars, min_words=5):
        return "not-prose"
    if technique in COVERT or technique in _QUIET:
        return "no-reader-word"
    return "not-request"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--hosts", type=int, default=40)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fp-budget", type=float, default=0.01, help="FP rate allowed on real pages")
    ap.add_argument("--show-misses", type=int, default=0, help="print N missed payloads per family")
    ap.add_argument("--families", default="", help="comma-separated subset of families")
    ap.add_argument(
        "--semantic",
        action="store_true",
        help="add the semantic layer, its classifier retrained per fold without the left-out family",
    )
    ap.add_argument(
        "--cache",
        type=Path,
        help="cache stem (e.g. /tmp/emb/lofo): embeddings, and scans keyed on the scanner's code",
    )
    ap.add_argument(
        "--max-chars",
        type=int,
        default=InjectionPolicy().semantic_max_chars,
        help="--semantic: injection.semantic_max_chars of the scan (characters the model reads)",
    )
    ap.add_argument(
        "--max-tokens",
        type=int,
        default=InjectionPolicy().semantic_max_tokens,
        help="--semantic: injection.semantic_max_tokens of the scan (model tokens per page)",
    )
    ap.add_argument(
        "--diagnose",
        action="store_true",
        help="with --semantic: per family, why held-out hidden payloads were missed",
    )
    ap.add_argument(
        "--head", default=None, help="with --semantic: the head's shape (bench/train_intent.HEADS)"
    )
    ap.add_argument(
        "--language-aware",
        action="store_true",
        help="with --semantic: let the head use the language directions (train_intent.fit_fold)",
    )
    ap.add_argument(
        "--extra",
        default=None,
        help="with --semantic: training-only template families (CLASS_SETS; default train_intent.EXTRA; '' none)",
    )
    ap.add_argument(
        "--extra-boundary",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --extra: its families' boundary negatives too (default train_intent.EXTRA_BOUNDARY)",
    )
    ap.add_argument(
        "--draws",
        choices=("sequential", "keyed"),
        default="sequential",
        help="with --semantic: the training set's seeded draws (train_intent.DRAWS); 'keyed' to "
        "compare two revisions of the gate (a training row more or less moves no other)",
    )
    ap.add_argument(
        "--thresholds",
        default=None,
        help="with --semantic: how each kind's threshold is read (train_intent.THRESHOLD_RULES; "
        "default train_intent.THRESHOLD_RULE)",
    )
    ap.add_argument(
        "--decides",
        default=None,
        help="with --semantic: comma-separated kinds of place whose threshold decides "
        "(train_intent.DECIDES: covert, exposed; '' none)",
    )
    ap.add_argument(
        "--techdocs",
        default=None,
        help="with --semantic: how documentation pages join the head's training "
        "(train_intent.TECH_MODES; default train_intent.TECH_MODE)",
    )
    from bench.train_intent import add_hard_set_options, add_input_options

    add_hard_set_options(ap, "with --semantic: ")
    add_input_options(ap, "with --semantic: ")
    ap.add_argument(
        "--folds",
        default="",
        help="comma-separated families to hold out (default: every family; for quick comparisons)",
    )
    ap.add_argument(
        "--exclude-hosts",
        default="",
        help="comma-separated parts of page paths never drawn as hosts: an A/B of two trees whose "
        "own findings on the real pages differ draws from the same pages only with these excluded "
        "(the hosts are drawn from the pages without a finding)",
    )
    args = ap.parse_args(argv)
    if args.head is None:
        from bench.train_intent import HEAD

        args.head = HEAD
    if args.thresholds is None:
        from bench.train_intent import THRESHOLD_RULE

        args.thresholds = THRESHOLD_RULE
    if args.decides is None:
        from bench.train_intent import DECIDES

        args.decides = ",".join(DECIDES)
    if args.extra is None:
        from bench.train_intent import EXTRA

        args.extra = ",".join(EXTRA)
    if args.extra_boundary is None:
        from bench.train_intent import EXTRA_BOUNDARY

        args.extra_boundary = EXTRA_BOUNDARY
    if args.techdocs is None:
        from bench.train_intent import TECH_MODE

        args.techdocs = TECH_MODE
    global _ASK
    _ASK = InjectionPolicy(
        semantic="auto", semantic_max_chars=args.max_chars, semantic_max_tokens=args.max_tokens
    )
    rng = random.Random(args.seed)

    fams = load_families(args.corpora)
    if args.families:
        fams = {k: v for k, v in fams.items() if k in args.families.split(",")}
    payloads = [p for ps in fams.values() for p in ps]
    paths = clean_page_paths(args.corpora)
    pages = [read_gz(p) for p in paths]
    pool = ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("fork"))

    scan = _scan_asks if args.semantic else _scan
    from bench.train_intent import memo, scan_key, techdoc_paths

    key = scan_key(args.semantic, args.max_chars, args.max_tokens, args.hosts, args.seed, payloads)
    real_asks: list[list[tuple[str, float, str]]] = []
    real = memo(args.cache, "real", key, lambda: list(pool.map(scan, pages, chunksize=8)))
    # documentation pages (bench/data/techdocs): a second kind of real page, reported apart
    tech_paths = techdoc_paths()
    tech_pages = [read_gz(p) for p in tech_paths]
    tech = memo(
        args.cache,
        "tech",
        scan_key(key, [p.name for p in tech_paths]),
        lambda: list(pool.map(scan, tech_pages, chunksize=8)),
    )
    tech_asks: list[list[tuple[str, float, str]]] = []
    if args.semantic:
        real_asks = [a for _, a in real]  # type: ignore[misc]
        real = [f for f, _ in real]  # type: ignore[misc]
        tech_asks = [a for _, a in tech]  # type: ignore[misc]
        tech = [f for f, _ in tech]  # type: ignore[misc]
    real_scores = [max((f["score"] for f in fs), default=0.0) for fs in real]
    fp_pages = [str(p) for p, fs in zip(paths, real, strict=True) if fs]
    skip = [x for x in args.exclude_hosts.split(",") if x]
    quiet = [
        i
        for i, fs in enumerate(real)
        if not fs and len(pages[i]) > 4000 and not any(x in str(paths[i]) for x in skip)
    ]
    hosts = [pages[i] for i in rng.sample(quiet, min(args.hosts, len(quiet)))]

    cases = build_cases(payloads, hosts, rng)
    found = memo(
        args.cache,
        "cases",
        key,
        lambda: list(pool.map(scan, [c.html for c in cases], chunksize=16)),
    )
    hard = load_hard_negatives()
    hard_cases = [insert(hosts[rng.randrange(len(hosts))], _visible(t), rng) for t, _, _ in hard]
    hard_found = memo(
        args.cache,
        "hard",
        scan_key(key, hard),
        lambda: list(pool.map(scan, hard_cases, chunksize=16)),
    )
    pool.shutdown()
    case_asks: list[list[tuple[str, float, str]]] = []
    hard_asks: list[list[tuple[str, float, str]]] = []
    if args.semantic:
        case_asks = [a for _, a in found]  # type: ignore[misc]
        found = [f for f, _ in found]  # type: ignore[misc]
        hard_asks = [a for _, a in hard_found]  # type: ignore[misc]
        hard_found = [f for f, _ in hard_found]  # type: ignore[misc]
    hard_scores = [max((f["score"] for f in fs), default=0.0) for fs in hard_found]
    scores = [_case_score(c, f) for c, f in zip(cases, found, strict=True)]
    fold_scores: Callable[[str], tuple[list[float], list[float], list[float]]] | None = None
    if args.semantic:
        fold_scores = _semantic_folds(
            args,
            cases,
            scores,
            case_asks,
            real,
            real_asks,
            hard_scores,
            hard_asks,
            tech,
            tech_asks,
        )

    # Leave-one-family-out: the threshold is fitted on the other families and the negatives.
    print(
        f"payloads: {len(payloads)} in {len(fams)} families; cases: {len(cases)} "
        f"(each payload hidden once and visible once) in {len(hosts)} real host pages"
    )
    real_f, hard_f = real_scores, hard_scores
    fold_fp: list[tuple[str, float, float, float]] = []
    fold_tech: list[tuple[str, float, float]] = []
    from bench.train_intent import page_split

    _, test_pages = page_split(len(paths), args.seed)
    _, tech_test = page_split(len(tech_paths), args.seed)
    head = f"{'family':22s} {'n':>4s} {'thr':>6s} {'tune recall':>12s} {'held-out hidden':>16s} {'held-out visible':>17s}"
    print("\n" + head + "\n" + "-" * len(head))
    caught = [False] * len(cases)
    # --diagnose: held-out hidden misses by hiding technique and reason, and the fold's p of the asked
    tech_why: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    tech_p: dict[str, list[float]] = defaultdict(list)
    lexical_scores = scores
    for fam in fams:
        if args.folds and fam not in args.folds.split(","):
            continue
        if fold_scores is not None:
            scores, real_f, hard_f = fold_scores(fam)
        tune = [s for c, s in zip(cases, scores, strict=True) if payloads[c.payload].family != fam]
        thr = _threshold(tune, real_f, hard_f, args.fp_budget)
        if fold_scores is not None:
            fold_fp.append(
                (
                    fam,
                    sum(x >= thr for x in real_f) / len(real_f),
                    sum(real_f[i] >= thr for i in test_pages) / len(test_pages),
                    sum(x >= thr for x in hard_f) / max(1, len(hard_f)),
                )
            )
            tech_f = LAST_FOLD["tech"]
            assert isinstance(tech_f, list)
            fold_tech.append(
                (
                    fam,
                    sum(x >= thr for x in tech_f) / max(1, len(tech_f)),
                    sum(tech_f[i] >= thr for i in tech_test) / max(1, len(tech_test)),
                )
            )
        tune_rec = sum(s >= thr for s in tune) / max(1, len(tune))
        hid, vis = [], []
        for k, (c, s) in enumerate(zip(cases, scores, strict=True)):
            if payloads[c.payload].family != fam:
                continue
            caught[k] = s >= thr
            (vis if c.technique == "visible" else hid).append(caught[k])
        print(
            f"{fam:22s} {len(hid):4d} {thr:6.3f} {tune_rec:12.3f} {_rate(hid):>16s} {_rate(vis):>17s}"
        )
        if args.diagnose and fold_scores is not None:
            why: dict[str, int] = defaultdict(int)
            below: list[float] = []
            probs = LAST_FOLD["probs"]
            assert isinstance(probs, dict)
            for k, c in enumerate(cases):
                p = payloads[c.payload]
                if p.family != fam or c.technique == "visible" or caught[k]:
                    continue
                r = miss_reason(p, c.technique, case_asks[k], c.html)
                if r == "asked":
                    below.append(max(probs[t] for t, _, tt in case_asks[k] if tt != "visible"))
                    tech_p[c.technique].append(below[-1])
                    if _threshold_bound(
                        case_asks[k],
                        probs,
                        LAST_FOLD["thresholds"],  # type: ignore[arg-type]
                        LAST_FOLD["decides"],  # type: ignore[arg-type]
                    ):
                        r = "asked<thr"
                why[r] += 1
                tech_why[c.technique][r] += 1
            med = f" p median {sorted(below)[len(below) // 2]:.2f}" if below else ""
            host = [0, 0]  # hidden, visible cases of the family caught only through their host
            for k, c in enumerate(cases):
                p = payloads[c.payload]
                if p.family == fam and caught[k]:
                    vis = c.technique == "visible"
                    th = LAST_FOLD["thresholds"]
                    assert isinstance(th, dict)
                    if by_host(
                        p,
                        lexical_scores[k],
                        case_asks[k],
                        probs,
                        th,
                        thr,
                        hidden_only=not vis,
                        decides=LAST_FOLD["decides"],  # type: ignore[arg-type]
                    ):
                        host[vis] += 1
            print(
                f"   via host: hidden {host[0]}, visible {host[1]}; "
                f"misses: {dict(sorted(why.items()))}{med} "
                f"(fold C {LAST_FOLD['c']}, covert thr {LAST_FOLD['thr']:.3f}; "
                + ", ".join(f"{g} {v:.3f}" for g, v in LAST_FOLD["thresholds"].items())  # type: ignore[attr-defined]
                + ")"
            )

    def table(title: str, key: Callable[[Payload], str], order: Iterable[str]) -> None:
        cells: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
        for c, ok in zip(cases, caught, strict=True):
            p = payloads[c.payload]
            cells[key(p)]["visible" if c.technique == "visible" else "hidden"].append(ok)
        print(f"\n{title:14s} {'hidden':>16s} {'visible':>16s} {'both':>16s}")
        for k in order:
            if k in cells:
                h, v = cells[k]["hidden"], cells[k]["visible"]
                print(f"{k:14s} {_rate(h):>16s} {_rate(v):>16s} {_rate(h + v):>16s}")

    own = [p for p in payloads if p.family.startswith("own-")]
    if own:
        held = lambda p: p.family == "own-heldout"  # noqa: E731
        skip = {"own-heldout", "own-b", "own-class"}
        mine = lambda p: p.family.startswith("own-") and p.family not in skip  # noqa: E731
        table("lang (own)", lambda p: p.lang if mine(p) else "-", LANGS)
        table("intent (own)", lambda p: p.intent if mine(p) else "-", INTENTS)
        cls = lambda p: p.family == "own-class"  # noqa: E731
        table("lang (class)", lambda p: p.lang if cls(p) else "-", LANGS)
        table("intent (class)", lambda p: p.intent if cls(p) else "-", INTENTS)
        table("lang (held)", lambda p: p.lang if held(p) else "-", LANGS)
        table("intent (held)", lambda p: p.intent if held(p) else "-", INTENTS)
    by_tech: dict[str, list[bool]] = defaultdict(list)
    for c, ok in zip(cases, caught, strict=True):
        by_tech[c.technique].append(ok)
    print("\ntechnique      held-out recall")
    for t in (*HIDDEN, "visible"):
        extra = ""
        if tech_why.get(t):
            ps = sorted(tech_p[t])
            med = f" p median {ps[len(ps) // 2]:.2f}" if ps else ""
            extra = f"   misses: {dict(sorted(tech_why[t].items()))}{med}"
        print(f"{t:18s} {_rate(by_tech[t])}{extra}")

    if fold_fp:
        print(
            "\nFP per fold (semantic, classifier without the family): all real pages, the test half "
            "(pages no fold trained on), hard negatives"
        )
        for fam, fr, ft, fh in fold_fp:
            print(f"   {fam:22s} {fr:.4f} {ft:.4f} {fh:.3f}")
    if fold_tech:
        print(
            f"\nFP per fold, documentation pages ({len(tech_paths)}, bench/data/techdocs): all, "
            "the test half (pages no head trained on, whatever --techdocs)"
        )
        for fam, fa, ft in fold_tech:
            print(f"   {fam:22s} {fa:.4f} {ft:.4f}")
    print(f"\nFP documentation pages (lexical): {_rate([bool(fs) for fs in tech])}")
    print(f"\nFP real pages (lexical): {_rate([bool(fs) for fs in real])}")
    for p in fp_pages:
        print(f"   FP {p}")
    print(f"FP hard negatives: {_rate([s >= 0.5 for s in hard_scores])}")
    by_cat: dict[str, list[bool]] = defaultdict(list)
    for (t, lang, cat), s in zip(hard, hard_scores, strict=True):
        by_cat[cat].append(s >= 0.5)
        if s >= 0.5 and args.show_misses:
            print(f"   FP hard [{lang}/{cat}] {t[:110]}")
    for cat, v in sorted(by_cat.items()):
        print(f"   {cat:20s} {_rate(v)}")
    if args.show_misses:
        shown: dict[str, int] = defaultdict(int)
        for c, ok in zip(cases, caught, strict=True):
            p = payloads[c.payload]
            if not ok and shown[p.family] < args.show_misses:
                shown[p.family] += 1
                print(f"   MISS {p.family}/{p.lang}/{c.technique}: {p.text[:110]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
