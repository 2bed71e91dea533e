"""Per-host politeness: requests in flight, delay between requests, and a failure budget.

Why a separate, clock-free class: the scheduler asks "may this host start now, and if not, when?";
keeping that pure (times passed in) makes the rules testable without threads or sleeping.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HostState", "Politeness"]


@dataclass
class HostState:
    """What we know about one host during a run."""

    next_at: float = 0.0
    in_flight: int = 0
    consecutive_failures: int = 0
    delay_s: float | None = None  # per-host delay when robots.txt Crawl-delay raised it
    dead: bool = False


class Politeness:
    """Rules shared by all workers: at most `max_per_host` in flight, `delay_s` between requests.

    A host that fails `failure_budget` times in a row (connect errors, timeouts, 5xx after retries)
    is marked dead so its remaining URLs fail fast instead of each waiting out its own timeout.
    """

    def __init__(
        self,
        *,
        delay_s: float = 1.0,
        max_per_host: int = 1,
        failure_budget: int = 5,
        max_crawl_delay_s: float = 30.0,
    ) -> None:
        self.delay_s = delay_s
        self.max_per_host = max(1, max_per_host)
        self.failure_budget = failure_budget
        self.max_crawl_delay_s = max_crawl_delay_s
        self.hosts: dict[str, HostState] = {}

    def state(self, host: str) -> HostState:
        st = self.hosts.get(host)
        if st is None:
            st = self.hosts[host] = HostState()
        return st

    def ready_at(self, host: str) -> float | None:
        """Earliest time a request to `host` may start, or None while its slots are all busy."""
        st = self.state(host)
        if st.in_flight >= self.max_per_host:
            return None
        return st.next_at

    def start(self, host: str, now: float) -> None:
        st = self.state(host)
        st.in_flight += 1
        st.next_at = max(st.next_at, now + self.host_delay(host))

    def finish(self, host: str, now: float, *, failed: bool, wait_s: float = 0.0) -> None:
        """Release a slot; the next request waits the host delay (or `wait_s`, e.g. Retry-After)."""
        st = self.state(host)
        st.in_flight = max(0, st.in_flight - 1)
        st.next_at = max(st.next_at, now + self.host_delay(host), now + wait_s)
        if failed:
            st.consecutive_failures += 1
            if self.failure_budget and st.consecutive_failures >= self.failure_budget:
                st.dead = True
        else:
            st.consecutive_failures = 0

    def set_crawl_delay(self, host: str, seconds: float | None) -> None:
        """Honour robots.txt Crawl-delay up to `max_crawl_delay_s`; never go below `delay_s`."""
        if seconds is None:
            return
        self.state(host).delay_s = min(max(seconds, 0.0), self.max_crawl_delay_s)

    def host_delay(self, host: str) -> float:
        st = self.state(host)
        return max(self.delay_s, st.delay_s or 0.0)

    def is_dead(self, host: str) -> bool:
        return self.state(host).dead

    def in_flight_hosts(self) -> int:
        return sum(1 for s in self.hosts.values() if s.in_flight)
