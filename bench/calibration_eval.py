"""Measure the default policy on the labeled dev set: ROC-AUC, the curve, the recommended threshold.

    .venv/bin/python bench/calibration_eval.py runs/caleval --n-clean 120 --seed 7

Randomised adversaries, a tuning seed and held-out reporting seeds (issue #14):

    nice .venv/bin/python bench/calibration_eval.py runs/caleval --randomized \
        --n-clean 150 --n-altered 180 --seed 1001 --report-seeds 2002 3003 4004 5005 6006 7007 \
        --content-only

(docs/signals.md "Figures" says which seeds were used for tuning and which were held out.)

prints, per seed, ROC-AUC of trust_score overall and per kind (clean vs that kind), the recall of
untrusted pages at the policy threshold and the share of clean pages quarantined; tune on --seed,
quote the --report-seeds figures.

Builds the dev set with bench/devset.py (real clean pages + affiliate/stitched/injection/spun
alterations), audits it with the default policy (once without and once with the dev set's
domain-info CSV), calibrates against its labels.csv and prints the figures plus recall per kind.
Keep the output local: altered pages are re-hosted copyrighted text (see bench/devset.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _audit(inputs: Path, out: Path, *, domain_info: Path | None, workers: int) -> float:
    from trustaudit.pipeline import AuditOptions, audit
    from trustaudit.policy import load_policy

    overrides = {"domain": {"domain_info_file": str(domain_info)}} if domain_info else {}
    policy = load_policy(None, overrides=overrides)
    t0 = time.perf_counter()
    from datetime import date

    audit(
        AuditOptions(inputs=[str(inputs)], out=out, workers=workers, now=date(2026, 11, 1)),
        policy,
    )
    return time.perf_counter() - t0


def _rescore(run_dir: Path, *, domain_info: Path | None) -> None:
    """Signals and scores again on an existing run with the current default policy (after a
    scoring change), no re-extraction; the run's manifest keeps the policy of its audit."""
    from datetime import date

    from trustaudit.io.rundir import RunDir
    from trustaudit.pipeline import compute_signals, score_run
    from trustaudit.policy import load_policy

    overrides = {"domain": {"domain_info_file": str(domain_info)}} if domain_info else {}
    policy = load_policy(None, overrides=overrides)
    run = RunDir.at(run_dir)
    compute_signals(run, policy, now=date(2026, 11, 1))
    score_run(run, policy)


def evaluate(run_dir: Path, labels: Path, target_recall: float) -> dict[str, object]:
    """Calibrate one run; add recall per alteration kind at the current and recommended thresholds."""
    from trustaudit.io.records import doc_id_for
    from trustaudit.io.rundir import RunDir
    from trustaudit.report.extra import policy_of_run, write_extra_reports

    run = RunDir.at(run_dir)
    policy = policy_of_run(run)
    cal = write_extra_reports(
        run, policy, run.read_manifest(), labels=labels, target_recall=target_recall
    )
    lab = pl.read_csv(labels).with_columns(
        doc_id=pl.col("url").map_elements(lambda u: doc_id_for(u, "", None), return_dtype=pl.String)
    )
    scores = run.read("scores", columns=["doc_id", "trust_score", "hard_quarantine"])
    joined = lab.join(scores, on="doc_id", how="inner")
    per_kind = {}
    for name, t in (
        ("current", cal["current_threshold"]),
        ("recommended", cal["recommended"]["threshold"]),
    ):
        q = (pl.col("trust_score") < t) | pl.col("hard_quarantine")
        per_kind[name] = dict(
            joined.group_by("kind")
            .agg(q.mean().round(3).alias("quarantined"))
            .sort("kind")
            .iter_rows()
        )
    from trustaudit.report.calibrate import decision_risk, roc_auc

    auc_per_kind = {}
    trust_auc_per_kind = {}
    clean = joined.filter(pl.col("kind") == "clean")
    for kind in sorted(set(joined["kind"].to_list()) - {"clean"}):
        sub = pl.concat([clean, joined.filter(pl.col("kind") == kind)])
        risk = decision_risk(sub["trust_score"].to_numpy(), sub["hard_quarantine"].to_numpy())
        auc = roc_auc((sub["kind"] != "clean").to_numpy(), risk)
        auc_per_kind[kind] = None if auc is None else round(auc, 4)
        # the number itself (hard rules cap it): what a caller sorting by trust_score sees
        t_auc = roc_auc((sub["kind"] != "clean").to_numpy(), -sub["trust_score"].to_numpy())
        trust_auc_per_kind[kind] = None if t_auc is None else round(t_auc, 4)
    untrusted = joined.filter(pl.col("kind") != "clean")
    t_all = roc_auc((joined["kind"] != "clean").to_numpy(), -joined["trust_score"].to_numpy())
    q_now = (pl.col("trust_score") < cal["current_threshold"]) | pl.col("hard_quarantine")
    return {
        "trust_score_roc_auc": None if t_all is None else round(t_all, 4),
        "trust_score_roc_auc_per_kind": trust_auc_per_kind,
        "recall_at_policy_threshold": round(float(untrusted.select(q_now.mean()).item()), 4),
        "clean_quarantined_share": round(float(clean.select(q_now.mean()).item()), 4),
        "pages_labeled": cal["pages_labeled"],
        "roc_auc_clean_vs_kind": auc_per_kind,
        "untrusted": cal["untrusted"],
        "trusted": cal["trusted"],
        "roc_auc": cal["roc_auc"],
        "pr_auc": cal["pr_auc"],
        "current": {k: cal["current"].get(k) for k in ("threshold", "precision", "recall", "f1")},
        "recommended": {
            k: cal["recommended"].get(k)
            for k in ("threshold", "precision", "recall", "f1", "trusted_lost", "reached")
        },
        "best_f1": {k: cal["best_f1"].get(k) for k in ("threshold", "precision", "recall", "f1")},
        "quarantined_share_per_kind": per_kind,
        "top_signals": [
            (s["signal"], s["separation"], s["direction"]) for s in cal["signal_auc"][:8]
        ],
        "curve": str(run.report("threshold_curve.csv")),
    }


