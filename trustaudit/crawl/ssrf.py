"""SSRF guard: a URL list is hostile input, so every hop is checked before a socket is opened.

Why this module exists: `ipaddress` on Python 3.11 misses 100.64.0.0/10 in `is_private`, and
`is_global` passes multicast and IPv6 forms that wrap a private IPv4 (6to4, NAT64, Teredo, mapped).
URL parsers also accept numeric disguises (`127.1`, `0x7f000001`, `2130706433`) that the C resolver
turns into loopback. So we parse hosts ourselves (inet_aton rules), resolve once, reject the whole
answer if any address is not globally reachable, and hand the *validated address* to the fetcher so
no second resolution can rebind the name (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]
AllowFn = Callable[[IPAddress, int], bool]

__all__ = [
    "BadURLError",
    "BlockedError",
    "Guard",
    "Target",
    "is_public_address",
    "parse_ipv4_numeric",
    "parse_target",
    "system_resolver",
]

# Networks that are never a public web server, whatever ipaddress's flags say (IANA special-purpose
# registries, RFC 6890 and successors). Checked *in addition* to `is_global`.
_BLOCKED_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
        "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
        "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "255.255.255.255/32",
    )
)  # fmt: skip
_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
_NAT64_WKP = ipaddress.IPv6Network("64:ff9b::/96")
_BLOCKED_V6 = tuple(
    ipaddress.IPv6Network(n)
    for n in (
        "::/128", "::1/128", "::ffff:0:0/96", "64:ff9b:1::/48", "100::/64", "2001::/23",
        "2001:db8::/32", "2001:10::/28", "2001:20::/28", "3fff::/20", "5f00::/16", "fc00::/7",
        "fe80::/10", "fec0::/10", "ff00::/8",
    )
)  # fmt: skip
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")
# Longer than any web server or CDN accepts (RFC 9110 asks for 8,000 octets; CDNs stop at 16-32 KB):
# a 60 MB URL line was sent whole as a request line, and retried, for minutes.
MAX_URL_CHARS = 32_768


class BadURLError(ValueError):
    """The URL is not something we fetch (scheme, userinfo, host or port is wrong)."""

    code = "BAD_URL"


class BlockedError(ValueError):
    """The URL points at an address that is not globally reachable (SSRF)."""

    code = "SSRF_BLOCKED"


class ResolveError(OSError):
    """DNS gave no usable answer (not a policy decision; retrying later may help)."""

    code = "DNS_ERROR"


@dataclass(frozen=True)
class Target:
    """A checked URL split into what the fetcher needs: where to connect and what to ask for."""

    url: str
    scheme: str
    host: str  # ASCII (IDNA) host name, or the canonical IP literal (no brackets)
    port: int
    request_target: str  # path + query, never empty
    ip_literal: IPAddress | None

    @property
    def host_header(self) -> str:
        """Host header value: brackets for IPv6, port only when not the scheme default."""
        h = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return h if self.port == default else f"{h}:{self.port}"

    @property
    def origin(self) -> str:
        return f"{self.scheme}://{self.host_header}"


def parse_ipv4_numeric(host: str) -> ipaddress.IPv4Address | None:
    """Parse `host` with inet_aton rules (1-4 parts; decimal, 0-octal, 0x-hex), or return None.

    Why: browsers and the C resolver read `127.1`, `0177.0.0.1`, `0x7f000001` and `2130706433` as
    127.0.0.1; a guard that only knows dotted-quad would let them through.
    """
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    nums: list[int] = []
    for p in parts:
        if not p:
            return None
        try:
            if p[:2].lower() == "0x":
                n = int(p[2:], 16) if len(p) > 2 else 0
            elif len(p) > 1 and p[0] == "0":
                n = int(p[1:], 8)
            else:
                if not p.isdigit():
                    return None
                n = int(p)
        except ValueError:
            return None
        nums.append(n)
    *head, last = nums
    if any(n > 255 for n in head) or last >= 256 ** (4 - len(head)):
        return None
    value = 0
    for n in head:
        value = value * 256 + n
    value = value * 256 ** (4 - len(head)) + last
    return ipaddress.IPv4Address(value)


def _looks_numeric(label: str) -> bool:
    """WHATWG: a host whose last label is numeric must parse as IPv4 (else it is invalid)."""
    if not label:
        return False
    if label[:2].lower() == "0x":
        return all(c in "0123456789abcdefABCDEF" for c in label[2:])
    return label.isdigit()


def _embedded_v4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo, NAT64, compatible)."""
    out: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        out.append(ip.ipv4_mapped)
    if ip in _SIX_TO_FOUR and ip.sixtofour is not None:
        out.append(ip.sixtofour)
    if ip.teredo is not None:
        out.extend(ip.teredo)
    if ip in _NAT64_WKP:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if int(ip) >> 32 == 0 and int(ip) > 1:  # deprecated IPv4-compatible ::a.b.c.d
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return out


