"""SSRF guard: every disguise of a non-public address is refused before a socket is opened."""

from __future__ import annotations

import ipaddress

import pytest

from trustaudit.crawl.ssrf import (
    MAX_URL_CHARS,
    BadURLError,
    BlockedError,
    Guard,
    is_public_address,
    parse_ipv4_numeric,
)

BLOCKED = [
    "http://127.0.0.1/",
    "http://127.1/",
    "http://0x7f000001/",
    "http://0x7f.0.0.1/",
    "http://0177.0.0.1/",
    "http://017700000001/",
    "http://2130706433/",
    "http://127.0.0.1./",
    "http://%31%32%37.0.0.1/",
    "http://１２７.０.０.１/",  # full-width digits (IDNA nameprep folds them)
    "http://[::1]/",
    "http://[::]/",
    "http://0.0.0.0/",
    "http://0/",
    "http://localhost/",
    "http://LOCALHOST./",
    "http://app.localhost/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::127.0.0.1]/",
    "http://[2002:7f00:1::]/",  # 6to4 wrapping 127.0.0.1
    "http://[2002:a00:1::]/",  # 6to4 wrapping 10.0.0.1
    "http://[64:ff9b::7f00:1]/",  # NAT64 wrapping 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 wrapping 169.254.169.254
    "http://[64:ff9b:1::1]/",  # local-use NAT64
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo (client 127.0.0.1 obfuscated)
    "http://[fe80::1]/",
    "http://[fe80::1%25eth0]/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[ff02::1]/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",  # CGNAT: is_private misses it on 3.11
    "http://100.127.255.254/",
    "http://224.0.0.1/",  # multicast: is_global passes it on 3.11
    "http://239.255.255.250:1900/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://198.18.0.1/",
    "http://192.0.2.1/",
    "http://[2001:db8::1]/",
]

BAD = [
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "ftp://example.com/",
    "gopher://127.0.0.1:25/",
    "http://user:pass@example.com/",
    "http://user@example.com/",
    "http://example.com@127.0.0.1/",
    "http:///nohost",
    "http://1.2.3.4.5/",
    "http://256.1.1.1/",
    "http://example.com:99999/",
    "http://exa mple.com/",
    "",
    "http://example.com/\r\nHost: evil",
]


@pytest.mark.parametrize("url", BLOCKED)
def test_disguised_private_addresses_are_blocked(url: str) -> None:
    with pytest.raises(BlockedError):
        Guard(resolver=lambda h, p: ["93.184.216.34"]).check(url)


def test_urls_longer_than_any_server_accepts_are_refused() -> None:
    """Before: a 60 MB URL line was sent whole as the request line, and retried, for minutes."""
    guard = Guard(resolver=lambda h, p: ["93.184.216.34"])
    ok = "http://example.com/" + "a" * (MAX_URL_CHARS - 19)
    assert guard.check(ok)[0].host == "example.com"
    with pytest.raises(BadURLError, match=f"URL is {MAX_URL_CHARS + 1} characters"):
        guard.check(ok + "b")


@pytest.mark.parametrize("url", BAD)
def test_bad_urls_are_refused(url: str) -> None:
    with pytest.raises((BadURLError, BlockedError)) as exc:
        Guard().check(url)
    assert exc.value.code in {"BAD_URL", "SSRF_BLOCKED"}


@pytest.mark.parametrize(
    "url", ["http://8.8.8.8/", "https://[2606:4700:4700::1111]/", "http://[64:ff9b::808:808]/"]
)
def test_public_literals_pass(url: str) -> None:
    target, addrs = Guard().check(url)
    assert addrs and all(is_public_address(a) for a in addrs)
    assert target.request_target == "/"


def test_whole_answer_is_rejected_when_any_address_is_private() -> None:
    """A name answering a public AND a loopback address is refused (DNS-rebinding shape)."""
    guard = Guard(resolver=lambda h, p: ["93.184.216.34", "127.0.0.1"])
    with pytest.raises(BlockedError):
        guard.check("http://rebind.example/")


def test_resolver_is_called_once_and_its_answer_returned() -> None:
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["93.184.216.34"]

    target, addrs = Guard(resolver=resolver).check("https://Example.COM:8443/a?b=1#frag")
    assert calls == ["example.com"]
    assert addrs == [ipaddress.ip_address("93.184.216.34")]
    assert target.host_header == "example.com:8443"
    assert target.request_target == "/a?b=1"


def test_allow_private_keeps_link_local_blocked() -> None:
    guard = Guard(allow_private=True)
    assert guard.check("http://127.0.0.1:8080/")[1]
    assert guard.check("http://10.1.2.3/")[1]
    for url in ("http://169.254.169.254/", "http://[fe80::1]/"):
        with pytest.raises(BlockedError):
            guard.check(url)


def test_allow_predicate_exempts_exactly_one_address() -> None:
    guard = Guard(allow=lambda ip, port: str(ip) == "127.0.0.1" and port == 8080)
    assert guard.check("http://127.0.0.1:8080/")[1]
    with pytest.raises(BlockedError):
        guard.check("http://127.0.0.1:8081/")


def test_allow_networks_from_policy() -> None:
    guard = Guard(allow_networks=("10.20.0.0/16",))
    assert guard.check("http://10.20.3.4/")[1]
    with pytest.raises(BlockedError):
        guard.check("http://10.21.3.4/")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.1", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("2130706433", "127.0.0.1"),
        ("0177.0.0.01", "127.0.0.1"),
        ("10.1", "10.0.0.1"),
        ("192.168.257", "192.168.1.1"),
        ("1.2.3.4.5", None),
        ("0x", "0.0.0.0"),
        ("08.1.1.1", None),
    ],
)
def test_inet_aton_parsing(text: str, expected: str | None) -> None:
    got = parse_ipv4_numeric(text)
    assert (str(got) if got else None) == expected
