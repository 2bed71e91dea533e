"""Embedder API: protocol, normalisation, disk-cache hits, model selection (never distils)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from trustaudit.embed import (
    CachedEmbedder,
    Embedder,
    HashingEmbedder,
    ModelUnavailableError,
    cache_root,
    get_embedder,
)
from trustaudit.policy.corpus import EmbeddingPolicy


class CountingEmbedder:
    """Counts texts actually computed, to prove cache hits compute nothing."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder(64)
        self.name = "counting-64"
        self.dim = 64
        self.computed = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.computed += len(texts)
        return self.inner.encode(texts)


def test_hashing_embedder_contract() -> None:
    emb = HashingEmbedder(128)
    assert isinstance(emb, Embedder)
    vecs = emb.encode(
        ["the cat sat on the mat", "the cat sat on a mat", "quarterly bank earnings", ""]
    )
    assert vecs.shape == (4, 128) and vecs.dtype == np.float32
    norms = np.linalg.norm(vecs, axis=1)
    assert np.allclose(norms[:3], 1.0, atol=1e-5) and norms[3] == 0.0
    sims = vecs @ vecs.T
    assert sims[0, 1] > 0.5 > sims[0, 2]
    assert np.array_equal(emb.encode(["the cat sat on the mat"])[0], vecs[0])  # deterministic
    assert emb.encode([]).shape == (0, 128)


