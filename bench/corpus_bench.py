"""Benchmark + dev-set separations for the corpus signals (issue 7). Prints one JSON object.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/corpus_bench.py            # everything (~5 min, 2 cores)
    .venv/bin/python bench/corpus_bench.py --skip-1m --accurate-pages 10   # quicker

Measures: coherence pages/s on the static default over the real pages of ../shared/corpora
(cold: fresh model and empty cache; warm: paragraph cache hit), the accurate path on a sample,
stitched-vs-real separation for both, spun-copy recall per swap fraction, and syndication on
100k and 1M synthetic pages (the 10x scaling ratio).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from corpus_devset import load_real_pages, spin, stitched, template_spam, usable

from trustaudit.embed import CachedEmbedder, Embedder, get_embedder
from trustaudit.embed.models import StaticEmbedder, static_model_dir
from trustaudit.policy import Policy
from trustaudit.scoring.coherence import coherence_signals, language_key
from trustaudit.scoring.syndication import syndication_signals


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    pos, neg = pos[~np.isnan(pos)], neg[~np.isnan(neg)]
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def _separation(real: pl.DataFrame, st: pl.DataFrame, rep: pl.DataFrame) -> dict[str, object]:
    """Paired real/stitched rows (same order); pages the model cannot read (non-Latin script,
    neutral by design) are left out of the comparison."""
    unsupported = real["reasons_coherence"].list.join(" ").str.contains("UNSUPPORTED_SCRIPT")
    keep = (~unsupported).to_numpy()
    models = real["coherence_model"].value_counts().sort("count", descending=True)
    r = real["intra_coherence"].to_numpy().astype(float)[keep]
    s = st["intra_coherence"].to_numpy().astype(float)[keep]
    p = rep["intra_coherence"].to_numpy().astype(float)
    rs = real["coherence_score"].to_numpy()[keep]
    ss = st["coherence_score"].to_numpy()[keep]
    flagged = real["reasons_coherence"].list.len().to_numpy()[keep] > 0
    return {
        "pages_compared": int(keep.sum()),
        "pages_unsupported_script": int((~keep).sum()),
        "coherence_model_pages": dict(models.iter_rows()),
        "auc_intra_real_vs_stitched": round(_auc(r, s), 4),
        "auc_score_real_vs_stitched": round(_auc(rs, ss), 4),
        "paired_real_gt_stitched": round(float(np.nanmean(r > s)), 4),
        "paired_score_real_gt_stitched": round(float((rs > ss).mean()), 4),
        "intra_quantiles_real_p5_p50_p95": np.nanpercentile(r, [5, 50, 95]).round(3).tolist(),
        "intra_quantiles_stitched_p5_p50_p95": np.nanpercentile(s, [5, 50, 95]).round(3).tolist(),
        "intra_quantiles_template_spam_p5_p50_p95": np.nanpercentile(p, [5, 50, 95])
        .round(3)
        .tolist(),
        "coherence_score_mean_real": round(float(rs.mean()), 3),
        "coherence_score_mean_stitched": round(float(ss.mean()), 3),
        "share_real_flagged": round(float(flagged.mean()), 3),
        "share_template_spam_flagged_repetitive": round(
            float(rep["reasons_coherence"].list.join(" ").str.contains("REPETITIVE").mean()),  # type: ignore[arg-type]
            3,
        ),
        "share_stitched_flagged_low": round(
            float(
                st["reasons_coherence"]
                .list.join(" ")
                .str.contains("COHERENCE_LOW")
                .to_numpy()[keep]
                .mean()
            ),
            3,
        ),
    }


def _together(
    real: pl.DataFrame, st: pl.DataFrame, policy: Policy, emb: Embedder
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Score real and stitched pages in one corpus (one language mean), return both in order."""
    cols = ["doc_id", "paragraphs", "lang"]
    both = coherence_signals(pl.concat([real.select(cols), st.select(cols)]), policy, emb)
    return both.head(real.height), both.tail(st.height)


