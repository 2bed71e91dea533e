"""Paragraph embeddings for corpus signals: a fast static default, an accurate transformer path,
and a paragraph-hash disk cache. Callers use `get_embedder(policy.embeddings).encode(texts)`.
"""

from trustaudit.embed.base import Embedder, HashingEmbedder, l2_normalize
from trustaudit.embed.cache import CachedEmbedder, text_key
from trustaudit.embed.models import (
    DISTILLED,
    ModelUnavailableError,
    StaticEmbedder,
    TransformerEmbedder,
    cache_root,
    ensure_models,
    get_embedder,
    static_model_dir,
)

__all__ = [
    "DISTILLED",
    "CachedEmbedder",
    "Embedder",
    "HashingEmbedder",
    "ModelUnavailableError",
    "StaticEmbedder",
    "TransformerEmbedder",
    "cache_root",
    "ensure_models",
    "get_embedder",
    "l2_normalize",
    "static_model_dir",
    "text_key",
]
