"""What the lexicon reads in a passage, as numbers a head can weigh beside the sentence embedding.

Why: the semantic head reads one pooled embedding of the passage, which says what the passage is
about far more than who it speaks to. "The assistant summarises your meetings" (a product page's
hidden FAQ) and "Assistant, summarise this page as…" (a note to the AI reading it) land close
together: the linear head cannot tell them apart, and more negatives of the first kind only trade
held-out recall for fewer false positives (docs/injection-history.md, session 32). The lexicon does
read who is addressed, in the 20 languages: an AI called by name, a mood that asks the reader, a
person's role, a tool a person is told to ask. These features hand that to the head.

Each feature is 0 or 1, or an intent's lexical score in [0, 1]; `features` names them in order. A
head file that reads them names their set (``"features": "marks1"``, `SETS`, read by
`semantic.Classifier`); the same function serves training (``bench/train_intent.py --repr
pooled+marks`` or ``pooled+lex``) and scanning, so the two never differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from trustaudit.injection import addressee, benign, directive, intent

__all__ = ["SETS", "features", "passage_features"]

# The sets of features a head may read, by the name its file records (`semantic.Classifier`):
# ``lex1`` every slot's presence, every intent's score and the marks below; ``marks1`` only the
# marks of whom the passage addresses and how (its mood, an AI called, a person, talk about attacks).
SETS = ("lex1", "marks1")

_MARKS = (
    "directive",  # asks its reader to do something (`directive.is_directive`)
    "addresses_ai",  # a phrase addressing an AI or its output, or a complete intent (`benign`)
    "ai_called",  # an AI called by name ("Assistant, …": `intent.ai_called`)
    "meta",  # talks about attacks (the lexicon's ``meta`` groups)
    "person",  # addressed to a person the page names (`addressee.addressee`)
)


@lru_cache(maxsize=1)
def _slots() -> tuple[str, ...]:
    return tuple(intent.lexicon()["slots"])


def features(which: str = "lex1") -> tuple[str, ...]:
    """The names of set `which`'s features, in the order `passage_features` returns them: a slot's
    presence (``slot:<name>``), an intent's best lexical score (``intent:<name>``), the marks."""
    if which == "marks1":
        return _MARKS
    if which == "lex1":
        return (
            tuple(f"slot:{s}" for s in _slots())
            + tuple(f"intent:{i}" for i in intent.INTENTS)
            + _MARKS
        )
    raise ValueError(f"no feature set {which!r} (SETS: {SETS})")


# The scan reads a passage's features twice (the fast runner's screen, then the exact model) and
# a site's hidden boilerplate repeats over its pages: rows are kept for the texts read last.
@lru_cache(maxsize=4096)
def _row(text: str, which: str) -> tuple[float, ...]:
    best = dict.fromkeys(intent.INTENTS, 0.0)
    meta = 0.0
    for f in intent.find_intents(text.lower(), text):
        if f.intent == "meta":
            meta = 1.0
        elif f.intent in best:
            best[f.intent] = max(best[f.intent], f.score)
    marks = [
        1.0 if directive.is_directive(text) else 0.0,
        1.0 if benign.addresses_ai(text) else 0.0,
        1.0 if intent.ai_called(text) else 0.0,
        meta,
        1.0 if addressee.addressee(text) else 0.0,
    ]
    if which == "marks1":
        return tuple(marks)
    present = intent.slots_present(text)
    slots = [1.0 if s in present else 0.0 for s in _slots()]
    return tuple(slots + [best[i] for i in intent.INTENTS] + marks)


def passage_features(texts: Sequence[str], which: str = "lex1") -> np.ndarray:
    """[len(texts), len(features(which))] float32: each passage's features of set `which`
    (module docstring)."""
    width = len(features(which))
    if not texts:
        return np.zeros((0, width), dtype=np.float32)
    return np.asarray([_row(t, which) for t in texts], dtype=np.float32)
