"""What moved between two runs (nightly drift): quarantines, bands, domains, injections, score shift.

Pages are matched by `doc_id`, which is stable across runs (hash of the normalized URL). The library
returns a plain dict (diff.json's content); `diff_markdown` renders it; `FailOn` conditions turn it into
a CI verdict. Nothing here prints.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from trustaudit.errors import UsageError
from trustaudit.gate.rules import RunTables, load_run
from trustaudit.io.atomic import write_json, write_text

DIFF_JSON_SCHEMA = 1
BANDS = ("quarantine", "medium", "trusted")
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
PSI_BINS = (
    10  # equal-width bins over [0, 1]: trust is bounded, so bins are comparable night to night
)
PSI_FLOOR = 1e-4  # an empty bin would make PSI infinite


# ------------------------------------------------------------------ distribution statistics
def distribution(values: np.ndarray) -> dict[str, Any]:
    """Count, mean, std and quantiles of trust scores (None when there are no pages)."""
    if values.size == 0:
        return {
            "n": 0,
            "mean": None,
            "std": None,
            **{f"p{int(q * 100):02d}": None for q in QUANTILES},
        }
    qs = np.quantile(values, QUANTILES)
    return {
        "n": int(values.size),
        "mean": round(float(values.mean()), 4),
        "std": round(float(values.std()), 4),
        **{f"p{int(q * 100):02d}": round(float(v), 4) for q, v in zip(QUANTILES, qs, strict=True)},
    }


def psi(old: np.ndarray, new: np.ndarray, bins: int = PSI_BINS) -> float | None:
    """Population stability index over fixed bins; < 0.1 stable, 0.1–0.25 moderate, > 0.25 large."""
    if old.size == 0 or new.size == 0:
        return None
    edges = np.linspace(0.0, 1.0, bins + 1)
    p = np.histogram(np.clip(old, 0, 1), edges)[0] / old.size
    q = np.histogram(np.clip(new, 0, 1), edges)[0] / new.size
    p, q = np.maximum(p, PSI_FLOOR), np.maximum(q, PSI_FLOOR)
    return round(float(np.sum((q - p) * np.log(q / p))), 4)


def ks(old: np.ndarray, new: np.ndarray) -> tuple[float | None, float | None]:
    """Two-sample Kolmogorov–Smirnov statistic and its asymptotic p-value (no scipy needed)."""
    if old.size == 0 or new.size == 0:
        return None, None
    a, b = np.sort(old), np.sort(new)
    grid = np.concatenate([a, b])
    d = float(
        np.max(
            np.abs(
                np.searchsorted(a, grid, "right") / a.size
                - np.searchsorted(b, grid, "right") / b.size
            )
        )
    )
    ne = a.size * b.size / (a.size + b.size)
    lam = (math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne)) * d  # Stephens' small-sample correction
    if lam < 1e-3:
        p = 1.0
    else:
        p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return round(d, 4), round(min(max(p, 0.0), 1.0), 4)


# ------------------------------------------------------------------ the diff
def _side(t: RunTables) -> dict[str, Any]:
    bands = {b: int((t.scores["band"] == b).sum()) for b in BANDS}
    return {
        "run_dir": str(t.run.root),
        "run_id": t.manifest.get("run_id"),
        "completed_at": t.manifest.get("completed_at"),
        "policy_hash": t.manifest.get("policy_hash"),
        "pages": t.scores.height,
        "bands": bands,
    }


def _items(df: pl.DataFrame, top: int) -> list[dict[str, Any]]:
    return df.head(top).to_dicts()


def diff_runs(
    old: str | Path | RunTables,
    new: str | Path | RunTables,
    *,
    domain_threshold: float = 0.1,
    top: int = 100,
) -> dict[str, Any]:
    """Compare two finished runs; returns diff.json's content (lists capped at `top`, counts exact)."""
    o = old if isinstance(old, RunTables) else load_run(old)
    n = new if isinstance(new, RunTables) else load_run(new)
    cols = ["doc_id", "url", "registered_domain", "trust_score", "band", "reasons"]
    os_ = o.scores.select(cols).rename({"trust_score": "trust_old", "band": "band_old"})
    ns = n.scores.select(cols).rename({"trust_score": "trust_new", "band": "band_new"})
    both = ns.drop("reasons").join(
        os_.select("doc_id", "trust_old", "band_old"), on="doc_id", how="full", coalesce=True
    )
    # url/domain of removed pages come from the old run
    both = (
        both.join(
            os_.select("doc_id", url_o="url", dom_o="registered_domain"), on="doc_id", how="left"
        )
        .with_columns(
            url=pl.coalesce("url", "url_o"),
            registered_domain=pl.coalesce("registered_domain", "dom_o"),
            trust_delta=(pl.col("trust_new") - pl.col("trust_old")).round(3),
        )
        .drop("url_o", "dom_o")
    )
    both = both.join(ns.select("doc_id", "reasons"), on="doc_id", how="left")
    added = both.filter(pl.col("band_old").is_null()).height
    removed = both.filter(pl.col("band_new").is_null()).height
    common = both.height - added - removed

    q_new = both.filter(
        (pl.col("band_new") == "quarantine") & (pl.col("band_old").fill_null("") != "quarantine")
    ).sort(["trust_new", "url"])
    q_res = both.filter(
        (pl.col("band_old") == "quarantine") & (pl.col("band_new").fill_null("") != "quarantine")
    ).sort("url")
    changed = both.filter(
        pl.col("band_old").is_not_null()
        & pl.col("band_new").is_not_null()
        & (pl.col("band_old") != pl.col("band_new"))
    ).sort([pl.col("trust_delta").abs(), pl.col("url")], descending=[True, False])
    transitions = (
        changed.group_by(transition=pl.concat_str(["band_old", pl.lit("->"), "band_new"]))
        .len()
        .sort("transition")
    )

    def dom_means(scores: pl.DataFrame) -> pl.DataFrame:
        return scores.group_by("registered_domain").agg(
            mean=pl.col("trust_score").mean(), pages=pl.len()
        )

    doms = (
        dom_means(o.scores)
        .rename({"mean": "old_mean", "pages": "old_pages"})
        .join(
            dom_means(n.scores).rename({"mean": "new_mean", "pages": "new_pages"}),
            on="registered_domain",
            how="inner",
            nulls_equal=True,
        )
        .with_columns(
            pl.col("old_mean").round(3),
            pl.col("new_mean").round(3),
            delta=(pl.col("new_mean") - pl.col("old_mean")).round(3),
        )
        .filter(pl.col("delta").abs() > domain_threshold)
        .sort([pl.col("delta").abs(), pl.col("registered_domain")], descending=[True, False])
    )

    injections: dict[str, Any] = {"available": n.injection is not None, "count": 0, "items": []}
    if n.injection is not None:
        old_inj = (
            o.injection.select("doc_id", old_count="injection_aimed")
            if o.injection is not None
            else pl.DataFrame(schema={"doc_id": pl.String, "old_count": pl.Int64})
        )
        new_inj = (
            # aimed findings only: a page that starts quoting an attack (INJECTION_QUOTED) is news
            # for no one's ingestion, as it neither quarantines nor fails the gate
            n.injection.filter(pl.col("injection_aimed") > 0)
            .join(old_inj, on="doc_id", how="left")
            .filter(pl.col("old_count").fill_null(0) == 0)
            .join(n.scores.select("doc_id", "url", "registered_domain", "band"), on="doc_id")
            .sort(["injection_count", "url"], descending=[True, False])
            .select(
                "doc_id", "url", "registered_domain", "band", "injection_count", "injection_detail"
            )
        )
        injections.update(count=new_inj.height, items=_items(new_inj, top))
        if o.injection is None:
            injections["note"] = "the old run has no injection data: every finding counts as new"

    ov = o.scores["trust_score"].drop_nulls().to_numpy().astype(float)
    nv = n.scores["trust_score"].drop_nulls().to_numpy().astype(float)
    dist_old, dist_new = distribution(ov), distribution(nv)
    ks_d, ks_p = ks(ov, nv)
    mean_delta = (
        round(dist_new["mean"] - dist_old["mean"], 4)
        if dist_old["mean"] is not None and dist_new["mean"] is not None
        else None
    )
    page_cols = [
        "doc_id",
        "url",
        "registered_domain",
        "band_old",
        "band_new",
        "trust_old",
        "trust_new",
        "trust_delta",
    ]
    return {
        "schema": DIFF_JSON_SCHEMA,
        "old": _side(o),
        "new": _side(n),
        "limit": top,
        "pages": {"added": added, "removed": removed, "common": common},
        "new_quarantines": {
            "count": q_new.height,
            "items": _items(q_new.select(*page_cols, "reasons"), top),
        },
        "resolved_quarantines": {
            "count": q_res.height,
            "items": _items(q_res.select(page_cols), top),
        },
        "band_changes": {
            "count": changed.height,
            "transitions": dict(zip(transitions["transition"], transitions["len"], strict=True)),
            "items": _items(changed.select(page_cols), top),
        },
        "domain_shifts": {
            "threshold": domain_threshold,
            "count": doms.height,
            "items": _items(doms, top),
        },
        "new_injections": injections,
        "distribution": {
            "old": dist_old,
            "new": dist_new,
            "mean_delta": mean_delta,
            "psi": psi(ov, nv),
            "ks": ks_d,
            "ks_pvalue": ks_p,
        },
    }


