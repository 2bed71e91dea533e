"""Threshold curves and a recommended threshold, measured on labels (DESIGN §4: threshold is a product
decision; this module turns it into one made with data).

The positive class is "untrusted" (what a threshold is meant to catch). At threshold t a page is
quarantined when `trust_score < t` or a hard rule fired (`hard_quarantine`), exactly the band rule of
scoring/score.py, so the curve describes what the policy would do at t. Without a labels file the
allow/blocklists serve as weak labels; that is circular (the lists feed the score) and every output
says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from trustaudit.gate.labels import read_label_rows
from trustaudit.io.atomic import write_csv, write_json, write_text
from trustaudit.io.lists import parse_list_line, read_domain_lists
from trustaudit.io.records import doc_id_for
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy

THRESHOLDS = np.round(np.arange(0, 101) / 100, 2)
WEAK_NOTE = (
    "No labels file: allowlisted domains were taken as trusted and blocklisted ones as untrusted "
    "(weak labels). The lists also feed the score, so these figures are optimistic; pass "
    "--labels FILE for an honest measurement."
)
# Columns that are identifiers or outputs of the thresholding itself, never "signals".
_NOT_SIGNALS = {"doc_id", "url", "registered_domain", "offset", "band", "_untrusted"}
CALIBRATION_JSON = "calibration.json"


@dataclass
class LabeledPages:
    """Pages of a run with a label: `doc_id`, `_untrusted` (bool), plus how they were matched."""

    frame: pl.DataFrame
    source: str  # "labels" | "weak"
    file: str | None = None
    rows: int = 0
    unmatched: int = 0
    conflicts: int = 0
    unmatched_examples: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ labels
def read_labels(path: str | Path) -> pl.DataFrame:
    """Labels CSV -> `kind` (doc_id|url|domain), `key`, `untrusted` (bool): the gate's reader
    (`gate.labels.read_label_rows`), so both accept and refuse the same files."""
    return read_label_rows(path)


def match_labels(labels: pl.DataFrame, pages: pl.DataFrame) -> tuple[pl.DataFrame, int, int, list]:
    """Attach labels to pages: URLs via doc_id (normalized URL), domains via registered domain or
    exact host. A URL label wins over a domain label for the same page; among equal kinds the first
    row wins. Returns (doc_id/_untrusted frame, unmatched label rows, conflicting pages, examples).
    """
    urls = pl.concat(
        [
            labels.filter(pl.col("kind") == "url").with_columns(
                doc_id=pl.col("key").map_elements(
                    lambda u: doc_id_for(u, "", None), return_dtype=pl.String
                )
            ),
            labels.filter(pl.col("kind") == "doc_id").with_columns(doc_id=pl.col("key")),
        ]
    )
    doms = labels.filter(pl.col("kind") == "domain").with_columns(
        key=pl.col("key").map_elements(lambda d: parse_list_line(d) or d, return_dtype=pl.String)
    )
    by_url = urls.join(pages.select("doc_id"), on="doc_id", how="inner").with_columns(
        _prio=pl.lit(0)
    )
    host = pages["host"] if "host" in pages.columns else pages["registered_domain"]
    keyed = pages.select("doc_id", "registered_domain").with_columns(host=host)
    by_reg = doms.join(keyed, left_on="key", right_on="registered_domain", how="inner")
    by_host = doms.join(keyed, left_on="key", right_on="host", how="inner")
    by_dom = pl.concat(
        [by_reg.select("doc_id", "untrusted", "key"), by_host.select("doc_id", "untrusted", "key")]
    ).with_columns(_prio=pl.lit(1))
    allm = pl.concat(
        [by_url.select("doc_id", "untrusted", "key", "_prio"), by_dom], how="vertical_relaxed"
    ).with_row_index("_row")
    conflicts = (
        allm.group_by("doc_id")
        .agg(pl.col("untrusted").n_unique().alias("n"))
        .filter(pl.col("n") > 1)
    ).height
    chosen = (
        allm.sort(["_prio", "_row"])
        .unique("doc_id", keep="first", maintain_order=True)
        .select("doc_id", _untrusted=pl.col("untrusted"))
    )
    matched_keys = set(allm["key"].to_list())
    unmatched = labels.filter(
        ~pl.col("key").is_in(list(matched_keys)) & (pl.col("kind") != "domain")
    )
    unmatched_dom = doms.filter(~pl.col("key").is_in(list(matched_keys)))
    examples = [*unmatched["key"].head(3).to_list(), *unmatched_dom["key"].head(2).to_list()]
    return chosen, unmatched.height + unmatched_dom.height, conflicts, examples


def labeled_pages(run: RunDir, policy: Policy, labels: str | Path | None) -> LabeledPages | None:
    """Labels from a file, else weak labels from the allow/blocklists; None when there are neither."""
    cols = ["doc_id", "registered_domain"]
    page_cols = run.scan("pages").collect_schema().names() if run.pages.exists() else []
    if labels is not None:
        lab = read_labels(labels)
        pages = (
            run.read("pages", columns=cols + (["host"] if "host" in page_cols else []))
            if run.pages.exists()
            else run.read("scores", columns=cols)
        )
        frame, unmatched, conflicts, examples = match_labels(lab, pages)
        return LabeledPages(
            frame, "labels", str(labels), lab.height, unmatched, conflicts, examples
        )
    sig_cols = run.scan("signals").collect_schema().names() if run.signals.exists() else []
    if {"in_allowlist", "in_blocklist"} <= set(sig_cols):
        flags = run.read("signals", columns=["doc_id", "in_allowlist", "in_blocklist"])
    else:
        allow = read_domain_lists(policy.domain.allowlist_files)
        block = read_domain_lists(policy.domain.blocklist_files)
        if not allow and not block:
            return None
        flags = run.read("scores", columns=cols).select(
            "doc_id",
            in_allowlist=pl.col("registered_domain").is_in(list(allow)),
            in_blocklist=pl.col("registered_domain").is_in(list(block)),
        )
    frame = flags.filter(pl.col("in_allowlist").fill_null(False) | pl.col("in_blocklist")).select(
        "doc_id", _untrusted=pl.col("in_blocklist").fill_null(False)
    )
    if frame.height == 0:
        return None
    return LabeledPages(frame, "weak", None, frame.height)


# ------------------------------------------------------------------ metrics
def threshold_curve(
    trust: np.ndarray,
    hard: np.ndarray,
    untrusted: np.ndarray,
    *,
    all_trust: np.ndarray | None = None,
    all_hard: np.ndarray | None = None,
) -> pl.DataFrame:
    """Counts and rates at every threshold 0.00..1.00 (step 0.01) for "quarantined = trust < t or hard".

    `quarantined_share_untrusted` is the share of the untrusted class that is quarantined (= recall);
    `trusted_lost` the share of trusted pages quarantined (false-positive rate);
    `quarantined_share_all` the share of every page of the run (labeled or not) quarantined.
    """
    y = untrusted.astype(bool)
    h = hard.astype(bool)
    pos_soft = np.sort(trust[y & ~h])
    neg_soft = np.sort(trust[~y & ~h])
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    tp = int((y & h).sum()) + np.searchsorted(pos_soft, THRESHOLDS, side="left")
    fp = int((~y & h).sum()) + np.searchsorted(neg_soft, THRESHOLDS, side="left")
    fn = n_pos - tp
    tn = n_neg - fp
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), np.nan)
        recall = tp / n_pos if n_pos else np.full(len(THRESHOLDS), np.nan)
        fpr = fp / n_neg if n_neg else np.full(len(THRESHOLDS), np.nan)
        f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), np.nan)
    at, ah = (trust, hard) if all_trust is None or all_hard is None else (all_trust, all_hard)
    all_soft = np.sort(at[~ah.astype(bool)])
    q_all = (int(ah.astype(bool).sum()) + np.searchsorted(all_soft, THRESHOLDS, side="left")) / max(
        len(at), 1
    )
    out = pl.DataFrame(
        {
            "threshold": THRESHOLDS,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "quarantined_share_untrusted": recall,
            "trusted_lost": fpr,
            "quarantined_share_labeled": (tp + fp) / max(n_pos + n_neg, 1),
            "quarantined_share_all": q_all,
        }
    )
    rates = [c for c in out.columns if out[c].dtype == pl.Float64 and c != "threshold"]
    return out.with_columns([pl.col(c).fill_nan(None).round(4) for c in rates])


def roc_auc(y: np.ndarray, risk: np.ndarray) -> float | None:
    """Mann-Whitney ROC-AUC with average ranks for ties (higher risk = more likely untrusted)."""
    y = y.astype(bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = pl.Series(risk).rank("average").to_numpy()
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def pr_points(y: np.ndarray, risk: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(recall, precision, risk threshold) at every distinct risk value, highest risk first."""
    y = y.astype(bool)
    order = np.argsort(-risk, kind="stable")
    r, yy = risk[order], y[order]
    last = np.r_[np.nonzero(np.diff(r))[0], len(r) - 1] if len(r) else np.array([], dtype=int)
    tp = np.cumsum(yy)[last]
    fp = (last + 1) - tp
    n_pos = max(int(y.sum()), 1)
    return tp / n_pos, tp / np.maximum(tp + fp, 1), r[last]


