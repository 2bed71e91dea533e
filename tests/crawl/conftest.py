"""Crawler test fixtures: fault servers on 127.0.0.1, a fake clock, a test policy."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.crawl.crawl_faultserver import FaultServer
from trustaudit.policy import Policy, load_policy


class FakeClock:
    """Monotonic clock whose sleep advances time instantly (no test sleeps through backoff)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += max(0.0, seconds)


@pytest.fixture
def server() -> Iterator[FaultServer]:
    srv = FaultServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def other_server() -> Iterator[FaultServer]:
    srv = FaultServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_policy(**crawl: Any) -> Policy:
    """Test policy: no per-host delay, short deadline, small body cap unless overridden."""
    base: dict[str, Any] = {
        "delay_s": 0.0,
        "timeout_s": 3.0,
        "max_body_bytes": 1024 * 1024,
        "commit_interval_s": 0.5,
    }
    base.update(crawl)
    return load_policy(environ={}, overrides={"crawl": base})


def only(server: FaultServer):  # type: ignore[no-untyped-def]
    """An SSRF `allow` predicate that exempts exactly this server's address and port."""
    host, port = server.server_address[0], server.port

    def allow(ip: Any, p: int) -> bool:
        return str(ip) == host and p == port

    return allow
