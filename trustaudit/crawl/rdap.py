"""Domain registration dates via RDAP, for the domain-age signal.

Why RDAP and not WHOIS: RDAP is JSON with a standard `registration` event (RFC 9083), and its
servers are discoverable from IANA's bootstrap file (RFC 9224), bundled here so no look-up is needed
to find them. Registry servers rate-limit hard, so requests to one server are spaced out, results are
cached on disk across runs (failures for a shorter time), and every request goes through the same
SSRF guard and bounded fetcher as the crawl. A failure leaves the age unknown (neutral), never fails
the run.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from trustaudit.crawl.fetch import FetchConfig, Fetcher
from trustaudit.crawl.ssrf import Guard
from trustaudit.io.atomic import write_json, write_text
from trustaudit.policy import Policy

__all__ = [
    "RdapClient",
    "RdapResult",
    "load_bootstrap",
    "lookup_page_domains",
    "lookup_run_domains",
    "registered_domain",
]

RDAP_TYPES = ("application/rdap+json", "application/json")
_MAX_RDAP_BYTES = 1024 * 1024


def load_bootstrap(path: str | Path | None = None) -> dict[str, list[str]]:
    """TLD -> RDAP base URLs from an IANA-format bootstrap file (the bundled one by default)."""
    if path:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    else:
        ref = resources.files("trustaudit.crawl").joinpath("data/rdap_dns.json")
        data = json.loads(ref.read_text(encoding="utf-8"))
    out: dict[str, list[str]] = {}
    for tlds, urls in data.get("services", []):
        bases = [u if u.endswith("/") else u + "/" for u in urls]
        # RFC 9224 §3: prefer HTTPS when a service lists both.
        bases.sort(key=lambda u: not u.startswith("https://"))
        for tld in tlds:
            out.setdefault(tld.lower().rstrip("."), bases)
    return out


@dataclass
class RdapResult:
    """Outcome of one look-up. `status`: ok | not_found | no_server | error."""

    domain: str
    created: date | None
    status: str
    detail: str = ""
    server: str = ""
    cached: bool = False

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["created"] = self.created.isoformat() if self.created else None
        d.pop("cached")
        return d


def _parse_created(doc: Any) -> date | None:
    """The `registration` event date of an RDAP domain object (RFC 9083 §4.5)."""
    if not isinstance(doc, dict):
        return None
    for ev in doc.get("events") or []:
        if isinstance(ev, dict) and str(ev.get("eventAction", "")).lower() == "registration":
            raw = str(ev.get("eventDate", ""))
            try:
                return datetime.fromisoformat(raw.replace("Z", "+00:00")).date()
            except ValueError:
                try:
                    return date.fromisoformat(raw[:10])
                except ValueError:
                    return None
    return None


class RdapClient:
    """Look up registration dates with a disk cache and a per-server minimum interval.

    `clock` (wall time, for cache expiry and spacing) and `sleeper` are injectable for tests.
    """

    def __init__(
        self,
        fetcher: Fetcher,
        cache_dir: Path,
        *,
        bootstrap: dict[str, list[str]] | None = None,
        ttl_s: float = 30 * 86400.0,
        negative_ttl_s: float = 86400.0,
        min_interval_s: float = 1.0,
        clock: Callable[[], float] = time.time,
        sleeper: Callable[[float], None] = time.sleep,
    ) -> None:
        self.fetcher = fetcher
        self.cache_dir = Path(cache_dir)
        self.bootstrap = load_bootstrap() if bootstrap is None else bootstrap
        self.ttl_s = ttl_s
        self.negative_ttl_s = negative_ttl_s
        self.min_interval_s = min_interval_s
        self.clock = clock
        self.sleeper = sleeper
        self._last: dict[str, float] = {}
        self.requests = 0

    def _cache_path(self, domain: str) -> Path:
        h = hashlib.sha256(domain.encode()).hexdigest()[:2]
        return self.cache_dir / h / f"{domain}.json"

    def _cached(self, domain: str) -> RdapResult | None:
        p = self._cache_path(domain)
        try:
            entry = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None
        ttl = self.ttl_s if entry.get("status") in ("ok", "not_found") else self.negative_ttl_s
        if self.clock() - float(entry.get("stored_at", 0)) > ttl:
            return None
        created = date.fromisoformat(entry["created"]) if entry.get("created") else None
        return RdapResult(
            domain, created, entry.get("status", "error"), entry.get("detail", ""),
            entry.get("server", ""), cached=True,
        )  # fmt: skip

    def _store(self, res: RdapResult) -> None:
        write_json(self._cache_path(res.domain), {**res.to_json(), "stored_at": self.clock()})

    def lookup(self, domain: str) -> RdapResult:
        """Registration date of `domain` (a registered domain such as `example.com`)."""
        domain = domain.strip().lower().rstrip(".")
        hit = self._cached(domain)
        if hit is not None:
            return hit
        tld = domain.rsplit(".", 1)[-1]
        bases = self.bootstrap.get(tld)
        if not bases:
            # Not cached: the bootstrap file may gain the TLD, and this costs no request.
            return RdapResult(domain, None, "no_server", f"no RDAP server for .{tld} in bootstrap")
        base = bases[0]
        server = urlsplit(base).netloc
        wait = self._last.get(server, -1e18) + self.min_interval_s - self.clock()
        if wait > 0:
            self.sleeper(wait)
        self._last[server] = self.clock()
        self.requests += 1
        res = self.fetcher.fetch(
            f"{base}domain/{domain}",
            accept_types=RDAP_TYPES,
            max_body_bytes=_MAX_RDAP_BYTES,
            extra_headers={"Accept": "application/rdap+json, application/json;q=0.9"},
        )
        self._last[server] = self.clock()
        if res.status == 404:
            out = RdapResult(domain, None, "not_found", "RDAP 404", server)
        elif not res.ok or res.body is None:
            out = RdapResult(
                domain, None, "error", f"{res.error_code}: {res.error_message}", server
            )
        else:
            try:
                doc = json.loads(res.body.decode("utf-8", "replace"))
            except json.JSONDecodeError as exc:
                out = RdapResult(domain, None, "error", f"bad JSON: {exc}", server)
            else:
                created = _parse_created(doc)
                status = "ok" if created else "error"
                out = RdapResult(
                    domain, created, status, "" if created else "no registration event", server
                )
        self._store(out)
        return out

    def lookup_many(
        self, domains: Iterable[str], progress: Callable[[int, int], None] | None = None
    ) -> dict[str, RdapResult]:
        """Look up each distinct domain once, in order."""
        uniq = sorted({d.strip().lower().rstrip(".") for d in domains if d})
        out: dict[str, RdapResult] = {}
        for i, d in enumerate(uniq, start=1):
            out[d] = self.lookup(d)
            if progress:
                progress(i, len(uniq))
        return out


def registered_domain(host: str) -> str | None:
    """`news.example.co.uk` -> `example.co.uk` (no network): the domain a registry knows, so
    private suffixes do not count (user.github.io -> github.io); None for IPs. The same function
    as the pages' (`scoring.domain.registered_domain_of`), with RDAP's options."""
    from trustaudit.scoring.domain import registered_domain_of

    return registered_domain_of(host, private_suffixes=False, strict=True)


def rdap_client(
    policy: Policy,
    *,
    guard: Guard,
    bootstrap: dict[str, list[str]] | None = None,
    cache_dir: Path | None = None,
    clock: Callable[[], float] = time.time,
    sleeper: Callable[[float], None] = time.sleep,
) -> RdapClient:
    """An RdapClient configured from the crawl policy section."""
    c = policy.crawl
    cfg = FetchConfig(
        user_agent=c.user_agent,
        connect_timeout_s=c.connect_timeout_s,
        read_timeout_s=c.read_timeout_s,
        total_timeout_s=c.rdap_timeout_s,
        max_body_bytes=_MAX_RDAP_BYTES,
        max_redirects=c.max_redirects,
        accept_types=RDAP_TYPES,
    )
    folder = cache_dir or Path(c.rdap_cache_dir or Path.home() / ".cache" / "trustaudit" / "rdap")
    if bootstrap is None and c.rdap_bootstrap_file:
        bootstrap = load_bootstrap(c.rdap_bootstrap_file)
    return RdapClient(
        Fetcher(cfg, guard),
        folder,
        bootstrap=bootstrap,
        ttl_s=c.rdap_ttl_days * 86400,
        negative_ttl_s=c.rdap_negative_ttl_days * 86400,
        min_interval_s=c.rdap_min_interval_s,
        clock=clock,
        sleeper=sleeper,
    )


def lookup_run_domains(
    run_dir: Path, client: RdapClient, *, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Look up the registered domains of a crawl's pages; write `RUN/crawl/domain_ages.csv`.

    The CSV has the `domain,created` columns `--domain-info` reads (plus status, server), so the
    domain signal can use it; a user's own `--domain-info` file should win over it.
    """
    from trustaudit.crawl.journal import read_committed

    hosts: set[str] = set()
    for table in read_committed(Path(run_dir) / "crawl"):
        for url, final, code in zip(
            table["url"].to_pylist(), table["final_url"].to_pylist(),
            table["error_code"].to_pylist(), strict=True,
        ):  # fmt: skip
            if code:
                continue
            host = urlsplit(final or url).hostname
            if host:
                hosts.add(host)
    domains = {d for h in hosts if (d := registered_domain(h))}
    return _write_domain_ages(Path(run_dir), client, client.lookup_many(domains, progress))