def average_precision(y: np.ndarray, risk: np.ndarray) -> float | None:
    """PR-AUC as average precision (step-wise, ties grouped), the estimator scikit-learn uses."""
    if int(y.astype(bool).sum()) == 0:
        return None
    recall, precision, _ = pr_points(y, risk)
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def decision_risk(trust: np.ndarray, hard: np.ndarray) -> np.ndarray:
    """Risk that ranks pages as the policy does: hard-quarantined first, then by lowest trust."""
    return np.where(hard.astype(bool), 2.0, 1.0 - trust)


def signal_aucs(frame: pl.DataFrame, y: np.ndarray) -> pl.DataFrame:
    """ROC-AUC of every numeric/boolean column alone (which signals carry the separation).

    `auc` reads "higher value = untrusted"; `separation` = max(auc, 1-auc) and `direction` says which
    way the column points. Nulls are left out per column (`n` says how many pages had a value).
    """
    rows: list[dict[str, Any]] = []
    for name, dtype in frame.schema.items():
        if name in _NOT_SIGNALS or not (dtype.is_numeric() or dtype == pl.Boolean):
            continue
        col = frame[name].cast(pl.Float64)
        ok = (
            (col.is_not_null() & col.is_not_nan()).to_numpy()
            if dtype.is_float()
            else (col.is_not_null().to_numpy())
        )
        values = col.to_numpy()[ok]
        yy = y[ok]
        if len(values) == 0 or np.all(values == values[0]):
            continue
        auc = roc_auc(yy, values)
        if auc is None:
            continue
        rows.append(
            {
                "signal": name,
                "auc": round(auc, 4),
                "separation": round(max(auc, 1 - auc), 4),
                "direction": "higher = untrusted" if auc >= 0.5 else "lower = untrusted",
                "n": int(ok.sum()),
            }
        )
    schema = {
        "signal": pl.String,
        "auc": pl.Float64,
        "separation": pl.Float64,
        "direction": pl.String,
        "n": pl.Int64,
    }
    return pl.DataFrame(rows, schema=schema).sort(
        ["separation", "signal"], descending=[True, False]
    )


