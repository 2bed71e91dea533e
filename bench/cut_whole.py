"""WARCs compressed whole (xz, bzip2, zstd) and cut short: the rows the reader gives.

Usage: python bench/cut_whole.py [--before DIR] [--sweep N]

The table (docs/limits.md, "After this pass: WARCs compressed whole and cut short"): the dolma
samples of ../shared/corpora decompressed (786 KB; both, 1.8 MB), compressed whole and cut inside
the magic number, the header, at 10, 50, 90 % and one byte short; for each, the pages and error
codes of this tree's reader, and of the checkout DIR's (`--before`, e.g. a `git worktree add
--detach` of main). `--sweep N`: every WARC and ARC under ../shared/corpora and fixtures/,
compressed whole with each codec, cut at a few bytes and every Nth of its length; each cut file
must read as the same decompressed bytes (Python's lzma and bz2, the `zstd` command) compressed
again whole, uncut, but for exactly one COMPRESSED_CORRUPT row that says how many bytes it holds
(or, where that reading stops on damage first, its rows exactly). Prints the mismatches and a count.
The reader runs in a subprocess whose PYTHONPATH is the tree, so any checkout can be measured.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import lzma
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
SUFFIX = {"xz": "xz", "bzip2": "bz2", "zstd": "zst"}
STOPS = ("the rest of the file was skipped", "are not read; raise")

# run in the tree measured: one JSON line per file, its pages (url, offset, body digest) and errors
_DUMP = """
import hashlib, json, sys
import trustaudit
from trustaudit.io.readers import open_source
print(json.dumps({"file": "", "tree": trustaudit.__file__}))
for p in sys.argv[1:]:
    rows, errs = [], []
    for b in open_source(p).batches(64):
        for r in b.records.to_pylist():
            body = r.get("body") or (r.get("given_text") or "").encode()
            rows.append([r["url"], r["offset"], hashlib.md5(body).hexdigest()])
        errs += [[e.code, e.offset, e.url, e.message] for e in b.errors]
    print(json.dumps({"file": p, "rows": rows, "errors": errs}))
"""


def compress(data: bytes, codec: str) -> bytes:
    if codec == "xz":
        return lzma.compress(data)
    if codec == "bzip2":
        return bz2.compress(data, 9)
    return pa.compress(data, "zstd", asbytes=True)  # type: ignore[no-any-return]


def held(cut: bytes, codec: str) -> bytes:
    """What the codec's own decompressor gives from `cut` before it fails (zstd: the command)."""
    if codec == "zstd":
        return subprocess.run(["zstd", "-dcq"], input=cut, capture_output=True).stdout
    d = lzma.LZMADecompressor() if codec == "xz" else bz2.BZ2Decompressor()
    out = bytearray()
    try:
        for i in range(0, len(cut), 1024):
            out += d.decompress(cut[i : i + 1024])
    except (EOFError, OSError, lzma.LZMAError):
        pass
    return bytes(out)


def read(tree: Path, files: list[Path]) -> dict[str, dict]:  # type: ignore[type-arg]
    """The rows of each file, read by the trustaudit of `tree`."""
    env = {"PYTHONPATH": str(tree), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    cmd = [sys.executable, "-c", _DUMP, *map(str, files)]
    # run from the tree: `-c` puts the working directory first on the path
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True, cwd=tree)
    got = {d["file"]: d for d in map(json.loads, out.stdout.splitlines())}
    assert got.pop("")["tree"].startswith(str(tree.resolve())), "not the tree asked for"
    return got


def _summary(d: dict) -> str:  # type: ignore[type-arg]
    return f"{len(d['rows'])} pages + " + (", ".join(e[0] for e in d["errors"]) or "no row")


