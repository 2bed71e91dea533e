"""The one spelling of a host name: lower case, no trailing dot, international names as IDNA
A-labels (`аpple.com` with a Cyrillic `а` is `xn--pple-43d.com`).

Why: a page's host decides its registered domain, its doc_id and whether a blocklist names it.
Blocklists write international names in A-labels (that is what resolvers and browsers send), so
a page whose URL spelled the same host in Unicode escaped `||xn--pple-43d.com^`, was a second
domain next to its A-label twin and a second doc_id for the same page (docs/limits.md, session 18).
"""

from __future__ import annotations

import functools

__all__ = ["ascii_host"]


@functools.lru_cache(maxsize=1 << 16)
def ascii_host(host: str) -> str:
    """`host` lower-cased without its trailing dot, a non-ASCII one as IDNA A-labels (UTS #46, as
    browsers map it; IDNA 2003 when that refuses it). A name neither accepts stays as written
    (lower case): it matches no A-label list entry, and the URL check reports what it can."""
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:
        import idna

        return str(idna.encode(host, uts46=True).decode("ascii"))
    except Exception:  # idna.IDNAError, UnicodeError, or no idna module
        pass
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return host
