"""One bounded HTTP GET (with re-validated redirects) on urllib3, connecting to a validated address.

Why urllib3 at the connection level rather than a pool or `requests`: we must connect to the exact
address the SSRF guard approved (no second DNS look-up), while SNI, certificate checks and the Host
header still use the name. urllib3 >= 2.6.3 also decompresses in bounded steps, so a gzip bomb costs
about one read chunk beyond the body cap (DESIGN §6), not the whole bomb.

Limits enforced here: connect/read socket timeouts, a total deadline per fetch (a watchdog thread shuts
the socket down, which also stops slow-drip bodies and headers), redirect hops each re-checked by the
guard, a cap on the *decompressed* body, the Content-Type checked before any body byte is read, and
http.client's header caps (100 headers, 64 KiB a line). Errors come back as codes, never exceptions.
"""

from __future__ import annotations

import contextlib
import heapq
import http.client
import itertools
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import DecodeError, HTTPError, ProtocolError, SSLError
from urllib3.util.request import ACCEPT_ENCODING

from trustaudit.crawl.charset import decide_charset
from trustaudit.crawl.ssrf import BadURLError, BlockedError, Guard, IPAddress, ResolveError, Target

__all__ = ["HTML_TYPES", "Exchange", "FetchConfig", "FetchResult", "Fetcher"]

HTML_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_CHUNK = 64 * 1024
_SNIFF_BYTES = 1024
_MAX_ADDRESSES = 3  # addresses tried per hop when the first refuses
# Content-Encoding tokens urllib3 decodes here (brotli and zstd only when their modules are installed);
# another one would hand over the encoded bytes as the page
_DECODABLE = frozenset(ACCEPT_ENCODING.split(",")) | {"identity", "x-gzip"}
# WARC-Truncated values (WARC 1.1 §5.13) for a body the fetch gave up on
_WARC_TRUNCATED = {"TOO_LARGE": "length", "FETCH_TIMEOUT": "time", "CONNECT_ERROR": "disconnect"}


@dataclass(frozen=True)
class FetchConfig:
    """Limits of one fetch; built from `CrawlPolicy` by the crawler."""

    user_agent: str
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 20.0
    total_timeout_s: float = 30.0
    max_body_bytes: int = 10 * 1024 * 1024
    max_redirects: int = 5
    accept_types: tuple[str, ...] = HTML_TYPES
    archive_error_body_bytes: int = 64 * 1024  # body kept (for WARC) of 4xx/5xx answers
    ssl_context: ssl.SSLContext | None = None


@dataclass
class Exchange:
    """One request/response pair as sent and received (what a WARC writer archives)."""

    url: str
    ip: str
    method: str
    request_headers: list[tuple[str, str]]
    status: int
    reason: str
    http_version: str
    response_headers: list[tuple[str, str]]
    body: bytes
    fetched_at: datetime
    # the WARC-Truncated value when `body` is not the whole body ("length": over the cap, "time",
    # "disconnect", "unspecified"); a body dropped whole is b"" with a value here, not an empty page
    truncated: str | None = None


@dataclass
class FetchResult:
    """Outcome of one fetch: a body with its decided charset, or an error code (never both)."""

    url: str
    final_url: str
    fetched_at: datetime
    status: int | None = None
    content_type: str | None = None
    body: bytes | None = None
    charset: str | None = None
    charset_source: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    retryable: bool = False
    retry_after: str | None = None  # raw Retry-After header of the last answer
    redirects: int = 0
    elapsed_s: float = 0.0
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error_code is None


@dataclass
class _Slot:
    """The socket of one fetch, kept here because http.client drops `conn.sock` on Connection: close."""

    fired: threading.Event = field(default_factory=threading.Event)
    sock: socket.socket | None = None