def lookup_page_domains(
    run_dir: Path, client: RdapClient, *, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """`audit --rdap`: look up the registered domains of an audited run's pages (pages.parquet)
    and write `RUN/crawl/domain_ages.csv`, which the domain signal reads on the next scoring."""
    import polars as pl

    hosts = pl.read_parquet(Path(run_dir) / "pages.parquet", columns=["host"], glob=False)["host"]
    domains = {d for h in hosts.drop_nulls().unique().to_list() if (d := registered_domain(h))}
    return _write_domain_ages(Path(run_dir), client, client.lookup_many(domains, progress))


def audit_with_rdap(
    run_dir: Path,
    policy: Policy,
    *,
    now: date | None = None,
    labels: Path | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """`audit --rdap`, after the audit: RDAP registration dates of the run's domains (cached,
    polite, through the crawler's SSRF guard), then signals, scores and reports again with them.
    Returns the new summary with an `rdap` entry."""
    from trustaudit.crawl.crawler import make_guard
    from trustaudit.pipeline import rescore

    looked_up = lookup_page_domains(run_dir, rdap_client(policy, guard=make_guard(policy)))
    summary = rescore(run_dir, policy, now=now, labels=labels, progress=progress)
    summary["rdap"] = looked_up
    return summary


def _write_domain_ages(
    run_dir: Path, client: RdapClient, results: dict[str, RdapResult]
) -> dict[str, Any]:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["domain", "created", "status", "server", "detail"])
    for d, r in sorted(results.items()):
        w.writerow([d, r.created.isoformat() if r.created else "", r.status, r.server, r.detail])
    out = Path(run_dir) / "crawl" / "domain_ages.csv"
    write_text(out, buf.getvalue())
    counts: dict[str, int] = {}
    for r in results.values():
        counts[r.status] = counts.get(r.status, 0) + 1
    return {
        "domains": len(results),
        "by_status": counts,
        "requests": client.requests,
        "file": str(out),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