def bench_coherence(pages: pl.DataFrame, policy: Policy) -> dict[str, object]:
    """Static path over every real page: cold (fresh model, empty caches) then warm (cache hits)."""
    name = policy.embeddings.static_model
    get_embedder(policy.embeddings)  # make sure the model exists (distils once if needed)
    n_par = int(pages["paragraphs"].list.len().sum())
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        fresh = StaticEmbedder(static_model_dir(name, policy.embeddings), name)
        load_s = time.perf_counter() - t0
        emb = CachedEmbedder(fresh, Path(tmp) / name)
        t0 = time.perf_counter()
        coherence_signals(pages, policy, emb)
        cold = time.perf_counter() - t0
        emb2 = CachedEmbedder(
            StaticEmbedder(static_model_dir(name, policy.embeddings), name), Path(tmp) / name
        )
        t0 = time.perf_counter()
        coherence_signals(pages, policy, emb2)
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        coherence_signals(pages, policy, fresh)  # no disk cache, word cache warm
        nocache = time.perf_counter() - t0
    return {
        "pages": pages.height,
        "paragraphs_in_pages": n_par,
        "model_load_s": round(load_s, 2),
        "cold_pages_per_s": round(pages.height / cold, 1),
        "disk_cache_hit_pages_per_s": round(pages.height / warm, 1),
        "no_disk_cache_warm_vocab_pages_per_s": round(pages.height / nocache, 1),
        "threads": os.cpu_count(),
    }


def bench_separation(
    pages: pl.DataFrame, policy: Policy, *, accurate_pages: int
) -> dict[str, object]:
    good = usable(pages)
    good = good.join(language_key(good).select("doc_id", "lang_key"), on="doc_id").rename(
        {"lang_key": "lang"}
    )
    # stitched from pages of the same language: what a content farm does, and the hard case
    st, rep = stitched(good, by="lang"), template_spam(good).with_columns(lang=good["lang"])
    emb = get_embedder(policy.embeddings)
    out: dict[str, object] = {
        "dev_set": f"{good.height} real pages with >= 6 paragraphs; stitched = each paragraph "
        "from another page of the same language; template spam = one paragraph x8, one word varied",
        "languages": dict(
            good.group_by("lang").len().sort("len", descending=True).head(6).iter_rows()
        ),
        emb.name: _separation(
            *_together(good, st, policy, emb),
            coherence_signals(rep, policy, emb),
        ),
    }
    if accurate_pages:
        sample = good.filter(pl.col("lang") == "en").sample(accurate_pages, seed=1)
        pol = policy.with_overrides({"coherence": {"max_paragraphs": 12}})
        # the raw transformer, not the disk-cached wrapper: earlier runs must not make it look fast
        acc = get_embedder(policy.embeddings, accurate=True).inner  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        used = int(coherence_signals(sample, pol, acc)["paragraphs_used"].sum())
        dt = time.perf_counter() - t0
        sep = _separation(
            *_together(sample, stitched(sample, by="lang"), pol, acc),
            coherence_signals(template_spam(sample).with_columns(lang=sample["lang"]), pol, acc),
        )
        sep.update(
            pages=accurate_pages,
            max_paragraphs=12,
            pages_per_s=round(accurate_pages / dt, 2),
            paragraphs_per_s=round(used / dt, 1),
            note="cold: no disk cache; a re-run of the same pages hits the paragraph cache",
        )
        out[acc.name] = sep
    return out


def bench_spun_recall(pages: pl.DataFrame, policy: Policy) -> dict[str, float]:
    """Each real page (>= 80 words) + one spun copy on another domain; recall per swap fraction."""
    rng = random.Random(3)
    base = pages.filter(pl.col("text").str.split(" ").list.len() >= 80).select(
        "doc_id", "registered_domain", "text"
    )
    vocab = sorted({w for t in base["text"].to_list()[:100] for w in t.split()})
    out = {}
    for frac in (0.05, 0.10, 0.20, 0.30):
        copies = base.with_columns(
            doc_id=pl.col("doc_id") + "-copy",
            registered_domain=pl.lit("copy.example"),
            text=pl.Series([spin(t, frac, rng, vocab) for t in base["text"].to_list()]),
        )
        res = syndication_signals(pl.concat([base, copies]), policy)
        ids = dict(zip(res["doc_id"], res["syndication_cluster_id"], strict=True))
        hits = [ids[d + "-copy"] is not None and ids[d + "-copy"] == ids[d] for d in base["doc_id"]]
        out[f"swap_{int(frac * 100)}pct_recall"] = round(float(np.mean(hits)), 3)
    out["pages"] = base.height
    return out


