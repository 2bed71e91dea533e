"""Extraction in worker processes that can be killed and replaced: a per-document budget that holds.

Why: the HTML parsers are C code that ignores SIGALRM (a signal handler runs only when the C call
returns), so one hostile page (100k nested elements) could pin a worker for minutes. Each worker
reports every finished record; a worker still on one record after `kill_after_s` is killed, the record
becomes an EXTRACT_TIMEOUT error row, and a fresh worker takes the rest of the batch.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

import pyarrow as pa

from trustaudit.io.extract import (
    ExtractResult,
    RecordOutcome,
    assemble,
    extract_guarded,
    record_error,
)
from trustaudit.policy import Policy

__all__ = ["KillablePool", "kill_deadline"]


def kill_deadline(policy: Policy) -> float:
    """Seconds one document may hold a worker: inputs.kill_after_s, else 2 x extract.doc_timeout_s
    (the in-process budget gets its chance to fall back first); 0 = never kill."""
    if policy.inputs.kill_after_s > 0:
        return policy.inputs.kill_after_s
    return 2.0 * policy.extract.doc_timeout_s if policy.extract.doc_timeout_s > 0 else 0.0


def _serve(conn: Connection, policy: Policy) -> None:
    """Worker loop: (start, rows) in, one ("done", index, outcome) per record out."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import resiliparse.extract.html2text  # noqa: F401
    import selectolax.lexbor  # noqa: F401

    import trustaudit.injection  # noqa: F401

    conn.send(("ready",))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        start, rows = msg
        for j, rec in enumerate(rows):
            conn.send(("done", start + j, extract_guarded(rec, policy)))


@dataclass
class _Task:
    key: Any
    records: pa.Table
    rows: list[dict[str, Any]]
    outcomes: list[RecordOutcome | None] = field(default_factory=list)
    next: int = 0


@dataclass
class _Worker:
    proc: Any
    conn: Connection
    task: _Task | None = None
    since: float = 0.0
    ready: bool = False


class KillablePool:
    """Runs `extract_guarded` over batches in `workers` processes, killing any stuck on one record."""

    def __init__(self, workers: int, policy: Policy) -> None:
        self.n = max(1, workers)
        self.policy = policy
        self.deadline = kill_deadline(policy)
        self.ctx = mp.get_context("forkserver")
        self.killed = 0

    def _spawn(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_serve, args=(child, self.policy), daemon=True)
        proc.start()
        child.close()
        return _Worker(proc, parent, since=time.monotonic())

    def _give(self, w: _Worker, task: _Task) -> None:
        w.task = task
        w.since = time.monotonic()
        w.conn.send((task.next, task.rows[task.next :]))

    def _replace(self, workers: list[_Worker], w: _Worker) -> _Worker:
        w.proc.kill()
        w.proc.join()
        w.conn.close()
        fresh = self._spawn()
        workers[workers.index(w)] = fresh
        return fresh

    def run(self, tasks: Iterator[tuple[Any, pa.Table]]) -> Iterator[tuple[Any, ExtractResult]]:
        """(key, records) in -> (key, ExtractResult) out, as batches finish (not in input order)."""
        workers = [self._spawn() for _ in range(self.n)]
        source = iter(tasks)
        exhausted = False
        try:
            while True:
                for w in workers:
                    if w.task is None and not exhausted:
                        try:
                            key, records = next(source)
                        except StopIteration:
                            exhausted = True
                            break
                        rows = records.to_pylist()
                        self._give(w, _Task(key, records, rows, [None] * len(rows)))
                busy = [w for w in workers if w.task is not None]
                if not busy:
                    if exhausted:
                        return
                    continue
                for conn in wait([w.conn for w in busy], timeout=0.1):
                    w = next(x for x in workers if x.conn is conn)
                    yield from self._receive(workers, w)
                now = time.monotonic()
                for w in [x for x in workers if x.task is not None]:
                    if w.ready and self.deadline and now - w.since > self.deadline:
                        yield from self._timeout(workers, w)
        finally:
            for w in workers:
                if w.proc.is_alive():
                    w.proc.kill()
                w.proc.join()
                w.conn.close()

    def _receive(self, workers: list[_Worker], w: _Worker) -> Iterator[tuple[Any, ExtractResult]]:
        task = w.task
        assert task is not None
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):  # the worker died (a crash in C code, the OOM killer)
            rec = task.rows[task.next]
            task.outcomes[task.next] = (
                None,
                [],
                record_error(rec, "EXTRACT_FAILED", "WorkerDied: the extraction process exited"),
            )
            yield from self._advance(workers, self._replace(workers, w), task)
            return
        if msg[0] == "ready":
            w.ready = True
            w.since = time.monotonic()
            return
        _, index, outcome = msg
        task.outcomes[index] = outcome
        task.next = index + 1
        w.since = time.monotonic()
        if task.next >= len(task.rows):
            w.task = None
            yield task.key, assemble(task.records, task.outcomes)  # type: ignore[arg-type]

    def _timeout(self, workers: list[_Worker], w: _Worker) -> Iterator[tuple[Any, ExtractResult]]:
        task = w.task
        assert task is not None
        rec = task.rows[task.next]
        task.outcomes[task.next] = (
            None,
            [],
            record_error(
                rec,
                "EXTRACT_TIMEOUT",
                f"extraction ran past {self.deadline:g} s; its worker was killed and replaced",
            ),
        )
        self.killed += 1
        yield from self._advance(workers, self._replace(workers, w), task)

    def _advance(
        self, workers: list[_Worker], fresh: _Worker, task: _Task
    ) -> Iterator[tuple[Any, ExtractResult]]:
        """After a lost record: the fresh worker takes the rest of the batch, or the batch is done."""
        task.next += 1
        if task.next >= len(task.rows):
            yield task.key, assemble(task.records, task.outcomes)  # type: ignore[arg-type]
        else:
            self._give(fresh, task)
