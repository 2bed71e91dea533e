"""GitHub Actions workflow commands (`::error title=…::message`) so failed rules show on the run page.

Escaping follows @actions/core (toolkit `command.ts`): message data escapes `%`, `\\r`, `\\n`;
property values (title) additionally escape `:` and `,`. `%` goes first so escapes are not re-escaped.
"""

from __future__ import annotations

from collections.abc import Mapping

from trustaudit.gate.model import GateResult, RuleResult
from trustaudit.report.escape import strip_invisible

MAX_LISTED = 5  # annotations are truncated by GitHub; the full list lives in gate.json / JUnit


def escape_data(text: str) -> str:
    # offender lines quote page URLs: no escape sequence or control reaches the CI log
    text = strip_invisible(text)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(rule: RuleResult) -> str | None:
    """One workflow-command line for a failed or warning rule; None for passed and skipped ones."""
    if rule.status not in ("fail", "warn"):
        return None
    kind = "error" if rule.status == "fail" else "warning"
    lines = [rule.message]
    for o in rule.offenders[:MAX_LISTED]:
        lines.append(f"- {o['text']}")
    if rule.offender_count > MAX_LISTED:
        lines.append(f"… and {rule.offender_count - MAX_LISTED} more (see gate.json)")
    title = escape_property(f"trustaudit gate: {rule.name}")
    return f"::{kind} title={title}::{escape_data(chr(10).join(lines))}"


def github_annotations(result: GateResult) -> list[str]:
    """Annotation lines for every failed/warning rule, in rule order."""
    return [line for r in result.rules if (line := annotation(r)) is not None]


def in_github_actions(environ: Mapping[str, str]) -> bool:
    return environ.get("GITHUB_ACTIONS", "").lower() == "true"