# ------------------------------------------------------------------ --fail-on
FAIL_ON_DEFAULTS: dict[str, float] = {
    "new-quarantine": 0,
    "resolved-quarantine": 0,
    "new-injection": 0,
    "band-change": 0,
    "domain-shift": 0,
    "psi": 0.25,
    "ks": 0.1,
    "mean-drop": 0.05,
}
_SPEC = re.compile(r"^\s*([a-z-]+)\s*(?:>\s*([0-9]*\.?[0-9]+))?\s*$")


@dataclass(frozen=True)
class FailOn:
    """One `--fail-on` condition: `name` holds when its measured value is greater than `limit`."""

    name: str
    limit: float

    @property
    def spec(self) -> str:
        lim = int(self.limit) if float(self.limit).is_integer() else self.limit
        return f"{self.name}>{lim}"

    def measure(self, diff: dict[str, Any]) -> float | None:
        d = diff["distribution"]
        if self.name == "new-quarantine":
            return diff["new_quarantines"]["count"]
        if self.name == "resolved-quarantine":
            return diff["resolved_quarantines"]["count"]
        if self.name == "new-injection":
            return diff["new_injections"]["count"] if diff["new_injections"]["available"] else None
        if self.name == "band-change":
            return diff["band_changes"]["count"]
        if self.name == "domain-shift":
            return diff["domain_shifts"]["count"]
        if self.name == "psi":
            return d["psi"]
        if self.name == "ks":
            return d["ks"]
        if self.name == "mean-drop":
            return -d["mean_delta"] if d["mean_delta"] is not None else None
        raise AssertionError(self.name)


