"""False positives of the injection scan on technical documentation that no head was trained on.

The real pages of ../shared/corpora are news, blogs and shops. Documentation is what a knowledge
base ingests most, and it speaks to its reader in every paragraph ("run the following command",
"tell the user…", "the output below"), which is the voice of an instruction. This bench scans the
documentation trees installed on this machine, one source at a time, and counts the pages the scan
would quarantine (a finding at or above ``injection.min_score`` that is not quoted), with the
packaged head (or the head of the tree on ``PYTHONPATH``):

- ``rust-books``, ``rust-api``: the Rust toolchain's books and its API docs (rustup's
  ``share/doc/rust/html``) less the 124 pages of bench/data/techdocs (which `bench/train_intent.py --techdocs` can train
  on; the packaged head does not);
- ``system``: ``/usr/share/doc`` (Debian's HTML manuals: valgrind, libxslt, ninja, time…);
- ``node``: the HTML docs shipped in ``/usr/lib/node_modules`` (npm's manual);
- ``python``: HTML files of pyenv's Python installs (IDLE's help);
- ``gcloud``: HTML files of the Google Cloud SDK.
- ``man``: a keyed sample (by file name) of the manual pages in ``/usr/share/man/man1`` less the
  Cloud SDK's ``gcloud_*`` (16,600 of the 17,900 here, and ``gcloud`` is a source of its own), rendered
  by ``groff -Tutf8 -man`` without overstrike or hyphenation; a section title becomes a heading,
  each blank-line-separated block a paragraph (its lines joined). Hundreds of projects' authors,
  written for a reader at a terminal. Skipped when groff is not installed.
- ``pypi-readme``: the long descriptions (the READMEs) in the ``*.dist-info/METADATA`` of the
  Python packages installed beside the interpreter that runs the bench, markdown rendered to HTML
  by markdown-it-py (what PyPI's project page shows), reStructuredText and plain text as escaped
  paragraphs. Other projects' authors, other conventions: a second held-out source.

Tuning split (session 19, fixed before any finding was looked at): rules are tuned on
``rust-books``, ``rust-api``, ``system`` and ``node``; ``pypi-readme``, ``python`` and ``gcloud``
stay held out; the bench prints both totals. Round 2 (session 19) read pypi-readme's findings, so
it is a tuning source since; ``man`` (added and measured before any rule of round 2 changed),
``python`` and ``gcloud`` are held out.

No source here is trained on by the packaged head; a head trained with ``--techdocs`` has seen a
sample of the Rust docs, and the other sources stay held out. A source that is not installed is
skipped, so the figures are this machine's (docs/injection.md, "Current figures", gives them with
the tree). Pages are deduplicated by content; mdBook's ``print.html`` (every chapter again on
one page) is skipped.

Usage: .venv/bin/python bench/techdocs.py [--per-source 400] [--show 5] [--dir NAME=PATH ...]
       [--sources rust-books,system,...]
"""

from __future__ import annotations

import argparse
import csv
import email
import email.policy
import glob
import gzip
import hashlib
import html as htmllib
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trustaudit.injection import scan_html  # noqa: E402
from trustaudit.policy.injection import InjectionPolicy  # noqa: E402

MANIFEST = ROOT / "bench" / "data" / "techdocs" / "manifest.csv"
RUST_BOOKS = (
    "book",
    "cargo",
    "rustc",
    "reference",
    "nomicon",
    "edition-guide",
    "embedded-book",
    "clippy",
    "rustdoc",
    "style-guide",
    "rust-by-example",
    "unstable-book",
    "error_codes",
)
RUST_API = ("std", "core", "alloc", "proc_macro", "test", "std_detect")
SKIP_NAMES = {"print.html", "404.html", "toc.html"}
MIN_BYTES = 1500
HELD_OUT = ("man", "python", "gcloud")
GROFF = shutil.which("groff")
MAN_PAGES = 300  # of ~17,900 here: groff takes ~0.1 s a page


def rust_root() -> str | None:
    found = sorted(glob.glob(os.path.expanduser("~/.rustup/toolchains/*/share/doc/rust/html")))
    return found[-1] if found else None