def synthetic_pages(
    n: int, *, words: int = 120, dup_share: float = 0.1, seed: int = 0
) -> tuple[pl.DataFrame, int]:
    """n pages of Zipf-distributed words; `dup_share` of them are 10%-swapped copies on other domains."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(50_000)], dtype=object)
    ids = np.minimum(rng.zipf(1.2, size=(n, words)) - 1, len(vocab) - 1)
    n_dup = int(n * dup_share)
    src = rng.integers(0, n - n_dup, size=n_dup)
    ids[n - n_dup :] = ids[src]
    swap = rng.random((n_dup, words)) < 0.10
    ids[n - n_dup :][swap] = rng.integers(0, len(vocab), size=int(swap.sum()))
    texts = [" ".join(row) for row in vocab[ids]]
    df = pl.DataFrame(
        {
            "doc_id": [f"{i:08d}" for i in range(n)],
            "registered_domain": [f"site{i % 5000}.example" for i in range(n - n_dup)]
            + [f"farm{i % 997}.example" for i in range(n_dup)],
            "text": texts,
        }
    )
    return df.with_columns(_src=pl.Series([None] * (n - n_dup) + [f"{s:08d}" for s in src])), n_dup


def bench_syndication(policy: Policy, sizes: list[int]) -> dict[str, object]:
    import psutil

    out: dict[str, object] = {}
    for n in sizes:
        df, n_dup = synthetic_pages(n)
        t0 = time.perf_counter()
        res = syndication_signals(df.drop("_src"), policy)
        dt = time.perf_counter() - t0
        j = df.select("doc_id", "_src").join(
            res.select("doc_id", "syndication_cluster_id"), on="doc_id"
        )
        src = j.filter(pl.col("_src").is_not_null()).join(
            j.select(pl.col("doc_id").alias("_src"), pl.col("syndication_cluster_id").alias("_sc")),
            on="_src",
        )
        recall = float((src["syndication_cluster_id"] == src["_sc"]).mean())  # type: ignore[arg-type]
        out[f"{n}"] = {
            "seconds": round(dt, 1),
            "pages_per_s": round(n / dt),
            "planted_copies": n_dup,
            "planted_recall": round(recall, 4),
            "max_cluster_size": int(res["syndication_cluster_size"].max()),  # type: ignore[arg-type]
            "rss_mb": round(psutil.Process().memory_info().rss / 2**20),
        }
        del df, res, j, src
    if len(sizes) >= 2:
        a, b = out[f"{sizes[0]}"], out[f"{sizes[-1]}"]
        out["time_ratio"] = round(b["seconds"] / a["seconds"], 2)  # type: ignore[index]
        out["size_ratio"] = sizes[-1] / sizes[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--trafilatura", action="store_true", help="paragraphs via trafilatura (slower load)"
    )
    ap.add_argument(
        "--accurate-pages", type=int, default=30, help="pages for the accurate path (0 = skip)"
    )
    ap.add_argument("--skip-1m", action="store_true", help="syndication on 100k pages only")
    ap.add_argument("--only", choices=["coherence", "syndication"], default=None)
    args = ap.parse_args()
    policy = Policy()
    report: dict[str, object] = {}
    if args.only != "syndication":
        t0 = time.perf_counter()
        pages = load_real_pages(use_trafilatura=args.trafilatura)
        report["dev_set_load_s"] = round(time.perf_counter() - t0, 1)
        report["paragraph_source"] = "trafilatura" if args.trafilatura else "selectolax <p>"
        report["coherence_static"] = bench_coherence(pages, policy)
        report["separation"] = bench_separation(pages, policy, accurate_pages=args.accurate_pages)
        report["syndication_spun_recall_real_pages"] = bench_spun_recall(pages, policy)
    if args.only != "coherence":
        sizes = [100_000] if args.skip_1m else [100_000, 1_000_000]
        report["syndication_synthetic"] = bench_syndication(policy, sizes)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