def _measure(root: Path, seed: int, args: argparse.Namespace) -> dict[str, object]:
    """Build the dev set of one seed (if absent), audit it, evaluate each run."""
    from devset import build_devset  # type: ignore[import-not-found]  # bench/ sibling

    dev = root / "devset"
    if not (dev / "labels.csv").exists():
        build_devset(
            dev,
            n_clean=args.n_clean,
            n_altered=args.n_altered,
            seed=seed,
            randomized=args.randomized,
        )
    out: dict[str, object] = {}
    runs: list[tuple[str, Path | None]] = [("content_only", None)]
    if not args.content_only:
        runs.append(("with_domain_info", dev / "domain_info.csv"))
    for name, info in runs:
        run = root / f"run_{name}"
        seconds = None
        first = root / "run_content_only"
        if run != first and (first / "parts").is_dir() and not (run / "parts").exists():
            # same inputs and extraction policy: the second audit resumes the first one's ingest
            shutil.copytree(first / "parts", run / "parts")
            shutil.copy(first / "manifest.json", run / "manifest.json")
        if not args.skip_audit or not (run / "scores.parquet").exists():
            seconds = round(_audit(dev / "pages", run, domain_info=info, workers=args.workers), 1)
        if args.rescore and seconds is None:
            _rescore(run, domain_info=info)
        res = evaluate(run, dev / "labels.csv", args.target_recall)
        res["audit_seconds"] = seconds
        out[name] = res
    return out


def _summary(seeds: list[dict[str, dict[str, object]]]) -> dict[str, object]:
    """Mean over the held-out seeds of the content-only figures (the ones to quote)."""
    import statistics

    runs = [s["content_only"] for s in seeds]
    kinds = sorted({k for r in runs for k in r["trust_score_roc_auc_per_kind"]})  # type: ignore[union-attr]

    def mean(values: list[object]) -> float | None:
        nums = [float(v) for v in values if v is not None]  # type: ignore[arg-type]
        return round(statistics.fmean(nums), 4) if nums else None

    return {
        "seeds": len(runs),
        "trust_score_roc_auc": mean([r["trust_score_roc_auc"] for r in runs]),
        "trust_score_roc_auc_per_kind": {
            k: mean([r["trust_score_roc_auc_per_kind"].get(k) for r in runs])  # type: ignore[union-attr]
            for k in kinds
        },
        "recall_at_policy_threshold": mean([r["recall_at_policy_threshold"] for r in runs]),
        "clean_quarantined_share": mean([r["clean_quarantined_share"] for r in runs]),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--n-clean", type=int, default=120)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--target-recall", type=float, default=0.90)
    ap.add_argument("--n-altered", type=int, default=None)
    ap.add_argument("--randomized", action="store_true", help="randomised adversary parameters")
    ap.add_argument(
        "--report-seeds",
        type=int,
        nargs="*",
        default=[],
        help="held-out seeds: dev sets built and measured after the tuning --seed",
    )
    ap.add_argument(
        "--content-only", action="store_true", help="skip the run with the fake domains' ages"
    )
    ap.add_argument("--skip-audit", action="store_true", help="reuse existing runs")
    ap.add_argument(
        "--rescore", action="store_true", help="with --skip-audit: recompute signals and scores"
    )
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    results: dict[str, object] = {}
    for seed in [args.seed, *args.report_seeds]:
        role = "tuning" if seed == args.seed else "held_out"
        root = args.out if not (args.report_seeds or args.randomized) else args.out / f"seed{seed}"
        results[f"{role}_seed_{seed}"] = _measure(root, seed, args)
    if args.report_seeds:
        results["held_out_summary"] = _summary(
            [v for k, v in results.items() if k.startswith("held_out")]  # type: ignore[misc]
        )
    print(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