def parse_fail_on(specs: list[str]) -> list[FailOn]:
    """`new-quarantine`, `band-change>5`, `psi>0.2`, comma-separated or repeated; bad ones exit 2."""
    out: list[FailOn] = []
    for raw in specs:
        for part in raw.split(","):
            if not part.strip():
                continue
            m = _SPEC.match(part.lower())
            if not m or m.group(1) not in FAIL_ON_DEFAULTS:
                raise UsageError(
                    f"--fail-on: cannot parse {part.strip()!r}",
                    hint=f"use NAME or NAME>N with NAME one of {', '.join(FAIL_ON_DEFAULTS)}",
                )
            name = m.group(1)
            limit = float(m.group(2)) if m.group(2) else FAIL_ON_DEFAULTS[name]
            out.append(FailOn(name, limit))
    return out


def check_fail_on(diff: dict[str, Any], conditions: list[FailOn]) -> dict[str, Any]:
    """Evaluate conditions; `held` lists those that hold (any -> exit 1). Recorded in diff.json."""
    results = []
    for c in conditions:
        value = c.measure(diff)
        held = value is not None and value > c.limit
        results.append({"condition": c.spec, "measured": value, "held": held})
    return {"conditions": results, "held": [r["condition"] for r in results if r["held"]]}


# ------------------------------------------------------------------ rendering and writing
def _md_escape(text: Any) -> str:
    """A diff.md cell (posted as PR comments): page strings are untrusted, so the one Markdown
    sanitiser (`report.escape.md`: controls stripped, HTML and Markdown syntax escaped)."""
    from trustaudit.report.escape import md

    return md(str(text if text is not None else "-"), limit=500)