class _Watchdog:
    """One daemon thread that shuts down sockets whose fetch deadline passed.

    Why: socket timeouts bound each recv, not the whole response; a server dripping one byte a second
    would keep a fetch alive forever. Shutting the socket down makes the blocked read return at once.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Any]] = []
        self._cond = threading.Condition()
        self._ids = itertools.count()
        self._live: dict[int, _Slot] = {}
        self._thread: threading.Thread | None = None

    def arm(self, deadline: float, slot: _Slot) -> int:
        with self._cond:
            token = next(self._ids)
            self._live[token] = slot
            heapq.heappush(self._heap, (deadline, token, None))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="fetch-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify()
            return token

    def disarm(self, token: int) -> None:
        with self._cond:
            self._live.pop(token, None)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                deadline, token, _ = self._heap[0]
                now = time.monotonic()
                if deadline > now:
                    self._cond.wait(deadline - now)
                    continue
                heapq.heappop(self._heap)
                entry = self._live.pop(token, None)
            if entry is not None:
                entry.fired.set()
                sock = entry.sock
                if sock is not None:
                    with contextlib.suppress(OSError, ValueError):
                        # The plain-socket method: SSLSocket.shutdown would tear down TLS state
                        # under the reading thread's feet.
                        socket.socket.shutdown(sock, socket.SHUT_RDWR)


_WATCHDOG = _Watchdog()


class _Abort(Exception):
    def __init__(self, code: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.retryable = retryable


HopCheck = Callable[[str], tuple[str, str] | None]


class Fetcher:
    """Bounded GETs through a `Guard`. Thread-safe: holds no per-fetch state."""

    def __init__(self, config: FetchConfig, guard: Guard) -> None:
        self.config = config
        self.guard = guard
        self._ssl = config.ssl_context or ssl.create_default_context()

    def fetch(
        self,
        url: str,
        *,
        hop_check: HopCheck | None = None,
        accept_types: tuple[str, ...] | None = None,
        max_body_bytes: int | None = None,
        truncate: bool = False,
        extra_headers: dict[str, str] | None = None,
    ) -> FetchResult:
        """GET `url`, following up to `max_redirects` hops, each validated by the guard.

        `hop_check(url)` may veto a redirect target with (code, message) — the crawler passes its
        robots.txt check. `accept_types=()` accepts any type (robots.txt, RDAP JSON). `truncate`
        keeps the first `max_body_bytes` instead of failing with TOO_LARGE (robots.txt semantics).
        """
        cfg = self.config
        started = time.monotonic()
        deadline = started + cfg.total_timeout_s
        accept = cfg.accept_types if accept_types is None else accept_types
        cap = cfg.max_body_bytes if max_body_bytes is None else max_body_bytes
        result = FetchResult(url=url, final_url=url, fetched_at=_utcnow())
        current = url
        seen: set[str] = set()
        try:
            for hop in range(cfg.max_redirects + 1):
                seen.add(current)
                result.final_url = current
                try:
                    target, addrs = self.guard.check(current)
                except (BadURLError, BlockedError, ResolveError) as exc:
                    code = exc.code
                    if hop and code == "BAD_URL":
                        code = "BAD_REDIRECT"
                    raise _Abort(code, str(exc), retryable=code == "DNS_ERROR") from None
                if hop and hop_check is not None:
                    veto = hop_check(current)
                    if veto is not None:
                        raise _Abort(*veto)
                location = self._one_hop(
                    target, addrs, deadline, accept, cap, truncate, result, extra_headers
                )
                if location is None:
                    return self._finish(result, started)
                nxt = urljoin(current, location)
                if nxt in seen:
                    raise _Abort("TOO_MANY_REDIRECTS", f"redirect loop back to {nxt}")
                result.redirects = hop + 1
                current = nxt
            raise _Abort("TOO_MANY_REDIRECTS", f"more than {cfg.max_redirects} redirects")
        except _Abort as exc:
            result.error_code = exc.code
            result.error_message = str(exc)
            result.retryable = exc.retryable
            result.body = None
            return self._finish(result, started)

    def _finish(self, result: FetchResult, started: float) -> FetchResult:
        result.elapsed_s = time.monotonic() - started
        return result

    def _connect(self, target: Target, ip: IPAddress, timeout: float) -> HTTPConnection:
        if target.scheme == "https":
            name = None if target.ip_literal is not None else target.host
            return HTTPSConnection(
                str(ip),
                target.port,
                timeout=timeout,
                server_hostname=name,
                assert_hostname=target.host,
                ssl_context=self._ssl,
                cert_reqs="CERT_REQUIRED",
            )
        return HTTPConnection(str(ip), target.port, timeout=timeout)

    def _one_hop(
        self,
        target: Target,
        addrs: list[IPAddress],
        deadline: float,
        accept: tuple[str, ...],
        cap: int,
        truncate: bool,
        result: FetchResult,
        extra_headers: dict[str, str] | None,
    ) -> str | None:
        """Do one request; fill `result`; return the redirect Location or None when done."""
        cfg = self.config
        headers = {
            "Host": target.host_header,
            "User-Agent": cfg.user_agent,
            "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1",
            "Accept-Encoding": "gzip, deflate",
            "Connection": "close",
            **(extra_headers or {}),
        }
        last_exc: Exception | None = None
        for ip in addrs[:_MAX_ADDRESSES]:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Abort("FETCH_TIMEOUT", f"total deadline of {cfg.total_timeout_s:g}s passed")
            conn = self._connect(target, ip, min(cfg.connect_timeout_s, remaining))
            slot = _Slot()
            fired = slot.fired
            token = _WATCHDOG.arm(deadline, slot)
            try:
                try:
                    conn.connect()
                    slot.sock = conn.sock
                    if fired.is_set():  # the deadline passed during connect
                        raise OSError("deadline passed during connect")
                except (OSError, http.client.HTTPException, HTTPError) as exc:
                    if isinstance(exc, SSLError | ssl.SSLError):
                        raise _Abort("TLS_ERROR", f"TLS failure: {_describe(exc)}") from None
                    if fired.is_set():
                        raise _Abort(
                            "FETCH_TIMEOUT", f"total deadline of {cfg.total_timeout_s:g}s passed"
                        ) from None
                    last_exc = exc
                    continue  # never connected: try the next validated address
                read_timeout = max(0.001, min(cfg.read_timeout_s, deadline - time.monotonic()))
                conn.timeout = read_timeout
                try:
                    conn.request(
                        "GET", target.request_target, headers=headers, preload_content=False
                    )
                    resp = conn.getresponse()
                except (OSError, http.client.HTTPException, HTTPError) as exc:
                    if fired.is_set():
                        raise _Abort(
                            "FETCH_TIMEOUT", f"total deadline of {cfg.total_timeout_s:g}s passed"
                        ) from None
                    if _is_header_overflow(exc):
                        raise _Abort(
                            "HEADER_TOO_LARGE", f"response headers too large: {exc}"
                        ) from None
                    if isinstance(exc, TimeoutError | socket.timeout):
                        raise _Abort("FETCH_TIMEOUT", f"read timed out: {exc}") from None
                    raise _Abort("CONNECT_ERROR", _describe(exc), retryable=True) from None
                return self._handle_response(
                    target, str(ip), headers, resp, accept, cap, truncate, result, fired
                )
            finally:
                _WATCHDOG.disarm(token)
                with contextlib.suppress(Exception):
                    conn.close()
        raise _Abort("CONNECT_ERROR", _describe(last_exc), retryable=True)

    def _handle_response(
        self,
        target: Target,
        ip: str,
        req_headers: dict[str, str],
        resp: urllib3.BaseHTTPResponse,
        accept: tuple[str, ...],
        cap: int,
        truncate: bool,
        result: FetchResult,
        fired: threading.Event,
    ) -> str | None:
        cfg = self.config
        status = resp.status
        ctype = resp.headers.get("content-type")
        ex = Exchange(
            url=target.url,
            ip=ip,
            method="GET",
            request_headers=list(req_headers.items()),
            status=status,
            reason=resp.reason or "",
            http_version=getattr(resp, "version_string", "HTTP/1.1") or "HTTP/1.1",
            response_headers=list(resp.headers.items()),
            body=b"",
            fetched_at=_utcnow(),
        )
        result.exchanges.append(ex)
        result.status = status
        result.content_type = ctype
        result.fetched_at = ex.fetched_at
        result.retry_after = resp.headers.get("retry-after")
        if status in REDIRECT_STATUSES:
            location = resp.headers.get("location")
            if location:
                return location
            raise _Abort(f"HTTP_{status}", f"redirect {status} without Location")
        if not 200 <= status < 300:
            try:
                ex.body, complete = self._read(resp, cfg.archive_error_body_bytes, True, fired)
                ex.truncated = None if complete else "length"
            except _Abort as exc:
                ex.truncated = _WARC_TRUNCATED.get(exc.code, "unspecified")
            raise _Abort(
                f"HTTP_{status}",
                f"HTTP {status} {resp.reason or ''}".strip(),
                retryable=status in RETRYABLE_STATUSES,
            )
        mime = (ctype or "").split(";", 1)[0].strip().lower()
        if accept and mime and mime not in accept:
            raise _Abort("NOT_HTML", f"content type {mime!r} is not HTML/XHTML/text")
        clen = resp.headers.get("content-length")
        encodings = (resp.headers.get("content-encoding") or "").lower().split(",")
        unknown = next((e.strip() for e in encodings if e.strip() not in _DECODABLE | {""}), None)
        try:
            if unknown is not None:
                raise _Abort("DECODE_ERROR", f"content-encoding {unknown[:40]!r} is not supported")
            if (
                not truncate
                and clen
                and clen.isdigit()
                and int(clen) > cap
                and not resp.headers.get("content-encoding")
            ):
                raise _Abort("TOO_LARGE", f"Content-Length {int(clen)} exceeds the {cap}-byte cap")
            body, complete = self._read(resp, cap, truncate, fired)
        except _Abort as exc:  # the WARC must not show the dropped body as an empty page
            ex.truncated = _WARC_TRUNCATED.get(exc.code, "unspecified")
            raise
        ex.body, ex.truncated = body, None if complete else "length"
        if not body:
            raise _Abort("EMPTY_BODY", "response body is empty")
        if accept and _looks_binary(body):
            raise _Abort("BINARY_CONTENT", f"binary bytes in a {mime or 'untyped'} body")
        result.body = body
        result.charset, result.charset_source = decide_charset(body, ctype)
        return None

    def _read(
        self, resp: urllib3.BaseHTTPResponse, cap: int, truncate: bool, fired: threading.Event
    ) -> tuple[bytes, bool]:
        """Read the decoded body up to `cap` bytes; returns (body, complete)."""
        buf = bytearray()
        try:
            while True:
                # read(amt) decompresses at most `amt` bytes per call (urllib3 >= 2.6.3).
                chunk = resp.read(min(_CHUNK, cap + 1 - len(buf)))
                if fired.is_set():
                    raise _Abort("FETCH_TIMEOUT", "total deadline passed while reading the body")
                if not chunk:
                    return bytes(buf), True
                buf += chunk
                if len(buf) > cap:
                    if truncate:
                        return bytes(buf[:cap]), False
                    raise _Abort("TOO_LARGE", f"decompressed body exceeds the {cap}-byte cap")
        except DecodeError as exc:
            raise _Abort("DECODE_ERROR", f"content-encoding decode failed: {exc}") from None
        except (OSError, ProtocolError, http.client.HTTPException, HTTPError) as exc:
            if fired.is_set():
                raise _Abort(
                    "FETCH_TIMEOUT", "total deadline passed while reading the body"
                ) from None
            if isinstance(exc, TimeoutError | socket.timeout) or "timed out" in str(exc):
                raise _Abort("FETCH_TIMEOUT", f"read timed out: {exc}") from None
            raise _Abort(
                "CONNECT_ERROR", f"connection failed mid-body: {_describe(exc)}", retryable=True
            ) from None


def _looks_binary(body: bytes) -> bool:
    """NUL bytes in the first KiB mean binary, unless the body starts with a UTF-16/32 BOM."""
    head = body[:_SNIFF_BYTES]
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return False
    return b"\x00" in head


def _is_header_overflow(exc: BaseException) -> bool:
    return isinstance(exc, http.client.LineTooLong) or (
        "more than" in str(exc) and "headers" in str(exc)
    )


def _describe(exc: BaseException | None) -> str:
    if exc is None:
        return "no address accepted the connection"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]


def _utcnow() -> datetime:
    return datetime.now(UTC)
