"""Stage memo for incremental runs: a signal family whose inputs did not change is not recomputed.

`audit --cache DIR` keeps, per family, the output of its last few computations under
`DIR/memo/<family>-<key>.parquet`, where the key digests everything the family reads: the rows of
its input tables (Polars row hashes, in order), their schemas, the policy, and the code and Polars
versions. Families that depend on the run date (domain activity) are never memoised, so a nightly
run with a new date still recomputes them; the corpus-wide families (near-duplicates, coherence,
claims) and the per-page ones (affiliate, textual, injection) come back in milliseconds when the
corpus is unchanged, and are recomputed in full (with the embedding cache) as soon as one page
changes: a corpus-level result depends on every page.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import polars as pl

from trustaudit import __version__
from trustaudit.io.atomic import write_parquet
from trustaudit.io.cache import code_digest

__all__ = ["StageMemo", "frame_digest"]


def frame_digest(*frames: pl.DataFrame, salt: str = "") -> str:
    """Order-sensitive digest of frames' schemas and row contents (vectorised row hashes)."""
    # the whole package's source: a scoring change invalidates the memo even at the same version
    h = hashlib.sha256(f"{__version__}\0{code_digest()}\0{pl.__version__}\0{salt}".encode())
    for frame in frames:
        h.update(repr(list(frame.schema.items())).encode())
        h.update(str(frame.height).encode())
        if frame.height and frame.width:
            for seed in (0x7A3B, 0x115E):  # two seeds: 128 bits per row
                h.update(frame.hash_rows(seed=seed).to_numpy().tobytes())
    return h.hexdigest()[:32]


class StageMemo:
    """Family outputs by input digest; keeps the newest `keep` entries per family."""

    def __init__(self, folder: str | Path, *, keep: int = 4) -> None:
        self.folder = Path(folder) / "memo"
        self.keep = keep
        self.hits: list[str] = []
        self.misses: list[str] = []

    def _path(self, family: str, key: str) -> Path:
        return self.folder / f"{family}-{key}.parquet"

    def get_or_compute(
        self, family: str, key: str, compute: Callable[[], pl.DataFrame]
    ) -> pl.DataFrame:
        path = self._path(family, key)
        try:
            frame = pl.read_parquet(path, glob=False)
        except (OSError, pl.exceptions.PolarsError):  # absent or damaged: compute again
            frame = None
        if frame is not None:
            self.hits.append(family)
            os.utime(path)  # recently used entries survive pruning
            return frame
        self.misses.append(family)
        frame = compute()
        try:
            write_parquet(path, frame)
            self._prune(family)
        except OSError:
            pass  # the memo is an optimisation: a full disk must not fail the run
        return frame

    def _prune(self, family: str) -> None:
        entries = sorted(
            self.folder.glob(f"{family}-*.parquet"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in entries[self.keep :]:
            old.unlink(missing_ok=True)

    def summary(self) -> dict[str, list[str]]:
        return {"hits": sorted(set(self.hits)), "misses": sorted(set(self.misses))}
