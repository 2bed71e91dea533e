"""The whole `audit` job over a run directory: inputs -> ingest (with an engine's executor) ->
signals -> score -> reports, with the manifest as the commit point; and `rescore` of a finished run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from trustaudit import __version__
from trustaudit.errors import NothingReadError, UsageError
from trustaudit.io.cache import ExtractCache
from trustaudit.io.memo import StageMemo
from trustaudit.io.readers import Source, detect_kind, open_sources
from trustaudit.io.rundir import (
    SCHEMA_VERSION,
    RunDir,
    check_out,
    input_paths,
    own_inputs,
    recorded_hash,
    recorded_labels,
    recorded_policy,
    staged_tables,
)
from trustaudit.io.since import PreviousRun
from trustaudit.io.urlmap import read_url_map
from trustaudit.policy import Policy
from trustaudit.progress import NullProgress, Progress
from trustaudit.run.executor import Executor
from trustaudit.run.ingest import (
    fingerprint_input,
    ingest,
    merge_to_disk,
)
from trustaudit.run.local import LocalExecutor
from trustaudit.run.signals import compute_signals, score_run


# ------------------------------------------------------------------ the whole job
@dataclass
class AuditOptions:
    inputs: list[str]
    out: Path
    workers: int = 1
    fresh: bool = False
    now: date | None = None
    labels: Path | None = None
    cache: Path | None = None
    since: Path | None = None
    judge_urls: list[str] = field(default_factory=list)
    url_map: Path | None = None
    url_map_file_column: str | None = None
    url_map_url_column: str | None = None
    engine: str = "local"  # "local" (this machine's processes) or "ray" (docs/engines.md)
    ray_address: str | None = None  # an existing Ray cluster; None starts a local Ray instance


@contextlib.contextmanager
def make_executor(options: AuditOptions) -> Iterator[Executor]:
    """The executor `options.engine` names, shut down when the run ends (a Ray instance this run
    started stops with it; a cluster given by address is only disconnected from)."""
    if options.engine == "local":
        yield LocalExecutor(options.workers)
        return
    if options.engine != "ray":
        raise UsageError(
            f"unknown engine {options.engine!r}", hint="--engine local or --engine ray"
        )
    try:
        from trustaudit.run.ray import RayExecutor
    except ImportError as exc:  # ray is an optional extra
        raise UsageError(
            f"--engine ray needs Ray installed ({exc})", hint="pip install 'trustaudit[ray]'"
        ) from None

    with RayExecutor.connect(options.ray_address, num_cpus=options.workers) as executor:
        yield executor


def split_inputs(inputs: list[str]) -> tuple[list[str], list[str]]:
    """(local corpora, URL lists): URL lists are fetched by the crawler first."""
    if not inputs:
        raise UsageError("no input given", hint="trustaudit audit CORPUS_DIR_OR_FILE... --out RUN")
    lists = [
        p for p in inputs if p == "-" or (Path(p).is_file() and detect_kind(Path(p)) == "urls")
    ]
    return [p for p in inputs if p not in lists], lists


def _sources(
    inputs: list[str], policy: Policy, url_map: dict[str, str] | None = None
) -> list[Source]:
    return [
        s
        for p in inputs
        for s in open_sources(
            p, max_bytes=policy.extract.max_record_bytes, limits=policy.inputs, url_map=url_map
        )
    ]


def _crawl(
    lists: list[str], run: RunDir, policy: Policy, fresh: bool, progress: Progress
) -> dict[str, Any]:
    from trustaudit.crawl import crawl_urls

    progress.start("crawl")
    seen = {"done": 0}

    def report(p: Any) -> None:
        step = p.done - seen["done"]
        if step > 0:
            progress.advance("crawl", step)
            seen["done"] = p.done

    stats = crawl_urls(lists, run.root, policy, fresh=fresh, progress=report)
    progress.done("crawl")
    return {
        "status": "done",
        "pages": stats.pages,
        "errors": stats.errors,
        "seconds": round(stats.elapsed_s, 3),
    }


def audit(
    options: AuditOptions, policy: Policy, *, progress: Progress | None = None
) -> dict[str, Any]:
    """The main job: ingest -> signals -> score -> reports. Returns summary.json's content."""
    from trustaudit.report.summary import write_reports

    progress = progress or NullProgress()
    run = RunDir.at(options.out)
    if options.since is not None and Path(options.since).resolve() == run.root.resolve():
        raise UsageError(
            "--since must name an earlier run, not the run being written",
            hint="re-running the same --out already resumes it; --since is for a new run dir",
        )
    now = options.now or datetime.now(UTC).date()
    local, url_lists = split_inputs(options.inputs)
    check_out(run.root, "audit", options.inputs, fresh=options.fresh)
    url_map = (
        read_url_map(
            options.url_map,
            file_column=options.url_map_file_column,
            url_column=options.url_map_url_column,
        )
        if options.url_map
        else None
    )
    sources = _sources(local, policy, url_map)
    with run.locked(), contextlib.ExitStack() as stack:
        policy, labels, owned = own_inputs(run, policy, options.labels)
        manifest = run.read_manifest()
        inputs = [fingerprint_input(p) for p in options.inputs]
        if options.url_map:
            inputs.append({**fingerprint_input(str(options.url_map)), "role": "url_map"})
        ingest_key = hashlib.sha256(
            repr(
                (
                    [i.get("sha256") for i in inputs],
                    policy.extract,
                    policy.injection,
                    policy.inputs,
                    (options.url_map_file_column, options.url_map_url_column),
                )
            ).encode()
        ).hexdigest()[:16]
        resumable = (
            not options.fresh
            and manifest.get("ingest_key") == ingest_key
            and manifest.get("schema_version") == SCHEMA_VERSION
        )
        if not resumable:
            for stale in (run.parts, run.reports):
                shutil.rmtree(stale, ignore_errors=True)
            manifest = {
                "run_id": uuid.uuid4().hex[:12],
                "created_at": datetime.now(UTC).isoformat(),
            }
        manifest.update(
            trustaudit_version=__version__,
            schema_version=SCHEMA_VERSION,
            ingest_key=ingest_key,
            inputs=inputs,
            command="audit",
            input_paths=input_paths(options.inputs),
            owned_inputs=owned,
            policy=recorded_policy(run, policy),
            policy_hash=recorded_hash(run, policy),
            now=now.isoformat(),
            updated_at=datetime.now(UTC).isoformat(),
            stages=manifest.get("stages", {}),
        )
        manifest["stages"]["ingest"] = {"status": "running"}
        run.write_manifest(manifest)
        if url_lists:
            from trustaudit.crawl import CrawlSource

            manifest["stages"]["crawl"] = _crawl(url_lists, run, policy, options.fresh, progress)
            run.write_manifest(manifest)
            sources = [*sources, CrawlSource(run.root)]
        executor = stack.enter_context(make_executor(options))
        cache = ExtractCache(options.cache) if options.cache else None
        since = PreviousRun(options.since) if options.since else None
        try:
            known = {i["path"]: i["sha256"] for i in inputs if i.get("kind") == "file"}
            stats = ingest(
                sources,
                run,
                policy,
                executor=executor,
                workers=options.workers,
                progress=progress,
                cache=cache,
                known_digests=known,
                since=since,
            )
        finally:
            if cache is not None:
                cache.close()
        # the merge streams the parts into pages.parquet and the links aside; the signal stage
        # reads both a batch at a time and writes links.parquet with affiliate flags
        merged_links = run.root / ".work" / "links.merged.parquet"
        counts = merge_to_disk(run, links_to=merged_links)
        accounting = {
            "inputs": stats.records + stats.read_errors,
            "pages": counts["pages"],
            "errors": counts["errors"],
        }
        accounting["balanced"] = accounting["inputs"] == accounting["pages"] + accounting["errors"]
        manifest["stages"]["ingest"] = {
            "status": "done",
            "seconds": round(stats.seconds, 3),
            "batches": stats.batches,
            "batches_resumed": stats.batches_skipped,
            "workers_killed": stats.workers_killed,
            **counts,
            "accounting": accounting,
            "cache": (
                {"dir": str(options.cache), "hits": stats.cache_hits, "misses": stats.cache_misses}
                if options.cache
                else None
            ),
            "since": (
                {
                    "run": str(since.root),
                    "sources_reused": since.sources_reused,
                    "pages": since.pages,
                }
                if since is not None
                else None
            ),
        }
        manifest["sources"] = stats.sources
        manifest["engine"] = executor.describe()
        run.write_manifest(manifest)
        if counts["pages"] == 0:
            os.replace(merged_links, run.links)  # the run stays complete, if empty
            write_reports(run, policy, manifest)
            raise NothingReadError(
                f"nothing could be read: {counts['errors']} input record(s), all errors",
                hint=f"see {run.errors} (codes and messages per record)",
            )
        memo = StageMemo(options.cache) if options.cache else None
        manifest["stages"]["signals"] = compute_signals(
            run,
            policy,
            now=now,
            progress=progress,
            memo=memo,
            links_in=merged_links,
            page_map=executor.page_map(policy),
            corpus_map=executor.corpus_map(policy, run.root / ".work" / "corpus"),
        )
        manifest["stages"]["score"] = score_run(
            run, policy, progress=progress, judge_urls=options.judge_urls, cache=options.cache
        )
        run.write_manifest(manifest)
        summary = write_reports(run, policy, manifest, labels=labels, progress=progress)
        manifest["stages"]["report"] = {"status": "done"}
        manifest["completed_at"] = datetime.now(UTC).isoformat()
        run.write_manifest(manifest)
    return summary


