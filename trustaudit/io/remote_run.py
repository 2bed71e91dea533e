"""A run directory on an object store: work in a local staging folder, publish it manifest-last.

Every stage of trustaudit writes a run with local-disk semantics (atomic renames, a lock file,
Parquet parts). Rather than teach each of them an object store, a command that names
`s3://bucket/runs/x` works in a local copy and this module moves the copy:

1. **Down.** The remote run (if any) is copied into the staging folder of its URI
   (`fs.staging_dir`), unless the staging folder already descends from the same remote manifest
   (a crashed run on this machine: its progress is kept and resumed).
2. **Work.** The command runs on the local folder as on any run directory.
3. **Up**, only when the command succeeded: the remote `manifest.json` is deleted first, then
   every changed file is uploaded (one atomic PUT each), remote files the run no longer has are
   deleted, and `manifest.json` is uploaded last. A reader therefore never sees a manifest whose
   tables are missing or stale: between steps it sees no manifest, which every command reports as
   "not a finished run".

A crash mid-upload leaves the store without a manifest and the staging folder on this machine;
re-running the same command resumes from the staging folder and publishes again. A crash on
another machine, or a lost staging folder, means the run is re-done from its inputs (its tables
in the store are ignored without a manifest).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trustaudit.errors import RunDirError
from trustaudit.io import fs
from trustaudit.io.atomic import write_json

MANIFEST = "manifest.json"
_SKIP_PREFIXES = (".tmp-", ".lock")


def _published(rel: str) -> bool:
    """Files that belong in the store: not the lock or temp files."""
    return not any(part.startswith(_SKIP_PREFIXES) for part in rel.split("/"))


def _local_files(root: Path) -> dict[str, Path]:
    return {
        p.relative_to(root).as_posix(): p
        for p in sorted(root.rglob("*"))
        if p.is_file() and _published(p.relative_to(root).as_posix())
    }


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _remote_manifest_hash(uri: str) -> str | None:
    loc = fs.join(uri, MANIFEST)
    if fs.size(loc) is None:
        return None
    return hashlib.sha256(fs.read_bytes(loc, max_bytes=256 << 20)).hexdigest()


def _marker(local: Path) -> Path:
    """Staging bookkeeping (the remote manifest we started from, the files pulled), kept beside
    the run folder: inside it, a file would make the folder "not a run" to `check_out`."""
    return local.parent / f"{local.name}.staged.json"


def _read_marker(local: Path) -> dict[str, object] | None:
    try:
        data = json.loads(_marker(local).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write_marker(local: Path, manifest_hash: str | None, files: dict[str, list[int]]) -> None:
    fs.write_bytes(_marker(local), json.dumps({"manifest": manifest_hash, "files": files}).encode())


def pull_run(uri: str, local: Path) -> None:
    """Make `local` a copy of the remote run at `uri` (or keep it when it already descends from
    the same remote manifest: a crashed run's progress)."""
    remote_hash = _remote_manifest_hash(uri)
    marker = _read_marker(local)
    if marker is not None and marker.get("manifest") == remote_hash:
        return
    shutil.rmtree(local, ignore_errors=True)
    local.mkdir(parents=True, exist_ok=True)
    files: dict[str, list[int]] = {}
    if remote_hash is not None:
        for entry in fs.list_files(uri):
            if not _published(entry.rel):
                continue
            dest = local / entry.rel
            fs.download_file(entry.location, dest)
            files[entry.rel] = _stamp(dest)
    _write_marker(local, remote_hash, files)


def push_run(local: Path, uri: str) -> None:
    """Publish `local` to `uri`, manifest last (see the module docstring for the order)."""
    marker = _read_marker(local) or {}
    pulled = marker.get("files") if isinstance(marker.get("files"), dict) else {}
    assert isinstance(pulled, dict)
    # From here the store has no committed run: record that, so a crash resumes from this folder.
    _write_marker(local, None, pulled)
    fs.delete_file(fs.join(uri, MANIFEST))
    ours = _local_files(local)
    for rel, path in ours.items():
        if rel == MANIFEST or pulled.get(rel) == _stamp(path):
            continue  # unchanged since it came down
        fs.upload_file(path, fs.join(uri, rel))
    for entry in fs.list_files(uri):
        if entry.rel not in ours and _published(entry.rel):
            fs.delete_file(entry.location)  # a stale part of an earlier run
    if MANIFEST in ours:
        fs.upload_file(ours[MANIFEST], fs.join(uri, MANIFEST))


def _name_run_dir(local: Path, uri: str) -> None:
    """summary.json names its run directory: the URI a reader will find, not the staging path
    that is about to be deleted."""
    path = local / "reports" / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and data.get("run_dir") == str(local):
        write_json(path, {**data, "run_dir": uri})


@dataclass
class StagedRun:
    """A run directory to work in: `local` itself for a path, a staging folder for a URI.

    `pull` copies the remote run down; `publish` (call it only after the command succeeded)
    pushes it back manifest-last and removes the staging folder. Not calling `publish` (an
    exception) leaves the store untouched and the staging folder for the next run to resume.
    """

    location: str
    local: Path
    remote: bool
    temporary: tempfile.TemporaryDirectory[str] | None = None

    @classmethod
    def pull(
        cls,
        location: str | Path,
        *,
        cache: Path | None = None,
        upload: bool = True,
        must_exist: bool = False,
    ) -> StagedRun:
        """Stage `location`. `upload=False` (gate, explain) pulls into a throwaway temp folder;
        `must_exist` refuses a URI that holds no finished run (no manifest.json)."""
        local = fs.local_path(location)
        if local is not None:
            return cls(str(location), local, remote=False)
        uri = fs.normalize(location)
        fs.kind(uri)  # a missing bucket or refused credentials fail here, before any work
        if must_exist and fs.size(fs.join(uri, MANIFEST)) is None:
            raise RunDirError(
                f"no finished run at {uri} (no {MANIFEST})",
                hint="audit into it first: trustaudit audit INPUT... --out " + uri,
            )
        if not upload:
            tmp = tempfile.TemporaryDirectory(prefix="trustaudit-run-")
            copy = Path(tmp.name) / "run"
            pull_run(uri, copy)
            return cls(uri, copy, remote=True, temporary=tmp)
        staging = fs.staging_dir(uri, cache)
        pull_run(uri, staging)
        return cls(uri, staging, remote=True)

    def publish(self, summary: dict[str, Any] | None = None) -> dict[str, Any]:
        """Push a URI run back (manifest last) and drop the staging folder; a no-op for a path.
        Returns `summary` with `run_dir` naming the URI, for the command's output."""
        summary = dict(summary or {})
        if not self.remote:
            return summary
        if self.temporary is not None:
            self.temporary.cleanup()
            return summary
        _name_run_dir(self.local, self.location)
        push_run(self.local, self.location)
        shutil.rmtree(self.local, ignore_errors=True)
        _marker(self.local).unlink(missing_ok=True)
        if "run_dir" in summary:
            summary["run_dir"] = self.location
        return summary


@contextlib.contextmanager
def staged_run(
    location: str | Path,
    *,
    cache: Path | None = None,
    upload: bool = True,
    must_exist: bool = False,
) -> Iterator[Path]:
    """`with staged_run(uri) as local:` — the local run directory for a path or a URI; published
    back (URI, `upload`) when the block succeeds, kept in staging when it raises."""
    staged = StagedRun.pull(location, cache=cache, upload=upload, must_exist=must_exist)
    yield staged.local
    staged.publish()


__all__ = ["StagedRun", "pull_run", "push_run", "staged_run"]
