"""The ≈800 real pages of ../shared/corpora as (url, html bytes), and WARC shards of them for benches."""

from __future__ import annotations

import csv
import gzip
import html
import io
import re
from collections.abc import Iterator
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def _stored_pages(shared: Path) -> Iterator[tuple[str, str, bytes]]:
    """(url, site, html) of every stored page; `site` is the manifest's host (www. dropped) or,
    for the readability suite, its siteName."""
    for corpus in ("trafilatura-pages", "article-extraction-benchmark"):
        with open(shared / corpus / "manifest.csv", newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                path = shared / corpus / row["path"]
                if path.is_file():
                    url = (
                        row["url"]
                        if row["url"].startswith(("http://", "https://"))
                        else f"https://{path.stem}.example/"
                    )
                    site = row.get("host", "").lower().removeprefix("www.")
                    yield url, site, gzip.decompress(path.read_bytes())
    with open(
        shared / "readability-test-pages" / "manifest.csv", newline="", encoding="utf-8"
    ) as fh:
        for row in csv.DictReader(fh):
            path = shared / "readability-test-pages" / row["path"]
            if path.is_file():
                yield (
                    f"https://readability-{row['name']}.example/",
                    "readability:" + row.get("siteName", "").lower(),
                    gzip.decompress(path.read_bytes()),
                )


_TITLE = re.compile(rb"(?is)<title[^>]*>(.*?)</title>")


def _title_of(page: bytes) -> str:
    m = _TITLE.search(page[:200_000])
    if not m:
        return ""
    text = html.unescape(m.group(1).decode("utf-8", "replace"))
    return " ".join(text.split()).lower()


def real_pages(shared: Path = SHARED, *, distinct: bool = False) -> Iterator[tuple[str, bytes]]:
    """Every real page with its URL (pages stored without one get a stable synthetic one).

    `distinct=True` keeps one copy of a page the corpora store twice (same site and same <title>:
    a test page saved once with its URL and once under a file name, or two captures of one
    article in the readability suite); the copy with a real URL wins. Two stored copies of one
    page are not a content farm, but syndication cannot tell them apart from one.
    """
    pages = list(_stored_pages(shared))
    keep = set(range(len(pages)))
    if distinct:
        seen: dict[tuple[str, str], int] = {}
        for i, (url, site, body) in enumerate(pages):
            title = _title_of(body)
            if not title or not site:
                continue
            key = (site, title)
            if key not in seen:
                seen[key] = i
                continue
            first = seen[key]
            if pages[first][0].endswith(".example/") and not url.endswith(".example/"):
                keep.discard(first)
                seen[key] = i
            else:
                keep.discard(i)
    for i, (url, _site, body) in enumerate(pages):
        if i in keep:
            yield url, body


def stored_twice(shared: Path = SHARED) -> list[str]:
    """URLs that `real_pages(distinct=True)` leaves out (second stored copies)."""
    kept = {url for url, _ in real_pages(shared, distinct=True)}
    return [url for url, _, _ in _stored_pages(shared) if url not in kept]


def _write_shards(paths: list[Path], pages: Iterator[tuple[str, bytes]]) -> None:
    """Write (url, html) pages round-robin into gzipped WARC files as response records."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    handles = [open(p, "wb") for p in paths]  # noqa: SIM115 - closed below
    writers = [WARCWriter(h, gzip=True) for h in handles]
    try:
        for i, (url, html) in enumerate(pages):
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1"
            )
            w = writers[i % len(paths)]
            w.write_record(
                w.create_warc_record(
                    url, "response", payload=io.BytesIO(html), http_headers=headers
                )
            )
    finally:
        for h in handles:
            h.close()


def write_warc_shards(out_dir: Path, n_shards: int = 2, *, distinct: bool = False) -> list[Path]:
    """Write the real pages as `n_shards` gzipped WARC files (response records); reuse when present."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"real-{i:02d}.warc.gz" for i in range(n_shards)]
    if not all(p.exists() for p in paths):
        _write_shards(paths, real_pages(distinct=distinct))
    return paths


def write_mirror_shards(out_dir: Path, replicas: int = 4, per_replica: int = 2) -> list[Path]:
    """A nightly-crawl-sized corpus: the real pages `replicas` times, each copy on its own mirror
    host (`https://m<k>.<host>/...`, so its own registered domain and URL), in
    `replicas * per_replica` WARC shards. Mirrors are what near-duplicate detection is for, and
    every copy is a distinct record to extract (its URL is part of the extraction cache key)."""
    from urllib.parse import urlsplit, urlunsplit

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"mirror-{i:02d}.warc.gz" for i in range(replicas * per_replica)]
    if all(p.exists() for p in paths):
        return paths
    pages = list(real_pages())
    for k in range(replicas):
        mirrored = (
            (urlunsplit(urlsplit(url)._replace(netloc=f"m{k}.{urlsplit(url).netloc}")), html)
            for url, html in pages
        )
        _write_shards(paths[k * per_replica : (k + 1) * per_replica], mirrored)
    return paths


