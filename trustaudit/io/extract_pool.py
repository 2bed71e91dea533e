"""Extraction in worker processes that can be killed and replaced: a per-document budget that holds.

Why: the HTML parsers are C code that ignores SIGALRM (a signal handler runs only when the C call
returns), so one hostile page (100k nested elements) could pin a worker for minutes. Each worker says
which record it starts; a worker still on one record after `kill_after_s` is killed, the record
becomes an EXTRACT_TIMEOUT error row, and a fresh worker redoes the rest of the batch. In the common
case (no kill) a worker returns the whole batch's result as Arrow tables, as a process pool would.
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
    """Worker loop: (indices, records) in; ("start", i) before each record; then the result.

    Imports what every batch needs once per worker (trafilatura only when it is the extractor).
    """
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import resiliparse.extract.html2text  # noqa: F401
    import selectolax.lexbor  # noqa: F401

    import trustaudit.injection  # noqa: F401
    from trustaudit.injection import encoder

    encoder.settle_on_load()  # this process is ours: full collections may skip torch's objects
    while True:
        try:
            msg = conn.recv()
        except EOFError:  # the parent is gone
            return
        if msg is None:
            return
        indices, records = msg
        rows = records.to_pylist()
        outcomes: dict[int, RecordOutcome] = {}
        for i in indices:
            conn.send(("start", i))
            outcomes[i] = extract_guarded(rows[i], policy)
        if len(indices) == len(rows):
            conn.send(("result", assemble(records, [outcomes[i] for i in range(len(rows))])))
        else:
            conn.send(("outcomes", outcomes))


@dataclass
class _Task:
    key: Any
    records: pa.Table
    outcomes: dict[int, RecordOutcome] = field(default_factory=dict)
    current: int | None = None  # the record the worker said it started
    deaths: int = 0  # workers lost before starting any record of this batch

    def remaining(self) -> list[int]:
        return [i for i in range(self.records.num_rows) if i not in self.outcomes]


@dataclass
class _Worker:
    proc: Any
    conn: Connection
    task: _Task | None = None
    since: float = 0.0


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
        return _Worker(proc, parent)

    def _give(self, w: _Worker, task: _Task) -> None:
        w.task = task
        task.current = None
        w.conn.send((task.remaining(), task.records))

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
                        self._give(w, _Task(key, records))
                busy = [w for w in workers if w.task is not None]
                if not busy:
                    if exhausted:
                        return
                    continue
                for conn in wait([w.conn for w in busy], timeout=0.1):
                    w = next(x for x in workers if x.conn is conn)
                    yield from self._receive(workers, w)
                now = time.monotonic()
                for w in list(workers):
                    stuck = w.task is not None and w.task.current is not None
                    if stuck and self.deadline and now - w.since > self.deadline:
                        yield from self._lose(workers, w, "EXTRACT_TIMEOUT", self._timeout_msg())
        finally:
            for w in workers:
                if w.proc.is_alive():
                    w.proc.kill()
                w.proc.join()
                w.conn.close()

    def _timeout_msg(self) -> str:
        return f"extraction ran past {self.deadline:g} s; its worker was killed and replaced"

    def _receive(self, workers: list[_Worker], w: _Worker) -> Iterator[tuple[Any, ExtractResult]]:
        task = w.task
        assert task is not None
        try:
            msg = w.conn.recv()
        except (EOFError, OSError):  # the worker died (a crash in C code, the OOM killer)
            yield from self._lose(
                workers, w, "EXTRACT_FAILED", "WorkerDied: the extraction process exited"
            )
            return
        if msg[0] == "start":
            task.current = msg[1]
            w.since = time.monotonic()
            return
        w.task = None
        if msg[0] == "result":
            yield task.key, msg[1]
            return
        task.outcomes.update(msg[1])
        yield task.key, self._assembled(task)

    @staticmethod
    def _assembled(task: _Task) -> ExtractResult:
        return assemble(task.records, [task.outcomes[i] for i in range(task.records.num_rows)])

    def _lose(
        self, workers: list[_Worker], w: _Worker, code: str, message: str
    ) -> Iterator[tuple[Any, ExtractResult]]:
        """Kill `w`; its current record becomes an error row; a fresh worker redoes the rest."""
        task = w.task
        assert task is not None
        fresh = self._replace(workers, w)
        if code == "EXTRACT_TIMEOUT":
            self.killed += 1
        lost = [task.current] if task.current is not None else []
        if not lost:
            task.deaths += 1
            if task.deaths >= 3:  # workers die before any record: give up on the batch, not the run
                lost = task.remaining()
        for i in lost:
            rec = task.records.slice(i, 1).to_pylist()[0]
            task.outcomes[i] = (None, [], record_error(rec, code, message))
        if task.remaining():
            self._give(fresh, task)
        else:
            yield task.key, self._assembled(task)