def _v4_public(ip: ipaddress.IPv4Address) -> bool:
    return (
        ip.is_global
        and not ip.is_multicast
        and not ip.is_reserved
        and not any(ip in n for n in _BLOCKED_V4)
    )


def is_public_address(ip: IPAddress) -> bool:
    """True only for a globally reachable unicast address, after unwrapping embedded IPv4."""
    if isinstance(ip, ipaddress.IPv4Address):
        return _v4_public(ip)
    if ip.scope_id:
        return False
    embedded = _embedded_v4(ip)
    if embedded:
        # 6to4/NAT64 towards a public IPv4 is a legitimate route; anything wrapping a private one
        # is an SSRF disguise. Mapped/compatible/Teredo ranges stay blocked by _BLOCKED_V6 too.
        if not all(_v4_public(v4) for v4 in embedded):
            return False
        if ip in _NAT64_WKP or ip in _SIX_TO_FOUR:
            return True
    if ip not in _GLOBAL_UNICAST_V6 or ip.is_multicast:
        return False
    if any(ip in n for n in _BLOCKED_V6):
        return False
    return bool(ip.is_global)


def _is_link_local(ip: IPAddress) -> bool:
    """Link-local covers cloud metadata (169.254.169.254, fd00:ec2::254 aside): never implied by
    allow_private; exempt it explicitly through `allow_networks` if you really mean it."""
    if isinstance(ip, ipaddress.IPv6Address):
        mapped = _embedded_v4(ip)
        return ip.is_link_local or any(v4.is_link_local for v4 in mapped)
    return ip.is_link_local