# ------------------------------------------------------------------ recommendation
def _row(curve: pl.DataFrame, t: float) -> dict[str, Any]:
    hit = curve.filter((pl.col("threshold") - t).abs() < 1e-9)
    return hit.to_dicts()[0] if hit.height else {"threshold": t}


def recommend(
    curve: pl.DataFrame,
    *,
    target_recall: float | None = None,
    target_precision: float | None = None,
) -> dict[str, Any]:
    """Pick a threshold on the curve.

    Target recall R: the lowest threshold whose recall >= R (quarantines the fewest pages for it).
    Target precision P: the threshold with the highest recall among those with precision >= P
    (lowest such threshold on ties). When no threshold reaches the target, the closest one is
    returned with `reached: false`.
    """
    if target_precision:
        kind, target = "precision", float(target_precision)
        ok = curve.filter(pl.col("precision") >= target)
        if ok.height:
            best = ok.sort(["recall", "threshold"], descending=[True, False], nulls_last=True).row(
                0, named=True
            )
            reached = True
        else:
            best = curve.sort(
                ["precision", "threshold"], descending=[True, False], nulls_last=True
            ).row(0, named=True)
            reached = False
    else:
        kind, target = "recall", float(target_recall if target_recall is not None else 0.90)
        ok = curve.filter(pl.col("recall") >= target)
        if ok.height:
            best = ok.sort("threshold").row(0, named=True)
            reached = True
        else:
            best = curve.sort(
                ["recall", "threshold"], descending=[True, False], nulls_last=True
            ).row(0, named=True)
            reached = False
    return {"target": kind, "target_value": target, "reached": reached, **best}


