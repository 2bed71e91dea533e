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

Session 20 split (fixed, and the new sources measured on main 810a1cc, before any finding of
theirs was read or any rule changed): every source above is a *tuning* source now (man1 was read
in session 19, IDLE's and the Cloud SDK's findings too); held out are five new sources, read only
once, after the rules are final (`HELD_OUT`):

- ``man-admin``: a keyed 300 of the manual pages of sections 5, 7 and 8 (file formats,
  overviews, administration commands), rendered as ``man``;
- ``man-l10n``: a keyed 300 of the translated manual pages of section 1 (``/usr/share/man/LANG/man1``:
  German, French, Swedish, Portuguese, Dutch, Ukrainian… 900 here), rendered as ``man``;
- ``cmake``: CMake's reference (``/usr/share/cmake-*/Help``: commands, variables, properties,
  modules, manuals), reStructuredText rendered as HTML by `rst_html`;
- ``awscli``: a keyed 300 of the AWS CLI's command examples (``awscli/examples/**/*.rst`` of any
  Python installed under pyenv), rendered alike;
- ``readme-other``: the READMEs of ``/usr/lib/node_modules`` (markdown) and the long descriptions of
  the packages installed under pyenv's Pythons that the bench's own interpreter lacks (as
  ``pypi-readme``).

Session 29 adds a sixth held-out source, measured on main aa951f4 and on the session's tree before
any of its findings was read: ``man-lib``, a keyed 300 of the manual pages of sections 2 and 3
(system calls, C and Perl library functions), rendered as ``man``.

`bench/doc_hosts.py` draws its hosts from round 1's sources only (`HOST_SOURCES`), so its sample
does not move with these.

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
import re
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
# session 20: the sources added in that session, read only once, at its end
HELD_OUT = ("man-admin", "man-l10n", "man-lib", "cmake", "awscli", "readme-other")
# the sources bench/doc_hosts.py plants its payloads in (session 19's round 1: its sample stays put)
HOST_SOURCES = ("rust-books", "rust-api", "system", "node", "python", "gcloud", "pypi-readme")
MAN_SOURCES = ("man", "man-admin", "man-l10n", "man-lib")
PYENV = os.path.expanduser("~/.pyenv/versions")
GROFF = shutil.which("groff")
_GROFF_ARGS = ("-Tutf8", "-man", "-P-cbu", "-rHY=0", "-rLL=100n", "-dAD=l")
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
    if GROFF:
        out["man-admin"] = [f"/usr/share/man/man{n}/*.gz" for n in (5, 7, 8)]
        out["man-l10n"] = [
            "/usr/share/man/[a-z][a-z]/man1/*.gz",
            "/usr/share/man/[a-z][a-z]_*/man1/*.gz",
        ]
    if GROFF:
        out["man-lib"] = [f"/usr/share/man/man{n}/*.gz" for n in (2, 3)]
    out["cmake"] = ["/usr/share/cmake*/Help/**/*.rst"]
    out["awscli"] = [f"{PYENV}/*/lib/python*/site-packages/awscli/examples/**/*.rst"]
    out["readme-other"] = [
        "/usr/lib/node_modules/**/README.md",
        *(
            f"{d}/METADATA"
            for d in glob.glob(f"{PYENV}/*/lib/python*/site-packages/*.dist-info")
            if os.path.basename(d).split("-")[0].lower() not in _own_packages()
        ),
    ]
    for item in extra:
        name, _, path = item.partition("=")
        out[name] = [f"{path}/**/*.html", f"{path}/**/*.htm"]
    return out


def _own_packages() -> set[str]:
    """Lower-case names of the distributions installed beside this interpreter (`pypi-readme`)."""
    purelib = sysconfig.get_paths()["purelib"]
    return {os.path.basename(d).split("-")[0].lower() for d in glob.glob(f"{purelib}/*.dist-info")}


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


