"""summary.json, quarantine.csv, quarantine.md and domains.csv — what a person or CI reads first."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.io.atomic import write_json, write_text
from trustaudit.io.rundir import RunDir
from trustaudit.policy import Policy
from trustaudit.progress import NullProgress, Progress
from trustaudit.report.escape import csv_cell, md
from trustaudit.report.extra import write_extra_reports
from trustaudit.report.reason_text import reasons_markdown


def build_summary(run: RunDir, policy: Policy, manifest: dict[str, Any]) -> dict[str, Any]:
    """The run's headline numbers (also what `audit --json` prints)."""
    errors = run.read("errors") if run.errors.exists() else pl.DataFrame()
    stages = manifest.get("stages", {})
    acc = stages.get("ingest", {}).get("accounting", {})
    summary: dict[str, Any] = {
        "run_id": manifest.get("run_id"),
        "run_dir": str(run.root),
        "trustaudit_version": manifest.get("trustaudit_version"),
        "policy_hash": manifest.get("policy_hash"),
        "generated_at": datetime.now(UTC).isoformat(),
        "accounting": acc,
        "errors_by_code": (
            dict(errors.group_by("code").len().sort("len", descending=True).iter_rows())
            if errors.height
            else {}
        ),
        "stages": {
            k: {kk: vv for kk, vv in v.items() if kk in ("status", "seconds", "pages", "families")}
            for k, v in stages.items()
        },
    }
    if run.scores.exists():
        scores = run.read("scores")
        bands = dict(scores.group_by("band").len().iter_rows())
        summary["pages"] = scores.height
        summary["bands"] = {b: int(bands.get(b, 0)) for b in ("quarantine", "medium", "trusted")}
        mean = scores["trust_score"].mean()
        summary["mean_trust"] = round(float(mean), 3) if isinstance(mean, int | float) else 0.0
        summary["threshold"] = policy.bands.quarantine_below
        summary["policy_used"] = policy_used(run, policy, manifest)
        reasons = scores.select(pl.col("reasons").explode()).drop_nulls()
        summary["top_reasons"] = dict(
            reasons.group_by("reasons")
            .len()
            .sort(["len", "reasons"], descending=[True, False])
            .head(15)
            .iter_rows()
        )
        q = scores.filter(pl.col("band") == "quarantine")
        summary["top_quarantined_domains"] = (
            dict(
                q.group_by("registered_domain")
                .len()
                .sort(["len", "registered_domain"], descending=[True, False])
                .head(10)
                .iter_rows()
            )
            if q.height
            else {}
        )
        summary["hard_quarantined"] = int(scores["hard_quarantine"].sum())
        if "adjust_syndication" in scores.columns:
            summary["syndicated_pages"] = int((scores["adjust_syndication"] < 0).sum())
    if run.signals.exists():
        sig = run.scan("signals")
        cols = sig.collect_schema().names()
        if "injection_count" in cols:
            summary["injection_pages"] = int(
                sig.select((pl.col("injection_count") > 0).sum()).collect().item()
            )
    calibration = run.report("calibration.json")
    if calibration.is_file():
        try:
            cal = json.loads(calibration.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, OSError):
            cal = {}
        rec = cal.get("recommended") or {}
        in_use = round(float(policy.bands.quarantine_below), 2)
        summary["calibration"] = {
            "label_source": cal.get("label_source"),
            "roc_auc": cal.get("roc_auc"),
            "pr_auc": cal.get("pr_auc"),
            "recommended_threshold": rec.get("threshold"),
            "recommended_precision": rec.get("precision"),
            "recommended_recall": rec.get("recall"),
            "target": rec.get("target"),
            "target_value": rec.get("target_value"),
            "target_from": cal.get("target_from"),
            # the threshold the bands of this run use, and whether it is the recommended one
            # (calibrate only recommends: a threshold is applied by a policy that sets it)
            "threshold_in_use": in_use,
            "applied": rec.get("threshold") is not None
            and round(float(rec["threshold"]), 2) == in_use,
        }
    for kind in ("allowlist", "blocklist"):
        f = run.report(f"{kind}.suggested.txt")
        if f.is_file():
            lines = f.read_text(encoding="utf-8").splitlines()
            summary.setdefault("suggestions", {})[kind] = sum(
                1 for x in lines if x.strip() and not x.startswith("#")
            )
    pps = {}
    for name, st in stages.items():
        if st.get("seconds") and summary.get("pages"):
            pps[name] = round(summary["pages"] / st["seconds"], 1) if st["seconds"] > 0 else None
    summary["pages_per_second"] = pps
    return summary


def policy_used(run: RunDir, policy: Policy, manifest: dict[str, Any]) -> dict[str, Any]:
    """The bands this report used and where its policy came from: `recorded` when it is the
    policy the run's manifest records (audit, or the last `score`), `given` when a command got
    another one (`report --policy`) without re-scoring: the bands then differ from the scores'."""
    from trustaudit.io.rundir import recorded_hash

    try:
        same = recorded_hash(run, policy) == manifest.get("policy_hash")
    except Exception:  # a policy that cannot be hashed here is not the recorded one
        same = False
    return {
        "from": "recorded" if same else "given",
        "policy_hash": manifest.get("policy_hash") if same else None,
        "quarantine_below": policy.bands.quarantine_below,
        "trusted_from": policy.bands.trusted_from,
    }


