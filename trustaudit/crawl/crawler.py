"""`crawl_urls`: fetch URL lists into resumable shards under `RUN/crawl/`.

Shape: one scheduler loop on the calling thread decides *when* each host may be hit (politeness,
retries, failure budget) and commits results; a thread pool does the blocking I/O (robots.txt, DNS,
the fetch). Keeping every decision on one thread makes the rules easy to reason about and lets tests
inject a clock and a sleeper so backoff and Retry-After never sleep for real.

Every input URL line ends as exactly one committed row: a page or an error code. Re-running the same
command skips rows the journal committed; `fresh=True` starts over.
"""

from __future__ import annotations

import contextlib
import fcntl
import heapq
import itertools
import random
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from trustaudit.crawl.fetch import FetchConfig as FetchConfig
from trustaudit.crawl.fetch import Fetcher, FetchResult
from trustaudit.crawl.journal import CRAWL_SCHEMA, JOURNAL, PARTS, CrawlJournal
from trustaudit.crawl.politeness import Politeness
from trustaudit.crawl.retry import RetryPolicy
from trustaudit.crawl.robots import RobotsCache
from trustaudit.crawl.source import InvalidURLLine, read_url_list, source_name
from trustaudit.crawl.ssrf import AllowFn, BadURLError, BlockedError, Guard, Resolver, Target
from trustaudit.errors import RunDirError
from trustaudit.io.atomic import write_json
from trustaudit.io.records import normalize_url
from trustaudit.policy import Policy

__all__ = ["CrawlProgress", "CrawlStats", "crawl_urls", "fetch_config", "make_guard"]

# Failures that count against a host's budget (the host, not the URL, looks broken).
# when robots.txt cannot be fetched for one of these, the page fails for the same reason: say so
_HOST_FAILURES = frozenset(
    {"CONNECT_ERROR", "FETCH_TIMEOUT", "DNS_ERROR", "TLS_ERROR", "SSRF_BLOCKED"}
)
_PROGRESS_EVERY_S = 0.25


@dataclass
class CrawlProgress:
    """Snapshot passed to the `progress` callback (the library never prints)."""

    done: int
    total: int
    pages: int
    errors: int
    hosts_in_flight: int
    pages_per_s: float
    elapsed_s: float
    finished: bool = False


@dataclass
class CrawlStats:
    """What one `crawl_urls` call did, plus totals over everything committed in the run."""

    total: int = 0  # URL lines in the inputs
    resumed: int = 0  # lines already committed by an earlier run (skipped, not refetched)
    pages: int = 0  # pages committed by this call
    errors: int = 0  # error rows committed by this call
    requests: int = 0  # page fetch attempts sent by this call (retries included, robots excluded)
    robots_fetches: int = 0
    hosts: int = 0
    elapsed_s: float = 0.0
    pages_per_s: float = 0.0
    by_code: dict[str, int] = field(default_factory=dict)  # this call's error codes
    totals: dict[str, Any] = field(
        default_factory=dict
    )  # whole run: pages, errors, by_status, by_code

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Task:
    source: str
    offset: int
    url: str
    target: Target
    host: str
    attempts: int = 0


@dataclass
class _Outcome:
    task: _Task
    result: FetchResult | None = None
    code: str | None = None
    message: str = ""
    stage: str = "crawl"
    crawl_delay: float | None = None
    robots_fetched: bool = False


def fetch_config(policy: Policy) -> FetchConfig:
    """FetchConfig from the crawl policy section."""
    c = policy.crawl
    return FetchConfig(
        user_agent=c.user_agent,
        connect_timeout_s=c.connect_timeout_s,
        read_timeout_s=c.read_timeout_s,
        total_timeout_s=c.timeout_s,
        max_body_bytes=c.max_body_bytes,
        max_redirects=c.max_redirects,
        accept_types=tuple(t.lower() for t in c.accept_types),
    )


def make_guard(
    policy: Policy, *, resolver: Resolver | None = None, allow: AllowFn | None = None
) -> Guard:
    """The SSRF guard the policy asks for (`resolver`/`allow` are test and embedding hooks)."""
    c = policy.crawl
    return Guard(
        allow_private=c.allow_private,
        resolver=resolver,
        allow=allow,
        allow_networks=c.allow_networks,
    )