def table(work: Path, before: Path | None) -> None:
    dolma = CORPORA / "warc-samples" / "dolma"
    small = gzip.decompress((dolma / "sample-0000.warc.gz").read_bytes())
    both = small + gzip.decompress((dolma / "sample-0001.warc.gz").read_bytes())
    cases = []
    for label, plain in (("786 KB", small), ("1.8 MB", both)):
        for codec in SUFFIX:
            blob = compress(plain, codec)
            cuts = {"3 B": 3, "10 B": 10, "1 byte short": len(blob) - 1}
            cuts |= {f"{pc} %": len(blob) * pc // 100 for pc in (10, 50, 90)}
            for name, n in cuts.items():
                p = work / f"{label[0]}-{codec}-{n}.warc.{SUFFIX[codec]}"
                p.write_bytes(blob[:n])
                cases.append((f"{label} {codec} cut at {name}", p))
    blob = compress(small, "xz")
    (work / "crawl.xz").write_bytes(blob[: len(blob) // 2])
    cases.append(("786 KB xz cut at 50 %, named crawl.xz", work / "crawl.xz"))
    now = read(ROOT, [p for _, p in cases])
    then = read(before, [p for _, p in cases]) if before else {}
    for label, p in cases:
        got = now[str(p)]
        was = f" | {_summary(then[str(p)])}" if then else ""
        print(f"| {label}{was} | {_summary(got)} |")
        for e in got["errors"]:
            print(f"|   | {e[0]} {e[3]}")


def _check(got: dict, want: dict, good: int) -> str | None:  # type: ignore[type-arg]
    """Why the cut file's rows are not the reference's plus one row for the cut (None: they are)."""
    cut = [e for e in got["errors"] if e[0] == "COMPRESSED_CORRUPT"]
    others = [e for e in got["errors"] if e[0] != "COMPRESSED_CORRUPT"]
    ref = [e for e in want["errors"] if e[0] != "NO_PAGE_RECORDS"]
    if got["rows"] != want["rows"]:
        return "pages differ"
    if not cut:
        stopped = any(s in e[3] for e in ref for s in STOPS)
        return None if got["errors"] == ref and stopped else "no row for the cut"
    says = f" {good} bytes into" if good else "nothing decompressed"
    if len(cut) != 1 or (says not in cut[0][3] and "magic number" not in cut[0][3]):
        return "not one row saying where the stream ends"
    dropped = [e for e in ref if e not in others]
    if others == ref or (len(dropped) == 1 and dropped[0][1:3] == cut[0][1:3]):
        return None
    return "other rows differ"


def sweep(work: Path, parts: int) -> None:
    files = sorted(
        p
        for root in (CORPORA, ROOT / "fixtures")
        for p in root.rglob("*")
        if p.is_file() and (".warc" in p.name or ".arc" in p.name) and ".html" not in p.name
    )
    pairs = []
    for i, f in enumerate(files):
        raw = f.read_bytes()
        plain = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        kind = "arc" if ".arc" in f.name and ".warc" not in f.name else "warc"
        for codec in SUFFIX:
            blob = compress(plain, codec)
            ns = {1, 2, 3, 4, 5, 8, 12, 20, 40, len(blob) - 1}
            ns |= {len(blob) * k // parts for k in range(1, parts)}
            for n in sorted(x for x in ns if 0 < x < len(blob)):
                cut = blob[:n]
                p = work / f"{i}-{codec}-{n}.{kind}.{SUFFIX[codec]}"
                p.write_bytes(cut)
                good = held(cut, codec)
                q = work / f"{i}-{codec}-{n}-ref.{kind}.{SUFFIX[codec]}"
                q.write_bytes(compress(good, codec))
                pairs.append((f.name, codec, n, p, q, len(good)))
    rows = read(ROOT, [x for pair in pairs for x in pair[3:5]])
    bad = 0
    for name, codec, n, p, q, good in pairs:
        why = _check(rows[str(p)], rows[str(q)], good)
        if why:
            bad += 1
            print(f"MISMATCH ({why}): {name} {codec} cut at {n}: {rows[str(p)]['errors']}")
    print(f"{len(files)} files, {len(pairs)} cut files, {bad} mismatches")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="a checkout to read the table's files with too")
    ap.add_argument("--sweep", type=int, default=0, help="cut every file at every Nth instead")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.sweep:
            sweep(Path(tmp), args.sweep)
        else:
            table(Path(tmp), args.before)


if __name__ == "__main__":
    main()
