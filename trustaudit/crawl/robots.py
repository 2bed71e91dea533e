"""robots.txt per RFC 9309, with a per-origin cache.

Why not `urllib.robotparser`: it applies the first matching rule, while RFC 9309 says the longest
(most specific) match wins and Allow wins a tie; it also knows no `*`/`$` patterns. Why not a regex
per rule: `.*` between literals backtracks, so a rule with ten `*` took 35 s on one path and any
site could pin a crawl worker; the matcher here finds each literal segment once, left to right.

The access semantics follow RFC 9309 §2.3.1: 2xx -> parse; 4xx -> everything allowed; 5xx, network
errors and timeouts -> everything disallowed until the error entry expires; at most 500 KiB is
parsed. docs/crawl-robots.md lists the rules implemented and the conformance figures.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from trustaudit.crawl.fetch import Fetcher, FetchResult

__all__ = [
    "RobotsCache",
    "RobotsPattern",
    "RobotsRules",
    "compile_pattern",
    "decode_robots",
    "normalize_path",
    "parse_robots",
    "path_of",
    "product_token",
]

ROBOTS_MAX_BYTES = 500 * 1024  # RFC 9309 §2.5: parse at least 500 KiB

# RFC 3986 §2.3 / §2.2. `#` never reaches here (comments and fragments are cut first).
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# One escape, or one character that is neither unreserved nor a reserved delimiter other than the
# two robots.txt operators. Fixed-width alternatives: the scan is linear, nothing backtracks.
_NEEDS_WORK = re.compile(r"%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#\[\]@!&'()+,;=]")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # RFC 9309 §2.1: CR, LF or CRLF, nothing else
_AGENT_NAME = re.compile(r"[A-Za-z0-9_-]*")
_UTF8_BOM = b"\xef\xbb\xbf"

# Keys as Google's and Protego's parsers read them: the frequent misspellings still disallow, which
# errs on the polite side (robots.txt authors mean "disallow" when they write "dissalow").
_USER_AGENT_KEYS = frozenset({"user-agent", "useragent", "user agent"})
_DISALLOW_KEYS = frozenset({"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"})


def product_token(user_agent: str) -> str:
    """The product token robots.txt groups are matched against: `trustaudit/0.1 (...)` -> `trustaudit`."""
    return _agent_name(user_agent) or "*"


def _agent_name(value: str) -> str:
    """The name a `User-agent:` value (or our own User-Agent header) stands for, lower-cased.

    RFC 9309 §2.2.1 product tokens are letters, `_` and `-`; like Google's parser we read the
    leading run of those (plus digits, which real tokens such as `MJ12bot` carry), so `Foo Bar`,
    `Foo/1.0` and `Foo*` all name `foo`.
    """
    value = value.strip()
    if value[:1] == "*" and (len(value) == 1 or value[1].isspace()):
        return "*"
    m = _AGENT_NAME.match(value)
    return m.group(0).lower() if m else ""


def decode_robots(body: bytes) -> str:
    """robots.txt bytes as text: a UTF-8 BOM (whole or cut short, as Google accepts) is dropped.

    A BOM left in place made the first `User-agent` line unreadable, so that group's rules vanished
    and the file failed open.
    """
    skip = 0
    while skip < len(_UTF8_BOM) and skip < len(body) and body[skip] == _UTF8_BOM[skip]:
        skip += 1
    return body[skip:].decode("utf-8", "replace")


def _escape(m: re.Match[str]) -> str:
    s = m.group(0)
    if s[0] == "%" and len(s) == 3:
        ch = chr(int(s[1:], 16))
        return ch if ch in _UNRESERVED else s.upper()
    if s == "*":
        return "%2A"
    if s == "$":
        return "%24"
    return "".join(f"%{b:02X}" for b in s.encode("utf-8", "surrogatepass"))


def normalize_path(text: str) -> str:
    """One spelling per octet string, so a rule and a path compare like for like (RFC 9309 §2.2.2).

    Escapes of unreserved characters are decoded (`%7Ejoe` -> `~joe`), other escapes upper-cased
    (`%2f` -> `%2F`, and stay encoded: `/a%2Fb` is not `/a/b`), non-ASCII and characters not allowed
    in a URI are UTF-8 percent-encoded. A literal `*` or `$` becomes `%2A` / `%24`: §2.2.3 says
    a rule writes those to mean the character itself rather than the operator.
    """
    return _NEEDS_WORK.sub(_escape, text)


def path_of(url: str) -> str:
    """Path, params and query of `url` (the part robots.txt rules match), `/` when it has none.

    Accepts a full URL or a bare path; never raises, whatever the input (after Google's
    `GetPathParamsQuery`, which robots_test.cc pins).
    """
    start = 2 if url.startswith("//") else 0
    early = _find_any(url, "/?;", start)
    proto = url.find("://", start)
    proto_end = start if proto < 0 or (0 <= early < proto) else proto + 3
    path_start = _find_any(url, "/?;", proto_end)
    if path_start < 0:
        return "/"
    hash_pos = url.find("#", start)
    if 0 <= hash_pos < path_start:
        return "/"
    path = url[path_start : hash_pos if hash_pos >= 0 else len(url)]
    return path if path.startswith("/") else "/" + path


def _find_any(s: str, chars: str, start: int) -> int:
    hits = [i for i in (s.find(c, start) for c in chars) if i >= 0]
    return min(hits) if hits else -1


@dataclass(frozen=True)
class RobotsPattern:
    """A compiled Allow/Disallow value: literal segments between `*`, maybe anchored by `$`.

    `matches` is linear in the path: the head must be a prefix, every later segment is found once,
    left to right, at the first place it fits (the leftmost fit never hurts a later segment), and
    an anchored tail must end the path. No backtracking, whatever the number of `*`.
    """

    text: str  # normalized pattern; its length is the rule's specificity (§2.2.2 "most octets")
    head: str
    middle: tuple[str, ...]
    tail: str | None  # None: the pattern has no `*`
    anchored: bool

    def matches(self, path: str) -> bool:
        """True when the rule applies to `path` (already normalized with `normalize_path`)."""
        if not path.startswith(self.head):
            return False
        tail = self.tail
        if tail is None:
            return not self.anchored or len(path) == len(self.head)
        pos = len(self.head)
        for segment in self.middle:
            found = path.find(segment, pos)
            if found < 0:
                return False
            pos = found + len(segment)
        if self.anchored:
            return len(path) - len(tail) >= pos and path.endswith(tail)
        return not tail or path.find(tail, pos) >= 0


def compile_pattern(value: str) -> RobotsPattern:
    """Compile a rule value. A value not starting with `/` or `*` gets a leading `/` (RFC 9309 §5.1
    itself writes `Disallow: *.gif$`; `Disallow: http://x/` then matches only that literal path)."""
    if not value.startswith(("/", "*")):
        value = "/" + value
    anchored = value.endswith("$")
    body = value[:-1] if anchored else value
    parts = [normalize_path(p) for p in body.split("*")]
    text = "*".join(parts) + ("$" if anchored else "")
    if len(parts) == 1:
        return RobotsPattern(text, parts[0], (), None, anchored)
    middle = tuple(p for p in parts[1:-1] if p)
    return RobotsPattern(text, parts[0], middle, parts[-1], anchored)


@dataclass(frozen=True)
class _Rule:
    allow: bool
    pattern: RobotsPattern


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
        path = path_of(url_or_path)
        if path == "/robots.txt":
            return True
        path = normalize_path(path)
        best_len, best_allow = -1, True
        for rule in self.rules:
            n = len(rule.pattern.text)
            if n < best_len or (n == best_len and (best_allow or not rule.allow)):
                continue  # cannot change the verdict: skip the match
            if rule.pattern.matches(path):
                best_len, best_allow = n, rule.allow
        return best_allow


@dataclass
class _Group:
    agents: set[str] = field(default_factory=set)
    rules: list[_Rule] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)


def _records(text: str) -> list[tuple[str, str]]:
    """(lower-cased key, value) per line that parses; everything else is skipped (RFC 9309 §2.2).

    Comments go first; a line with no colon but exactly two words (`Disallow /x`) is read as
    key and value, as Google and Protego do.
    """
    out = []
    for raw in _LINE_BREAK.split(text.removeprefix("\ufeff")):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" in line:
            key, value = line.split(":", 1)
        else:
            words = line.split()
            if len(words) != 2:
                continue
            key, value = words
        out.append((key.strip().lower(), value.strip()))
    return out


def _group_rules(key: str, value: str) -> list[_Rule]:
    allow = key == "allow"
    if not value:
        return []  # `Disallow:` with no path allows everything: no rule
    rules = [_Rule(allow, compile_pattern(value))]
    if allow:
        # Google's reading, which Protego shares: allowing `/d/index.html` allows `/d/` too.
        text = rules[0].pattern.text
        slash = text.rfind("/")
        if slash >= 0 and text.startswith("/index.htm", slash):
            rules.append(_Rule(True, compile_pattern(text[: slash + 1] + "$")))
    return rules


def _groups(text: str) -> list[_Group]:
    """Groups per RFC 9309 §2.1: consecutive user-agent lines open one group, whose rules follow.

    Only Allow/Disallow end a run of user-agent lines; other records (sitemap, crawl-delay, unknown
    keys) do not, as in Google's parser. Rules before any user-agent line belong to no group.
    """
    groups: list[_Group] = []
    current: _Group | None = None
    in_rules = False
    for key, value in _records(text):
        if key in _USER_AGENT_KEYS:
            if current is None or in_rules:
                current, in_rules = _Group(), False
                groups.append(current)
            if name := _agent_name(value):
                current.agents.add(name)
        elif current is None:
            continue
        elif key == "allow" or key in _DISALLOW_KEYS:
            in_rules = True
            current.rules.extend(_group_rules("allow" if key == "allow" else "disallow", value))
        elif key == "crawl-delay":
            try:
                delay = float(value)
            except ValueError:
                continue
            if math.isfinite(delay):
                current.delays.append(max(0.0, delay))
    return groups


def parse_robots(text: str, token: str) -> RobotsRules:
    """Parse robots.txt text for the product `token`: its own groups, else the `*` groups, merged.

    RFC 9309 §2.2.1: the token is matched case-insensitively and whole (`hedwig-news2` is not
    `hedwig-news`); every group naming it counts; a group naming it with no rules allows all.
    """
    token = token.strip().lower() or "*"
    groups = _groups(text)
    mine = [g for g in groups if token in g.agents] or [g for g in groups if "*" in g.agents]
    merged = RobotsRules()
    for g in mine:
        merged.rules.extend(g.rules)
        if g.delays and merged.crawl_delay is None:
            merged.crawl_delay = g.delays[0]
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
            text = decode_robots(res.body)
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
