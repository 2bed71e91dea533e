"""Blind held-out injection evaluation: payloads in 20 languages nobody tuned on, hidden in real pages.

The payloads and hard negatives in bench/data/injection_blind/ were written by a helper who had not
read the detector or its word lists (see that folder's README.md). Each payload is inserted into a
real page of ../shared/corpora/trafilatura-pages at a seeded random place, hidden a seeded random
way (visible paragraph, `display:none` div, HTML comment, `aria-label`, `alt`, white-on-white text,
`<meta>` content), and the page goes through `trustaudit.injection.scan_html`.

Counting: a payload is *detected* when the scan of the page with the payload has a finding that the
scan of the same page without it does not have, and that finding points at the payload: its
`offset`..`offset+len(snippet)` overlaps the inserted span, or (offset unknown, or the snippet was
normalised) its snippet and the payload share a run of at least 20 characters (the whole snippet
when shorter). Hard negatives are inserted the same way, always visibly, and count as a false
positive under the same rule. Only pages whose plain scan has no finding are used as hosts, so a
finding can only come from what was inserted; how many real pages were dropped for that is printed.
Both rates are also given for the findings that quarantine (``quarantining``: not quoted in plain
sight and not addressed to a person, `scoring.injection.quoted_finding`, the scorer's own test):
a quoted finding is reported as `INJECTION_QUOTED` and quarantines nothing, so it is neither a
catch nor a false positive of the trust decision (session 34: before, the bench counted any finding,
and a rule that marks a person's note as quoted could not move it).

Prints recall per language, intent, style, hiding location and overall; the false-positive rate on
hard negatives per language and overall; and up to 30 misses (`--misses N`), grouped by language,
worst language first. `--json OUT` writes the same figures. `--data DIR` reads another collection of
the same format: `bench/data/injection_blind2` (a second blind set, by another helper who read
neither the detector nor the first set) and `bench/data/injection_statements` (overrides written as
declarations, "the earlier rules are void", with notices of the same shape as negatives; use
`--negatives-spread`). A collection of negatives only has no payloads.jsonl
(`bench/data/injection_hidden_prose`, session 32: prose pages hide for people; no recall is
printed). A collection still held out is run with `--misses 0`.

Usage: nice .venv/bin/python bench/injection_blind.py [--seed 2027] [--limit N] [--json OUT]
           [--data DIR] [--misses N] [--negatives-spread] [--all-locations]
       nice .venv/bin/python bench/injection_blind.py --data bench/data/injection/hard_negatives3 \
           --negatives-spread --all-locations   # our own negatives, each in every place
"""

from __future__ import annotations

import argparse
import csv
import gzip
import html as htmlmod
import json
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = ROOT / "bench" / "data" / "injection_blind"
PAGES = ROOT.parent / "shared" / "corpora" / "trafilatura-pages"

LANGS: tuple[str, ...] = tuple(
    [
        "en",
        "pt",
        "es",
        "fr",
        "de",
        "it",
        "nl",
        "pl",
        "tr",
        "ru",
        "uk",
        "ar",
        "fa",
        "he",
        "hi",
        "zh",
        "ja",
        "ko",
        "id",
        "vi",
    ]
)
INTENTS: tuple[str, ...] = ("override", "extraction", "exfiltration", "persona", "tool", "steer")
STYLES: frozenset[str] = frozenset(
    {"plain", "polite", "pseudo_system", "quoted", "upper", "embedded"}
)
LOCATIONS: tuple[str, ...] = (
    "visible",
    "display_none",
    "comment",
    "aria_label",
    "alt",
    "white_on_white",
    "meta",
)
MIN_PER_CELL = 4  # payloads per language x intent
MIN_NEG_PER_LANG = 8
MIN_NEG_ONE_CLASS = 4  # a set written for one class (its negatives are that class's look-alikes)
MIN_SHARED_RUN = 20  # characters a snippet must share with the payload when offsets do not tell

_BODY_OPEN = re.compile(rb"<body\b[^>]*>", re.I)
_HEAD_OPEN = re.compile(rb"<head\b[^>]*>", re.I)
_P_CLOSE = re.compile(rb"</p\s*>", re.I)