def sources(extra: list[str]) -> dict[str, list[str]]:
    """Source name -> glob patterns (recursive) of its HTML files."""
    out: dict[str, list[str]] = {}
    rust = rust_root()
    if rust:
        out["rust-books"] = [f"{rust}/{b}/**/*.html" for b in RUST_BOOKS]
        out["rust-api"] = [f"{rust}/{b}/**/*.html" for b in RUST_API]
    out["system"] = ["/usr/share/doc/**/*.html"]
    out["node"] = ["/usr/lib/node_modules/**/*.html"]
    out["python"] = [os.path.expanduser("~/.pyenv/versions/**/*.html")]
    out["gcloud"] = ["/usr/lib/google-cloud-sdk/**/*.html"]
    if GROFF:
        out["man"] = ["/usr/share/man/man1/*.gz"]
    out["pypi-readme"] = [f"{sysconfig.get_paths()['purelib']}/*.dist-info/METADATA"]
    for item in extra:
        name, _, path = item.partition("=")
        out[name] = [f"{path}/**/*.html", f"{path}/**/*.htm"]
    return out


def trained_on() -> set[str]:
    """Paths (relative to the Rust docs root) of the pages bench/data/techdocs holds."""
    if not MANIFEST.exists():
        return set()
    with MANIFEST.open(encoding="utf-8") as fh:
        return {r["url"].split("/nightly/", 1)[-1] for r in csv.DictReader(fh)}


def readme_html(raw: bytes) -> str:
    """A package's long description as the HTML page PyPI would show (markdown rendered)."""
    meta = email.message_from_bytes(raw, policy=email.policy.compat32)
    body = meta.get_payload()
    text = body if isinstance(body, str) and body.strip() else str(meta.get("Description") or "")
    kind = str(meta.get("Description-Content-Type") or "").split(";")[0].strip().lower()
    title = htmllib.escape(f"{meta.get('Name', '')}: {meta.get('Summary', '')}")
    if kind == "text/markdown":
        from markdown_it import MarkdownIt

        inner = MarkdownIt("commonmark").enable("table").render(text)
    else:
        paras = [p.strip() for p in text.split("\n\n") if p.strip()]
        inner = "\n".join(f"<p>{htmllib.escape(p)}</p>" for p in paras)
    return f"<html><head><title>{title}</title></head><body><main>{inner}</main></body></html>"


def man_html(raw: bytes) -> str:
    """A gzipped roff manual page as HTML: section titles as headings, blocks as paragraphs.

    Rendered as text (this groff has no html device) with hyphenation off (-rHY=0) and
    overstrike off (-P-cbu), so that the words are whole; a line at column 0 is a section title,
    the running header and footer (first and last lines) are dropped. A ``.so`` page (an alias
    of another) renders as nothing and is skipped by the size floor.
    """
    src = gzip.decompress(raw)
    if src.lstrip().startswith(b".so "):
        return ""
    out = subprocess.run(
        [GROFF or "groff", "-Tutf8", "-man", "-P-cbu", "-rHY=0", "-rLL=100n", "-dAD=l"],
        input=src,
        capture_output=True,
        timeout=30,
        check=False,
    ).stdout.decode("utf-8", "replace")
    lines = out.splitlines()
    body = [ln for ln in lines if ln.strip()]
    if len(body) < 3:
        return ""
    first, last = lines.index(body[0]), len(lines) - 1 - lines[::-1].index(body[-1])
    parts: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if block:
            parts.append(f"<p>{htmllib.escape(' '.join(' '.join(block).split()))}</p>")
            block.clear()

    for ln in lines[first + 1 : last]:
        if not ln.strip():
            flush()
        elif not ln[0].isspace():
            flush()
            parts.append(f"<h2>{htmllib.escape(ln.strip())}</h2>")
        else:
            block.append(ln)
    flush()
    title = htmllib.escape(" ".join(body[0].split()[:1]))
    inner = "\n".join(parts)
    return f"<html><head><title>{title}</title></head><body><main>{inner}</main></body></html>"