def test_cache_hit_path_recomputes_nothing(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    texts = ["alpha beta gamma", "delta epsilon", "alpha beta gamma"]
    first = CachedEmbedder(inner, tmp_path / "c").encode(texts)
    assert inner.computed == 2  # duplicate inside one call is computed once
    # A new process-level wrapper reads the parts from disk: nothing is recomputed.
    again = CachedEmbedder(inner, tmp_path / "c")
    second = again.encode([*texts, "new text"])
    assert inner.computed == 3 and again.hits == 3 and again.misses == 1
    assert np.allclose(first, second[:3], atol=2e-3)  # float16 storage
    assert np.allclose(np.linalg.norm(second, axis=1), 1.0, atol=1e-5)


def test_model_is_built_only_when_a_text_misses_the_cache(tmp_path: Path) -> None:
    built: list[CountingEmbedder] = []

    def factory() -> CountingEmbedder:
        built.append(CountingEmbedder())
        return built[-1]

    CachedEmbedder(CountingEmbedder(), tmp_path).encode(["alpha beta", "gamma delta"])
    lazy = CachedEmbedder(None, tmp_path, factory=factory, name="counting-64")
    vecs = lazy.encode(["gamma delta", "alpha beta"])
    assert built == [] and vecs.shape == (2, 64) and lazy.dim == 64  # dim from the stored parts
    lazy.encode(["a text never seen"])
    assert len(built) == 1 and built[0].computed == 1
    with pytest.raises(ValueError):
        CachedEmbedder(None, tmp_path)


def test_keys_ending_in_nul_bytes_hit_after_a_reload(tmp_path: Path) -> None:
    from trustaudit.embed import text_key

    texts = [f"paragraph {i}" for i in range(3000)]
    nul = [t for t in texts if text_key(t).endswith(b"\0")]
    assert nul  # ~1 in 256 sha1 digests ends in a NUL byte
    inner = CountingEmbedder()
    CachedEmbedder(inner, tmp_path).encode(nul)
    again = CachedEmbedder(inner, tmp_path)
    again.encode(nul)
    assert again.misses == 0 and inner.computed == len(nul)


def test_cache_compacts_parts_and_leaves_the_largest_alone(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    c = CachedEmbedder(inner, tmp_path, compact_at=4)
    c.encode([f"bulk text {i}" for i in range(50)])
    (largest,) = tmp_path.glob("part-*.npy")
    for i in range(6):
        c.encode([f"text number {i}"])
        assert len(list(tmp_path.glob("part-*.npy"))) <= 4  # bounded while a run writes
    assert largest.exists()  # merges rewrite the small parts, not the whole cache
    c2 = CachedEmbedder(inner, tmp_path, compact_at=4)
    c2.encode([f"text number {i}" for i in range(6)] + ["bulk text 7"])
    assert c2.hits == 7 and c2.misses == 0 and len(c2) == 56 and inner.computed == 56


def test_cache_parts_are_memory_mapped_not_held(tmp_path: Path) -> None:
    """A worker keeps the sorted keys; the vectors stay in the mapped file."""
    inner = CountingEmbedder()
    texts = [f"paragraph {i}" for i in range(500)]
    first = CachedEmbedder(inner, tmp_path).encode(texts)
    again = CachedEmbedder(inner, tmp_path)
    vecs = again.encode(texts[::-1])
    assert np.array_equal(vecs, first[::-1]) and inner.computed == 500
    (part,) = again._parts
    assert isinstance(part.rows, np.memmap) and part.keys.nbytes == 500 * 20
    assert not isinstance(part.keys, np.memmap) and np.all(part.keys[:-1] < part.keys[1:])


def test_cache_reads_and_rewrites_earlier_npz_parts(tmp_path: Path) -> None:
    from trustaudit.embed import text_key

    inner = CountingEmbedder()
    texts = ["old part one", "old part two"]
    vecs = inner.encode(texts)
    keys = np.array([text_key(t) for t in texts], dtype="S20")
    np.savez(tmp_path / "part-1-legacy.npz", keys=keys, vecs=vecs.astype(np.float16))
    c = CachedEmbedder(inner, tmp_path)
    out = c.encode(texts)
    assert c.hits == 2 and inner.computed == 2  # served from the old part, nothing recomputed
    assert np.allclose(out, vecs, atol=2e-3)
    assert not list(tmp_path.glob("*.npz")) and len(list(tmp_path.glob("part-*.npy"))) == 1


def test_two_writers_share_a_folder_without_losing_vectors(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    a = CachedEmbedder(inner, tmp_path, compact_at=2)
    b = CachedEmbedder(inner, tmp_path, compact_at=2)
    a.encode(["shared", "only a"])
    b.encode(["shared", "only b"])  # b reads a's part: "shared" is served, not recomputed
    for i in range(4):
        (a if i % 2 else b).encode([f"more {i}"])
    fresh = CachedEmbedder(inner, tmp_path)
    fresh.encode(["shared", "only a", "only b", *[f"more {i}" for i in range(4)]])
    assert fresh.misses == 0


def test_damaged_part_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "part-bad.npz").write_bytes(b"not a zip")
    c = CachedEmbedder(CountingEmbedder(), tmp_path)
    assert c.encode(["x y z"]).shape == (1, 64)


def test_get_embedder_hashing_is_cached_per_process(tmp_path: Path) -> None:
    pol = EmbeddingPolicy(static_model="hashing-32", cache_dir=str(tmp_path))
    a = get_embedder(pol)
    assert a is get_embedder(pol)
    assert a.name == "hashing-32" and a.dim == 32
    a.encode(["some paragraph text"])
    assert list((tmp_path / "embeddings" / "hashing-32").glob("part-*.npy"))


def test_cache_root_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSTAUDIT_CACHE", str(tmp_path / "env"))
    assert cache_root(EmbeddingPolicy()) == tmp_path / "env"
    assert cache_root(EmbeddingPolicy(cache_dir=str(tmp_path / "p"))) == tmp_path / "p"
    monkeypatch.delenv("TRUSTAUDIT_CACHE")
    assert cache_root(None) == Path.home() / ".cache" / "trustaudit"


def test_unknown_static_model_is_a_diagnostic_error(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError) as exc:
        get_embedder(EmbeddingPolicy(static_model="no-such-model", cache_dir=str(tmp_path)))
    assert exc.value.hint


@pytest.mark.slow
def test_default_static_model_end_to_end() -> None:
    """The real default: distils once into the shared cache (~45 s on 2 cores) unless prepared."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    emb = get_embedder(EmbeddingPolicy())
    assert emb.name == "minilm-static-256" and emb.dim == 256
    v = emb.encode(
        [
            "The cat sat on the mat and purred.",
            "A kitten rested on the rug, purring.",
            "The central bank raised interest rates by half a point.",
        ]
    )
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2
    # the chunk-cached tokenisation gives model2vec's own vectors
    inner = emb.inner  # type: ignore[attr-defined]
    texts = [
        "Ça coûte 19,99 € (TVA incl.) — voilà!",
        "naïve café_au_lait x2 [ref:42]",
        "日本語のテキスト",
    ]
    ours = inner.encode(texts)
    ref = inner.model.encode(texts, use_multiprocessing=False)
    ref = ref / np.linalg.norm(ref, axis=1, keepdims=True)
    assert np.allclose((ours * ref).sum(axis=1), 1.0, atol=1e-3)


def test_audit_reuses_the_disk_cache_end_to_end(tmp_path: Path) -> None:
    """Two audits of the demo pages through the CLI: the second is served from the first's parts,
    written in the memory-mapped format, and scores the same."""
    import polars as pl
    from typer.testing import CliRunner

    from trustaudit.cli.main import app

    cache = tmp_path / "cache"
    policy = tmp_path / "p.toml"
    policy.write_text(f'[embeddings]\nstatic_model = "hashing-256"\ncache_dir = "{cache}"\n')
    runs = []
    for name in ("r1", "r2"):
        out = tmp_path / name
        res = CliRunner().invoke(
            app,  # one extraction process: the cache is the embedder's (this process)
            [
                "audit",
                "fixtures/corpus/pages",
                "--policy",
                str(policy),
                "--out",
                str(out),
                "-w",
                "1",
            ],
        )
        assert res.exit_code in (0, 1), res.output
        parts = sorted((cache / "embeddings" / "hashing-256").glob("part-*.npy"))
        runs.append((pl.read_parquet(out / "scores.parquet").sort("doc_id"), parts))
    (first, parts1), (second, parts2) = runs
    assert parts1 and parts2 == parts1  # the second run wrote nothing new
    assert not list(cache.rglob("*.npz"))
    assert first.select("doc_id", "trust_score").equals(second.select("doc_id", "trust_score"))


def test_distillation_uses_every_core_even_after_the_scanner_pinned_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scanner sets torch to one thread; a cold first run that scanned in its own process
    must still distill on every usable core, and leave the scanner's setting as it found it."""
    torch = pytest.importorskip("torch")
    distillation = pytest.importorskip("model2vec.distill")
    from trustaudit.embed import models

    seen: list[int] = []

    class Saved:
        def save_pretrained(self, folder: str) -> None:
            (Path(folder) / "config.json").write_text("{}")

    def fake_distill(**_kwargs: object) -> Saved:
        seen.append(torch.get_num_threads())
        return Saved()

    monkeypatch.setattr(distillation, "distill", fake_distill)
    monkeypatch.setattr(models, "_usable_cores", lambda: 3)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        models._distill("minilm-static-256", tmp_path / "m")
        assert seen == [3]
        assert torch.get_num_threads() == 1
        assert (tmp_path / "m" / "config.json").is_file()

        def failing(**_kwargs: object) -> Saved:
            raise RuntimeError("out of memory")

        monkeypatch.setattr(distillation, "distill", failing)
        with pytest.raises(RuntimeError):
            models._distill("minilm-static-256", tmp_path / "other")
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
