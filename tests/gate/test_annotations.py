"""GitHub Actions workflow commands: format and escaping per @actions/core."""

from __future__ import annotations

from gate.runfactory import make_run, page
from trustaudit.gate import evaluate_gate, github_annotations, in_github_actions
from trustaudit.gate.annotations import annotation, escape_data, escape_property
from trustaudit.gate.model import RuleResult
from trustaudit.policy import load_policy


def test_escaping() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_data("%0A") == "%250A"  # % first: an existing escape is not decoded by GitHub
    assert escape_property("a: b, c%\n") == "a%3A b%2C c%25%0A"


def test_annotation_lines() -> None:
    fail = RuleResult(
        "injection",
        "fail",
        "2 page(s) carry 3 injection finding(s)",
        offenders=[{"text": "https://a.example/x (trust 0.1; 100%)"}, {"text": "b"}],
        offender_count=2,
    )
    line = annotation(fail)
    assert line == (
        "::error title=trustaudit gate%3A injection::2 page(s) carry 3 injection finding(s)"
        "%0A- https://a.example/x (trust 0.1; 100%25)%0A- b"
    )
    assert "\n" not in line
    warn = RuleResult("medium_share", "warn", "medium share 0.5 > warning limit 0.4")
    assert annotation(warn) == (
        "::warning title=trustaudit gate%3A medium_share::medium share 0.5 > warning limit 0.4"
    )
    assert annotation(RuleResult("x", "pass", "ok")) is None
    assert annotation(RuleResult("x", "skip", "n/a")) is None


def test_long_offender_lists_are_truncated(tmp_path) -> None:  # type: ignore[no-untyped-def]
    run = make_run(tmp_path / "r", [page(f"https://s.example.com/{i}", 0.1) for i in range(8)])
    policy = load_policy(None, overrides={"gate": {"max_quarantined_share": 0.5}}, environ={})
    lines = github_annotations(evaluate_gate(run, policy))
    assert len(lines) == 1 and lines[0].startswith("::error title=")
    assert lines[0].count("%0A- ") == 5 and "and 3 more (see gate.json)" in lines[0]


def test_in_github_actions() -> None:
    assert in_github_actions({"GITHUB_ACTIONS": "true"})
    assert not in_github_actions({"GITHUB_ACTIONS": "false"})
    assert not in_github_actions({})


def test_escape_sequences_never_reach_the_ci_log() -> None:
    from trustaudit.gate.annotations import escape_data

    out = escape_data("https://e.example/\x1b]8;;http://x/\x07a\x9b2J\r\nnext")
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    assert out == "https://e.example/a%0D%0Anext"
