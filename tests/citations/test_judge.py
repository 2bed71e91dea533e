"""The optional judge against a stub OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from trustaudit.citations.judge import Judge, parse_verdict
from trustaudit.policy.citations import CitationsPolicy


class StubLLM:
    """Answers /v1/chat/completions with a scripted reply; records every request."""

    def __init__(self) -> None:
        self.reply: str = '{"verdict": "supported", "reason": "stated in [1]"}'
        self.status = 200
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                if self.path != "/v1/chat/completions":
                    self.send_response(404)
                    self.end_headers()
                    return
                stub.requests.append(json.loads(body))
                stub.headers.append(dict(self.headers))
                payload = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": stub.reply}}]}
                )
                self.send_response(stub.status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(payload.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StubLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def stub() -> Iterator[StubLLM]:
    with StubLLM() as s:
        yield s


def make(stub: StubLLM, tmp_path: Path, **kw: Any) -> Judge:
    return Judge(stub.endpoint, "stub-model", cache_dir=tmp_path / "cache", timeout_s=5, **kw)


@pytest.mark.network
def test_verdict_request_shape_and_cache(stub: StubLLM, tmp_path: Path) -> None:
    judge = make(stub, tmp_path, api_key="sk-test")
    res = judge.judge("Card text.", ["para one", "para two"])
    assert (res.verdict, res.status) == ("supported", "ok")
    req = stub.requests[0]
    assert req["model"] == "stub-model" and req["temperature"] == 0
    assert "[2] para two" in req["messages"][1]["content"]
    assert stub.headers[0]["Authorization"] == "Bearer sk-test"
    again = make(stub, tmp_path).judge("Card text.", ["para one", "para two"])
    assert (again.verdict, again.status) == ("supported", "cached") and len(stub.requests) == 1


@pytest.mark.network
def test_budget_bounds_requests(stub: StubLLM, tmp_path: Path) -> None:
    judge = make(stub, tmp_path, max_calls=1)
    assert judge.judge("a", ["p"]).verdict == "supported"
    assert judge.judge("b", ["p"]) == judge.judge("c", ["p"])
    assert judge.judge("b", ["p"]).status == "budget_exhausted" and len(stub.requests) == 1


@pytest.mark.network
def test_server_errors_and_bad_replies_give_no_verdict(stub: StubLLM, tmp_path: Path) -> None:
    stub.status = 500
    res = make(stub, tmp_path).judge("a", ["p"])
    assert res.verdict is None and res.status.startswith("error: HTTPError")
    stub.status, stub.reply = 200, "I cannot tell."
    res = make(stub, tmp_path).judge("b", ["p"])
    assert res.verdict is None and res.status == "error: no verdict in reply"
    assert not list((tmp_path / "cache").glob("*.json"))  # failures are not cached


@pytest.mark.network
def test_unreachable_endpoint_gives_no_verdict(tmp_path: Path) -> None:
    # port 9 on 127.0.0.1 (discard) is closed in test environments: connection refused
    res = Judge("http://127.0.0.1:9/v1", "m", cache_dir=tmp_path, timeout_s=2).judge("a", ["p"])
    assert res.verdict is None and res.status.startswith("error")


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ('{"verdict": "unsupported", "reason": "no"}', "unsupported"),
        ('```json\n{"verdict": "Supported"}\n```', "supported"),
        ("The card is not supported by the source.", "unsupported"),
        ("Supported.", "supported"),
        ("maybe", None),
    ],
)
def test_parse_verdict(reply: str, verdict: str | None) -> None:
    assert parse_verdict(reply)[0] == verdict


def test_from_policy_is_off_by_default() -> None:
    assert Judge.from_policy(CitationsPolicy()) is None
    assert Judge.from_policy(CitationsPolicy(judge_enabled=True)) is None  # no endpoint/model
    j = Judge.from_policy(
        CitationsPolicy(
            judge_enabled=True, judge_endpoint="http://127.0.0.1:1/v1", judge_model="m"
        ),
        environ={"TRUSTAUDIT_JUDGE_API_KEY": "k"},
    )
    assert j is not None and j.api_key == "k" and j.url == "http://127.0.0.1:1/v1/chat/completions"
