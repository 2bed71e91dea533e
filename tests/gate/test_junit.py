"""JUnit XML validity: parsed back with ElementTree, one testcase per rule, offenders in failures."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from gate.runfactory import make_run, page
from trustaudit.gate import evaluate_gate, junit_xml, write_junit
from trustaudit.gate.junit import xml_safe
from trustaudit.policy import load_policy


def test_junit_parses_back_with_one_case_per_rule(tmp_path: Path) -> None:
    pages = [
        page('https://spam.example.com/a?x=<1>&y="2"', 0.1, reasons=["AFFILIATE_DENSE"]),
        page("https://bad.example.org/b\x07", 0.8, blocklisted=True, injections=1),
        page("https://mid.example.net/", 0.5),
    ]
    run = make_run(tmp_path / "run", pages)
    policy = load_policy(
        None, overrides={"gate": {"warn_rules": ["injection"], "max_medium_share": 0.5}}, environ={}
    )
    result = evaluate_gate(run, policy)
    path = write_junit(result, tmp_path / "out" / "gate.xml")
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    assert suite is not None
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert list(cases) == [r.name for r in result.rules]
    assert suite.get("tests") == str(len(result.rules))
    assert suite.get("failures") == "1" and suite.get("skipped") == "1"

    failure = cases["blocklisted_domain"].find("failure")
    assert failure is not None and failure.get("type") == "GateRuleFailed"
    assert "1 page(s) from 1 blocklisted domain(s)" in (failure.get("message") or "")
    assert "example.org: 1 page(s), e.g. https://bad.example.org/b" in (failure.text or "")
    assert "\ufffd" in (failure.text or "")  # the BEL control character was replaced, not dropped
    assert cases["cards"].find("skipped") is not None
    warn_out = cases["injection"].find("system-out")
    assert warn_out is not None and (warn_out.text or "").startswith("WARNING: ")
    passed = cases["medium_share"]
    assert passed.find("failure") is None and passed.find("skipped") is None
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["run_id"] == "run0" and props["strict"] == "false"


def test_junit_special_characters_round_trip(tmp_path: Path) -> None:
    url = "https://q.example.com/?a=1&b=<script>\"'"
    run = make_run(tmp_path / "run", [page(url, 0.1)])
    policy = load_policy(None, overrides={"gate": {"max_quarantined_share": 0.5}}, environ={})
    root = ET.fromstring(junit_xml(evaluate_gate(run, policy)).encode())
    failure = root.find(".//testcase[@name='quarantined_share']/failure")
    assert failure is not None and url in (failure.text or "")


def test_xml_safe() -> None:
    assert xml_safe("a\x00b\x1fc\td\ne") == "a\ufffdb\ufffdc\td\ne"
    assert xml_safe("tag chars \U000e0041 stay") == "tag chars \U000e0041 stay"