def rescore(
    run_path: Path,
    policy: Policy,
    *,
    now: date | None = None,
    labels: Path | None = None,
    progress: Progress | None = None,
    judge_urls: list[str] | None = None,
) -> dict[str, Any]:
    """signals -> score -> reports again on a finished ingest, with a (possibly new) policy."""
    from trustaudit.report.summary import write_reports

    run = RunDir.at(run_path)
    run.require("manifest.json", "pages.parquet", "links.parquet", "errors.parquet")
    with run.locked():
        manifest = run.read_manifest()
        when = now or date.fromisoformat(
            manifest.get("now") or datetime.now(UTC).date().isoformat()
        )
        policy, own_labels, owned = own_inputs(run, policy, recorded_labels(run))
        with staged_tables(run) as stage:  # new tables aside, swapped in when all are written
            signals = compute_signals(stage, policy, now=when, progress=progress)
            scored = score_run(stage, policy, progress=progress, judge_urls=judge_urls)
        labels = labels or own_labels
        manifest.update(
            policy=recorded_policy(run, policy),
            policy_hash=recorded_hash(run, policy),
            now=when.isoformat(),
            owned_inputs=owned,
        )
        manifest.setdefault("stages", {})
        manifest["stages"]["signals"], manifest["stages"]["score"] = signals, scored
        summary = write_reports(run, policy, manifest, labels=labels, progress=progress)
        manifest["stages"]["report"] = {"status": "done"}
        manifest["rescored_at"] = datetime.now(UTC).isoformat()
        run.write_manifest(manifest)
    return summary