def audit_real_pages(
    out: Path,
    *,
    workers: int = 1,
    overrides: dict | None = None,  # type: ignore[type-arg]
    distinct: bool = False,
) -> Path:
    """Audit the real pages (one WARC shard set under `out/warc`) into `out/run`; returns the run.
    `distinct=True`: one copy of each page the corpora store twice (`out/warc-distinct`,
    `out/run-distinct`)."""
    from datetime import date

    from trustaudit.pipeline import AuditOptions, audit
    from trustaudit.policy import load_policy

    suffix = "-distinct" if distinct else ""
    shards = write_warc_shards(out / f"warc{suffix}", n_shards=2, distinct=distinct)
    run = out / f"run{suffix}"
    audit(
        AuditOptions(
            inputs=[str(p) for p in shards], out=run, workers=workers, now=date(2026, 11, 1)
        ),
        load_policy(None, overrides=overrides or {}, environ={}),
    )
    return run


def synthetic_urls(shared: Path = SHARED) -> set[str]:
    """URLs (as real_pages names them) of the readability suite's synthetic edge cases: the pages
    under 8 KB written by its authors (shared/corpora README), not pages of the web."""
    out = set()
    with open(
        shared / "readability-test-pages" / "manifest.csv", newline="", encoding="utf-8"
    ) as fh:
        for row in csv.DictReader(fh):
            if int(row["bytes"]) < 8000:
                out.add(f"https://readability-{row['name']}.example/")
    return out


def real_page_report(run: Path) -> dict[str, object]:
    """Quarantine share of the real pages (the readability suite's synthetic edge cases counted
    apart), the reasons of each quarantine, the score spread."""
    import polars as pl

    everything = pl.read_parquet(run / "scores.parquet")
    synthetic = everything.filter(pl.col("url").is_in(sorted(synthetic_urls())))
    s = everything.filter(~pl.col("url").is_in(sorted(synthetic_urls())))
    q = s.filter(pl.col("band") == "quarantine")
    single_aff = q.filter(pl.col("reasons").list.contains("AFFILIATE_DENSE_NO_DISCLOSURE")).height
    return {
        "synthetic_pages": synthetic.height,
        "synthetic_quarantined": synthetic.filter(pl.col("band") == "quarantine").height,
        "pages": s.height,
        "quarantined": q.height,
        "quarantined_share": round(q.height / max(s.height, 1), 4),
        "bands": dict(s.group_by("band").len().iter_rows()),
        "trust_mean": round(float(s["trust_score"].mean() or 0), 3),
        "trust_std": round(float(s["trust_score"].std() or 0), 3),
        "affiliate_quarantines": single_aff,
        # the two named failures: one affiliate link, or a list-shaped page
        "single_affiliate_link_quarantines": q.join(
            pl.read_parquet(run / "signals.parquet", columns=["doc_id", "affiliate_links"]),
            on="doc_id",
        )
        .filter(
            pl.col("reasons").list.contains("AFFILIATE_DENSE_NO_DISCLOSURE")
            & (pl.col("affiliate_links") <= 1)
        )
        .height,
        "topic_quarantines_of_list_shaped_pages": q.join(
            pl.read_parquet(
                run / "signals.parquet", columns=["doc_id", "coherence_structure_share"]
            ),
            on="doc_id",
        )
        .filter(
            pl.col("reasons").list.contains("COHERENCE_TOPIC_MIX")
            & (pl.col("coherence_structure_share") >= 0.3)
        )
        .height,
        "false_quarantines": [
            {"url": r["url"], "trust": r["trust_score"], "reasons": r["reasons"]}
            for r in q.select("url", "trust_score", "reasons").to_dicts()
        ],
        "reason_counts": dict(
            s.select(pl.col("reasons").explode()).to_series().value_counts(sort=True).iter_rows()
        ),
    }


def main(argv: list[str] | None = None) -> int:
    """nice .venv/bin/python bench/realpages.py runs/real [--rescore]: audit + report as JSON."""
    import argparse
    import json
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--rescore", action="store_true", help="reuse out/run's ingest; signals again")
    ap.add_argument(
        "--distinct",
        action="store_true",
        help="one copy of each page the corpora store twice (same site and title): out/run-distinct",
    )
    args = ap.parse_args(argv)
    run = args.out / ("run-distinct" if args.distinct else "run")
    if args.rescore and (run / "pages.parquet").exists():
        from datetime import date

        from trustaudit.io.rundir import RunDir
        from trustaudit.pipeline import compute_signals, score_run
        from trustaudit.policy import load_policy

        rd, policy = RunDir.at(run), load_policy(None)  # TRUSTAUDIT_* variables apply
        compute_signals(rd, policy, now=date(2026, 11, 1))
        score_run(rd, policy)
    else:
        run = audit_real_pages(args.out, distinct=args.distinct)
    report = real_page_report(run)
    if args.distinct:
        report["left_out_stored_twice"] = stored_twice()
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
