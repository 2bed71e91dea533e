"""Paragraph-hash embedding cache on disk: a re-run recomputes nothing it has seen.

Layout: `<root>/embeddings/<model name>/part-<pid>-<hex>.npy`, each one structured array of records
(`key`: sha1 of the text, 20 bytes; `vec`: float16) sorted by key. New vectors are appended as a new
part written atomically, so concurrent processes never corrupt each other (at worst both compute the
same paragraph once). Parts written by earlier versions (`part-*.npz`, `keys` + `vecs`) are still read.

Why this layout: a nightly run over millions of pages meets tens of millions of paragraphs, and a
cache that holds every vector in a Python dict costs ≈1 KB per paragraph in *every* worker. Here a
part is memory-mapped: a worker keeps only the sorted keys (20 bytes a paragraph) and reads the rows
its pages ask for, by binary search; the operating system shares the pages between workers.

When a folder holds more than `compact_at` parts, the smallest are merged into one (deduplicated,
sorted) until half as many remain, so the number of parts a lookup searches stays bounded and a merge
rewrites small parts, not the whole cache.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from trustaudit.embed.base import Embedder, l2_normalize

__all__ = ["CachedEmbedder", "text_key"]

_KEY = "S20"


def text_key(text: str) -> bytes:
    """sha1 of the exact text; the model name is part of the folder, so keys are per model."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


def _record(dim: int) -> np.dtype:
    return np.dtype([("key", _KEY), ("vec", "<f2", (dim,))])


@dataclass(slots=True, eq=False)
class _Part:
    """One sorted part: its keys in memory, its rows (memory-mapped when on disk)."""

    keys: np.ndarray  # S20, sorted, unique
    rows: np.ndarray  # structured: key, vec
    path: Path | None

    def find(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hit mask, row index) of each query key in this part."""
        if not len(self.keys):
            return np.zeros(len(q), dtype=bool), np.zeros(len(q), dtype=np.intp)
        pos = np.minimum(np.searchsorted(self.keys, q), len(self.keys) - 1)
        return self.keys[pos] == q, pos


def _sorted_rows(keys: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    """Records sorted by key, one per key (the first occurrence wins)."""
    keys = np.asarray(keys, dtype=_KEY)
    uniq, first = np.unique(keys, return_index=True)
    rows = np.empty(len(uniq), dtype=_record(int(vecs.shape[1])))
    rows["key"] = uniq
    rows["vec"] = np.asarray(vecs, dtype=np.float16)[first]
    return rows


def _read_part(path: Path) -> np.ndarray | None:
    """The records of one part, memory-mapped (`.npy`) or read (legacy `.npz`); None if damaged."""
    try:
        if path.suffix == ".npy":
            rows = np.load(path, mmap_mode="r", allow_pickle=False)
            names = rows.dtype.names or ()
            if rows.ndim != 1 or names != ("key", "vec") or rows.dtype["key"] != np.dtype(_KEY):
                return None
            return rows
        with np.load(path, allow_pickle=False) as z:
            keys, vecs = z["keys"], z["vecs"]
        if vecs.ndim != 2 or len(keys) != len(vecs):
            return None
        return _sorted_rows(keys, vecs)
    except (OSError, ValueError, KeyError, EOFError, TypeError):
        return None  # a foreign or damaged part: recompute rather than fail the run


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
        self.compact_at = max(2, compact_at)
        self._parts: list[_Part] = []
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

    def __len__(self) -> int:
        """Vectors held (a key in two parts counts twice until a merge)."""
        if not self._loaded:
            self._load()
        return sum(len(p.keys) for p in self._parts)

    def _load(self) -> None:
        self._loaded = True
        if self.folder is None or not self.folder.is_dir():
            return
        legacy: list[Path] = []
        for path in sorted(self.folder.glob("part-*.np[yz]")):
            rows = _read_part(path)
            if rows is None or not len(rows):
                continue
            width = int(rows.dtype["vec"].shape[0])
            if self._dim is not None and width != self._dim:
                continue  # a vector of another width cannot come from this model
            self._dim = width
            self._parts.append(_Part(np.array(rows["key"]), rows, path))
            if path.suffix == ".npz":
                legacy.append(path)
        if legacy:
            # rewrite earlier versions' parts once, so later runs memory-map them
            self._merge([p for p in self._parts if p.path in legacy])
        self._compact()

    def _write(self, rows: np.ndarray) -> _Part:
        """A new part from sorted records: on disk (atomically, then memory-mapped) or in memory."""
        if self.folder is None:
            return _Part(rows["key"].copy(), rows, None)
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / f"part-{os.getpid()}-{uuid.uuid4().hex[:12]}.npy"
        tmp = self.folder / f".tmp-{target.name}"
        with open(tmp, "wb") as fh:
            np.save(fh, rows, allow_pickle=False)
        os.replace(tmp, target)
        return _Part(rows["key"].copy(), np.load(target, mmap_mode="r"), target)

    def _merge(self, parts: list[_Part]) -> None:
        """Replace `parts` by one deduplicated sorted part (their files removed after it is written)."""
        if len(parts) < 2 and not any(
            p.path is not None and p.path.suffix == ".npz" for p in parts
        ):
            return
        keys = np.concatenate([p.keys for p in parts])
        vecs = np.concatenate([np.asarray(p.rows["vec"]) for p in parts])
        try:
            merged = self._write(_sorted_rows(keys, vecs))
        except OSError:
            return  # a read-only cache still serves its parts as they are
        for p in parts:
            if p.path is not None:
                p.path.unlink(missing_ok=True)
        self._parts = [p for p in self._parts if p not in parts] + [merged]

    def _compact(self) -> None:
        """Past `compact_at` parts, merge the smallest ones into one, down to half as many parts:
        a merge reads the small parts, never the bulk of a large cache."""
        if len(self._parts) <= self.compact_at:
            return
        by_size = sorted(self._parts, key=lambda p: len(p.keys))
        self._merge(by_size[: len(self._parts) - self.compact_at // 2 + 1])

    def _lookup(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found mask, float32 vectors) of the query keys across the parts."""
        found = np.zeros(len(q), dtype=bool)
        out = np.zeros((len(q), self._dim or 0), dtype=np.float32)
        for part in self._parts:
            if found.all():
                break
            hit, pos = part.find(q)
            hit &= ~found
            if hit.any():
                idx = np.flatnonzero(hit)
                order = np.argsort(pos[idx], kind="stable")  # read the mapped rows in file order
                out[idx[order]] = part.rows["vec"][pos[idx[order]]]
                found |= hit
        return found, out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Same contract as the wrapped embedder; vectors are stored at float16 precision."""
        if not self._loaded:
            self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [text_key(t) for t in texts]
        q = np.array(keys, dtype=_KEY)
        found, out = self._lookup(q) if self._parts else (np.zeros(len(q), dtype=bool), None)
        todo: dict[bytes, str] = {}
        for i in np.flatnonzero(~found).tolist():
            todo.setdefault(keys[i], texts[i])
        self.misses += len(todo)
        self.hits += len(texts) - len(todo)
        if todo:
            new = self.inner.encode(list(todo.values())).astype(np.float16)
            self._parts.append(self._write(_sorted_rows(np.array(list(todo), _KEY), new)))
            self._compact()
            found, out = self._lookup(q)
        assert out is not None
        # float16 round-trip changes norms by ~1e-3: renormalise so cosines stay exact dot products.
        return l2_normalize(out)
