"""`audit --since PREV_RUN`: reuse a finished run's extraction of the inputs that did not change.

Every run records, per source, a key over the source's name, bytes and extraction code/policy
(`manifest.json` → `sources`). A later run given `--since PREV_RUN` copies PREV_RUN's committed parts
for every source whose key is unchanged instead of reading it again; changed and new sources are
read as usual. No cache folder is needed: the previous run directory is the cache. (`--cache DIR`
goes further: page-level reuse inside changed sources and memoised signal families.)
"""

from __future__ import annotations

import errno
from pathlib import Path

import polars as pl

from trustaudit.errors import RunDirError
from trustaudit.io.cache import concat_parts
from trustaudit.io.rundir import RunDir

__all__ = ["PreviousRun"]


class PreviousRun:
    """A finished run's committed parts, found by source key."""

    def __init__(self, root: str | Path) -> None:
        run = RunDir.at(root)
        run.require("manifest.json")
        manifest = run.read_manifest()
        if manifest.get("stages", {}).get("ingest", {}).get("status") != "done":
            raise RunDirError(
                f"--since {run.root}: its ingest did not finish",
                hint="finish it first (re-run its audit command) or drop --since",
            )
        self.root = run.root
        self.parts = run.parts
        try:
            self.by_key = {
                str(s["key"]): int(s["index"])
                for s in manifest.get("sources", [])
                if isinstance(s, dict) and s.get("key")
            }
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise RunDirError(
                f"--since {run.manifest} is damaged: its sources list does not parse ({exc})",
                hint="drop --since (the inputs are read again), or re-run that run's audit",
            ) from None
        self.sources_reused = 0
        self.pages = 0

    def restore(self, key: str, target: Path) -> tuple[int, int] | None:
        """Copy the previous run's parts of the source with this key to `target.*`.

        Returns (records, read errors) from its commit markers, or None when it has none.
        """
        index = self.by_key.get(key)
        if index is None:
            return None
        markers = sorted(self.parts.glob(f"s{index:04d}-*.done"))
        if not markers:
            return None  # parts cleaned up since: read the source again
        try:
            counts = [tuple(int(x) for x in m.read_text().split()) for m in markers]
        except (OSError, ValueError):
            return None  # a commit marker that does not parse: read the source again
        try:
            self.pages += concat_parts([m.with_suffix("") for m in markers], target)
        except FileNotFoundError:
            return None  # parts cleaned up since: read the source again
        except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
            if isinstance(exc, OSError) and exc.errno not in (None, errno.EIO):
                raise  # the disk or permissions: the CLI guard names the path
            raise RunDirError(
                f"--since {self.parts}: a committed part of source {index} is damaged "
                f"({str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__})",
                hint="drop --since (the inputs are read again), or re-run that run's audit "
                "with --fresh",
            ) from None
        self.sources_reused += 1
        return sum(c[0] for c in counts), sum(c[1] for c in counts)
