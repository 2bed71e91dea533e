"""Policy section for the crawler (owned by the crawler).

Defaults follow the issue: 30 s total deadline, 1 s per-host delay, one request in flight per host,
10 MiB decompressed body cap, 5 redirects, robots.txt honoured, private addresses refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class CrawlPolicy:
    user_agent: str = opt(
        "trustaudit/0.1 (+contact: set crawl.user_agent)", "User-Agent with a contact"
    )
    timeout_s: float = opt(30.0, "total deadline per fetch (all redirect hops, headers and body)")
    connect_timeout_s: float = opt(10.0, "TCP/TLS connect timeout per attempt")
    read_timeout_s: float = opt(20.0, "longest wait for any byte while reading")
    delay_s: float = opt(1.0, "per-host delay between requests")
    concurrency: int = opt(8, "global concurrent fetches")
    max_per_host: int = opt(1, "requests in flight per host")
    max_body_bytes: int = opt(10 * 1024 * 1024, "cap on the decompressed body")
    max_redirects: int = opt(5, "redirect hops, each re-validated")
    accept_types: tuple[str, ...] = opt(
        ("text/html", "application/xhtml+xml", "text/plain"),
        "content types read (checked before the body); others -> NOT_HTML",
    )
    allow_private: bool = opt(False, "allow private/loopback addresses (intranets, tests)")
    allow_networks: tuple[str, ...] = opt(
        (), "CIDRs exempt from the SSRF guard (narrower than allow_private)"
    )
    ignore_robots: bool = opt(False, "do not read robots.txt")
    robots_ttl_s: float = opt(86400.0, "how long a fetched robots.txt is trusted")
    robots_error_ttl_s: float = opt(
        600.0, "how long an unreachable robots.txt (5xx/timeout) disallows"
    )
    max_crawl_delay_s: float = opt(30.0, "robots.txt Crawl-delay is honoured up to this")
    max_retries: int = opt(3, "retries of connect errors, 408/429/5xx")
    backoff_base_s: float = opt(1.0, "first retry waits about this (doubles each retry, jittered)")
    backoff_cap_s: float = opt(60.0, "longest backoff between retries")
    max_retry_after_s: float = opt(120.0, "Retry-After above this -> give up instead of waiting")
    host_failure_budget: int = opt(
        6, "consecutive failed attempts before a host's other URLs fail fast"
    )
    commit_rows: int = opt(256, "rows per committed part file")
    commit_interval_s: float = opt(5.0, "commit at least this often (work lost on kill -9)")
    commit_bytes: int = opt(64 * 1024 * 1024, "commit when buffered bodies reach this many bytes")
    rdap_cache_dir: str = opt("", "RDAP cache folder (default ~/.cache/trustaudit/rdap)")
    rdap_bootstrap_file: str = opt("", "IANA RDAP bootstrap JSON (default: the bundled copy)")
    rdap_ttl_days: float = opt(30.0, "how long an RDAP registration date is cached")
    rdap_negative_ttl_days: float = opt(1.0, "how long an RDAP failure is cached")
    rdap_min_interval_s: float = opt(1.0, "minimum seconds between requests to one RDAP server")
    rdap_timeout_s: float = opt(15.0, "total deadline per RDAP look-up")
