"""Dev set for the behavioural family (issue 18): a simulator of honest and campaign reviews.

No public review dataset with platform fields (reviewer, dates, verified flag) and ground-truth
campaign labels is available offline here, so the dev set is simulated, with every parameter drawn
per entity or per campaign so a rule cannot just learn one constant:

- entities: a quality q ~ U(2.3, 4.8); 10..90 honest reviews spread over two years; a quarter of
  them get an honest spike (news, a launch: 8..30 reviews in 1..10 days) so bursts are not only fakes.
- honest reviews: rating = round(clip(N(q, U(0.7, 1.3)), 1, 5)); reviewer tenure lognormal
  (median ~ 2 years) with 8% brand-new accounts; reviews per reviewer geometric (p = 0.35, so about a
  third are single-review reviewers); verified with an entity-level probability U(0.5, 0.95).
- campaigns (on 30% of entities): 6..40 reviews in 1..14 days; a random sophistication s ~ U(0, 1)
  decides the share of aged accounts (0.7*s), of verified reviews (U(0.02, 0.2) + 0.4*s), of
  reviewers with several reviews (0.6*s) and of non-extreme ratings (0.4*s); a promotion pushes the
  top rating, an attack (25%) the bottom one.

Tune on seed 1, report on seed 2 (held out): ROC-AUC of `behaviour_campaign` against the label,
overall and per component. Usage: .venv/bin/python bench/behaviour_sim.py [--seeds 1 2] [--entities 80]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from datetime import date, timedelta
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trustaudit.policy import Policy
from trustaudit.scoring.behaviour import behaviour_signals

START = date(2024, 1, 1)
DAYS = 730


def _tenure_days(rng: random.Random, *, new_share: float) -> int:
    if rng.random() < new_share:
        return rng.randint(0, 29)
    return int(math.exp(rng.gauss(math.log(700), 0.8)))


def _honest(rng: random.Random, entity: str, q: float, n: int, spike: bool) -> list[dict]:
    sd = rng.uniform(0.7, 1.3)
    verified_p = rng.uniform(0.5, 0.95)
    days = [rng.randrange(DAYS) for _ in range(n)]
    if spike:
        start, width = rng.randrange(DAYS - 10), rng.randint(1, 10)
        days += [start + rng.randrange(width) for _ in range(rng.randint(8, 30))]
    out = []
    for d in days:
        when = START + timedelta(days=d)
        count = 1
        while rng.random() > 0.35:
            count += 1
        out.append(
            {
                "entity": entity,
                "rating": round(min(5, max(1, rng.gauss(q, sd)))),
                "review_date": when.isoformat(),
                "reviewer_since": (
                    when - timedelta(days=_tenure_days(rng, new_share=0.08))
                ).isoformat(),
                "verified": rng.random() < verified_p,
                "review_count": count,
                "campaign": False,
            }
        )
    return out


def _campaign(rng: random.Random, entity: str) -> list[dict]:
    s = rng.random()  # sophistication
    attack = rng.random() < 0.25
    start, width = rng.randrange(DAYS - 14), rng.randint(1, 14)
    verified_p = rng.uniform(0.02, 0.2) + 0.4 * s
    out = []
    for _ in range(rng.randint(6, 40)):
        when = START + timedelta(days=start + rng.randrange(width))
        aged = rng.random() < 0.7 * s
        tenure = _tenure_days(rng, new_share=0.0) if aged else rng.randint(0, 20)
        rating = 1 if attack else 5
        if rng.random() < 0.4 * s:
            rating = 2 if attack else 4
        out.append(
            {
                "entity": entity,
                "rating": rating,
                "review_date": when.isoformat(),
                "reviewer_since": (when - timedelta(days=tenure)).isoformat(),
                "verified": rng.random() < verified_p,
                "review_count": rng.randint(2, 12) if rng.random() < 0.6 * s else 1,
                "campaign": True,
            }
        )
    return out


def simulate(seed: int, entities: int = 80) -> pl.DataFrame:
    """One dev set: a row per review with the platform fields and the `campaign` label."""
    rng = random.Random(seed)
    rows: list[dict] = []
    for e in range(entities):
        name = f"entity-{e:03d}"
        q = rng.uniform(2.3, 4.8)
        rows += _honest(rng, name, q, rng.randint(10, 90), spike=rng.random() < 0.25)
        if rng.random() < 0.3:
            rows += _campaign(rng, name)
    df = pl.DataFrame(rows)
    return df.with_columns(
        doc_id=pl.format("r{}", pl.int_range(pl.len())),
        reviewer=pl.format("u{}-{}", pl.lit(seed), pl.int_range(pl.len())),
    )


def roc_auc(score: pl.Series, label: pl.Series) -> float:
    """Mann-Whitney ROC-AUC (ties count one half); nulls score as the lowest value."""
    df = pl.DataFrame({"s": score.fill_null(-1.0), "y": label}).with_columns(
        r=pl.col("s").rank("average")
    )
    pos = df.filter(pl.col("y"))
    n_p, n_n = pos.height, df.height - pos.height
    if n_p == 0 or n_n == 0:
        return float("nan")
    return (float(pos["r"].sum()) - n_p * (n_p + 1) / 2) / (n_p * n_n)


def evaluate(seed: int, entities: int, policy: Policy) -> dict[str, float]:
    """AUC of behaviour_campaign and of each raw signal (oriented: higher = more campaign-like)."""
    sim = simulate(seed, entities)
    sig = behaviour_signals(sim, policy).join(sim.select("doc_id", "campaign"), on="doc_id")
    y = sig["campaign"]
    out = {"reviews": float(sig.height), "campaign_share": round(float(y.mean()), 3)}  # type: ignore[arg-type]
    out["auc_behaviour_campaign"] = roc_auc(sig["behaviour_campaign"], y)
    raw = {
        "burst_score": sig["behaviour_burst_score"],
        "short_tenure": -sig["behaviour_reviewer_tenure_days"].cast(pl.Float64),
        "single_review": sig["behaviour_single_review_reviewer"].cast(pl.Float64),
        "unverified": (~sig["behaviour_verified"]).cast(pl.Float64),
        "rating_deviation_z": sig["behaviour_rating_deviation_z"],
    }
    for name, s in raw.items():
        out[f"auc_{name}"] = roc_auc(s, y)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--entities", type=int, default=80)
    args = ap.parse_args()
    policy = Policy()
    for seed in args.seeds:
        role = "tune" if seed == 1 else "held-out"
        res = evaluate(seed, args.entities, policy)
        print(f"seed {seed} ({role}): " + ", ".join(f"{k} {v:.3f}" for k, v in res.items()))


if __name__ == "__main__":
    main()