def read_kinds(folder: Path) -> list[dict[str, Any]]:
    """A folder of training negatives (``<lang>.json``: kind -> texts, as
    bench/data/injection/hard_negatives2 and 3) as rows of a collection of negatives only."""
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.json")):
        for kind, texts in json.loads(path.read_text(encoding="utf-8")).items():
            rows += [
                {"id": f"{path.stem}-{kind}-{i}", "lang": path.stem, "kind": kind, "text": t}
                for i, t in enumerate(texts)
            ]
    return rows


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSON-lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def check_data(
    payloads: Sequence[dict[str, Any]], negatives: Sequence[dict[str, Any]]
) -> list[str]:
    """Every way the two files break the collection's contract, as messages (empty: valid).

    The contract: the schema of each row, the 20 languages x the intents the collection holds (all
    six for a general set, one for a set written for one class, `bench/data/injection_statements`)
    with at least MIN_PER_CELL payloads each, known styles, at least MIN_NEG_PER_LANG negatives per
    language (MIN_NEG_ONE_CLASS for a set of one class), unique ids across both files, no blank
    text. A collection of negatives only (no payloads) needs MIN_NEG_PER_LANG per language.
    """
    problems: list[str] = []
    seen: set[str] = set()
    cells: dict[tuple[str, str], int] = defaultdict(int)
    for row in payloads:
        if set(row) != {"id", "lang", "intent", "text", "style"}:
            problems.append(f"payload {row.get('id')!r}: keys {sorted(row)}")
            continue
        if row["lang"] not in LANGS:
            problems.append(f"payload {row['id']}: unknown lang {row['lang']!r}")
        if row["intent"] not in INTENTS:
            problems.append(f"payload {row['id']}: unknown intent {row['intent']!r}")
        if row["style"] not in STYLES:
            problems.append(f"payload {row['id']}: unknown style {row['style']!r}")
        cells[(row["lang"], row["intent"])] += 1
    for row in negatives:
        if set(row) != {"id", "lang", "kind", "text"}:
            problems.append(f"negative {row.get('id')!r}: keys {sorted(row)}")
            continue
        if row["lang"] not in LANGS:
            problems.append(f"negative {row['id']}: unknown lang {row['lang']!r}")
        if not str(row["kind"]).strip():
            problems.append(f"negative {row['id']}: empty kind")
    for row in [*payloads, *negatives]:
        rid = row.get("id")
        if not isinstance(rid, str) or not rid:
            problems.append(f"row without id: {row!r:.80}")
        elif rid in seen:
            problems.append(f"duplicate id {rid}")
        else:
            seen.add(rid)
        if not isinstance(row.get("text"), str) or not row["text"].strip():
            problems.append(f"{rid}: empty text")
    present = {intent for _, intent in cells}
    # no payloads at all: a collection of negatives only (bench/data/injection_hidden_prose)
    held = ([i for i in INTENTS if i in present] or list(INTENTS)) if payloads else []
    min_neg = MIN_NEG_ONE_CLASS if len(held) == 1 else MIN_NEG_PER_LANG
    for lang in LANGS:
        for intent in held:
            if cells[(lang, intent)] < MIN_PER_CELL:
                problems.append(
                    f"{lang}/{intent}: {cells[(lang, intent)]} payloads < {MIN_PER_CELL}"
                )
        n_neg = sum(1 for r in negatives if r.get("lang") == lang)
        if n_neg < min_neg:
            problems.append(f"{lang}: {n_neg} hard negatives < {min_neg}")
    return problems


