"""The gate's rules: pure functions over a run's tables that return one RuleResult each.

Every rule reports its measured value even when its limit is at the permissive end, so `gate.json` is
also a compact health record of a run. `--strict` (or `gate.strict`) turns warnings into failures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from trustaudit.errors import RunDirError
from trustaudit.gate.labels import join_labels, read_labels
from trustaudit.gate.model import GateResult, RuleResult, Status
from trustaudit.io.rundir import RunDir, recorded_hash
from trustaudit.policy import Policy
from trustaudit.policy.gate import GatePolicy
from trustaudit.report.escape import cut_text_expr
from trustaudit.scoring.injection import (
    aimed_findings,
    finding_counts,
    signal_injection_counts,
)

SCORE_COLUMNS = ("doc_id", "url", "registered_domain", "trust_score", "band", "hard_quarantine")


# ------------------------------------------------------------------ reading a run
@dataclass
class RunTables:
    """The parts of a run the gate reads; optional tables are None when the run does not have them."""

    run: RunDir
    manifest: dict[str, Any]
    scores: pl.DataFrame
    blocklist: pl.DataFrame | None  # doc_id, in_blocklist
    injection: pl.DataFrame | None  # doc_id, injection_count, injection_aimed, injection_detail
    cards: pl.DataFrame | None  # card_id, passed, reasons (str)


def _columns(run: RunDir, name: str) -> list[str]:
    try:
        return list(run.scan(name).collect_schema().names())
    except (FileNotFoundError, OSError, pl.exceptions.PolarsError):
        return []


def _finding_text(findings: pl.Expr) -> pl.Expr:
    first = findings.list.first()
    return pl.concat_str(
        [
            first.struct.field("technique").fill_null("?"),
            pl.lit(" in "),
            first.struct.field("location").fill_null("?"),
            pl.lit(": "),
            cut_text_expr(first.struct.field("snippet").fill_null(""), 80),
        ]
    )


def _injection_table(run: RunDir, manifest: dict[str, Any], signal_cols: list[str]) -> Any:
    """Per page: injection_count (every finding), injection_aimed (not quoted), injection_detail.

    Counts come from the scorer's signals when it wrote them, else from the pages' findings
    (`scoring.injection.page_injection_counts`); which findings are quoted follows the run's own
    `injection.quoted_context`. Findings in pages.parquet only mean something when the scan ran
    (policy.injection.enabled in the run's manifest); otherwise the rule is skipped rather than
    passed. The detail shows the first aimed finding, else the first quoted one.
    """
    recorded = manifest.get("policy", {}).get("injection", {}) or {}
    quoted_context = bool(recorded.get("quoted_context", True))
    page_cols = _columns(run, "pages")
    pages = run.scan("pages") if "injection_findings" in page_cols else None
    signals = run.scan("signals") if "injection_count" in signal_cols else None
    if pages is None or (signals is None and not recorded.get("enabled", True)):
        if signals is None:
            return None
        return signal_injection_counts(signals).with_columns(
            injection_detail=pl.lit(None, pl.String)
        )
    # one read of the pages: the detail, and the counts too when the scorer wrote none
    dtype = pages.collect_schema()["injection_findings"]
    findings = pl.col("injection_findings")
    aimed = aimed_findings(dtype, quoted_context)
    detail = pages.select(
        pl.col("doc_id").cast(pl.String),
        *(finding_counts(dtype, quoted_context) if signals is None else ()),
        injection_detail=pl.when(aimed.list.len() > 0)
        .then(_finding_text(aimed))
        .when(findings.list.len() > 0)
        .then(_finding_text(findings))
        .otherwise(None),
    ).collect()
    if signals is None:
        return detail
    return signal_injection_counts(signals).join(detail, on="doc_id", how="left")


def _cards_table(run: RunDir) -> pl.DataFrame | None:
    if not (run.root / "cards.parquet").exists() and not (run.root / "cards").is_dir():
        return None
    try:
        df = run.read("cards")
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise RunDirError(f"{run.root}/cards.parquet is unreadable: {exc}") from None
    if "card_id" not in df.columns or "passed" not in df.columns:
        raise RunDirError(f"{run.root}/cards.parquet lacks card_id/passed columns")
    reasons: pl.Expr = pl.lit("")
    if "reasons" in df.columns:
        dtype = df.schema["reasons"]
        reasons = (
            pl.col("reasons").list.join(", ") if isinstance(dtype, pl.List) else pl.col("reasons")
        )
        reasons = reasons.cast(pl.String).fill_null("")
    return df.select(
        pl.col("card_id").cast(pl.String), pl.col("passed").cast(pl.Boolean), reasons=reasons
    )


def load_run(path: str | Path) -> RunTables:
    """Read what the gate needs; a missing, unfinished or malformed run is a RunDirError (exit 2)."""
    run = RunDir.at(path)
    if not run.root.is_dir():
        raise RunDirError(
            f"run directory not found: {run.root}", hint="run `trustaudit audit INPUT --out RUN`"
        )
    if not run.manifest.is_file():
        raise RunDirError(
            f"{run.root} is not a run directory (no manifest.json)",
            hint="audit first: `trustaudit gate INPUT... --out RUN`",
        )
    manifest = run.read_manifest()
    if not manifest.get("completed_at"):
        raise RunDirError(
            f"{run.root} is incomplete: its audit did not finish",
            hint="re-run the same `trustaudit audit` command to resume it",
        )
    scores = run.read("scores")
    missing = [c for c in SCORE_COLUMNS if c not in scores.columns]
    if missing:
        raise RunDirError(f"{run.root}/scores.parquet lacks column(s) {', '.join(missing)}")
    if "reasons" not in scores.columns:
        scores = scores.with_columns(reasons=pl.lit([], pl.List(pl.String)))
    signal_cols = _columns(run, "signals")
    blocklist = None
    if "in_blocklist" in signal_cols:
        blocklist = run.scan("signals").select("doc_id", "in_blocklist").collect()
    return RunTables(
        run=run,
        manifest=manifest,
        scores=scores,
        blocklist=blocklist,
        injection=_injection_table(run, manifest, signal_cols),
        cards=_cards_table(run),
    )


# ------------------------------------------------------------------ helpers
def _page_offenders(pages: pl.DataFrame, n: int, extra: str | None = None) -> list[dict[str, Any]]:
    """Worst pages first (lowest trust), each with a one-line `text` for humans and CI logs."""
    rows = pages.sort(["trust_score", "url"], nulls_last=True).head(n).to_dicts()
    out = []
    for r in rows:
        reasons = [str(c) for c in (r.get("reasons") or [])[:3]]
        bits = [f"trust {r['trust_score']:.3f}" if r.get("trust_score") is not None else "no score"]
        bits.append(str(r.get("band")))
        if reasons:
            bits.append(", ".join(reasons))
        if extra and r.get(extra):
            bits.append(str(r[extra]))
        out.append(
            {
                "doc_id": r["doc_id"],
                "url": r.get("url"),
                "registered_domain": r.get("registered_domain"),
                "trust_score": r.get("trust_score"),
                "band": r.get("band"),
                "reasons": reasons,
                "text": f"{r.get('url') or r['doc_id']} ({'; '.join(bits)})",
                **({extra: r.get(extra)} if extra else {}),
            }
        )
    return out


def _grade(
    name: str,
    gp: GatePolicy,
    *,
    breach: bool,
    warn_breach: bool = False,
) -> Status:
    if breach:
        return "warn" if name in gp.warn_rules else "fail"
    return "warn" if warn_breach else "pass"


def _threshold(
    name: str,
    label: str,
    measured: float,
    gp: GatePolicy,
    *,
    limit: float,
    warn_limit: float | None,
    higher_is_worse: bool,
    context: str,
) -> tuple[Status, str, str]:
    """Status, message and comparison for a numeric rule with a fail limit and an optional warn limit."""

    def worse(lim: float) -> bool:
        return measured > lim if higher_is_worse else measured < lim

    status = _grade(
        name,
        gp,
        breach=worse(limit),
        warn_breach=warn_limit is not None and worse(warn_limit),
    )
    ok, bad = ("<=", ">") if higher_is_worse else (">=", "<")
    if status == "pass":
        msg = f"{label} {measured:.3f} {ok} limit {limit:.3f}"
    elif worse(limit):
        msg = f"{label} {measured:.3f} {bad} limit {limit:.3f}"
    else:
        msg = f"{label} {measured:.3f} {bad} warning limit {warn_limit:.3f}"
    return status, f"{msg} ({context})", ok


# ------------------------------------------------------------------ the rules
def rule_band_share(t: RunTables, policy: Policy, band: str) -> RuleResult:
    gp = policy.gate
    name = "quarantined_share" if band == "quarantine" else "medium_share"
    limit = gp.max_quarantined_share if band == "quarantine" else gp.max_medium_share
    warn = gp.warn_quarantined_share if band == "quarantine" else gp.warn_medium_share
    total = t.scores.height
    hits = t.scores.filter(pl.col("band") == band)
    share = round(hits.height / total, 4) if total else 0.0
    label = "quarantined share" if band == "quarantine" else "medium share"
    status, msg, cmp = _threshold(
        name,
        label,
        share,
        gp,
        limit=limit,
        warn_limit=warn if warn < limit else None,
        higher_is_worse=True,
        context=f"{hits.height} of {total} pages",
    )
    return RuleResult(
        name=name,
        status=status,
        message=msg,
        measured=share,
        limit=limit,
        warn_limit=warn if warn < limit else None,
        comparison=cmp,
        offenders=_page_offenders(hits, gp.max_offenders),
        offender_count=hits.height,
        details={"pages": total, band: hits.height},
    )


def rule_mean_trust(t: RunTables, policy: Policy) -> RuleResult:
    gp = policy.gate
    if t.scores.height == 0:
        return RuleResult("mean_trust", "skip", "no pages scored", limit=gp.min_mean_trust)
    mean = round(float(t.scores["trust_score"].mean() or 0.0), 4)  # type: ignore[arg-type]
    warn = gp.warn_mean_trust if gp.warn_mean_trust > gp.min_mean_trust else None
    status, msg, cmp = _threshold(
        "mean_trust",
        "mean trust",
        mean,
        gp,
        limit=gp.min_mean_trust,
        warn_limit=warn,
        higher_is_worse=False,
        context=f"{t.scores.height} pages",
    )
    worst = (  # lowest-trust domains first: where the mean comes from
        t.scores.group_by("registered_domain")
        .agg(mean_trust=pl.col("trust_score").mean().round(3), pages=pl.len())
        .sort(["mean_trust", "registered_domain"], nulls_last=True)
        .head(gp.max_offenders)
    )
    offenders = [
        {
            "registered_domain": r["registered_domain"],
            "mean_trust": r["mean_trust"],
            "pages": r["pages"],
            "text": f"{r['registered_domain']}: mean trust {r['mean_trust']:.3f} over {r['pages']} page(s)",
        }
        for r in worst.to_dicts()
    ]
    return RuleResult(
        "mean_trust",
        status,
        msg,
        measured=mean,
        limit=gp.min_mean_trust,
        warn_limit=warn,
        comparison=cmp,
        offenders=offenders,
        offender_count=t.scores["registered_domain"].n_unique(),
        details={"pages": t.scores.height},
    )


def rule_injection(t: RunTables, policy: Policy) -> RuleResult:
    gp = policy.gate
    if t.injection is None:
        return RuleResult(
            "injection",
            "skip",
            "injection scan did not run for this run (no injection_count or findings)",
            limit=0,
        )
    joined = t.scores.join(t.injection, on="doc_id", how="inner")
    # Quoted findings (INJECTION_QUOTED: a security article's example, an exam's rubric) do not
    # quarantine a page, so they do not fail the gate either; they are counted in the details.
    hit = joined.filter(pl.col("injection_aimed") > 0).sort(
        ["injection_aimed", "url"], descending=[True, False]
    )
    quoted_only = joined.filter((pl.col("injection_aimed") == 0) & (pl.col("injection_count") > 0))
    n = hit.height
    total = int(hit["injection_aimed"].sum()) if n else 0
    status = _grade("injection", gp, breach=gp.fail_on_injection and n > 0)
    if n == 0:
        msg = "no page carries an injection finding aimed at the reader"
    else:
        msg = f"{n} page(s) carry {total} injection finding(s)"
        if not gp.fail_on_injection:
            msg += " (gate.fail_on_injection is off)"
    if quoted_only.height:
        msg += f"; {quoted_only.height} page(s) only quote one (INJECTION_QUOTED, not counted)"
    offenders = _page_offenders(hit, gp.max_offenders, extra="injection_detail")
    # Keep the most-findings-first order rather than lowest-trust-first.
    order = {d: i for i, d in enumerate(hit["doc_id"].to_list())}
    offenders.sort(key=lambda o: order[o["doc_id"]])
    return RuleResult(
        "injection",
        status,
        msg,
        measured=n,
        limit=0 if gp.fail_on_injection else None,
        comparison="<=",
        offenders=offenders,
        offender_count=n,
        details={"findings": total, "quoted_only_pages": quoted_only.height},
    )


def rule_unscanned(t: RunTables, policy: Policy) -> RuleResult:
    """Records whose content existed but was never scanned: a page hidden from the audit is no pass."""
    from trustaudit.io.records import UNSCANNED_CODES

    gp = policy.gate
    if not t.run.errors.exists():
        return RuleResult("unscanned", "skip", "the run has no errors.parquet", limit=0)
    errs = (
        t.run.scan("errors")
        .filter(pl.col("code").is_in(sorted(UNSCANNED_CODES)))
        .select("source", "offset", "url", "code", "message")
        .collect()
    )
    n = errs.height
    status = _grade("unscanned", gp, breach=gp.unscanned == "fail" and n > 0)
    msg = (
        "every input record was scanned"
        if n == 0
        else f"{n} input record(s) were never scanned (codes: "
        + ", ".join(sorted(set(errs["code"].to_list())))
        + ")"
        + (" (gate.unscanned = pass)" if gp.unscanned == "pass" else "")
    )
    offenders = []
    for r in errs.head(gp.max_offenders).to_dicts():
        where = r["url"] or f"{r['source']}#{r['offset']}"
        detail = (r["message"] or "")[:120]
        offenders.append(
            {
                "url": r["url"],
                "source": r["source"],
                "offset": r["offset"],
                "code": r["code"],
                "text": f"{where} ({r['code']}: {detail})",
            }
        )
    return RuleResult(
        "unscanned",
        status,
        msg,
        measured=n,
        limit=0 if gp.unscanned == "fail" else None,
        comparison="<=",
        offenders=offenders,
        offender_count=n,
    )


def rule_blocklisted(t: RunTables, policy: Policy) -> RuleResult:
    gp = policy.gate
    if t.blocklist is None:
        return RuleResult(
            "blocklisted_domain", "skip", "signals.parquet has no in_blocklist column", limit=0
        )
    hit = t.scores.join(t.blocklist.filter(pl.col("in_blocklist")), on="doc_id", how="inner")
    n = hit.height
    status = _grade("blocklisted_domain", gp, breach=gp.fail_on_blocklisted and n > 0)
    by_domain = (
        hit.group_by("registered_domain")
        .agg(pages=pl.len(), example=pl.col("url").sort().first())
        .sort(["pages", "registered_domain"], descending=[True, False])
    )
    offenders = [
        {
            "registered_domain": r["registered_domain"],
            "pages": r["pages"],
            "example_url": r["example"],
            "text": f"{r['registered_domain']}: {r['pages']} page(s), e.g. {r['example']}",
        }
        for r in by_domain.head(gp.max_offenders).to_dicts()
    ]
    if n == 0:
        msg = "no page comes from a blocklisted domain"
    else:
        msg = f"{n} page(s) from {by_domain.height} blocklisted domain(s)"
        if not gp.fail_on_blocklisted:
            msg += " (gate.fail_on_blocklisted is off)"
    return RuleResult(
        "blocklisted_domain",
        status,
        msg,
        measured=n,
        limit=0 if gp.fail_on_blocklisted else None,
        comparison="<=",
        offenders=offenders,
        offender_count=by_domain.height,
        details={"domains": by_domain.height},
    )


def label_rules(t: RunTables, policy: Policy, labels_path: str | Path) -> list[RuleResult]:
    """Precision and recall of the quarantine decision at the policy threshold, on a labeled set.

    Decision = trust < bands.quarantine_below or a hard rule fired: exactly what keeps a page out of a
    knowledge base. Precision without any quarantined page counts as 1.0 (nothing wrongly kept out),
    recall without any positive label as 1.0 (nothing missed); the counts are in `details`.
    """
    from trustaudit.errors import UsageError

    gp = policy.gate
    labels = read_labels(labels_path)
    threshold = policy.bands.quarantine_below
    joined = join_labels(t.scores, labels).with_columns(
        predicted=(pl.col("trust_score") < threshold) | pl.col("hard_quarantine").fill_null(False)
    )
    if joined.height == 0:
        raise UsageError(
            f"labels file {labels_path} matches no page of {t.run.root}",
            hint="label rows need the page URL (or doc_id, or registered domain) as in scores.parquet",
        )
    doc_keys = labels.filter(pl.col("key_kind") == "doc_id")["key"]
    unmatched = int((~doc_keys.is_in(t.scores["doc_id"].implode())).sum()) if len(doc_keys) else 0
    tp = joined.filter(pl.col("predicted") & pl.col("should_quarantine"))
    fp = joined.filter(pl.col("predicted") & ~pl.col("should_quarantine"))
    fn = joined.filter(~pl.col("predicted") & pl.col("should_quarantine"))
    tn = joined.height - tp.height - fp.height - fn.height
    precision = round(tp.height / (tp.height + fp.height), 4) if tp.height + fp.height else 1.0
    recall = round(tp.height / (tp.height + fn.height), 4) if tp.height + fn.height else 1.0
    details = {
        "threshold": threshold,
        "labeled_pages": joined.height,
        "unmatched_labels": unmatched,
        "true_positives": tp.height,
        "false_positives": fp.height,
        "false_negatives": fn.height,
        "true_negatives": tn,
    }
    out = []
    for name, label, value, limit, wrong, what in (
        ("label_precision", "precision", precision, gp.min_precision, fp, "trusted-labeled"),
        ("label_recall", "recall", recall, gp.min_recall, fn, "untrusted-labeled"),
    ):
        status, msg, cmp = _threshold(
            name,
            label,
            value,
            gp,
            limit=limit,
            warn_limit=None,
            higher_is_worse=False,
            context=f"threshold {threshold}, {joined.height} labeled pages, "
            f"{wrong.height} {what} page(s) "
            + ("quarantined" if name == "label_precision" else "not quarantined"),
        )
        out.append(
            RuleResult(
                name,
                status,
                msg,
                measured=value,
                limit=limit,
                comparison=cmp,
                offenders=_page_offenders(wrong, gp.max_offenders),
                offender_count=wrong.height,
                details=details,
            )
        )
    return out


def rule_cards(t: RunTables, policy: Policy) -> RuleResult:
    gp = policy.gate
    if t.cards is None:
        return RuleResult(
            "cards", "skip", "no cards.parquet in this run", limit=gp.max_failed_card_share
        )
    total = t.cards.height
    failed = t.cards.filter(~pl.col("passed").fill_null(False)).sort("card_id")
    share = round(failed.height / total, 4) if total else 0.0
    status, msg, cmp = _threshold(
        "cards",
        "failed card share",
        share,
        gp,
        limit=gp.max_failed_card_share,
        warn_limit=None,
        higher_is_worse=True,
        context=f"{failed.height} of {total} KB cards failed",
    )
    offenders = [
        {
            "card_id": r["card_id"],
            "reasons": r["reasons"],
            "text": f"card {r['card_id']}: {r['reasons'] or 'failed'}",
        }
        for r in failed.head(gp.max_offenders).to_dicts()
    ]
    return RuleResult(
        "cards",
        status,
        msg,
        measured=share,
        limit=gp.max_failed_card_share,
        comparison=cmp,
        offenders=offenders,
        offender_count=failed.height,
        details={"cards": total, "failed": failed.height},
    )


# ------------------------------------------------------------------ evaluation
def evaluate_gate(
    run: str | Path | RunTables,
    policy: Policy,
    *,
    labels: str | Path | None = None,
    strict: bool = False,
    eval_dir: str | Path | None = None,
) -> GateResult:
    """Evaluate every rule of `policy.gate` on a finished run; the result carries the exit code.

    Warnings fail only under `strict` (flag or `gate.strict`); skipped rules (data absent) never fail.
    """
    t = run if isinstance(run, RunTables) else load_run(run)
    strict = strict or policy.gate.strict
    checks: list[Callable[[], RuleResult | list[RuleResult]]] = [
        lambda: rule_band_share(t, policy, "quarantine"),
        lambda: rule_band_share(t, policy, "medium"),
        lambda: rule_mean_trust(t, policy),
        lambda: rule_injection(t, policy),
        lambda: rule_blocklisted(t, policy),
    ]
    if t.run.errors.exists():  # every audit writes it; a run without one has nothing to say here
        checks.insert(4, lambda: rule_unscanned(t, policy))
    if labels is not None:
        checks.append(lambda: label_rules(t, policy, labels))
    checks.append(lambda: rule_cards(t, policy))
    if eval_dir is not None:  # a `trustaudit eval` output folder: its planted-source rules
        checks.append(lambda: eval_rules(_eval_summary(eval_dir), policy))
    results: list[RuleResult] = []
    for check in checks:
        r = check()
        results.extend(r if isinstance(r, list) else [r])
    notes = []
    run_bands = (t.manifest.get("policy", {}) or {}).get("bands", {}) or {}
    if run_bands and run_bands.get("quarantine_below") != policy.bands.quarantine_below:
        notes.append(
            f"the run was scored with quarantine_below={run_bands.get('quarantine_below')}, the gate "
            f"policy says {policy.bands.quarantine_below}: band shares use the run's bands, label "
            "rules the gate policy's threshold"
        )
    if strict:
        for r in results:
            if r.status == "warn":
                r.status = "fail"
                r.message += " [warning promoted by --strict]"
    return GateResult(
        run_dir=str(t.run.root),
        run_id=t.manifest.get("run_id"),
        policy_hash=recorded_hash(t.run, policy),
        strict=strict,
        rules=results,
        notes=notes,
    )


# ------------------------------------------------------------------ planted-source eval
def eval_rules(summary: pl.DataFrame, policy: Policy) -> list[RuleResult]:
    """Rules over `trustaudit eval`'s per-kind summary (trustaudit/evals): planted results kept in
    context untagged (worst kind), planted results cited, clean results lost.

    `summary` rows: `kind` (a planted kind, `planted` for all of them, `clean`), `results`,
    `in_context`, `filtered`, `with_transcript`, `cited`.
    """
    gp = policy.gate
    kinds = summary.filter(~pl.col("kind").is_in(["planted", "clean"]) & (pl.col("results") > 0))
    rates = kinds.with_columns(rate=(pl.col("in_context") / pl.col("results")).round(4)).sort(
        ["rate", "kind"], descending=[True, False]
    )
    out: list[RuleResult] = []
    if rates.height == 0:
        out.append(RuleResult("planted_in_context", "skip", "no planted results", limit=None))
    else:
        worst = rates.row(0, named=True)
        status, msg, cmp = _threshold(
            "planted_in_context",
            "planted in context (worst kind)",
            worst["rate"],
            gp,
            limit=gp.max_planted_in_context,
            warn_limit=None,
            higher_is_worse=True,
            context=f"{worst['kind']}: {worst['in_context']} of {worst['results']} kept untagged",
        )
        offenders = [
            {
                "kind": r["kind"],
                "rate": r["rate"],
                "text": f"{r['kind']}: {r['in_context']} of {r['results']} planted results in context",
            }
            for r in rates.filter(pl.col("rate") > gp.max_planted_in_context).to_dicts()
        ]
        out.append(
            RuleResult(
                "planted_in_context",
                status,
                msg,
                measured=worst["rate"],
                limit=gp.max_planted_in_context,
                comparison=cmp,
                offenders=offenders,
                offender_count=len(offenders),
                details={r["kind"]: r["rate"] for r in rates.to_dicts()},
            )
        )
    for name, role, num, den, limit, label in (
        ("planted_cited", "planted", "cited", "with_transcript", gp.max_planted_cited, "cited"),
        ("clean_lost", "clean", "filtered", "results", gp.max_clean_lost, "filtered"),
    ):
        row = summary.filter(pl.col("kind") == role)
        total = int(row[den].sum()) if row.height else 0
        if total == 0:
            why = (
                "no transcript covers a planted result" if role == "planted" else "no clean result"
            )
            out.append(RuleResult(name, "skip", why, limit=limit))
            continue
        hits = int(row[num].sum())
        share = round(hits / total, 4)
        status, msg, cmp = _threshold(
            name,
            f"{role} results {label}",
            share,
            gp,
            limit=limit,
            warn_limit=None,
            higher_is_worse=True,
            context=f"{hits} of {total}",
        )
        out.append(
            RuleResult(
                name,
                status,
                msg,
                measured=share,
                limit=limit,
                comparison=cmp,
                offender_count=hits,
                details={num: hits, den: total},
            )
        )
    return out


def _eval_summary(eval_dir: str | Path) -> pl.DataFrame:
    path = Path(eval_dir) / "eval_summary.parquet"
    if not path.is_file():
        raise RunDirError(
            f"{eval_dir} has no eval_summary.parquet",
            hint="run `trustaudit eval QUERIES --run RUN --out DIR` first",
        )
    return pl.read_parquet(path, glob=False)
