"""Every gate rule on hand-made runs: pass, fail, warn (threshold and warn_rules), strict, skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.runfactory import make_run, page
from trustaudit.errors import RunDirError, UsageError
from trustaudit.exit_codes import ExitCode
from trustaudit.gate import evaluate_gate
from trustaudit.policy import Policy, PolicyError, load_policy


def pol(**gate: object) -> Policy:
    return load_policy(None, overrides={"gate": gate}, environ={})


def rule(result, name):  # type: ignore[no-untyped-def]
    return next(r for r in result.rules if r.name == name)


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """10 pages: 2 quarantined, 3 medium, 5 trusted; one blocklisted, one with injections."""
    pages = [
        page("https://spam.example.com/a", 0.10, reasons=["AFFILIATE_DENSE_NO_DISCLOSURE"]),
        page("https://bad.example.org/b", 0.62, hard=True, blocklisted=True, injections=2),
        *[page(f"https://mid.example.net/{i}", 0.5 + i / 100) for i in range(3)],
        *[page(f"https://good.example.edu/{i}", 0.8 + i / 100) for i in range(5)],
    ]
    return make_run(tmp_path / "run", pages)


def test_defaults_fail_on_injection_and_blocklist_only(mixed: Path) -> None:
    res = evaluate_gate(mixed, Policy())
    statuses = {r.name: r.status for r in res.rules}
    assert statuses == {
        "quarantined_share": "pass",
        "medium_share": "pass",
        "mean_trust": "pass",
        "injection": "fail",
        "blocklisted_domain": "fail",
        "cards": "skip",
    }
    assert res.exit_code == ExitCode.GATE_FAILED
    assert rule(res, "quarantined_share").measured == 0.2


def test_quarantined_share_fail_lists_worst_first(mixed: Path) -> None:
    res = evaluate_gate(
        mixed, pol(max_quarantined_share=0.1, fail_on_injection=False, fail_on_blocklisted=False)
    )
    r = rule(res, "quarantined_share")
    assert r.status == "fail" and r.measured == 0.2 and r.limit == 0.1
    assert r.offender_count == 2
    assert r.offenders[0]["url"] == "https://spam.example.com/a"
    assert "AFFILIATE_DENSE_NO_DISCLOSURE" in r.offenders[0]["text"]
    assert "0.200 > limit 0.100" in r.message
    assert res.exit_code == ExitCode.GATE_FAILED


def test_warn_threshold_warns_and_strict_fails(mixed: Path) -> None:
    p = pol(warn_quarantined_share=0.1, fail_on_injection=False, fail_on_blocklisted=False)
    res = evaluate_gate(mixed, p)
    assert rule(res, "quarantined_share").status == "warn"
    assert res.passed and res.exit_code == ExitCode.OK
    strict = evaluate_gate(mixed, p, strict=True)
    assert rule(strict, "quarantined_share").status == "fail"
    assert "--strict" in rule(strict, "quarantined_share").message
    assert strict.exit_code == ExitCode.GATE_FAILED
    via_policy = evaluate_gate(mixed, pol(**{**p.gate.__dict__, "strict": True}))
    assert via_policy.exit_code == ExitCode.GATE_FAILED


def test_warn_rules_downgrade_failures(mixed: Path) -> None:
    res = evaluate_gate(mixed, pol(warn_rules=["injection", "blocklisted_domain"]))
    assert rule(res, "injection").status == "warn"
    assert rule(res, "blocklisted_domain").status == "warn"
    assert res.exit_code == ExitCode.OK
    assert (
        evaluate_gate(
            mixed, pol(warn_rules=["injection", "blocklisted_domain"]), strict=True
        ).exit_code
        == 1
    )


def test_warn_rules_typo_is_a_policy_error() -> None:
    with pytest.raises(PolicyError, match="unknown rule"):
        pol(warn_rules=["injections"])


def test_medium_share(mixed: Path) -> None:
    res = evaluate_gate(mixed, pol(max_medium_share=0.25))
    r = rule(res, "medium_share")
    assert r.status == "fail" and r.measured == 0.3 and r.offender_count == 3
    assert rule(evaluate_gate(mixed, pol(warn_medium_share=0.25)), "medium_share").status == "warn"


def test_mean_trust(mixed: Path) -> None:
    res = evaluate_gate(mixed, pol(min_mean_trust=0.9))
    r = rule(res, "mean_trust")
    assert r.status == "fail" and r.comparison == ">="
    assert r.measured == pytest.approx(0.635)
    assert r.offenders[0]["registered_domain"] == "example.com"  # lowest-trust domain first
    assert rule(evaluate_gate(mixed, pol(warn_mean_trust=0.9)), "mean_trust").status == "warn"
    assert rule(evaluate_gate(mixed, pol(min_mean_trust=0.5)), "mean_trust").status == "pass"


def test_injection_from_signals_with_detail(mixed: Path) -> None:
    r = rule(evaluate_gate(mixed, Policy()), "injection")
    assert r.status == "fail" and r.measured == 1 and r.details["findings"] == 2
    assert r.offenders[0]["url"] == "https://bad.example.org/b"
    assert "ignore previous instructions" in r.offenders[0]["text"]


def test_injection_from_pages_when_signals_lack_it(tmp_path: Path) -> None:
    run = make_run(
        tmp_path / "r", [page("https://a.example.com/", 0.8, injections=1)], injection_in="pages"
    )
    assert rule(evaluate_gate(run, Policy()), "injection").status == "fail"


def test_injection_skipped_when_scan_did_not_run(tmp_path: Path) -> None:
    pages = [page("https://a.example.com/", 0.8)]
    none = make_run(tmp_path / "none", pages, injection_in="none")
    off = make_run(tmp_path / "off", pages, injection_in="pages", injection_enabled=False)
    for run in (none, off):
        res = evaluate_gate(run, Policy())
        assert rule(res, "injection").status == "skip"
        assert res.exit_code == ExitCode.OK


def test_injection_rule_off_passes_with_count(mixed: Path) -> None:
    r = rule(evaluate_gate(mixed, pol(fail_on_injection=False)), "injection")
    assert r.status == "pass" and r.measured == 1 and "off" in r.message


def test_blocklisted_domain(mixed: Path, tmp_path: Path) -> None:
    r = rule(evaluate_gate(mixed, Policy()), "blocklisted_domain")
    assert r.status == "fail" and r.measured == 1
    assert r.offenders[0]["registered_domain"] == "example.org"
    assert "bad.example.org/b" in r.offenders[0]["text"]
    run = make_run(tmp_path / "nb", [page("https://a.example.com/", 0.8)], blocklist_column=False)
    assert rule(evaluate_gate(run, Policy()), "blocklisted_domain").status == "skip"


def test_cards_rule(tmp_path: Path) -> None:
    cards = [
        {"card_id": "c1", "passed": True, "reasons": []},
        {"card_id": "c2", "passed": False, "reasons": ["UNSUPPORTED_CLAIM", "SOURCE_MEDIUM"]},
    ]
    run = make_run(tmp_path / "r", [page("https://a.example.com/", 0.8)], cards=cards)
    r = rule(evaluate_gate(run, Policy()), "cards")
    assert r.status == "fail" and r.measured == 0.5
    assert r.offenders[0]["card_id"] == "c2"
    assert "UNSUPPORTED_CLAIM" in r.offenders[0]["text"]
    assert rule(evaluate_gate(run, pol(max_failed_card_share=0.5)), "cards").status == "pass"


def test_empty_run_skips_mean_trust(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", [])
    res = evaluate_gate(run, Policy())
    assert rule(res, "mean_trust").status == "skip"
    assert rule(res, "quarantined_share").measured == 0.0


# ------------------------------------------------------------------ evals as code (labels)
@pytest.fixture
def labeled(tmp_path: Path) -> Path:
    pages = [
        page("https://spam.example.com/1", 0.2),  # untrusted, quarantined -> TP
        page("https://spam.example.com/2", 0.55),  # untrusted, kept -> FN
        page("https://ok.example.org/1", 0.35),  # trusted, quarantined -> FP
        page("https://ok.example.org/2", 0.90),  # trusted, kept -> TN
        page("https://hard.example.net/1", 0.80, hard=True),  # untrusted, hard rule -> TP
    ]
    return make_run(tmp_path / "run", pages)


def write_labels(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_precision_recall_at_policy_threshold(labeled: Path, tmp_path: Path) -> None:
    labels = write_labels(
        tmp_path / "l.csv",
        "url,label\n"
        "https://SPAM.example.com/1,untrusted\n"  # host case is normalized like doc ids
        "https://spam.example.com/2,untrusted\n"
        "https://ok.example.org/1,trusted\n"
        "https://ok.example.org/2,trusted\n"
        "https://hard.example.net/1,untrusted\n"
        "https://nowhere.example/x,trusted\n",
    )
    res = evaluate_gate(labeled, pol(min_precision=0.7, min_recall=0.6), labels=labels)
    prec, rec = rule(res, "label_precision"), rule(res, "label_recall")
    assert prec.measured == pytest.approx(2 / 3, abs=1e-3) and prec.status == "fail"
    assert rec.measured == pytest.approx(2 / 3, abs=1e-3) and rec.status == "pass"
    assert prec.offenders[0]["url"] == "https://ok.example.org/1"  # the false positive
    assert rec.offenders[0]["url"] == "https://spam.example.com/2"  # the false negative
    assert prec.details["unmatched_labels"] == 1
    assert prec.details["true_positives"] == 2 and prec.details["true_negatives"] == 1
    # A stricter threshold in the gate policy catches the false negative.
    p = load_policy(
        None,
        overrides={"bands": {"quarantine_below": 0.6}, "gate": {"min_recall": 1.0}},
        environ={},
    )
    assert rule(evaluate_gate(labeled, p, labels=labels), "label_recall").status == "pass"


def test_domain_labels_cover_pages(labeled: Path, tmp_path: Path) -> None:
    labels = write_labels(tmp_path / "d.csv", "domain,label\nexample.com,bad\nexample.org,good\n")
    res = evaluate_gate(labeled, Policy(), labels=labels)
    assert rule(res, "label_recall").details["labeled_pages"] == 4


def test_labels_that_match_nothing_are_a_usage_error(labeled: Path, tmp_path: Path) -> None:
    labels = write_labels(tmp_path / "l.csv", "url,label\nhttps://nowhere.example/x,trusted\n")
    with pytest.raises(UsageError, match="matches no page"):
        evaluate_gate(labeled, Policy(), labels=labels)


@pytest.mark.parametrize(
    ("text", "match"),
    [("url,label\nhttps://a.example.com/,maybe\n", "unknown label"), ("x,y\n1,2\n", "needs a")],
)
def test_bad_labels_files(labeled: Path, tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(UsageError, match=match):
        evaluate_gate(labeled, Policy(), labels=write_labels(tmp_path / "l.csv", text))
    with pytest.raises(UsageError, match="not found"):
        evaluate_gate(labeled, Policy(), labels=tmp_path / "missing.csv")


# ------------------------------------------------------------------ run directory problems
def test_incomplete_or_missing_runs(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", [page("https://a.example.com/", 0.8)], complete=False)
    with pytest.raises(RunDirError, match="incomplete"):
        evaluate_gate(run, Policy())
    with pytest.raises(RunDirError, match="not found"):
        evaluate_gate(tmp_path / "nope", Policy())
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match=r"no manifest\.json"):
        evaluate_gate(tmp_path / "empty", Policy())


def test_bands_mismatch_is_noted(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", [page("https://a.example.com/", 0.8)], quarantine_below=0.5)
    res = evaluate_gate(run, Policy())
    assert res.notes and "quarantine_below=0.5" in res.notes[0]


def test_gate_json_shape(mixed: Path) -> None:
    d = evaluate_gate(mixed, Policy()).to_dict()
    assert d["passed"] is False and d["exit_code"] == 1 and d["schema"] == 1
    assert d["counts"] == {"pass": 3, "warn": 0, "fail": 2, "skip": 1}
    assert {"name", "status", "measured", "limit", "offenders", "message"} <= set(d["rules"][0])