def man_html(raw: bytes, *, encoded: bool = False) -> str:
    """A gzipped roff manual page as HTML: section titles as headings, blocks as paragraphs.

    Rendered as text (this groff has no html device) with hyphenation off (-rHY=0) and
    overstrike off (-P-cbu), so that the words are whole; a line at column 0 is a section title,
    the running header and footer (first and last lines) are dropped. A ``.so`` page (an alias
    of another) renders as nothing and is skipped by the size floor. `encoded`: the source is in
    UTF-8 or declares its encoding (a translated page): groff reads it through preconv (``-k``);
    ``man``'s pages are rendered without it, as in session 19.
    """
    src = gzip.decompress(raw)
    if src.lstrip().startswith(b".so "):
        return ""
    out = subprocess.run(
        [GROFF or "groff", *(["-k"] if encoded else []), *_GROFF_ARGS],
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


_TRANSLATED = re.compile(r"/man/[a-z]{2}(?:_[A-Z]{2})?/man\d/")
_RST_TITLE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")


def rst_html(text: str) -> str:
    """A reStructuredText page roughly as docutils shows it: a block under ``::`` or a
    ``code-block`` directive (indented) as ``<pre>``, a title underlined with ``=``/``-``/``~``…
    as a heading, a block whose first line is flush and the rest indented as a definition
    (``<dl><dt>…</dt><dd>…</dd></dl>``: rST's definition lists, which reference pages use for
    their options), every other blank-line-separated block as an escaped paragraph (inline markup
    left as written). Why not docutils: the bench's interpreter does not ship it."""
    parts: list[str] = []
    blocks = re.split(r"\n\s*\n", text.replace("\r\n", "\n"))
    literal = False

    def words(lines: list[str]) -> str:
        return htmllib.escape(" ".join(" ".join(lines).split()))

    for block in blocks:
        if not block.strip():
            continue
        if literal and block[:1].isspace():
            parts.append(f"<pre>{htmllib.escape(block)}</pre>")
            continue
        literal = False
        raw_lines = block.strip("\n").split("\n")
        lines = [ln for ln in raw_lines if not _RST_TITLE.match(ln)]
        para = " ".join(" ".join(lines).split())
        heading = len(lines) == 1 < len(raw_lines)
        if not para:
            continue
        if para.startswith(".. "):
            literal = para.split("::")[0][3:].strip() in ("code-block", "code", "sourcecode")
            continue  # a directive or a comment
        if para.endswith("::"):
            literal = True
            para = para[:-2].rstrip()
            para += "" if para.endswith(":") or not para else ":"
            lines = [para]
        if heading:
            parts.append(f"<h2>{htmllib.escape(para)}</h2>")
        elif (
            len(lines) > 1
            and not lines[0][:1].isspace()
            and all(ln[:1].isspace() for ln in lines[1:])
        ):
            parts.append(f"<dl><dt>{words(lines[:1])}</dt><dd><p>{words(lines[1:])}</p></dd></dl>")
        elif para:
            parts.append(f"<p>{words(lines)}</p>")
    title = htmllib.escape(next((p for p in blocks if p.strip()), "").strip().split("\n")[0][:80])
    inner = "\n".join(parts)
    return f"<html><head><title>{title}</title></head><body><main>{inner}</main></body></html>"


def markdown_html(text: str) -> str:
    """A markdown README as the HTML a registry shows (markdown-it-py, as `readme_html`)."""
    from markdown_it import MarkdownIt

    inner = MarkdownIt("commonmark").enable("table").render(text)
    return f"<html><head><title>README</title></head><body><main>{inner}</main></body></html>"


def page_html(path: str) -> str:
    """The HTML of one page of a source (a METADATA file, a manual page, a reST or markdown file
    is rendered)."""
    raw = Path(path).read_bytes()
    if os.path.basename(path) == "METADATA":
        return readme_html(raw)
    if path.endswith(".gz"):
        return man_html(raw, encoded=_TRANSLATED.search(path) is not None)
    if path.endswith(".rst"):
        return rst_html(raw.decode("utf-8", "replace"))
    if path.endswith(".md"):
        return markdown_html(raw.decode("utf-8", "replace"))
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
            and not (name in MAN_SOURCES and os.path.basename(f).startswith("gcloud"))
        }
    )
    files.sort(key=keyed)
    seen: set[str] = set()
    out: list[str] = []
    for f in files:
        page = page_html(f)
        if not f.endswith((".html", ".htm")) and len(page) < MIN_BYTES:
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
        capped = name in MAN_SOURCES or name == "awscli"
        cap = min(args.per_source, MAN_PAGES) if capped else args.per_source
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
