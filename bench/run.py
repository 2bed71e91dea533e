"""`make bench`: figures for the main job, the signal+score stages at scale, incremental re-runs,
the datatrove peer on the same WARC shards, and peak memory as the corpus grows (`memory`).
Prints figures; asserts nothing about speed.

Usage: python bench/run.py [--skip-peer] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from realpages import write_mirror_shards, write_warc_shards  # noqa: E402


def run_audit(shards: list[Path], out: Path, *extra: str) -> tuple[float, dict, int]:  # type: ignore[type-arg]
    cmd = [
        sys.executable,
        "-m",
        "trustaudit",
        "audit",
        *map(str, shards),
        "--out",
        str(out),
        "--workers",
        "2",
        "--quiet",
        "--now",
        "2026-11-01",
        *extra,
    ]
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(cmd, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    wall = time.perf_counter() - t0
    rss = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return wall, json.loads((out / "manifest.json").read_text()), rss


def bench_audit(work: Path) -> dict:  # type: ignore[type-arg]
    from trustaudit.io.readers import open_source

    shards = write_warc_shards(work / "shards", 2)
    t0 = time.perf_counter()
    records = sum(
        b.records.num_rows + len(b.errors) for s in shards for b in open_source(s).batches(64)
    )
    read_s = time.perf_counter() - t0
    wall, manifest, rss = run_audit(shards, work / "run", "--fresh")
    st = manifest["stages"]
    pages = st["ingest"]["pages"]
    print(
        f"\n== audit over the real pages of ../shared/corpora ({records} records, 2 WARC shards, 2 workers)"
    )
    print(f"  read only            {records / read_s:8.1f} records/s  ({read_s:.2f} s)")
    for name in ("ingest", "signals", "score"):
        s = st[name]["seconds"]
        print(f"  {name:<20} {pages / s:8.1f} pages/s    ({s:.2f} s)")
    print(
        f"  whole command        {pages / wall:8.1f} pages/s    ({wall:.2f} s wall, {pages} pages, "
        f"{st['ingest']['errors']} error rows)"
    )
    print(f"  peak RSS (largest process) {rss / 1024:.0f} MiB")
    print(f"  signal families: {st['signals'].get('families')}")
    return {"pages": pages, "wall": wall, "shards": shards}


def bench_incremental(work: Path, replicas: int = 8) -> None:
    """Nightly pattern on a mirror corpus (the real pages `replicas` times, 6,376 pages by default:
    nightly crawls are thousands of pages and more): first run, unchanged re-run, re-run the next
    day (new --now: date-dependent signals recomputed), and a re-run after one page changed (its
    shard is re-read page by page and every corpus-level family is recomputed)."""
    shards = write_mirror_shards(work / "mirrors", replicas=replicas, per_replica=2)
    cache = work / "inc-cache"
    shutil.rmtree(cache, ignore_errors=True)
    first, m1, _ = run_audit(shards, work / "inc1", "--fresh", "--cache", str(cache))
    # re-runs take seconds, so one sample is at the mercy of this shared VM: the median of three
    reruns = [
        run_audit(shards, work / f"inc2-{i}", "--fresh", "--cache", str(cache)) for i in range(3)
    ]
    second, m2, _ = sorted(reruns, key=lambda r: r[0])[1]
    samples = ", ".join(f"{r[0]:.2f}" for r in reruns)
    nextday, m3, _ = run_audit(
        shards, work / "inc3", "--fresh", "--cache", str(cache), "--now", "2026-11-02"
    )
    changed = work / "changed"
    changed.mkdir(exist_ok=True)
    edited = changed / shards[0].name
    _rewrite_first_record(shards[0], edited)
    one, m4, _ = run_audit([edited, *shards[1:]], work / "inc4", "--fresh", "--cache", str(cache))
    pages = m1["stages"]["ingest"]["pages"]
    print(f"\n== incremental re-runs (--cache), {pages} pages in {len(shards)} WARC shards")
    print(f"  first run                      {first:7.2f} s  ({pages / first:.1f} pages/s)")
    print(f"  unchanged corpus, 3 re-runs   {samples} s (median below)")
    for label, wall, m in (
        ("unchanged corpus", second, m2),
        ("unchanged, next day (--now)", nextday, m3),
        ("one page changed", one, m4),
    ):
        c = m["stages"]["ingest"]["cache"]
        memo = m["stages"]["signals"].get("memo", {})
        print(
            f"  {label:<30} {wall:7.2f} s  -> {first / wall:5.1f}x faster  "
            f"(page hits {c['hits']}, misses {c['misses']}; memo hits {memo.get('hits')})"
        )


def _rewrite_first_record(src: Path, dst: Path) -> None:
    """Copy a WARC shard with one word changed in its first record's payload."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.warcwriter import WARCWriter

    with open(src, "rb") as fh, open(dst, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for i, rec in enumerate(ArchiveIterator(fh)):
            body = rec.content_stream().read()
            if i == 0:
                body = body.replace(b"<body", b"<body data-edited", 1) + b"<p>Updated.</p>"
            new = writer.create_warc_record(
                rec.rec_headers.get_header("WARC-Target-URI"),
                rec.rec_type,
                payload=io.BytesIO(body),
                http_headers=rec.http_headers,
            )
            writer.write_record(new)


def bench_signals(rows: int) -> None:
    import numpy as np
    import polars as pl

    from trustaudit.policy import Policy
    from trustaudit.scoring.affiliate import affiliate_signals, flag_affiliate_links
    from trustaudit.scoring.domain import domain_signals
    from trustaudit.scoring.score import score
    from trustaudit.scoring.textual import textual_signals

    rng = np.random.default_rng(0)
    n_domains = max(rows // 50, 1)
    dom = rng.integers(0, n_domains, rows)
    now = date(2026, 11, 1)
    words = [
        "trust",
        "river",
        "market",
        "best",
        "price",
        "review",
        "data",
        "model",
        "city",
        "report",
        "2024",
    ]
    texts = [" ".join(rng.choice(words, 40)) for _ in range(1000)]
    pages = pl.DataFrame(
        {
            "doc_id": [f"{i:016x}" for i in range(rows)],
            "url": [f"https://www.d{d}.example/p" for d in dom],
            "host": [f"www.d{d}.example" for d in dom],
            "registered_domain": [f"d{d}.example" for d in dom],
            "published": pl.Series(
                [now - timedelta(days=int(x)) for x in rng.integers(0, 900, rows)], dtype=pl.Date
            ),
            "word_count": rng.integers(50, 3000, rows),
            "text": [texts[i % 1000] for i in range(rows)],
            "paragraphs": [[texts[i % 1000][:60], texts[(i + 1) % 1000][:60]] for i in range(rows)],
        }
    )
    n_links = rows * 3
    hosts = np.array(["amzn.to", "www.example.org", "shop.example.com", "news.example.net"])
    link_host = hosts[rng.integers(0, 4, n_links)]
    links = pl.DataFrame(
        {
            "doc_id": pages["doc_id"].gather(rng.integers(0, rows, n_links)),
            "host": link_host,
            "href": [
                f"https://{h}/x?aff=1" if i % 7 == 0 else f"https://{h}/x"
                for i, h in enumerate(link_host)
            ],
            "rel": pl.Series([[] for _ in range(n_links)], dtype=pl.List(pl.String)),
        }
    )
    policy = Policy()
    created = {f"d{d}.example": now - timedelta(days=int(d % 4000)) for d in range(n_domains)}
    t0 = time.perf_counter()
    page_domain, _ = domain_signals(pages, policy, now=now, created=created, block={"d7.example"})
    t1 = time.perf_counter()
    flagged = flag_affiliate_links(links, policy)
    aff = affiliate_signals(pages, flagged, policy)
    t2 = time.perf_counter()
    tex = textual_signals(pages, policy)
    t3 = time.perf_counter()
    sig = (
        pages.select("doc_id", "url", "registered_domain")
        .join(page_domain, on="doc_id")
        .join(aff, on="doc_id")
        .join(tex, on="doc_id")
    )
    out = score(sig, policy)
    t4 = time.perf_counter()
    total = t4 - t0
    print(f"\n== signal + score stages on {rows:,} synthetic pages ({n_links:,} links), 2 cores")
    print(
        f"  domain {rows / (t1 - t0):,.0f} rows/s | affiliate {rows / (t2 - t1):,.0f} rows/s | "
        f"textual {rows / (t3 - t2):,.0f} rows/s | join+score {rows / (t4 - t3):,.0f} rows/s"
    )
    print(f"  all together {rows / total:,.0f} rows/s ({total:.2f} s; {out.height:,} scores)")


def bench_peer(shards: list[Path], our_pages: int, our_wall: float) -> None:
    py = REPO / ".venv-peer" / "bin" / "python"
    if not py.exists():
        print("\n== peer: datatrove not installed (make bench-peer creates .venv-peer); skipped")
        return
    t0 = time.perf_counter()
    res = subprocess.run(
        [str(py), str(HERE / "peer_datatrove.py"), *map(str, shards)],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        print(f"\n== peer: datatrove failed: {res.stderr.strip().splitlines()[-1:]}")
        return
    info = json.loads(res.stdout.strip().splitlines()[-1])
    print(
        "\n== peer: datatrove (WARC reader -> trafilatura -> Gopher repetition + quality, 2 workers)"
    )
    print(
        f"  {info['documents'] / wall:.1f} pages/s ({info['documents']} documents, {wall:.2f} s wall)"
    )
    print(
        f"  trustaudit audit with every signal on: {our_pages / our_wall:.1f} pages/s -> "
        f"{(our_pages / our_wall) / (info['documents'] / wall):.1f}x the peer"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument(
        "--replicas", type=int, default=8, help="mirror copies for the incremental bench"
    )
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument(
        "--corpus-pages", type=int, default=1_000_000, help="synthetic pages for corpus-scale"
    )
    ap.add_argument(
        "--only",
        choices=[
            "audit",
            "incremental",
            "signals",
            "peer",
            "hostile",
            "corpus-scale",
            "memory",
            "embed-cache",
        ],
        default=None,
        help="run one section (peer needs the audit section's figures, so it runs both)",
    )
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="trustaudit-bench-"))
    want = lambda name: args.only in (None, name)  # noqa: E731
    res = bench_audit(work) if want("audit") or want("peer") else None
    if want("incremental"):
        bench_incremental(work, args.replicas)
    if want("signals"):
        bench_signals(args.rows)
    if res is not None and want("peer") and not args.skip_peer:
        bench_peer(res["shards"], res["pages"], res["wall"])
    if want("hostile"):  # issue 15: every hostile input case through the CLI
        subprocess.run([sys.executable, str(Path(__file__).with_name("hostile.py"))], check=True)
    if want("corpus-scale"):  # issue 16: corpus signals batch by batch, local driver and Ray
        scale = [sys.executable, str(HERE / "corpus_scale.py"), "--work", str(work / "corpus")]
        subprocess.run([*scale, "--pages", str(args.corpus_pages)], check=True)
    if want("memory"):  # issue 16: peak RSS of audit over 1x and 10x the real pages
        memory = [sys.executable, str(HERE / "memory.py"), "--work", str(work / "memory")]
        subprocess.run([*memory, "--times", "1", "10", "--baseline"], check=True)
    if want("embed-cache"):  # what one worker holds per cached paragraph vector
        subprocess.run([sys.executable, str(HERE / "embed_cache.py")], check=True)


if __name__ == "__main__":
    main()
