"""JUnit XML for CI test reporters: each gate rule is one testcase, offenders in the failure text.

Built with ElementTree so every attribute and text node is escaped; characters XML 1.0 forbids
(control characters, lone surrogates — possible in scraped URLs and injection snippets) are replaced
first, because one bad byte makes many CI parsers drop the whole report.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from trustaudit.gate.model import GateResult, RuleResult
from trustaudit.io.atomic import write_text

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
SUITE = "trustaudit.gate"


def xml_safe(text: str) -> str:
    """Replace characters that cannot appear in an XML 1.0 document with U+FFFD."""
    return _INVALID_XML.sub("\ufffd", text)


def _body(rule: RuleResult) -> str:
    lines = [rule.message]
    if rule.offenders:
        shown = len(rule.offenders)
        more = f" (first {shown} of {rule.offender_count})" if rule.offender_count > shown else ""
        lines.append(f"offenders{more}:")
        lines.extend(f"  - {o['text']}" for o in rule.offenders)
    return xml_safe("\n".join(lines))


def junit_xml(result: GateResult) -> str:
    """The report as a JUnit XML string (testsuites > testsuite > testcase per rule)."""
    c = result.counts()
    attrs = {
        "name": SUITE,
        "tests": str(len(result.rules)),
        "failures": str(c["fail"]),
        "errors": "0",
        "skipped": str(c["skip"]),
        "time": "0",
    }
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", attrs)
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("run_dir", result.run_dir),
        ("run_id", result.run_id or ""),
        ("policy_hash", result.policy_hash),
        ("strict", str(result.strict).lower()),
    ):
        ET.SubElement(props, "property", {"name": key, "value": xml_safe(value)})
    for rule in result.rules:
        case = ET.SubElement(
            suite, "testcase", {"classname": SUITE, "name": rule.name, "time": "0"}
        )
        if rule.status == "fail":
            el = ET.SubElement(
                case, "failure", {"message": xml_safe(rule.message), "type": "GateRuleFailed"}
            )
            el.text = _body(rule)
        elif rule.status == "skip":
            ET.SubElement(case, "skipped", {"message": xml_safe(rule.message)})
        else:
            # JUnit has no "warning": keep it visible in the case's output instead.
            out = ET.SubElement(case, "system-out")
            prefix = "WARNING: " if rule.status == "warn" else ""
            out.text = prefix + _body(rule)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(result: GateResult, path: str | Path) -> Path:
    """Write the JUnit report atomically (CI may upload it while a later step runs)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_text(p, junit_xml(result))
    return p