def _md_table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows]
    return out


_RUN_ID = re.compile(r"[0-9a-f]{6,64}")


def _md_run_id(run_id: object) -> str:
    """A run id as written in a code span, which GitLab and GitHub never read as a commit
    reference, so it copies as it is (the escape would break a hex word with zero-width spaces);
    anything else in a manifest's `run_id` is text like any other."""
    text = str(run_id)
    return f"`{text}`" if _RUN_ID.fullmatch(text) else _md_escape(text)


def diff_markdown(diff: dict[str, Any]) -> str:
    """diff.md: the same content as diff.json, for humans and PR comments."""
    o, n, d = diff["old"], diff["new"], diff["distribution"]
    lines = [
        "# trustaudit diff",
        "",
        # run folders and manifests are text too (a folder named with a backtick or `@team`)
        *(
            f"- {side}: {_md_escape(r['run_dir'])} (run {_md_run_id(r['run_id'])}, {r['pages']} "
            f"pages, completed {_md_escape(r['completed_at'])})"
            for side, r in (("old", o), ("new", n))
        ),
        f"- pages: {diff['pages']['added']} added, {diff['pages']['removed']} removed, "
        f"{diff['pages']['common']} in both",
        "",
        "## Summary",
        "",
    ]
    lines += _md_table(
        ["what", "old", "new"],
        [[f"band: {b}", o["bands"][b], n["bands"][b]] for b in BANDS]
        + [
            [k, d["old"][k], d["new"][k]]
            for k in ("mean", "std", "p05", "p25", "p50", "p75", "p95")
        ],
    )
    lines += [
        "",
        f"- mean trust delta: {d['mean_delta']}; PSI: {d['psi']}; KS: {d['ks']} (p={d['ks_pvalue']})",
        f"- new quarantines: {diff['new_quarantines']['count']}; resolved: "
        f"{diff['resolved_quarantines']['count']}; band changes: {diff['band_changes']['count']}; "
        f"domains moved > {diff['domain_shifts']['threshold']}: {diff['domain_shifts']['count']}; "
        f"new injection findings: "
        + (str(diff["new_injections"]["count"]) if diff["new_injections"]["available"] else "n/a"),
    ]
    fo = diff.get("fail_on")
    if fo and fo["conditions"]:
        lines += ["", "## --fail-on", ""]
        lines += _md_table(
            ["condition", "measured", "held"],
            [
                [c["condition"], c["measured"], "**yes**" if c["held"] else "no"]
                for c in fo["conditions"]
            ],
        )

    def section(title: str, key: str, headers: list[str], fields: list[str]) -> None:
        block = diff[key]
        lines.extend(["", f"## {title} ({block['count']})", ""])
        if not block["items"]:
            lines.append("none")
            return
        lines.extend(_md_table(headers, [[it.get(f) for f in fields] for it in block["items"]]))
        if block["count"] > len(block["items"]):
            lines.append(f"\n… {block['count'] - len(block['items'])} more")

    page_h = ["url", "domain", "band old", "band new", "trust old", "trust new"]
    page_f = ["url", "registered_domain", "band_old", "band_new", "trust_old", "trust_new"]
    section("New quarantines", "new_quarantines", page_h, page_f)
    section("Resolved quarantines", "resolved_quarantines", page_h, page_f)
    section("Band changes", "band_changes", page_h, page_f)
    section(
        "Domains whose mean trust moved",
        "domain_shifts",
        ["domain", "old mean", "new mean", "delta", "old pages", "new pages"],
        ["registered_domain", "old_mean", "new_mean", "delta", "old_pages", "new_pages"],
    )
    if diff["new_injections"]["available"]:
        section(
            "New injection findings",
            "new_injections",
            ["url", "domain", "band", "findings", "first finding"],
            ["url", "registered_domain", "band", "injection_count", "injection_detail"],
        )
    return "\n".join(lines) + "\n"


def write_diff(diff: dict[str, Any], out_dir: str | Path) -> tuple[Path, Path]:
    """Write diff.md and diff.json atomically into `out_dir`; returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / "diff.md", out / "diff.json"
    write_json(js, diff)
    write_text(md, diff_markdown(diff))
    return md, js