@contextlib.contextmanager
def _lock(crawl_dir: Path) -> Iterator[None]:
    """One crawler per run directory; the kernel drops the lock if we are killed."""
    crawl_dir.mkdir(parents=True, exist_ok=True)
    fh = open(crawl_dir / ".lock", "w")  # noqa: SIM115
    try:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunDirError(
                f"{crawl_dir.parent} is being crawled by another process",
                hint="wait for it to finish, or use another --out folder",
            ) from None
        yield
    finally:
        fh.close()


def crawl_urls(
    url_inputs: list[str],
    run_dir: Path,
    policy: Policy,
    *,
    fresh: bool = False,
    warc_path: Path | None = None,
    progress: Callable[[CrawlProgress], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleeper: Callable[[float], None] = time.sleep,
    resolver: Resolver | None = None,
    allow: AllowFn | None = None,
    rng: random.Random | None = None,
    fetcher: Fetcher | None = None,
) -> CrawlStats:
    """Fetch every URL of `url_inputs` (paths to .txt/.csv lists, or `-`) into `run_dir/crawl/`.

    Returns stats; writes `run_dir/crawl/summary.json`. Read the result with `CrawlSource(run_dir)`.
    `clock`/`sleeper`/`rng` make scheduling deterministic in tests; `resolver`/`allow` are passed to
    the SSRF guard (tests map names to loopback or exempt one exact test server address).
    """
    run_dir = Path(run_dir)
    crawl_dir = run_dir / "crawl"
    with _lock(crawl_dir):
        crawler = _Crawler(
            policy,
            crawl_dir,
            clock=clock,
            sleeper=sleeper,
            rng=rng or random.Random(),
            fetcher=fetcher
            or Fetcher(fetch_config(policy), make_guard(policy, resolver=resolver, allow=allow)),
            progress=progress,
        )
        return crawler.run(url_inputs, fresh=fresh, warc_path=warc_path)


class _Crawler:
    def __init__(
        self,
        policy: Policy,
        crawl_dir: Path,
        *,
        clock: Callable[[], float],
        sleeper: Callable[[float], None],
        rng: random.Random,
        fetcher: Fetcher,
        progress: Callable[[CrawlProgress], None] | None,
    ) -> None:
        c = policy.crawl
        self.policy = policy
        self.c = c
        self.crawl_dir = crawl_dir
        self.clock = clock
        self.sleeper = sleeper
        self.rng = rng
        self.fetcher = fetcher
        self.guard = fetcher.guard
        self.progress = progress
        self.politeness = Politeness(
            delay_s=c.delay_s,
            max_per_host=c.max_per_host,
            failure_budget=c.host_failure_budget,
            max_crawl_delay_s=c.max_crawl_delay_s,
        )
        self.retry = RetryPolicy(
            max_retries=c.max_retries,
            base_s=c.backoff_base_s,
            cap_s=c.backoff_cap_s,
            max_retry_after_s=c.max_retry_after_s,
        )
        self.robots = RobotsCache(
            fetcher,
            c.user_agent,
            ttl_s=c.robots_ttl_s,
            error_ttl_s=c.robots_error_ttl_s,
            clock=clock,
        )
        self.journal = CrawlJournal(crawl_dir)
        self.stats = CrawlStats()
        self.codes: Counter[str] = Counter()
        self.buffer: list[dict[str, Any]] = []
        self.buffer_exchanges: list[FetchResult] = []
        self.buffer_bytes = 0
        self.warc: Any = None

    # ------------------------------------------------------------------ plan
    def _plan(
        self, url_inputs: list[str], done: dict[tuple[str, int], str]
    ) -> Iterator[_Task | dict[str, Any]]:
        """Tasks to fetch, or ready-made error rows for lines that need no network."""
        seen: set[str] = set()
        for inp in url_inputs:
            src = source_name(inp)
            for offset, url in read_url_list(inp):
                self.stats.total += 1
                first = True
                if not isinstance(url, InvalidURLLine):
                    # before the resume check: a URL done before the kill still makes a later
                    # copy of it a DUPLICATE_URL row, as in the run that was killed
                    norm = normalize_url(url)
                    first = norm not in seen
                    seen.add(norm)
                if done.get((src, offset)) == url:
                    self.stats.resumed += 1
                    continue
                if isinstance(url, InvalidURLLine):
                    # not valid UTF-8, over the line cap (kept empty: two are not duplicates) or a
                    # CSV row the csv module rejects: never fetched
                    yield self._error_row(src, offset, str(url), "BAD_URL", url.reason)
                    continue
                if not first:
                    yield self._error_row(
                        src, offset, url, "DUPLICATE_URL", "same URL earlier in the input"
                    )
                    continue
                try:
                    target = self.guard.check_url(url)
                except (BadURLError, BlockedError) as exc:
                    yield self._error_row(src, offset, url, exc.code, str(exc))
                    continue
                yield _Task(src, offset, url, target, target.host_header)

    # ------------------------------------------------------------------ run
    def run(self, url_inputs: list[str], *, fresh: bool, warc_path: Path | None) -> CrawlStats:
        started = self.clock()
        state = self.journal.open(fresh=fresh)
        if warc_path is not None:
            from trustaudit.crawl.warc import WarcSink

            if fresh and Path(warc_path).exists():
                Path(warc_path).unlink()
            self.warc = WarcSink(
                Path(warc_path), committed_bytes=state.warc_bytes if state.parts else 0
            )
        queues: dict[str, deque[_Task]] = {}
        for item in self._plan(url_inputs, state.done):
            if isinstance(item, dict):
                self._add_row(item, None)
            else:
                queues.setdefault(item.host, deque()).append(item)
        self.stats.hosts = len(queues)
        todo = sum(len(q) for q in queues.values())
        self._total_for_progress = self.stats.total
        self._done = self.stats.resumed + len(self.buffer)
        heap: list[tuple[float, int, str]] = []
        seq = itertools.count()
        for host in queues:
            heapq.heappush(heap, (0.0, next(seq), host))
        in_flight: dict[Future[_Outcome], _Task] = {}
        last_commit = self.clock()
        last_progress = 0.0
        workers = max(1, min(self.c.concurrency, todo or 1))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crawl") as pool:
            try:
                while queues or in_flight:
                    now = self.clock()
                    while len(in_flight) < self.c.concurrency and heap and heap[0][0] <= now:
                        _, _, host = heapq.heappop(heap)
                        q = queues.get(host)
                        if not q:
                            continue
                        ready = self.politeness.ready_at(host)
                        if ready is None:
                            continue  # busy: re-queued when its request finishes
                        if ready > now:
                            heapq.heappush(heap, (ready, next(seq), host))
                            continue
                        if self.politeness.is_dead(host):
                            while q:
                                t = q.popleft()
                                self._add_row(
                                    self._error_row(
                                        t.source,
                                        t.offset,
                                        t.url,
                                        "HOST_FAILED",
                                        f"{host} failed {self.c.host_failure_budget} times in a row; skipped",
                                    ),
                                    None,
                                )
                            del queues[host]
                            continue
                        task = q.popleft()
                        if not q:
                            del queues[host]
                        self.politeness.start(host, now)
                        task.attempts += 1
                        self.stats.requests += 1
                        in_flight[pool.submit(self._work, task)] = task
                        nxt = self.politeness.ready_at(host)
                        if host in queues and nxt is not None:
                            heapq.heappush(heap, (nxt, next(seq), host))
                    if in_flight:
                        timeout = max(0.0, min(self.c.commit_interval_s, _PROGRESS_EVERY_S))
                        if heap and len(in_flight) < self.c.concurrency:
                            timeout = max(0.0, min(timeout, heap[0][0] - now))
                        finished, _ = wait(
                            list(in_flight), timeout=timeout, return_when=FIRST_COMPLETED
                        )
                    elif heap:
                        self.sleeper(max(0.0, heap[0][0] - now))
                        finished = set()
                    else:
                        finished = set()
                    for fut in finished:
                        task = in_flight.pop(fut)
                        requeue = self._settle(task, fut.result())
                        if requeue is not None:
                            queues.setdefault(task.host, deque()).appendleft(task)
                        ready = self.politeness.ready_at(task.host)
                        if task.host in queues and ready is not None:
                            heapq.heappush(heap, (ready, next(seq), task.host))
                    now = self.clock()
                    if self._should_commit(now - last_commit):
                        self._commit()
                        last_commit = now
                    if self.progress and now - last_progress >= _PROGRESS_EVERY_S:
                        last_progress = now
                        self._report(started, finished=False)
                self._commit()
            finally:
                for fut in in_flight:
                    fut.cancel()
                if self.warc is not None:
                    self.warc.close()
        self.stats.robots_fetches = self.robots.fetches
        self.stats.elapsed_s = round(self.clock() - started, 3)
        fetched = self.stats.pages
        self.stats.pages_per_s = (
            round(fetched / self.stats.elapsed_s, 2) if self.stats.elapsed_s else 0.0
        )
        self.stats.by_code = dict(sorted(self.codes.items()))
        self.stats.totals = summarize_committed(self.crawl_dir)
        write_json(self.crawl_dir / "summary.json", self.stats.to_dict())
        if self.progress:
            self._report(started, finished=True)
        return self.stats

    # ------------------------------------------------------------------ worker side
    def _robots_veto(self, url: str) -> tuple[str, str] | None:
        """(code, message) when robots.txt forbids `url`, else None. Runs on worker threads."""
        if self.c.ignore_robots:
            return None
        try:
            target = self.guard.check_url(url)
        except (BadURLError, BlockedError):
            return None  # the fetcher reports the URL problem itself
        entry = self.robots.entry(target.origin)
        if entry.rules.disallow_all:
            if entry.error_code in _HOST_FAILURES:
                # The host itself is unreachable: say so rather than blame robots.txt.
                return entry.error_code, entry.detail
            return "ROBOTS_UNAVAILABLE", entry.detail
        if not entry.rules.allowed(url):
            return "ROBOTS_DISALLOWED", f"robots.txt of {target.origin} disallows this URL"
        return None

    def _work(self, task: _Task) -> _Outcome:
        out = _Outcome(task)
        try:
            if not self.c.ignore_robots:
                before = self.robots.fetches
                veto = self._robots_veto(task.url)
                out.robots_fetched = self.robots.fetches != before
                entry = self.robots.cached(task.target.origin)
                if entry is not None:
                    out.crawl_delay = entry.rules.crawl_delay
                if veto is not None:
                    out.code, out.message = veto
                    out.stage = "robots"
                    return out
            out.result = self.fetcher.fetch(task.url, hop_check=self._robots_veto)
        except Exception as exc:  # a bug must cost one row, not the run
            out.code, out.message = "INTERNAL_ERROR", f"{type(exc).__name__}: {exc}"[:300]
        return out

    # ------------------------------------------------------------------ scheduler side
    def _settle(self, task: _Task, out: _Outcome) -> _Task | None:
        """Apply an outcome: politeness, retry decision, row. Returns the task when it is retried."""
        now = self.clock()
        self.politeness.set_crawl_delay(task.host, out.crawl_delay)
        res = out.result
        if res is None:
            self.politeness.finish(task.host, now, failed=out.code in _HOST_FAILURES)
            self._add_row(
                self._error_row(
                    task.source,
                    task.offset,
                    task.url,
                    out.code or "INTERNAL_ERROR",
                    out.message,
                    stage=out.stage,
                ),
                None,
            )
            return None
        wait_s = self.retry.delay_for(
            retryable=res.retryable,
            retries_done=task.attempts - 1,
            retry_after=res.retry_after,
            rng=self.rng,
        )
        # Connection-level failures count per attempt; a 5xx only once retries are spent, so one
        # broken URL cannot exhaust the budget of a healthy host.
        failed = res.error_code in _HOST_FAILURES or ((res.status or 0) >= 500 and wait_s is None)
        self.politeness.finish(task.host, now, failed=failed, wait_s=wait_s or 0.0)
        if wait_s is not None and not self.politeness.is_dead(task.host):
            return task
        row = self._result_row(task, res)
        self._add_row(row, res)
        return None

    def _error_row(
        self, source: str, offset: int, url: str, code: str, message: str, *, stage: str = "crawl"
    ) -> dict[str, Any]:
        return {
            "source": source, "offset": offset, "url": url, "final_url": None,
            "fetched_at": None, "status": None, "content_type": None, "body": None,
            "charset": None, "charset_source": None, "error_stage": stage, "error_code": code,
            "error_message": message, "attempts": 0, "redirects": 0, "elapsed_ms": None,
        }  # fmt: skip

    def _result_row(self, task: _Task, res: FetchResult) -> dict[str, Any]:
        return {
            "source": task.source,
            "offset": task.offset,
            "url": task.url,
            "final_url": res.final_url,
            "fetched_at": res.fetched_at,
            "status": res.status,
            "content_type": res.content_type,
            "body": res.body if res.ok else None,
            "charset": res.charset,
            "charset_source": res.charset_source,
            "error_stage": None if res.ok else "crawl",
            "error_code": res.error_code,
            "error_message": res.error_message,
            "attempts": task.attempts,
            "redirects": res.redirects,
            "elapsed_ms": int(res.elapsed_s * 1000),
        }

    def _add_row(self, row: dict[str, Any], res: FetchResult | None) -> None:
        self.buffer.append(row)
        if res is not None and self.warc is not None:
            self.buffer_exchanges.append(res)
        self.buffer_bytes += len(row["body"] or b"")
        self._done = getattr(self, "_done", 0) + 1
        if row["error_code"]:
            self.stats.errors += 1
            self.codes[row["error_code"]] += 1
        else:
            self.stats.pages += 1

    def _should_commit(self, since_last: float) -> bool:
        if not self.buffer:
            return False
        return (
            len(self.buffer) >= self.c.commit_rows
            or self.buffer_bytes >= self.c.commit_bytes
            or since_last >= self.c.commit_interval_s
        )

    def _commit(self) -> None:
        if not self.buffer:
            return
        warc_bytes = None
        if self.warc is not None:
            for res in self.buffer_exchanges:
                for ex in res.exchanges:
                    self.warc.write(ex)
            warc_bytes = self.warc.sync()
        self.journal.commit(self.buffer, warc_bytes=warc_bytes)
        self.buffer, self.buffer_exchanges, self.buffer_bytes = [], [], 0

    def _report(self, started: float, *, finished: bool) -> None:
        assert self.progress is not None
        elapsed = max(1e-9, self.clock() - started)
        self.progress(
            CrawlProgress(
                done=self._done,
                total=self._total_for_progress,
                pages=self.stats.pages,
                errors=self.stats.errors,
                hosts_in_flight=self.politeness.in_flight_hosts(),
                pages_per_s=round(self.stats.pages / elapsed, 2),
                elapsed_s=round(elapsed, 2),
                finished=finished,
            )
        )


def summarize_committed(crawl_dir: Path) -> dict[str, Any]:
    """Counts over every committed row of a run: pages, errors, by HTTP status, by error code."""
    journal = CrawlJournal(crawl_dir)
    by_status: Counter[str] = Counter()
    by_code: Counter[str] = Counter()
    pages = errors = 0
    path = crawl_dir / JOURNAL
    if path.exists():
        import json

        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                name = json.loads(line)["part"]
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
            part = crawl_dir / PARTS / name
            if not part.exists():
                continue
            t = pq.read_table(part, columns=["status", "error_code"], schema=CRAWL_SCHEMA)
            for status, code in zip(
                t["status"].to_pylist(), t["error_code"].to_pylist(), strict=True
            ):
                if status is not None:
                    by_status[str(status)] += 1
                if code:
                    errors += 1
                    by_code[code] += 1
                else:
                    pages += 1
    del journal
    return {
        "pages": pages,
        "errors": errors,
        "by_status": dict(sorted(by_status.items())),
        "by_code": dict(sorted(by_code.items())),
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
