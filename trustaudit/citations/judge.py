"""Optional LLM-as-judge for borderline KB cards, against an OpenAI-compatible endpoint the user gives.

Off by default: deterministic checks decide almost every card; the judge only breaks ties in the
borderline similarity band. Answers are cached on disk (keyed by model + prompt) so re-runs cost
nothing, and a call budget bounds what one command may spend. Any failure yields no verdict, never
an exception: the deterministic result then stands.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from trustaudit.io.atomic import write_json
from trustaudit.judge.client import ChatClient
from trustaudit.policy.citations import CitationsPolicy

Verdict = Literal["supported", "unsupported"]

SYSTEM_PROMPT = (
    "You check knowledge-base cards against their source. Answer only with JSON "
    '{"verdict": "supported" | "unsupported", "reason": "<one sentence>"}. A card is supported only '
    "if every claim in it is stated or directly implied by the source passages."
)


@dataclass(frozen=True)
class JudgeResult:
    """verdict None means the judge gave no usable answer; `status` says why."""

    verdict: Verdict | None
    status: str  # ok | cached | budget_exhausted | error: ...
    reason: str = ""


def parse_verdict(content: str) -> tuple[Verdict | None, str]:
    """Read a verdict from the model's reply: JSON first, then a lone keyword."""
    text = content.strip()
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text)
    try:
        obj = json.loads(text)
        if isinstance(obj, dict):
            v = str(obj.get("verdict", "")).strip().lower()
            if v in ("supported", "unsupported"):
                return v, str(obj.get("reason", ""))[:300]  # type: ignore[return-value]
    except (json.JSONDecodeError, RecursionError):
        pass
    low = text.lower()
    if re.search(r"\bunsupported\b|\bnot supported\b", low):
        return "unsupported", text[:300]
    if re.search(r"\bsupported\b", low):
        return "supported", text[:300]
    return None, text[:300]


class Judge:
    """Borderline-card judge with an on-disk cache and a per-instance call budget."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        api_key: str | None = None,
        cache_dir: str | Path | None = None,
        max_calls: int = 50,
        timeout_s: float = 30.0,
    ) -> None:
        self.client = ChatClient(endpoint, model, api_key=api_key, timeout_s=timeout_s)
        self.url = self.client.url
        self.model = model
        self.api_key = api_key
        self.cache_dir = (
            Path(cache_dir) if cache_dir else Path.home() / ".cache" / "trustaudit" / "judge"
        )
        self.max_calls = max_calls
        self.timeout_s = timeout_s
        self.calls = 0
        self.cache_hits = 0

    @classmethod
    def from_policy(
        cls, policy: CitationsPolicy, environ: dict[str, str] | None = None
    ) -> Judge | None:
        """The judge the policy asks for, or None when disabled or incompletely configured."""
        if not (policy.judge_enabled and policy.judge_endpoint and policy.judge_model):
            return None
        env = os.environ if environ is None else environ
        return cls(
            policy.judge_endpoint,
            policy.judge_model,
            api_key=env.get(policy.judge_api_key_env) or None,
            cache_dir=policy.judge_cache_dir or None,
            max_calls=policy.judge_max_calls,
            timeout_s=policy.judge_timeout_s,
        )

    def _messages(self, card: str, passages: list[str]) -> list[dict[str, str]]:
        src = "\n\n".join(f"[{i + 1}] {p}" for i, p in enumerate(passages))
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Source passages:\n{src}\n\nCard:\n{card}"},
        ]

    def _cache_path(self, messages: list[dict[str, str]]) -> Path:
        blob = json.dumps({"model": self.model, "messages": messages}, sort_keys=True).encode()
        return self.cache_dir / f"{hashlib.sha256(blob).hexdigest()[:32]}.json"

    def judge(self, card: str, passages: list[str]) -> JudgeResult:
        """Ask (or recall) whether the passages support the card; never raises."""
        try:
            messages = self._messages(card, passages)
            cpath = self._cache_path(messages)
            try:
                cached = json.loads(cpath.read_text(encoding="utf-8"))
                if isinstance(cached, dict) and cached.get("verdict") in (
                    "supported",
                    "unsupported",
                ):
                    self.cache_hits += 1
                    return JudgeResult(cached["verdict"], "cached", str(cached.get("reason", "")))
            except (OSError, ValueError):
                pass
            if self.calls >= self.max_calls:
                return JudgeResult(None, "budget_exhausted")
            self.calls += 1
            content = self._post(messages)
            verdict, reason = parse_verdict(content)
            if verdict is None:
                return JudgeResult(None, "error: no verdict in reply", reason)
            # An unwritable cache costs a re-ask next time, nothing more.
            with contextlib.suppress(OSError):
                write_json(cpath, {"verdict": verdict, "reason": reason, "model": self.model})
            return JudgeResult(verdict, "ok", reason)
        except Exception as exc:
            return JudgeResult(None, f"error: {type(exc).__name__}: {str(exc)[:120]}")

    def _post(self, messages: list[dict[str, str]]) -> str:
        return self.client.complete(messages)
