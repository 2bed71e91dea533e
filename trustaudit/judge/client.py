"""The one HTTP client for OpenAI-compatible chat endpoints (the tail judge and the cards judge).

Plain http.client, no proxies from the environment (the endpoint is the user's own server), no
redirects followed (a redirect would carry the API key to another host), a bounded read, and one
deadline for the whole request: `timeout_s` bounds connect + send + headers + body together, so a
server that drips its reply a byte at a time cannot hold a run (a per-read socket timeout alone
would restart with every byte). Errors are raised; callers turn them into reasons, never a failed
run.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
from typing import Any

MAX_REPLY_BYTES = 2_000_000


class ChatError(RuntimeError):
    """The endpoint answered, but not with a chat completion."""


def _abort(sock: socket.socket | None, fired: threading.Event) -> None:
    """Watchdog: unblock whatever read or write the request is stuck in."""
    fired.set()
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class ChatClient:
    """POST {endpoint}/chat/completions with temperature 0; returns the first choice's content."""

    def __init__(
        self, endpoint: str, model: str, *, api_key: str | None = None, timeout_s: float = 30.0
    ) -> None:
        self.url = endpoint.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s

    def _connection(self) -> tuple[http.client.HTTPConnection, str]:
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"judge endpoint must be an http(s) URL, got {self.url!r}")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        return cls(parts.hostname, parts.port, timeout=self.timeout_s), path

    def _post(self, body: bytes, headers: dict[str, str]) -> bytes:
        """The reply body of one POST, within `timeout_s` overall; raises TimeoutError past it."""
        deadline = time.monotonic() + self.timeout_s
        conn, path = self._connection()
        fired = threading.Event()
        try:
            conn.connect()  # bounded by the socket timeout
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("judge request timed out (connect)")
            # the socket itself: a response that closes the connection takes it from `conn`
            timer = threading.Timer(left, _abort, (conn.sock, fired))
            timer.daemon = True
            timer.start()
            try:
                conn.request("POST", path, body=body, headers=headers)
                resp = conn.getresponse()
                raw = resp.read(MAX_REPLY_BYTES)
                status, reason, msg = resp.status, resp.reason, resp.msg
            finally:
                timer.cancel()
        except (OSError, http.client.HTTPException) as exc:
            if fired.is_set():
                raise TimeoutError(f"judge request timed out after {self.timeout_s:g} s") from None
            raise exc
        finally:
            conn.close()
        if fired.is_set():  # the watchdog cut the body short: what was read is not the reply
            raise TimeoutError(f"judge request timed out after {self.timeout_s:g} s")
        if status != 200:
            raise urllib.error.HTTPError(self.url, status, reason, msg, None)
        return raw

    def complete(self, messages: list[dict[str, str]], *, max_tokens: int | None = None) -> str:
        """The model's reply text; raises (OSError, TimeoutError, HTTPError, ChatError) on failure."""
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        raw = self._post(json.dumps(payload).encode(), headers)
        try:
            data: Any = json.loads(raw.decode("utf-8", errors="replace"))
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:
            raise ChatError(f"not a chat completion: {type(exc).__name__}") from None
        if not isinstance(content, str):
            raise ChatError("reply content is not a string")
        return content