def page_html(path: str) -> str:
    """The HTML of one page of a source (a METADATA file or a manual page is rendered)."""
    raw = Path(path).read_bytes()
    if os.path.basename(path) == "METADATA":
        return readme_html(raw)
    if path.endswith(".gz"):
        return man_html(raw)
    return raw.decode("utf-8", "replace")


def keyed(text: str) -> str:
    return hashlib.sha256(f"techdocs-bench:{text}".encode()).hexdigest()


def pages_of(name: str, patterns: list[str], per_source: int, skip: set[str]) -> list[str]:
    """A keyed sample of `per_source` distinct pages of one source."""
    rust = rust_root() or ""
    files = sorted(
        {
            f
            for pat in patterns
            for f in glob.glob(pat, recursive=True)
            if os.path.basename(f) not in SKIP_NAMES
            and "/src/" not in f  # rustdoc's source viewer: code, not documentation
            and os.path.isfile(f)
            and os.path.getsize(f) >= MIN_BYTES
            and not (name.startswith("rust") and os.path.relpath(f, rust) in skip)
            and not (name == "man" and os.path.basename(f).startswith("gcloud"))
        }
    )
    files.sort(key=keyed)
    seen: set[str] = set()
    out: list[str] = []
    for f in files:
        page = page_html(f)
        if (os.path.basename(f) == "METADATA" or f.endswith(".gz")) and len(page) < MIN_BYTES:
            continue  # a package without a README of its own; a short or aliased man page
        digest = hashlib.sha256(page.encode()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        out.append(f)
        if len(out) == per_source:
            break
    return out


def live(findings: list[dict], min_score: float) -> list[dict]:
    """The findings that quarantine a page: at or above `min_score`, not quoted."""
    return [f for f in findings if f["score"] >= min_score and not f.get("quoted")]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--per-source", type=int, default=400, help="pages a source at most")
    ap.add_argument("--show", type=int, default=0, help="print this many flagged pages a source")
    ap.add_argument("--dir", action="append", default=[], help="NAME=PATH: another docs tree")
    ap.add_argument("--sources", default="", help="comma-separated source names (default: all)")
    args = ap.parse_args(argv)
    only = {x for x in args.sources.split(",") if x}
    min_score = InjectionPolicy().min_score
    skip = trained_on()
    total = [0, 0]
    split = {"tuned": [0, 0], "held out": [0, 0]}
    print(f"{'source':10s} {'pages':>6s} {'flagged':>8s} {'share':>7s} {'by the model':>13s}")
    for name, patterns in sources(args.dir).items():
        if only and name not in only:
            continue
        cap = min(args.per_source, MAN_PAGES) if name == "man" else args.per_source
        files = pages_of(name, patterns, cap, skip)
        if not files:
            continue
        t0 = time.perf_counter()
        flagged: list[tuple[str, list[dict]]] = []
        for f in files:
            html = page_html(f)
            hits = live(scan_html(html).findings, min_score)
            if hits:
                flagged.append((f, hits))
        model = sum(any("semantic" in h.get("rule", "") for h in hits) for _, hits in flagged)
        total[0] += len(files)
        total[1] += len(flagged)
        part = split["held out" if name in HELD_OUT else "tuned"]
        part[0] += len(files)
        part[1] += len(flagged)
        print(
            f"{name:10s} {len(files):6d} {len(flagged):8d} {len(flagged) / len(files):7.2%} "
            f"{model:13d}   [{time.perf_counter() - t0:.0f}s]",
            flush=True,
        )
        for f, hits in flagged[: args.show]:
            h = max(hits, key=lambda x: x["score"])
            snippet = " ".join(str(h.get("snippet", "")).split())[:140]
            print(f"     {f[-70:]}  {h['technique']}/{h['rule']} {h['score']:.3f}: {snippet!r}")
    for label, (n, k) in split.items():
        if n:
            print(f"{label:10s} {n:6d} {k:8d} {k / n:7.2%}")
    if total[0]:
        print(f"{'all':10s} {total[0]:6d} {total[1]:8d} {total[1] / total[0]:7.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
