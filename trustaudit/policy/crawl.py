"""Policy section for the crawler (owned by the crawler)."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class CrawlPolicy:
    user_agent: str = opt("trustaudit/0.1 (+contact: set crawl.user_agent)", "User-Agent with a contact")
    timeout_s: float = opt(30.0, "total deadline per fetch")
    delay_s: float = opt(1.0, "per-host delay between requests")
    concurrency: int = opt(8, "global concurrent fetches")
    max_body_bytes: int = opt(10 * 1024 * 1024, "cap on the decompressed body")
    max_redirects: int = opt(5, "redirect hops, each re-validated")
    allow_private: bool = opt(False, "allow private/loopback addresses (intranets, tests)")
    ignore_robots: bool = opt(False, "do not read robots.txt")