def policy_snippet(rec: dict[str, Any], policy: Policy, *, note: str = "") -> str:
    """TOML to paste into trustaudit.toml; raises `trusted_from` too when the bands would cross."""
    t = float(rec["threshold"])
    prec = rec.get("precision")
    rec_ = rec.get("recall")
    head = (
        f"# trustaudit calibrate: threshold {t:.2f} -> recall {_fmt(rec_)}, precision {_fmt(prec)}"
        f" (target {rec['target']} {rec['target_value']:.2f}"
        f"{'' if rec['reached'] else ', NOT reached: closest threshold shown'})"
    )
    lines = [head]
    if note:
        lines.append(f"# {note}")
    lines += ["[bands]", f"quarantine_below = {t:.2f}"]
    if t > policy.bands.trusted_from:
        lines.append(
            f"trusted_from = {t:.2f}  # raised: bands need quarantine_below <= trusted_from"
        )
    return "\n".join(lines) + "\n"


def _fmt(x: Any) -> str:
    return "n/a" if x is None else f"{float(x):.3f}"


# ------------------------------------------------------------------ the whole calibration
def calibrate_run(
    run: RunDir,
    policy: Policy,
    *,
    labels: str | Path | None = None,
    target_recall: float | None = None,
    target_precision: float | None = None,
    plots: bool = True,
) -> dict[str, Any]:
    """Measure the run's scores against labels; write threshold_curve.csv, calibration.json/.md,
    recommended_policy.toml and the plots. Returns calibration.json's content (status `no_labels`
    when neither a labels file nor allow/blocklist entries exist)."""
    run.require("scores.parquet")
    rp = policy.report
    if target_recall is None and target_precision is None:
        target_precision = rp.target_precision or None
        target_recall = None if target_precision else rp.target_recall
        target_from = "policy report.target_" + ("precision" if target_precision else "recall")
    else:
        target_from = "given (--target-" + ("precision" if target_precision else "recall") + ")"
    lp = labeled_pages(run, policy, labels)
    if lp is None:
        empty: dict[str, Any] = {
            "status": "no_labels",
            "note": "no labels file and no allow/blocklist entries: nothing to calibrate against",
        }
        write_json(run.report(CALIBRATION_JSON), empty)
        return empty
    scores = run.read("scores")
    data = scores.join(lp.frame, on="doc_id", how="inner")
    y = data["_untrusted"].to_numpy()
    trust = data["trust_score"].fill_null(0.0).to_numpy()
    hard = data["hard_quarantine"].fill_null(False).to_numpy()
    curve = threshold_curve(
        trust,
        hard,
        y,
        all_trust=scores["trust_score"].fill_null(0.0).to_numpy(),
        all_hard=scores["hard_quarantine"].fill_null(False).to_numpy(),
    )
    write_csv(run.report("threshold_curve.csv"), curve)
    risk = decision_risk(trust, hard)
    numeric = data
    if run.signals.exists():
        sig = run.read("signals")
        extra = [c for c in sig.columns if c not in data.columns or c == "doc_id"]
        numeric = data.join(sig.select(extra), on="doc_id", how="left")
    per_signal = signal_aucs(numeric, y)
    current_t = round(float(policy.bands.quarantine_below), 2)
    rec = recommend(curve, target_recall=target_recall, target_precision=target_precision)
    note = WEAK_NOTE.split(". ")[0] if lp.source == "weak" else ""
    snippet = policy_snippet(
        rec, policy, note="weak labels (allow/blocklists): optimistic" if note else ""
    )
    best_f1 = curve.sort(["f1", "threshold"], descending=[True, False], nulls_last=True).row(
        0, named=True
    )
    n_pos, n_neg = int(y.sum()), int((~y.astype(bool)).sum())
    result: dict[str, Any] = {
        "status": "done" if n_pos and n_neg else "one_class",
        "label_source": lp.source,
        "labels_file": str(Path(lp.file).resolve()) if lp.file else None,
        "note": WEAK_NOTE if lp.source == "weak" else "",
        "label_rows": lp.rows,
        "labels_unmatched": lp.unmatched,
        "labels_unmatched_examples": lp.unmatched_examples,
        "label_conflicts": lp.conflicts,
        "pages_labeled": data.height,
        "untrusted": n_pos,
        "trusted": n_neg,
        "roc_auc": _r(roc_auc(y, risk)),
        "pr_auc": _r(average_precision(y, risk)),
        "roc_auc_trust_score_only": _r(roc_auc(y, 1.0 - trust)),
        "pr_auc_trust_score_only": _r(average_precision(y, 1.0 - trust)),
        "current_threshold": current_t,
        "current": _row(curve, current_t),
        "recommended": rec,
        "target_from": target_from,
        "best_f1": best_f1,
        "snippet": snippet,
        "signal_auc": per_signal.head(40).to_dicts(),
    }
    if n_pos and n_neg:
        write_text(run.report("recommended_policy.toml"), snippet)
    else:
        result["note"] = (
            f"labels matched {data.height} page(s), {n_pos} untrusted and {n_neg} trusted: a curve "
            "needs both classes. " + result["note"]
        ).strip()
    write_json(run.report(CALIBRATION_JSON), result)
    write_text(run.report("calibration.md"), calibration_markdown(result))
    if plots and n_pos and n_neg:
        from trustaudit.report.plots import pr_curve_png, threshold_curve_png

        threshold_curve_png(
            run.report("threshold_curve.png"),
            curve,
            current=current_t,
            recommended=rec["threshold"],
        )
        rc, pr, _ = pr_points(y, risk)
        pr_curve_png(
            run.report("pr_curve.png"),
            rc,
            pr,
            ap=result["pr_auc"],
            current=result["current"],
            recommended=rec,
        )
    return result


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def calibration_markdown(result: dict[str, Any]) -> str:
    """calibration.md: the numbers a person needs to choose a threshold, and the snippet."""
    from trustaudit.report.escape import md

    cur, rec, f1 = result["current"], result["recommended"], result["best_f1"]
    lines = ["# Calibration", ""]
    if result.get("note"):
        lines += [f"> **Weak labels.** {result['note']}", ""]
    lines += [
        f"Labels: {result['pages_labeled']} pages ({result['untrusted']} untrusted, "
        f"{result['trusted']} trusted); {result['labels_unmatched']} label row(s) matched no page.",
        "",
        f"- ROC-AUC {_fmt(result['roc_auc'])}, PR-AUC {_fmt(result['pr_auc'])} "
        "(policy decision: hard rules first, then lowest trust)",
        f"- current threshold {result['current_threshold']:.2f}: precision {_fmt(cur.get('precision'))}, "
        f"recall {_fmt(cur.get('recall'))}, F1 {_fmt(cur.get('f1'))}",
        f"- recommended {rec['threshold']:.2f} for {rec['target']} >= {rec['target_value']:.2f}"
        f"{'' if rec['reached'] else ' (not reachable: closest shown)'}: precision "
        f"{_fmt(rec.get('precision'))}, recall {_fmt(rec.get('recall'))}, trusted pages lost "
        f"{_fmt(rec.get('trusted_lost'))}",
        f"- best F1 {_fmt(f1.get('f1'))} at {f1['threshold']:.2f}",
        "",
        "Paste into trustaudit.toml:",
        "",
        "```toml",
        result["snippet"].rstrip(),
        "```",
        "",
        "## Which signals separate the classes (ROC-AUC of each alone)",
        "",
        "| signal | separation | direction | pages with a value |",
        "|---|---:|---|---:|",
    ]
    for s in result["signal_auc"][:25]:
        lines.append(f"| {md(s['signal'])} | {s['separation']:.3f} | {s['direction']} | {s['n']} |")
    return "\n".join(lines) + "\n"


def remembered_labels(run: RunDir) -> Path | None:
    """The labels the run owns (given to `audit --labels`, copied into RUN/inputs/), never the
    file of an earlier `calibrate` call: a derived command must not depend on command history."""
    from trustaudit.io.rundir import recorded_labels

    return recorded_labels(run)