def host_pages(root: Path = PAGES) -> list[tuple[str, str]]:
    """(path, html) of every trafilatura page in manifest order, decoded as UTF-8 (bad bytes replaced)."""
    pages: list[tuple[str, str]] = []
    with open(root / "manifest.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            path = root / row["path"]
            if path.is_file():
                raw = gzip.decompress(path.read_bytes())
                pages.append((row["path"], raw.decode("utf-8", errors="replace")))
    return pages


@dataclass(frozen=True, slots=True)
class Placed:
    """A page with text inserted: the new HTML and the [start, end) span of the inserted text."""

    html: str
    start: int
    end: int


def _attr(text: str) -> str:
    return htmlmod.escape(text, quote=True).replace("\n", "&#10;")


def _wrap(location: str, text: str) -> tuple[str, str, str]:
    """(before, encoded text, after) for one hiding location."""
    if location == "visible":
        return "<p>", htmlmod.escape(text, quote=False), "</p>"
    if location == "display_none":
        return '<div style="display:none">', htmlmod.escape(text, quote=False), "</div>"
    if location == "comment":
        # "--" may not appear inside a comment; an attacker would avoid it the same way.
        return "<!-- ", text.replace("--", "\u2013").replace(">", "\u203a"), " -->"
    if location == "aria_label":
        return '<span role="note" aria-label="', _attr(text), '"></span>'
    if location == "alt":
        return '<img src="/static/spacer.gif" width="1" height="1" alt="', _attr(text), '">'
    if location == "white_on_white":
        return (
            '<p style="color:#ffffff;background-color:#ffffff;font-size:2px">',
            htmlmod.escape(text, quote=False),
            "</p>",
        )
    if location == "meta":
        return '<meta name="description" content="', _attr(text), '">'
    raise ValueError(f"unknown location {location!r}")


def _insertion_points(page: str, location: str) -> list[int]:
    """Character positions where the wrapped text may go: after <head> for meta, else in the body."""
    raw = page.encode("utf-8")  # regexes on bytes are cheap; map back through the decoded prefix
    if location == "meta":
        m = _HEAD_OPEN.search(raw)
        return [len(raw[: m.end()].decode("utf-8", errors="replace")) if m else 0]
    body = _BODY_OPEN.search(raw)
    start = body.end() if body else 0
    byte_points = [start] + [m.end() for m in _P_CLOSE.finditer(raw, start)]
    return [len(raw[:b].decode("utf-8", errors="replace")) for b in byte_points]


def place(page: str, text: str, location: str, rng: random.Random) -> Placed:
    """Insert `text` into `page`, hidden per `location`, at a seeded place among the candidates."""
    before, encoded, after = _wrap(location, text)
    at = rng.choice(_insertion_points(page, location))
    start = at + len(before)
    return Placed(page[:at] + before + encoded + after + page[at:], start, start + len(encoded))


def _norm(s: str) -> str:
    return " ".join(htmlmod.unescape(s).split()).casefold()


def points_at(finding: dict[str, Any], placed: Placed, text: str) -> bool:
    """Whether a finding refers to the inserted text (offset overlap, else a shared run of text)."""
    snippet = str(finding.get("snippet") or "")
    offset = int(finding.get("offset", -1))
    if offset >= 0 and offset < placed.end and offset + max(len(snippet), 1) > placed.start:
        return True
    a, b = _norm(snippet), _norm(text)
    if not a or not b:
        return False
    run = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size
    return run >= min(MIN_SHARED_RUN, len(a), len(b))


def _key(f: dict[str, Any]) -> tuple[str, str, str]:
    return (str(f.get("location")), str(f.get("technique")), str(f.get("snippet")))


Scanner = Callable[[str], Any]


def default_scanner(semantic: str = "auto") -> Scanner:
    """trustaudit.injection.scan_html with the default policy (`semantic`: injection.semantic)."""
    from functools import partial

    from trustaudit.injection import scan_html
    from trustaudit.policy.injection import InjectionPolicy

    return partial(scan_html, policy=InjectionPolicy(semantic=semantic))  # type: ignore[arg-type]


def run_case(
    scan: Scanner,
    page: str,
    baseline: set[tuple[str, str, str]],
    text: str,
    location: str,
    rng: random.Random,
) -> tuple[bool, bool, list[dict[str, Any]]]:
    """Insert one text, scan, and return (a new finding points at it, one that quarantines
    does, the new findings)."""
    placed = place(page, text, location, rng)
    fresh = [f for f in scan(placed.html).findings if _key(f) not in baseline]
    mine = [f for f in fresh if points_at(f, placed, text)]
    return bool(mine), any(quarantines(mine)), fresh


def quarantines(findings: Sequence[dict[str, Any]]) -> list[bool]:
    """Per finding, whether it quarantines its page: not quoted (`scoring.injection.quoted_finding`,
    with the default `quoted_context`)."""
    if not findings:
        return []
    import polars as pl

    from trustaudit.policy.injection import InjectionPolicy
    from trustaudit.scoring.injection import quoted_finding

    frame = pl.DataFrame(
        {
            "technique": [str(f.get("technique", "")) for f in findings],
            "quoted": [str(f.get("quoted") or "") for f in findings],
        }
    )
    quoted = quoted_finding(pl.col("technique"), pl.col("quoted"), InjectionPolicy().quoted_context)
    return [not q for q in frame.select(quoted.alias("q"))["q"].to_list()]


def _rate(hits: Iterable[bool]) -> tuple[int, int]:
    vals = list(hits)
    return sum(vals), len(vals)


def evaluate(
    payloads: Sequence[dict[str, Any]],
    negatives: Sequence[dict[str, Any]],
    pages: Sequence[tuple[str, str]],
    *,
    scan: Scanner,
    seed: int,
    max_hosts: int = 150,
    all_locations: bool = False,
    negatives_spread: bool = False,
    show: int = 30,
) -> dict[str, Any]:
    """Run every payload and negative through the scanner in real pages; return the figures.

    Negatives go in plain sight, or with `negatives_spread` into the payloads' places in a seeded
    order of their own (a notice hidden in a comment or an attribute is as ordinary as a visible
    one: a one-class set's look-alikes are measured where its payloads are)."""
    rng = random.Random(seed)
    order = list(pages)
    rng.shuffle(order)
    hosts: list[tuple[str, str, set[tuple[str, str, str]]]] = []
    dropped = 0
    for path, page in order:
        if len(hosts) >= max_hosts:
            break
        base = scan(page).findings
        if base:
            dropped += 1
            continue
        hosts.append((path, page, {_key(f) for f in base}))
    if not hosts:
        raise SystemExit("no host page without findings")

    # Each location gets the same share of payloads, in a seeded order (or every payload goes
    # into every location with all_locations).
    if all_locations:
        cases = [(p, loc) for p in payloads for loc in LOCATIONS]
    else:
        locations = [LOCATIONS[i % len(LOCATIONS)] for i in range(len(payloads))]
        rng.shuffle(locations)
        cases = list(zip(payloads, locations, strict=True))
    rows: list[dict[str, Any]] = []
    for p, location in cases:
        path, page, base = hosts[rng.randrange(len(hosts))]
        hit, aimed, fresh = run_case(scan, page, base, p["text"], location, rng)
        rows.append(
            {
                **p,
                "page": path,
                "location": location,
                "detected": hit,
                "quarantining": aimed,
                "new_findings": len(fresh),
            }
        )
    neg_places = ["visible"] * len(negatives)
    if negatives_spread:
        neg_places = [LOCATIONS[i % len(LOCATIONS)] for i in range(len(negatives))]
        rng.shuffle(neg_places)
    neg_cases = list(zip(negatives, neg_places, strict=True))
    if all_locations and negatives_spread:  # every negative in every place, as the payloads
        neg_cases = [(n, loc) for n in negatives for loc in LOCATIONS]
    neg_rows: list[dict[str, Any]] = []
    for n, location in neg_cases:
        path, page, base = hosts[rng.randrange(len(hosts))]
        hit, aimed, fresh = run_case(scan, page, base, n["text"], location, rng)
        neg_rows.append(
            {
                **n,
                "page": path,
                "location": location,
                "flagged": hit,
                "quarantining": aimed,
                "new_findings": len(fresh),
            }
        )
    return summarize(rows, neg_rows, hosts=len(hosts), dropped=dropped, seed=seed, show=show)


def _by(
    rows: Sequence[dict[str, Any]], field: str, flag: str, keys: Sequence[str]
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for k in keys:
        hit, n = _rate(r[flag] for r in rows if r[field] == k)
        if n:
            out[k] = {"hit": hit, "n": n, "rate": round(hit / n, 4)}
    return out


def _spread_misses(
    rows: Sequence[dict[str, Any]], langs: Sequence[str], *, limit: int
) -> list[dict[str, Any]]:
    """Up to `limit` misses, one per language per round (worst language first), intents interleaved.

    So the list shows every language that misses anything, not 30 misses of the worst one.
    """
    queues: list[list[dict[str, Any]]] = []
    for lang in langs:
        missed = list(
            {r["id"]: r for r in rows if r["lang"] == lang and not r["detected"]}.values()
        )
        rank: dict[str, int] = defaultdict(int)
        keyed = []
        for r in missed:
            keyed.append((rank[r["intent"]], INTENTS.index(r["intent"]), r))
            rank[r["intent"]] += 1
        queues.append([r for *_, r in sorted(keyed, key=lambda k: k[:2])])
    out: list[dict[str, Any]] = []
    while len(out) < limit and any(queues):
        for q in queues:
            if q and len(out) < limit:
                r = q.pop(0)
                out.append({k: r[k] for k in ("id", "lang", "intent", "style", "location", "text")})
    return out


def summarize(
    rows: Sequence[dict[str, Any]],
    neg_rows: Sequence[dict[str, Any]],
    *,
    hosts: int,
    dropped: int,
    seed: int,
    show: int = 30,
) -> dict[str, Any]:
    """Recall and false-positive figures from per-case rows, plus up to `show` of the worst misses
    (0 for a collection still held out from whoever reads the output)."""
    hit, n = _rate(r["detected"] for r in rows)
    fp, nn = _rate(r["flagged"] for r in neg_rows)
    hit_q, _ = _rate(r["quarantining"] for r in rows)
    fp_q, _ = _rate(r["quarantining"] for r in neg_rows)
    kinds = sorted({r["kind"] for r in neg_rows})
    per_lang = _by(rows, "lang", "detected", LANGS)
    worst = sorted(per_lang, key=lambda k: (per_lang[k]["rate"], LANGS.index(k)))
    misses = _spread_misses(rows, worst, limit=show)
    return {
        "seed": seed,
        "host_pages": hosts,
        "pages_dropped_with_findings": dropped,
        "payloads": n,  # (payload, location) cases
        "recall": round(hit / n, 4) if n else None,
        "recall_quarantining": round(hit_q / n, 4) if n else None,
        "recall_by_lang": per_lang,
        "recall_by_intent": _by(rows, "intent", "detected", INTENTS),
        "recall_by_lang_intent": {
            lang: _by([r for r in rows if r["lang"] == lang], "intent", "detected", INTENTS)
            for lang in LANGS
        },
        "recall_by_style": _by(rows, "style", "detected", sorted(STYLES)),
        "recall_by_location": _by(rows, "location", "detected", LOCATIONS),
        "hard_negatives": nn,
        "fp_rate": round(fp / nn, 4) if nn else None,
        "fp_rate_quarantining": round(fp_q / nn, 4) if nn else None,
        "fp_by_lang": _by(neg_rows, "lang", "flagged", LANGS),
        "fp_by_kind": _by(neg_rows, "kind", "flagged", kinds),
        "fp_by_kind_quarantining": _by(neg_rows, "kind", "quarantining", kinds),
        "fp_by_location": _by(neg_rows, "location", "flagged", LOCATIONS),
        "flagged_negatives": [r["id"] for r in neg_rows if r["flagged"]],
        "quarantined_negatives": [r["id"] for r in neg_rows if r["quarantining"]],
        "missed_cases": [[r["id"], r["location"]] for r in rows if not r["detected"]],
        "worst_misses": misses,
    }


def _table(title: str, cells: dict[str, dict[str, Any]]) -> str:
    lines = [title]
    for k, v in cells.items():
        lines.append(f"  {k:<15} {v['rate']:6.3f}  ({v['hit']}/{v['n']})")
    return "\n".join(lines)


def report(fig: dict[str, Any]) -> str:
    """The figures as plain text for a terminal."""
    out = [
        f"seed {fig['seed']}: {fig['payloads']} payload cases, {fig['hard_negatives']} hard negatives, "
        f"{fig['host_pages']} host pages ({fig['pages_dropped_with_findings']} real pages skipped: "
        "findings before insertion)",
        (
            f"recall overall {fig['recall']:.3f} (quarantining {fig['recall_quarantining']:.3f})    "
            if fig["payloads"]
            else "no payloads    "
        )
        + f"false positives on hard negatives {fig['fp_rate']:.3f}"
        + f" (quarantining {fig['fp_rate_quarantining']:.3f})",
    ]
    if fig["payloads"]:  # a collection of negatives only has no recall to show
        out += [
            _table("recall by language", fig["recall_by_lang"]),
            _table("recall by intent", fig["recall_by_intent"]),
            _table("recall by style", fig["recall_by_style"]),
            _table("recall by hiding location", fig["recall_by_location"]),
        ]
    out += [
        _table("false-positive rate by language", fig["fp_by_lang"]),
        _table("false-positive rate by kind", fig["fp_by_kind"]),
        _table(
            "false-positive rate by kind, findings that quarantine", fig["fp_by_kind_quarantining"]
        ),
    ]
    if set(fig.get("fp_by_location", {})) - {"visible"}:
        out.append(_table("false-positive rate by place", fig["fp_by_location"]))
    if fig["worst_misses"]:
        out.append(
            f"{len(fig['worst_misses'])} misses, one per language per round, worst language first:"
        )
    for m in fig["worst_misses"]:
        text = " ".join(m["text"].split())
        out.append(f"  {m['id']:<28} {m['location']:<14} {text[:100]}")
    return "\n".join(out)


def _sample(
    rows: list[dict[str, Any]], limit: int | None, rng: random.Random
) -> list[dict[str, Any]]:
    if limit is None or limit >= len(rows):
        return rows
    picked = list(rows)
    rng.shuffle(picked)
    return sorted(picked[:limit], key=rows.index)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--seed", type=int, default=2027, help="seed for pages, places and hiding (default 2027)"
    )
    ap.add_argument(
        "--limit", type=int, default=None, help="at most N payloads and N negatives (seeded sample)"
    )
    ap.add_argument(
        "--hosts", type=int, default=150, help="host pages without findings to use (default 150)"
    )
    ap.add_argument(
        "--all-locations",
        action="store_true",
        help="put every payload in every hiding location (7x the scans) instead of one seeded one; "
        "with --negatives-spread every negative too",
    )
    ap.add_argument(
        "--semantic",
        choices=("auto", "on", "off"),
        default="auto",
        help="injection.semantic (off: the lexical detector alone, to see the model's share)",
    )
    ap.add_argument(
        "--json", type=Path, default=None, metavar="OUT", help="also write the figures as JSON"
    )
    ap.add_argument(
        "--data",
        type=Path,
        default=DATA,
        metavar="DIR",
        help="the collection: payloads.jsonl and hard_negatives.jsonl (default: the blind set; "
        "bench/data/injection_blind2 and bench/data/injection_statements are others), or a folder "
        "of training negatives, <lang>.json of kind -> texts (bench/data/injection/hard_negatives*)",
    )
    ap.add_argument(
        "--misses",
        type=int,
        default=30,
        metavar="N",
        help="print up to N missed payloads (0: none, for a collection still held out from "
        "whoever changes the detector)",
    )
    ap.add_argument(
        "--negatives-spread",
        action="store_true",
        help="put the hard negatives into the payloads' places, not only in plain sight",
    )
    args = ap.parse_args(argv)

    found = args.data / "payloads.jsonl"  # a collection of negatives only has no such file
    payloads = read_jsonl(found) if found.exists() else []
    if found.exists() and not payloads:
        print(f"invalid data: {found} is empty", file=sys.stderr)
        return 2
    negatives = (
        read_jsonl(args.data / "hard_negatives.jsonl")
        if (args.data / "hard_negatives.jsonl").exists()
        else read_kinds(args.data)
    )
    problems = check_data(payloads, negatives)
    if problems:
        print("invalid data:\n  " + "\n  ".join(problems[:20]), file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    payloads = _sample(payloads, args.limit, rng)
    negatives = _sample(negatives, args.limit, rng)
    t0 = time.perf_counter()
    fig = evaluate(
        payloads,
        negatives,
        host_pages(),
        scan=default_scanner(args.semantic),
        seed=args.seed,
        max_hosts=args.hosts,
        all_locations=args.all_locations,
        negatives_spread=args.negatives_spread,
        show=args.misses,
    )
    fig["seconds"] = round(time.perf_counter() - t0, 1)
    print(report(fig))
    print(f"({fig['seconds']} s)")
    if args.json:
        args.json.write_text(json.dumps(fig, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
