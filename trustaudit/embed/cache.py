"""Paragraph-hash embedding cache on disk: a re-run recomputes nothing it has seen.

Layout: `<root>/embeddings/<model name>/part-<pid>-<n>.npz`, each holding `keys` (sha1 of the text,
20 bytes each) and `vecs` (float16). New vectors are appended as a new part written atomically, so
concurrent processes never corrupt each other (at worst both compute the same paragraph once).
Parts are merged into one when more than `compact_at` exist.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from trustaudit.embed.base import Embedder, l2_normalize

__all__ = ["CachedEmbedder", "text_key"]


def text_key(text: str) -> bytes:
    """sha1 of the exact text; the model name is part of the folder, so keys are per model."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


class CachedEmbedder:
    """Wraps an embedder: dedupes texts inside a call, serves seen texts from memory/disk.

    Given a `factory` instead of a model, the model is built only when a text misses the cache, so
    a re-run over unchanged pages never pays the model load (most of a small re-run's time).
    """

    def __init__(
        self,
        inner: Embedder | None,
        folder: Path | None,
        *,
        compact_at: int = 64,
        factory: Callable[[], Embedder] | None = None,
        name: str | None = None,
    ) -> None:
        if inner is None and (factory is None or name is None):
            raise ValueError("CachedEmbedder needs a model, or a factory and the model's name")
        self._inner = inner
        self._factory = factory
        self.name = inner.name if inner is not None else str(name)
        self._dim = inner.dim if inner is not None else None
        self.folder = folder
        self.compact_at = compact_at
        self._mem: dict[bytes, np.ndarray] = {}
        self._loaded = False
        self.hits = 0
        self.misses = 0

    @property
    def inner(self) -> Embedder:
        """The wrapped model, built on first use when a factory was given."""
        if self._inner is None:
            assert self._factory is not None
            self._inner = self._factory()
            self._dim = self._inner.dim
        return self._inner

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self.inner.dim
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:  # the Embedder protocol declares a plain attribute
        self._dim = value

    def _load(self) -> None:
        self._loaded = True
        if self.folder is None or not self.folder.is_dir():
            return
        parts = sorted(self.folder.glob("part-*.npz"))
        for part in parts:
            try:
                with np.load(part) as z:
                    keys, vecs = z["keys"], z["vecs"]
            except (OSError, ValueError, KeyError, EOFError):
                continue  # a foreign or damaged part: recompute rather than fail the run
            if vecs.ndim != 2 or (self._dim is not None and vecs.shape[1] != self._dim):
                continue  # a vector of another width cannot come from this model
            if self._dim is None:
                self._dim = int(vecs.shape[1])
            # numpy's S20 drops trailing NUL bytes: pad back, or 1 key in 256 never hits again
            for k, v in zip(keys.tolist(), vecs, strict=True):
                self._mem[k.ljust(20, b"\0")] = v
        if len(parts) > self.compact_at:
            self._compact(parts)

    def _write(self, keys: list[bytes], vecs: np.ndarray) -> Path | None:
        if self.folder is None or not keys:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / f"part-{os.getpid()}-{uuid.uuid4().hex[:12]}.npz"
        tmp = self.folder / f".tmp-{target.name}"
        with open(tmp, "wb") as fh:
            np.savez(fh, keys=np.array(keys, dtype="S20"), vecs=vecs.astype(np.float16))
        os.replace(tmp, target)
        return target

    def _compact(self, parts: list[Path]) -> None:
        keys = list(self._mem)
        if self._write(keys, np.stack([self._mem[k] for k in keys])) is None:
            return
        for p in parts:
            p.unlink(missing_ok=True)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Same contract as the wrapped embedder; vectors are stored at float16 precision."""
        if not self._loaded:
            self._load()
        keys = [text_key(t) for t in texts]
        todo: dict[bytes, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in self._mem and k not in todo:
                todo[k] = t
        self.misses += len(todo)
        self.hits += len(texts) - len(todo)
        if todo:
            new = self.inner.encode(list(todo.values())).astype(np.float16)
            new_keys = list(todo)
            for k, v in zip(new_keys, new, strict=True):
                self._mem[k] = v
            self._write(new_keys, new)
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        # float16 round-trip changes norms by ~1e-3: renormalise so cosines stay exact dot products.
        return l2_normalize(np.stack([self._mem[k] for k in keys]).astype(np.float32))
