"""Token-level representations of a passage for the semantic head (issue 13, fourth round).

Why: the shipped head reads one vector per passage, the mean of the last layer's token states. An
instruction aimed at an AI that sits inside ordinary prose (a wrapper, a quote, two page sentences
around it) is diluted by that mean; held-out payloads the scan reads score 0.36–0.66 against
thresholds of 0.94–0.97. These representations keep more of the tokens: their maximum, the middle
layers, or windows of a few tokens scored one by one (a multiple-instance head: a passage is as
suspicious as its most suspicious window). ``bench/train_intent.py --repr`` measures them with the
shipped protocol (docs/injection-history.md, "Fourth round: token-level features"): none beat the pooled
vector beyond the torch runner's own noise, so the scanner does not use them.

Pure numpy on the states of ``encoder.Encoder.token_states``; no state, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["LAYERS", "REPRS", "STRIDE", "WINDOW", "Summary", "features", "summarise", "vector"]

# Layers kept (1-based; 12 is the last, the one the shipped embedding mean-pools).
LAYERS = (8, 9, 10, 11, 12)
# Multiple-instance windows: WINDOW tokens every STRIDE tokens of the last layer (a passage of 400
# characters is ≈100 tokens: ≤ 12 windows; most asked passages are one or two windows).
WINDOW, STRIDE = 16, 8
# Representations: `mean` the last layer's mean (the shipped vector, from the torch runner),
# `meanmax` [mean; max over tokens], `layers` the mean of layers 8–12's means, `mil` the windows.
REPRS = ("pooled", "mean", "meanmax", "layers", "mil")


@dataclass(frozen=True, slots=True)
class Summary:
    """What the representations need of one passage's token states (small enough to cache)."""

    means: np.ndarray  # [len(LAYERS), H] float32: each layer's mean over the tokens
    top: np.ndarray  # [H] float32: the last layer's maximum over the tokens
    windows: np.ndarray  # [W, H] float32: L2-normalised means of the last layer's windows


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.maximum(n, 1e-12)).astype(np.float32)


def summarise(states: np.ndarray) -> Summary:
    """The summary of `states` [len(LAYERS), tokens, H] (``Encoder.token_states(text, LAYERS)``)."""
    last = states[-1]
    n = last.shape[0]
    starts = range(0, max(1, n - WINDOW + STRIDE), STRIDE)
    win = np.stack([last[a : a + WINDOW].mean(axis=0) for a in starts])
    return Summary(states.mean(axis=1).astype(np.float32), last.max(axis=0), _unit(win))


def vector(s: Summary, repr_: str) -> np.ndarray:
    """One passage's fixed-size feature vector for `repr_` (each part L2-normalised, so one C fits
    the parts alike); `mil` has no fixed vector: its bag is ``s.windows``."""
    if repr_ == "mean":
        return _unit(s.means[-1])
    if repr_ == "meanmax":
        return np.concatenate([_unit(s.means[-1]), _unit(s.top)])
    if repr_ == "layers":
        return _unit(_unit(s.means).mean(axis=0))
    raise ValueError(f"no fixed vector for {repr_!r}")


def features(summaries: Sequence[Summary], repr_: str) -> np.ndarray:
    """Rows of `vector`, or for `mil` an object array of window bags (the heads score each window
    and keep the maximum: ``bench/train_intent.Head.proba``)."""
    if repr_ == "mil":
        out = np.empty(len(summaries), dtype=object)
        for i, s in enumerate(summaries):
            out[i] = s.windows
        return out
    return np.stack([vector(s, repr_) for s in summaries]).astype(np.float32)