def decision_lines(summary: dict[str, Any]) -> list[str]:
    """What a derived command (`report`, `score`) decided with, in words: the bands and their
    policy, and the calibration's recommendation with its target and whether it is in use."""
    lines = []
    used = summary.get("policy_used") or {}
    if used:
        where = (
            "the policy recorded in the run"
            if used.get("from") == "recorded"
            else "the policy given to this command, not the one recorded in the run"
        )
        lines.append(
            f"bands: quarantine < {used['quarantine_below']:g}, trusted >= "
            f"{used['trusted_from']:g} ({where})"
        )
    cal = summary.get("calibration") or {}
    if cal.get("recommended_threshold") is not None:
        target = f"{cal.get('target')} >= {float(cal.get('target_value') or 0):.2f}"
        on = "weak labels (allow/blocklists)" if cal.get("label_source") == "weak" else "labels"
        head = (
            f"calibration on {on}: recommended threshold "
            f"{float(cal['recommended_threshold']):.2f} for {target} ({cal.get('target_from')})"
        )
        if cal.get("applied"):
            lines.append(f"{head}: calibrated threshold in use")
        else:
            lines.append(
                f"{head}: not applied, the threshold in use is {cal['threshold_in_use']:.2f} "
                "(adopt it with a policy that sets it: reports/recommended_policy.toml)"
            )
    return lines


def _quarantine_table(run: RunDir) -> pl.DataFrame:
    scores = run.read("scores")
    pages = run.read("pages", columns=["doc_id", "title"])
    return (
        scores.filter(pl.col("band") == "quarantine")
        .join(pages, on="doc_id", how="left")
        .sort(["trust_score", "url"], nulls_last=True)
    )


def write_quarantine(run: RunDir) -> int:
    q = _quarantine_table(run)
    rows = q.select(
        "doc_id",
        "url",
        "registered_domain",
        "trust_score",
        "band",
        "hard_quarantine",
        "reasons",
        "reason_details",
        "title",
    ).to_dicts()
    cols = [
        "doc_id",
        "url",
        "registered_domain",
        "trust_score",
        "hard_quarantine",
        "reasons",
        "reason_details",
        "title",
    ]
    table = pl.DataFrame(
        {
            "doc_id": [r["doc_id"] for r in rows],
            "url": [csv_cell(r["url"]) for r in rows],
            "registered_domain": [csv_cell(r["registered_domain"]) for r in rows],
            "trust_score": [r["trust_score"] for r in rows],
            "hard_quarantine": [r["hard_quarantine"] for r in rows],
            "reasons": [";".join(r["reasons"] or []) for r in rows],
            "reason_details": [csv_cell(" | ".join(r["reason_details"] or [])) for r in rows],
            "title": [csv_cell(r["title"]) for r in rows],
        },
        schema={
            c: (
                pl.Float64
                if c == "trust_score"
                else pl.Boolean
                if c == "hard_quarantine"
                else pl.String
            )
            for c in cols
        },
    )
    from trustaudit.io.atomic import write_csv

    write_csv(run.report("quarantine.csv"), table)
    lines = [
        "# Quarantined sources",
        "",
        f"{len(rows)} page(s) fell below the threshold or hit a hard rule. They are kept in the run, not "
        "deleted; reasons say why each one was not used.",
        "",
        "| trust | url | domain | reasons |",
        "|---:|---|---|---|",
    ]
    for r in rows:
        reasons = reasons_markdown(r["reason_details"])
        lines.append(
            f"| {r['trust_score']:.3f} | {md(r['url'], 200)} | {md(r['registered_domain'])} | {reasons} |"
        )
    write_text(run.report("quarantine.md"), "\n".join(lines) + "\n")
    return len(rows)


def write_domains_csv(run: RunDir) -> None:
    from trustaudit.io.atomic import write_csv

    domains = run.read("domains")
    flat = domains.select([c for c, t in domains.schema.items() if not isinstance(t, pl.List)])
    flat = flat.with_columns(
        pl.col("registered_domain").map_elements(csv_cell, return_dtype=pl.String)
    )
    write_csv(run.report("domains.csv"), flat.sort("registered_domain", nulls_last=True))


def write_reports(
    run: RunDir,
    policy: Policy,
    manifest: dict[str, Any],
    *,
    labels: Path | None = None,
    progress: Progress | None = None,
    eval_dir: Path | None = None,
) -> dict[str, Any]:
    """Every report of a run: tables, calibration, suggestions, report.html (with the eval of
    `eval_dir`, default RUN/eval), then summary.json."""
    progress = progress or NullProgress()
    progress.start("report")
    run.reports.mkdir(parents=True, exist_ok=True)
    if run.scores.exists():
        write_quarantine(run)
        write_domains_csv(run)
        write_extra_reports(run, policy, manifest, labels=labels, eval_dir=eval_dir)
    summary = build_summary(run, policy, manifest)
    write_json(run.report("summary.json"), summary)
    progress.done("report")
    return summary