def parse_target(url: str) -> Target:
    """Check the URL's shape (scheme, userinfo, host, port) and normalise its host; no DNS here."""
    if not isinstance(url, str) or not url.strip():
        raise BadURLError("empty URL")
    url = url.strip()
    if len(url) > MAX_URL_CHARS:
        raise BadURLError(f"URL is {len(url)} characters, over {MAX_URL_CHARS}")
    if any(ord(c) < 0x20 or c == "\x7f" for c in url):
        raise BadURLError("control character in URL")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise BadURLError(f"unparsable URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise BadURLError(f"scheme {scheme or '(none)'!r} is not http/https")
    if "@" in parts.netloc:
        raise BadURLError("URL with userinfo (user@host) is refused")
    raw_host = parts.hostname
    if not raw_host:
        raise BadURLError("URL has no host")
    try:
        port = parts.port
    except ValueError:
        raise BadURLError("invalid port") from None
    if port == 0:
        raise BadURLError("invalid port 0")
    port = port or (443 if scheme == "https" else 80)
    host = unquote(raw_host) if "%" in raw_host and not parts.netloc.startswith("[") else raw_host
    ip_literal: IPAddress | None = None
    if parts.netloc.split("@")[-1].startswith("["):
        if "%" in host:
            raise BlockedError("IPv6 zone identifiers are link-local")
        try:
            ip_literal = ipaddress.IPv6Address(host)
        except ValueError:
            raise BadURLError(f"invalid IPv6 literal {host!r}") from None
        host = str(ip_literal)
    else:
        try:
            # IDNA 2003 nameprep also folds full-width digits, so '１２７.０.０.１' becomes numeric.
            host = (
                host.encode("idna").decode("ascii").lower() if not host.isascii() else host.lower()
            )
        except UnicodeError:
            raise BadURLError(f"invalid international host name {raw_host!r}") from None
        host = host.rstrip(".")
        if not host or any(c in host for c in " /\\%<>^|`{}"):
            raise BadURLError(f"invalid host {raw_host!r}")
        last = host.rsplit(".", 1)[-1]
        if _looks_numeric(last):
            ip_literal = parse_ipv4_numeric(host)
            if ip_literal is None:
                raise BadURLError(f"invalid numeric host {raw_host!r}")
            host = str(ip_literal)
    path = parts.path or "/"
    request_target = path + (f"?{parts.query}" if parts.query else "")
    return Target(url, scheme, host, port, request_target, ip_literal)


def system_resolver(host: str, port: int) -> list[str]:
    """Resolve once through the system resolver; addresses in answer order, duplicates removed."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    out: list[str] = []
    for info in infos:
        addr = str(info[4][0]).split("%", 1)[0]
        if addr not in out:
            out.append(addr)
    return out


class Guard:
    """Resolve a Target once and return only addresses that are safe to connect to.

    `allow_private` lifts the address check (intranets, tests) except for link-local addresses, where
    cloud metadata services live. `allow` is a narrower escape hatch:
    a predicate over (ip, port) that exempts exact addresses, e.g. a test server, while every other
    private address stays blocked; `allow_networks` does the same from policy CIDR strings.
    """

    def __init__(
        self,
        *,
        allow_private: bool = False,
        resolver: Resolver | None = None,
        allow: AllowFn | None = None,
        allow_networks: Iterable[str] = (),
    ) -> None:
        self.allow_private = allow_private
        self.resolver: Resolver = resolver or system_resolver
        self.allow = allow
        self.allow_networks = tuple(ipaddress.ip_network(n, strict=False) for n in allow_networks)

    def _permitted(self, ip: IPAddress, port: int) -> bool:
        if is_public_address(ip):
            return True
        if self.allow_private and not _is_link_local(ip):
            return True
        if self.allow is not None and self.allow(ip, port):
            return True
        return any(ip.version == n.version and ip in n for n in self.allow_networks)

    def check_url(self, url: str) -> Target:
        """Shape checks plus name checks that need no DNS (raises BadURLError/BlockedError)."""
        target = parse_target(url)
        if target.ip_literal is None and not self.allow_private:
            h = target.host
            if h in _LOCAL_NAMES or h.endswith(".localhost"):
                raise BlockedError(f"host {h!r} is local")
        return target

    def resolve(self, target: Target) -> list[IPAddress]:
        """Addresses to connect to, in order; raises BlockedError if ANY answer is not public.

        Rejecting the whole answer (not just filtering) matters: a name answering both a public and
        a private address is either misconfigured or an attack, and filtering would hide the latter.
        """
        if target.ip_literal is not None:
            addrs: list[IPAddress] = [target.ip_literal]
        else:
            try:
                answer = self.resolver(target.host, target.port)
            except (OSError, UnicodeError) as exc:
                raise ResolveError(f"cannot resolve {target.host!r}: {exc}") from None
            addrs = []
            for a in answer:
                try:
                    addrs.append(ipaddress.ip_address(a.split("%", 1)[0]))
                except ValueError:
                    raise BlockedError(f"resolver returned a non-address {a!r}") from None
            if not addrs:
                raise ResolveError(f"no address for {target.host!r}")
        for ip in addrs:
            if not self._permitted(ip, target.port):
                raise BlockedError(f"{target.host} -> {ip} is not a public address")
        return addrs

    def check(self, url: str) -> tuple[Target, list[IPAddress]]:
        """`check_url` + `resolve` in one call."""
        target = self.check_url(url)
        return target, self.resolve(target)
