"""Whether an instruction found in plain sight is *discussed* (quoted) or *given* to the reader.

Why: security articles, prompt-engineering tutorials and papers quote injections to explain them, in
`<code>`/`<pre>`/`<blockquote>`/`<q>`, after "for example, an attacker might write:", on a page about
security. Quarantining them would quarantine security writing (guard models that do so are switched
off by their users). A quoted instruction is still recorded, as `INJECTION_QUOTED`, and the caller
only treats it as quoted when the page hides nothing: a page that also hides instructions is
quarantined whatever it quotes. Hidden text is never quoted: nobody quotes for a reader who cannot see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["SecurityPage", "form_ui_instruction", "quoted_context", "security_page"]

# Words that introduce an example or a quotation just before the passage ("an attacker might write:"),
# then a colon or an opening quote mark right before it: prose that merely mentions attackers does
# not quote what follows.
_INTRO_BODY = (
    r"(?:for\s+(?:example|instance)|e\.g\.|such\s+as|like\s+this|as\s+follows|looks?\s+like|"
    r"(?:attacker|adversary|hacker|malicious\s+(?:user|actor|page|website|site|document|email))s?\s+"
    r"(?:might|could|would|can|may|will)?\s*(?:write|say|type|insert|hide|include|embed|add|plant|put|use)s?|"
    r"(?:payload|prompt|injection|instruction|string|text|message|phrase|jailbreak)s?\s+(?:like|such\s+as|"
    r"reads?|says?|goes)|(?:classic|typical|common|famous|simple|naive|well-known|known)\s+"
    r"(?:example|injection|attack|payload|jailbreak|prompt)|"
    r"por\s+ejemplo|por\s+exemplo|par\s+exemple|zum\s+beispiel|z\.\s?b\.|ad\s+esempio|bijvoorbeeld|"
    r"na\s+przykład|örneğin|например|наприклад|例如|比如|例えば|예를\s+들어|misalnya|ví\s+dụ)"
    r"[^.\n]{0,80}?(?:[:：]\s*[\"“„«‘'(]?|[\"“„«‘'(]|like\s+this|as\s+follows)"
)
_EXAMPLE_INTRO = re.compile(_INTRO_BODY + r"\s*$", re.IGNORECASE)
# The same introduction at the head of the passage itself: a detector whose finding starts a few words
# early ("For example, an attacker might write: “Ignore…”") holds the introduction in its own span.
# It must open the passage (within _HEAD_LEAD characters) and leave text after it to be the quotation.
_EXAMPLE_INTRO_HEAD = re.compile(_INTRO_BODY, re.IGNORECASE)
_INTRO_WINDOW = 160
_HEAD_LEAD = 40
_HEAD_REST = 12
# Terms of a page that is *about* injection or security (several needed, at least one specific).
_SECURITY_SPECIFIC = re.compile(
    r"prompt[\s-]+injections?|jailbreak(?:s|ing)?\b|indirect\s+injection|injection\s+attacks?|"
    r"red[\s-]+team(?:ing)?\b|adversarial\s+prompts?|llm\s+security|ai\s+security|"
    r"inyecci[oó]n\s+de\s+prompts?|injection\s+de\s+prompts?|prompt-injektion|injeção\s+de\s+prompt|"
    r"промпт-инъекци|提示注入|提示词注入|プロンプトインジェクション|프롬프트\s*인젝션",
    re.IGNORECASE,
)
_SECURITY_GENERAL = re.compile(
    r"\b(?:attackers?|vulnerabilit(?:y|ies)|exploit(?:s|ed|ation)?|malicious|mitigations?|defen[cs]es?|"
    r"threat\s+model|security|payloads?|guardrails?|sanitiz(?:e|ation)|cve-\d+|owasp)\b",
    re.IGNORECASE,
)


class SecurityPage:
    """Whether a page is about prompt injection / LLM security (computed once per page, lazily)."""

    __slots__ = ("_text", "_value", "min_general")

    def __init__(self, text: str, *, min_general: int = 3) -> None:
        self._text = text
        self._value: bool | None = None
        self.min_general = min_general

    def __bool__(self) -> bool:
        if self._value is None:
            self._value = security_page(self._text, min_general=self.min_general)
        return self._value


def security_page(text: str, *, min_general: int = 3) -> bool:
    """A page about security: one specific term (prompt injection, jailbreak, red teaming…) and at
    least `min_general` occurrences of general ones (attacker, vulnerability, mitigation…)."""
    if not _SECURITY_SPECIFIC.search(text):
        return False
    return any(n >= min_general for n, _ in enumerate(_SECURITY_GENERAL.finditer(text), 1))


def _squash(s: str) -> str:
    return " ".join(s.split()).lower()


def quoted_context(
    text: str,
    start: int,
    end: int,
    quotes: Sequence[tuple[str, str]] = (),
    *,
    on_security_page: object = False,
) -> str:
    """Why the passage `text[start:end]` of a page's visible text is quoted, or "" when it is not:
    the quoting element's tag (`code`, `pre`, `blockquote`, `q`…), `example` (introduced as one just
    before it), or `security_page` (`on_security_page` is truthy: the page is about security)."""
    passage = _squash(text[start:end])[:60]
    if len(passage) >= 8:
        for tag, q in quotes:
            if passage in q.lower():
                return tag
    before = text[max(0, start - _INTRO_WINDOW) : start]
    if _EXAMPLE_INTRO.search(before):
        return "example"
    m = _EXAMPLE_INTRO_HEAD.search(text, start, min(end, start + _INTRO_WINDOW))
    if m and m.start() - start <= _HEAD_LEAD and end - m.end() >= _HEAD_REST:
        return "example"
    if on_security_page:
        return "security_page"
    return ""


# Features that only say a text addresses an automated reader or asks it to do something ordinary: a
# honeypot field ("Bots and AI agents: please enter your email here") is made of nothing else, by design.
_ADDRESS_ONLY = frozenset(
    {
        "intent_steer_ai",
        "address_ai",
        "address_note",
        "directive",
        "obligation",
        "task_request",
        "output_ref",
    }
)


def form_ui_instruction(rule: str) -> bool:
    """Whether a finding in form or UI text (technique ``form_ui``: a honeypot, a comment form's
    template) is an instruction and not UI: it must carry an intent beyond addressing bots, such as an
    override, an extraction, an exfiltration, a persona or a tool directive. `rule` is the finding's
    "+"-joined feature names."""
    return any(name not in _ADDRESS_ONLY for name in rule.split("+") if name)
