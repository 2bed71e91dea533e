"""Compatibility layer: the names other modules, tests and benches import from `trustaudit.pipeline`.

The work moved to `trustaudit.stages` (pure stage functions, frames in and out) and `trustaudit.run`
(the run directory, resume, caches and the executors: `run.ingest`, `run.signals`, `run.audit`,
`run.local`, `run.ray`); see docs/architecture.md and docs/engines.md.
"""

from __future__ import annotations

from trustaudit.run.audit import (
    AuditOptions,
    audit,
    make_executor,
    rescore,
    split_inputs,
)
from trustaudit.run.ingest import (
    IngestStats,
    Merged,
    fingerprint_input,
    ingest,
    merge_parts,
    merge_tables,
    merge_to_disk,
)
from trustaudit.run.signals import compute_signals, score_run

__all__ = [
    "AuditOptions",
    "IngestStats",
    "Merged",
    "audit",
    "compute_signals",
    "fingerprint_input",
    "ingest",
    "make_executor",
    "merge_parts",
    "merge_tables",
    "merge_to_disk",
    "rescore",
    "score_run",
    "split_inputs",
]
