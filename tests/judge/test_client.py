"""The chat client's bounds, against hostile stub servers on 127.0.0.1 started by the test."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from trustaudit.judge.client import ChatClient

REPLY = json.dumps(
    {"choices": [{"message": {"content": '{"score": 0.9, "reason": "fine"}'}}]}
).encode()


@contextmanager
def serve(handle: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[tuple[str, list[str]]]:
    """A server whose POST and GET run `handle`; yields (base URL, request log)."""
    log: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            log.append(f"POST {self.path} {self.headers.get('Authorization')}")
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            handle(self)

        def do_GET(self) -> None:
            log.append(f"GET {self.path} {self.headers.get('Authorization')}")
            handle(self)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", log
    finally:
        server.shutdown()
        server.server_close()


def drip(handler: BaseHTTPRequestHandler) -> None:
    """A valid reply, one byte every 50 ms (about 4 s in all): each read is quick, the whole is not."""
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(REPLY)))
    handler.end_headers()
    try:
        for i in range(len(REPLY)):
            handler.wfile.write(REPLY[i : i + 1])
            handler.wfile.flush()
            time.sleep(0.05)
    except OSError:  # the client gave up
        pass


def test_a_reply_dripped_slower_than_the_timeout_is_a_timeout() -> None:
    with serve(drip) as (url, _):
        client = ChatClient(url, "m", timeout_s=0.5)
        with pytest.raises(TimeoutError, match="timed out"):
            client.complete([{"role": "user", "content": "x"}])


def test_a_quick_reply_is_read() -> None:
    def ok(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(len(REPLY)))
        h.end_headers()
        h.wfile.write(REPLY)

    with serve(ok) as (url, log):
        out = ChatClient(url, "m", api_key="k", timeout_s=5).complete([])
    assert out == '{"score": 0.9, "reason": "fine"}'
    assert log == ["POST /v1/chat/completions Bearer k"]


def test_a_redirect_is_not_followed_and_the_key_stays_home() -> None:
    with serve(lambda h: None) as (other, other_log):

        def redirect(h: BaseHTTPRequestHandler) -> None:
            h.send_response(302)
            h.send_header("Location", other + "/steal")
            h.send_header("Content-Length", "0")
            h.end_headers()

        with serve(redirect) as (url, _):
            client = ChatClient(url, "m", api_key="secret", timeout_s=5)
            with pytest.raises(Exception, match="302"):
                client.complete([])
    assert other_log == []
