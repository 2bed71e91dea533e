"""robots.txt per RFC 9309, with a per-origin cache.

Why not `urllib.robotparser`: it applies the first matching rule, while RFC 9309 says the longest
(most specific) match wins and Allow wins a tie; it also knows no `*`/`$` patterns. The access
semantics follow RFC 9309 §2.3.1: 2xx -> parse; 4xx -> everything allowed; 5xx, network errors and
timeouts -> everything disallowed until the error entry expires; at most 500 KiB is parsed.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from trustaudit.crawl.fetch import Fetcher, FetchResult

__all__ = ["RobotsCache", "RobotsRules", "parse_robots", "product_token"]

ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309 §2.5: parse at least 500 KiB
_SAFE = "/?=&*$;:@!,'()~+%-._"


def product_token(user_agent: str) -> str:
    """The product token robots.txt groups are matched against: `trustaudit/0.1 (...)` -> `trustaudit`."""
    token = re.split(r"[/\s]", user_agent.strip(), maxsplit=1)[0]
    return token.lower() or "*"


def _normalize(path: str) -> str:
    """Percent-encode non-ASCII and upper-case escapes so pattern and path compare like for like."""
    out = quote(path, safe=_SAFE)
    return re.sub(r"%[0-9a-fA-F]{2}", lambda m: m.group(0).upper(), out)


@dataclass(frozen=True)
class _Rule:
    allow: bool
    pattern: str
    regex: re.Pattern[str]


def _compile(pattern: str) -> re.Pattern[str]:
    anchored = pattern.endswith("$")
    body = pattern[:-1] if anchored else pattern
    rx = ".*".join(re.escape(part) for part in body.split("*"))
    return re.compile(rx + ("$" if anchored else ""))


@dataclass
class RobotsRules:
    """The rules of the group(s) that apply to our product token."""

    rules: list[_Rule] = field(default_factory=list)
    crawl_delay: float | None = None
    disallow_all: bool = False  # robots.txt unreachable (5xx/timeout): nothing may be fetched

    def allowed(self, url_or_path: str) -> bool:
        """RFC 9309 §2.2.2: the longest matching rule wins; Allow wins ties; no match -> allowed."""
        if self.disallow_all:
            return False
        if "://" in url_or_path:
            parts = urlsplit(url_or_path)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        else:
            path = url_or_path or "/"
        if path == "/robots.txt":
            return True
        path = _normalize(path)
        best: _Rule | None = None
        for rule in self.rules:
            if rule.regex.match(path) and (
                best is None
                or len(rule.pattern) > len(best.pattern)
                or (len(rule.pattern) == len(best.pattern) and rule.allow and not best.allow)
            ):
                best = rule
        return best is None or best.allow


def parse_robots(text: str, token: str) -> RobotsRules:
    """Parse robots.txt text for the product `token`: its own groups, else the `*` groups, merged."""
    groups: list[tuple[list[str], list[_Rule], list[float]]] = []
    agents: list[str] = []
    rules: list[_Rule] = []
    delays: list[float] = []
    in_rules = False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if ":" not in line:
            continue
        key, value = (s.strip() for s in line.split(":", 1))
        key = key.lower()
        if key in ("user-agent", "useragent", "user agent"):
            if in_rules:
                groups.append((agents, rules, delays))
                agents, rules, delays, in_rules = [], [], [], False
            agents.append(value.split("/", 1)[0].strip().lower())
        elif key in ("allow", "disallow"):
            if not agents:
                continue  # rules before any user-agent line belong to no group
            in_rules = True
            if not value:
                continue  # `Disallow:` with no path allows everything: no rule
            pattern = _normalize(value if value.startswith(("/", "*")) else "/" + value)
            rules.append(_Rule(key == "allow", pattern, _compile(pattern)))
        elif key == "crawl-delay":
            if not agents:
                continue
            in_rules = True
            with contextlib.suppress(ValueError):
                delays.append(float(value))
    if agents:
        groups.append((agents, rules, delays))
    mine = [g for g in groups if token in g[0]]
    if not mine:
        mine = [g for g in groups if "*" in g[0]]
    merged = RobotsRules()
    for _, rs, ds in mine:
        merged.rules.extend(rs)
        if ds and merged.crawl_delay is None:
            merged.crawl_delay = max(0.0, ds[0])
    return merged


@dataclass
class RobotsEntry:
    """A cached decision for one origin."""

    rules: RobotsRules
    status: str  # fetched | missing | unreachable
    detail: str
    expires_at: float
    error_code: str | None = None  # the fetch error behind an `unreachable` entry


class RobotsCache:
    """Fetch robots.txt once per origin (scheme://host:port) and cache the decision.

    Thread-safe; a per-origin lock makes concurrent workers wait for one fetch instead of sending
    several. `clock` is injectable so expiry can be tested without sleeping.
    """

    def __init__(
        self,
        fetcher: Fetcher,
        user_agent: str,
        *,
        ttl_s: float = 24 * 3600.0,
        error_ttl_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fetcher = fetcher
        self.token = product_token(user_agent)
        self.ttl_s = ttl_s
        self.error_ttl_s = error_ttl_s
        self.clock = clock
        self._entries: dict[str, RobotsEntry] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.fetches = 0

    def entry(self, origin: str) -> RobotsEntry:
        """The decision for `origin`, fetching robots.txt when not cached or expired."""
        with self._guard:
            lock = self._locks.setdefault(origin, threading.Lock())
        with lock:
            cached = self._entries.get(origin)
            if cached is not None and cached.expires_at > self.clock():
                return cached
            fresh = self._load(origin)
            self._entries[origin] = fresh
            return fresh

    def cached(self, origin: str) -> RobotsEntry | None:
        """The cached entry when present and fresh (no fetch)."""
        e = self._entries.get(origin)
        return e if e is not None and e.expires_at > self.clock() else None

    def _load(self, origin: str) -> RobotsEntry:
        self.fetches += 1
        res: FetchResult = self.fetcher.fetch(
            origin + "/robots.txt", accept_types=(), max_body_bytes=ROBOTS_MAX_BYTES, truncate=True
        )
        now = self.clock()
        if res.ok and res.body is not None:
            text = res.body.decode("utf-8", "replace")
            return RobotsEntry(parse_robots(text, self.token), "fetched", "", now + self.ttl_s)
        code = res.error_code or ""
        status = res.status or 0
        if code in ("EMPTY_BODY",) or (400 <= status < 500 and status != 429):
            # RFC 9309 §2.3.1.3: "unavailable" -> the crawler may access any resource.
            return RobotsEntry(RobotsRules(), "missing", code, now + self.ttl_s)
        if code in ("TOO_MANY_REDIRECTS", "BAD_REDIRECT"):
            return RobotsEntry(RobotsRules(), "missing", code, now + self.ttl_s)
        # 5xx, 429, network errors, timeouts, SSRF-blocked redirects: §2.3.1.4 complete disallow.
        detail = f"robots.txt unreachable ({code}: {res.error_message})"
        return RobotsEntry(
            RobotsRules(disallow_all=True),
            "unreachable",
            detail,
            now + self.error_ttl_s,
            code or None,
        )
