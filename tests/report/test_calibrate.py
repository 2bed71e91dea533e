"""Curve numbers on a hand-made labeled set, AUCs worked out by hand, label matching, weak labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from tests.report.fakerun import make_run, page
from trustaudit.errors import UsageError
from trustaudit.policy import Policy, load_policy
from trustaudit.report.calibrate import (
    average_precision,
    calibrate_run,
    policy_snippet,
    read_labels,
    recommend,
    roc_auc,
    signal_aucs,
    threshold_curve,
)

# untrusted: u1..u5 (u4 hard-quarantined despite trust 0.90); trusted: t1..t5 (t4, t5 share a domain)
PAGES = [
    ("https://u1.example/a", 0.10, False, "untrusted"),
    ("https://u2.example/a", 0.30, False, "untrusted"),
    ("https://u3.example/a", 0.50, False, "untrusted"),
    ("https://u4.example/a", 0.90, True, "untrusted"),
    ("https://u5.example/a", 0.65, False, "untrusted"),
    ("https://t1.example/a", 0.30, False, "trusted"),
    ("https://t2.example/a", 0.60, False, "trusted"),
    ("https://t3.example/a", 0.75, False, "trusted"),
    ("https://good.example/1", 0.80, False, "trusted"),
    ("https://www.good.example/2", 0.95, False, "trusted"),
]


@pytest.fixture
def labeled(tmp_path: Path) -> tuple[Path, Path]:
    run = make_run(
        tmp_path / "run",
        [
            page(u, t, hard=h, domain="good.example" if "good" in u else None)
            for u, t, h, _ in PAGES
        ],
    )
    lines = ["url,domain,label"]
    for u, _, _, label in PAGES[:8]:
        lines.append(f"{u},,{label}")
    lines[1] = "HTTPS://U1.example:443/a#frag,,untrusted"  # matched after normalization
    lines += [",good.example,trusted", "https://nowhere.example/x,,trusted", ",,", "  ,  ,  "]
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run.root, labels


def _arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    trust = np.array([p[1] for p in PAGES])
    hard = np.array([p[2] for p in PAGES])
    y = np.array([p[3] == "untrusted" for p in PAGES])
    return trust, hard, y


def test_curve_counts_by_hand() -> None:
    curve = threshold_curve(*_arrays())
    assert curve.height == 101
    assert curve["threshold"].to_list()[:3] == [0.0, 0.01, 0.02]
    row = {r["threshold"]: r for r in curve.to_dicts()}
    # 0.00: only the hard rule quarantines
    assert (row[0.0]["tp"], row[0.0]["fp"], row[0.0]["precision"], row[0.0]["recall"]) == (
        1,
        0,
        1.0,
        0.2,
    )
    # "trust < t" is strict: at 0.30 the two pages at exactly 0.30 are not quarantined
    assert (row[0.3]["tp"], row[0.3]["fp"]) == (2, 0)
    r = row[0.4]
    assert (r["tp"], r["fp"], r["fn"], r["tn"]) == (3, 1, 2, 4)
    assert (
        r["precision"] == 0.75 and r["recall"] == 0.6 and r["f1"] == pytest.approx(0.6667, abs=1e-4)
    )
    assert r["trusted_lost"] == 0.2 and r["quarantined_share_untrusted"] == 0.6
    assert r["quarantined_share_labeled"] == 0.4
    assert (row[1.0]["tp"], row[1.0]["fp"], row[1.0]["precision"]) == (5, 5, 0.5)


def test_aucs_by_hand() -> None:
    trust, hard, y = _arrays()
    risk = np.where(hard, 2.0, 1.0 - trust)
    assert roc_auc(y, risk) == pytest.approx(21.5 / 25)
    assert average_precision(y, risk) == pytest.approx(0.2 * (1 + 1 + 0.75 + 0.8 + 5 / 7))
    assert roc_auc(np.array([True, True]), np.array([0.1, 0.2])) is None


def test_recommend_for_recall_and_precision() -> None:
    curve = threshold_curve(*_arrays())
    r = recommend(curve, target_recall=0.8)
    assert (r["threshold"], r["recall"], r["precision"], r["reached"]) == (0.51, 0.8, 0.8, True)
    r = recommend(curve, target_recall=1.0)
    assert r["threshold"] == 0.66 and r["precision"] == pytest.approx(5 / 7, abs=1e-4)
    r = recommend(curve, target_precision=0.75)
    assert (r["threshold"], r["recall"]) == (0.51, 0.8)
    r = recommend(curve, target_precision=0.99)
    assert (r["threshold"], r["recall"], r["reached"]) == (0.11, 0.4, True)  # u4 (hard) + u1
    assert (
        recommend(curve.with_columns(precision=pl.lit(0.1)), target_precision=0.5)["reached"]
        is False
    )


def test_snippet_is_a_valid_policy(tmp_path: Path) -> None:
    curve = threshold_curve(*_arrays())
    rec = recommend(curve, target_recall=1.0)
    rec["threshold"] = 0.8  # above trusted_from: the snippet must keep the bands ordered
    text = policy_snippet(rec, Policy())
    f = tmp_path / "trustaudit.toml"
    f.write_text(text, encoding="utf-8")
    p = load_policy(f)
    assert p.bands.quarantine_below == 0.8 and p.bands.trusted_from == 0.8


def test_calibrate_run_files_and_matching(labeled: tuple[Path, Path]) -> None:
    from trustaudit.io.rundir import RunDir

    root, labels = labeled
    run = RunDir.at(root)
    res = calibrate_run(run, Policy(), labels=labels, target_recall=0.8)
    assert res["label_source"] == "labels" and res["note"] == ""
    assert res["pages_labeled"] == 10 and res["untrusted"] == 5 and res["trusted"] == 5
    assert (
        res["labels_unmatched"] == 1
        and "https://nowhere.example/x" in res["labels_unmatched_examples"]
    )
    assert res["roc_auc"] == pytest.approx(0.86) and res["recommended"]["threshold"] == 0.51
    assert res["current"]["threshold"] == 0.4 and res["current"]["precision"] == 0.75
    curve = pl.read_csv(run.report("threshold_curve.csv"))
    assert curve.height == 101 and curve.filter(pl.col("threshold") == 0.4)["tp"].item() == 3
    for name in ("threshold_curve.png", "pr_curve.png"):
        assert run.report(name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "quarantine_below = 0.51" in run.report("recommended_policy.toml").read_text()
    md = run.report("calibration.md").read_text()
    assert "ROC-AUC 0.860" in md and "quarantine_below = 0.51" in md
    # the hard rule is the best single signal here; every listed AUC is in [0.5, 1]
    assert all(0.5 <= s["separation"] <= 1 for s in res["signal_auc"])


def test_url_label_wins_over_domain_label(tmp_path: Path) -> None:
    run = make_run(
        tmp_path / "r", [page("https://a.example/1", 0.2), page("https://a.example/2", 0.9)]
    )
    labels = tmp_path / "l.csv"
    labels.write_text("url,domain,label\n,a.example,trusted\nhttps://a.example/1,,untrusted\n")
    res = calibrate_run(run, Policy(), labels=labels, plots=False)
    assert (res["untrusted"], res["trusted"], res["label_conflicts"]) == (1, 1, 1)


def test_weak_labels_say_so(tmp_path: Path) -> None:
    pages = [
        page("https://ok.example/a", 0.8, in_allowlist=True),
        page("https://bad.example/a", 0.1, hard=True, in_blocklist=True),
        page("https://other.example/a", 0.5),
    ]
    run = make_run(tmp_path / "r", pages)
    res = calibrate_run(run, Policy(), plots=False)
    assert res["label_source"] == "weak" and "weak labels" in res["note"]
    assert res["pages_labeled"] == 2 and res["roc_auc"] == 1.0
    assert "Weak labels" in run.report("calibration.md").read_text()


def test_no_labels_at_all(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", [page("https://x.example/a", 0.5)])
    assert calibrate_run(run, Policy())["status"] == "no_labels"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("page,label\nx,trusted\n", "needs a `label` column"),
        ("url,label\nhttps://a.example/,maybe\n", "unknown label"),
    ],
)
def test_bad_labels_file(tmp_path: Path, content: str, message: str) -> None:
    f = tmp_path / "l.csv"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        read_labels(f)


def test_signal_aucs_direction() -> None:
    y = np.array([True, True, False, False])
    frame = pl.DataFrame(
        {
            "doc_id": list("abcd"),
            "bad_thing": [9.0, 8.0, 1.0, None],
            "good": [0, 1, 5, 6],
            "const": [1] * 4,
        }
    )
    out = {r["signal"]: r for r in signal_aucs(frame, y).to_dicts()}
    assert "const" not in out and "doc_id" not in out
    assert out["bad_thing"]["direction"] == "higher = untrusted" and out["bad_thing"]["n"] == 3
    assert out["good"]["auc"] == 0.0 and out["good"]["separation"] == 1.0


def test_rerendering_uses_the_policy_target_not_the_last_calibrate_call(tmp_path: Path) -> None:
    """write_reports without targets (report, score, the API) takes report.target_recall from
    the policy; an earlier calibrate call's target must not leak into it (issue #17 closing note)."""
    from tests.cli.test_derived_policy import _run_with_labels
    from trustaudit.io.rundir import RunDir
    from trustaudit.report.extra import write_extra_reports

    run = RunDir.at(_run_with_labels(tmp_path))
    first = write_extra_reports(run, Policy(), run.read_manifest(), target_recall=0.5)
    assert first["recommended"]["target_value"] == 0.5
    again = write_extra_reports(run, Policy(), run.read_manifest())  # labels: the run's own
    assert (again["recommended"]["target"], again["recommended"]["target_value"]) == ("recall", 0.9)
    assert first["target_from"] == "given (--target-recall)"
    assert again["target_from"] == "policy report.target_recall"
    from trustaudit.report.summary import build_summary, decision_lines

    summary = build_summary(run, Policy(), run.read_manifest())
    assert summary["policy_used"]["from"] == "recorded"
    lines = decision_lines(summary)
    assert lines[0] == "bands: quarantine < 0.4, trusted >= 0.7 (the policy recorded in the run)"
    assert "not applied" in lines[1] and "(policy report.target_recall)" in lines[1]
