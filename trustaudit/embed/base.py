"""The `Embedder` protocol every embedding path implements, and a deterministic hashing embedder.

Signal code only needs `encode(texts) -> float32 [n, dim]` with L2-normalised rows, so the
static model, the transformer and the test embedder are interchangeable (injected, never imported
by signal modules).
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder", "HashingEmbedder", "l2_normalize"]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to unit vectors; cosine similarity is then a dot product."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array [len(texts), dim], rows L2-normalised (all-zero for empty text)."""
        ...


def l2_normalize(vecs: np.ndarray) -> np.ndarray:
    """Row-normalise to unit length in float32; zero rows stay zero (no NaN)."""
    vecs = np.asarray(vecs, dtype=np.float32)
    if vecs.ndim != 2:
        vecs = vecs.reshape(len(vecs), -1)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    np.maximum(norms, 1e-12, out=norms)
    return vecs / norms


_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Signed feature hashing of lower-cased words and word bigrams: deterministic, no model files.

    Exists so tests (ours and other engineers') never load or distill a model; similarity is lexical
    overlap, which is enough to tell a spun copy from an unrelated text. Selected by the model name
    `hashing-<dim>`.
    """

    def __init__(self, dim: int = 256, *, min_word_len: int = 1) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"
        # min_word_len 4 drops most function words, which otherwise dominate lexical overlap.
        self.min_word_len = min_word_len

    def _bucket(self, token: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
        return h % self.dim, 1.0 if (h >> 63) & 1 else -1.0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = [w for w in _WORD.findall(text.lower()) if len(w) >= self.min_word_len]
            feats = words + [a + " " + b for a, b in itertools.pairwise(words)]
            for tok in feats:
                j, s = self._bucket(tok)
                out[i, j] += s
        return l2_normalize(out)
