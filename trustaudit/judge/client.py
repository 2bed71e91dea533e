"""The one HTTP client for OpenAI-compatible chat endpoints (the tail judge and the cards judge).

Plain urllib, no proxies from the environment (the endpoint is the user's own server), a bounded
read, a timeout per request. Errors are raised; callers turn them into reasons, never a failed run.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

MAX_REPLY_BYTES = 2_000_000


class ChatError(RuntimeError):
    """The endpoint answered, but not with a chat completion."""


class ChatClient:
    """POST {endpoint}/chat/completions with temperature 0; returns the first choice's content."""

    def __init__(
        self, endpoint: str, model: str, *, api_key: str | None = None, timeout_s: float = 30.0
    ) -> None:
        self.url = endpoint.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        # Never route the user's endpoint through environment proxies.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def complete(self, messages: list[dict[str, str]], *, max_tokens: int | None = None) -> str:
        """The model's reply text; raises (URLError, TimeoutError, ChatError) on any failure."""
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(
            self.url, data=json.dumps(payload).encode(), headers=headers, method="POST"
        )
        with self._opener.open(req, timeout=self.timeout_s) as resp:
            raw = resp.read(MAX_REPLY_BYTES)
        try:
            data: Any = json.loads(raw.decode("utf-8", errors="replace"))
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ChatError(f"not a chat completion: {type(exc).__name__}") from None
        if not isinstance(content, str):
            raise ChatError("reply content is not a string")
        return content
