"""Retry decisions: which failures to retry, exponential backoff with jitter, and Retry-After.

Why jitter: many URLs of one dead host failing together would otherwise retry in lock-step. Why a
cap on Retry-After: a server asking for an hour must not stall a nightly run; beyond the cap we give
up on that URL (the error row says so) rather than retry early, which would be impolite.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = ["RetryPolicy", "parse_retry_after"]


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After value (delta-seconds or HTTP-date); None if absent/invalid."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` retries after the first attempt; delay = base * 2**n with equal jitter, capped."""

    max_retries: int = 3
    base_s: float = 1.0
    cap_s: float = 60.0
    max_retry_after_s: float = 120.0

    def backoff_s(self, retry_number: int, rng: random.Random) -> float:
        """Delay before retry `retry_number` (0-based): half fixed, half random ("equal jitter")."""
        ceiling = min(self.cap_s, self.base_s * (2**retry_number))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)

    def delay_for(
        self,
        *,
        retryable: bool,
        retries_done: int,
        retry_after: str | None,
        rng: random.Random,
        now: datetime | None = None,
    ) -> float | None:
        """Seconds to wait before retrying, or None to give up."""
        if not retryable or retries_done >= self.max_retries:
            return None
        backoff = self.backoff_s(retries_done, rng)
        hinted = parse_retry_after(retry_after, now)
        if hinted is None:
            return backoff
        if hinted > self.max_retry_after_s:
            return None
        return hinted
