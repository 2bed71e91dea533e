"""Builders for tiny test corpora (HTML pages, JSONL, WARC) written on the fly."""

from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpora"

_TOPICS = (
    "budget committee bridge library bicycle council funding amendment debate vote",
    "river harbor ferry cargo tide pier lighthouse storm sailors dock",
    "orchard harvest apples cider frost pruning bees blossom farmers market",
    "telescope comet orbit galaxy nebula astronomers eclipse lens observatory sky",
    "violin orchestra rehearsal conductor concert symphony tempo audience hall score",
    "glacier valley hikers trail summit snow alpine hut ridge weather",
)


def _prose(title: str, i: int) -> str:
    """Distinct, plausible prose per title, so unrelated test pages are not near-duplicates."""
    import random

    rng = random.Random(f"{title}-{i}")
    words = _TOPICS[sum(map(ord, title)) % len(_TOPICS)].split()
    sentences = []
    for _ in range(4):
        picked = rng.sample(words, 6)
        sentences.append(
            f"The {picked[0]} and the {picked[1]} met the {picked[2]} near the {picked[3]}, "
            f"while the {picked[4]} watched the {picked[5]} {rng.randint(2, 99)} times."
        )
    return f"{title}: " + " ".join(sentences)


def article_html(
    title: str = "A plain article",
    *,
    url: str | None = "https://news.example.org/a",
    published: str | None = "2026-10-01",
    paragraphs: int = 6,
    body_extra: str = "",
    links: list[tuple[str, str]] | None = None,
    lang: str = "en",
) -> str:
    """A realistic small article page (enough words for trafilatura to keep it)."""
    head = [f"<title>{title}</title>", '<meta charset="utf-8">']
    if url:
        head.append(f'<link rel="canonical" href="{url}">')
    if published:
        head.append(f'<meta property="article:published_time" content="{published}T08:00:00Z">')
    paras = "\n".join(f"<p>{_prose(title, i)}</p>" for i in range(paragraphs))
    anchors = "".join(f'<a href="{h}">{t}</a> ' for h, t in (links or []))
    return (
        f'<!doctype html><html lang="{lang}"><head>{"".join(head)}</head><body>'
        f"<nav><a href='/'>Home</a></nav><article><h1>{title}</h1>{paras}<p>{anchors}</p>{body_extra}"
        "</article><footer>© Example</footer></body></html>"
    )


def write_jsonl(path: Path, records: list[object], *, raw_lines: list[str] | None = None) -> Path:
    buf = io.StringIO()
    for r in records:
        buf.write(json.dumps(r) + "\n")
    for line in raw_lines or []:
        buf.write(line + "\n")
    data = buf.getvalue().encode()
    path.write_bytes(gzip.compress(data, mtime=0) if path.name.endswith(".gz") else data)
    return path


def write_warc(
    path: Path,
    pages: list[tuple[str, str | bytes]],
    *,
    status: str = "200 OK",
    charset: str = "utf-8",
) -> Path:
    """A WARC of response records (gzipped when `path` ends in .gz); a page given as bytes is
    written as it is, under the header's `charset`."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=path.name.endswith(".gz"))
        for url, html in pages:
            ctype = f"text/html; charset={charset}"
            headers = StatusAndHeaders(status, [("Content-Type", ctype)], protocol="HTTP/1.1")
            body = html if isinstance(html, bytes) else html.encode()
            rec = writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=headers
            )
            writer.write_record(rec)
    return path


def collect(source: Any, batch_size: int = 64, *, cap: int = 0) -> tuple[list[Any], list[Any]]:
    """The records and the error rows a source's batches give; with `cap`, failing (instead of
    hanging) once they reach that many, as a reader that goes round in a loop would."""
    rows: list[Any] = []
    errors: list[Any] = []
    for b in source.batches(batch_size):
        rows += b.records.to_pylist()
        errors += b.errors
        assert not cap or len(rows) + len(errors) < cap, "the reader goes round in a loop"
    return rows, errors


AUDIT_NOW = ["--now", "2026-11-01"]


def audit_cli(runner: Any, app: Any, *args: str, workers: str = "1") -> Any:
    """`trustaudit audit ARGS` through typer's runner, quiet, with a fixed clock (AUDIT_NOW)."""
    return runner.invoke(app, ["audit", *args, "--workers", workers, "-q", *AUDIT_NOW])


def audit_pages(
    runner: Any, app: Any, tmp_path: Path, pages: dict[str, str]
) -> tuple[Path, Any, dict[str, str]]:
    """`trustaudit audit` over a folder of `pages` (file name -> HTML): the run folder, its pages
    frame (accounting checked, `balanced_run`) and each URL's band."""
    import polars as pl

    folder = tmp_path / "pages"
    folder.mkdir()
    for name, html in pages.items():
        (folder / name).write_text(html)
    run = tmp_path / "run"
    res = audit_cli(runner, app, str(folder), "--out", str(run))
    assert res.exit_code == 0, res.output
    pages_df, _ = balanced_run(run)
    scores = pl.read_parquet(run / "scores.parquet")
    return run, pages_df, dict(zip(scores["url"].to_list(), scores["band"].to_list(), strict=True))


def assert_quarantined_and_explained(
    runner: Any, app: Any, tmp_path: Path, cases: dict[str, tuple[str, str]], said: str
) -> None:
    """Through the CLI, for each `cases` host -> (page fragment, obfuscation): `audit` quarantines
    the page holding it (an ordinary page beside them is not), its finding names the obfuscation
    and carries `said` decoded (compared without case: a styled fold may be capitals), and
    `explain` names the obfuscation."""
    import polars as pl

    pages = {
        f"{host}.html": article_html(url=f"https://{host}.example.org/a", body_extra=fragment)
        for host, (fragment, _) in cases.items()
    }
    pages["ok.html"] = article_html(url="https://ok.example.org/a")
    run, pages_df, band = audit_pages(runner, app, tmp_path, pages)
    assert band["https://ok.example.org/a"] != "quarantine"
    for host, (_, obfuscation) in cases.items():
        url = f"https://{host}.example.org/a"
        assert band[url] == "quarantine", url
        row = pages_df.filter(pl.col("url") == url).to_dicts()[0]
        found = [
            f
            for f in row["injection_findings"]
            if obfuscation in (f["obfuscation"] or "").split("+")
        ]
        assert found and said.lower() in found[0]["decoded"].lower(), row["injection_findings"]
        out = runner.invoke(app, ["explain", str(run), url, "--json"])
        assert out.exit_code == 0, out.output
        assert obfuscation in json.dumps(json.loads(out.output))


def balanced_run(run: Path) -> tuple[Any, Any]:
    """A run's pages and errors frames, after checking that its accounting balanced (every input
    record a page or an error row)."""
    import polars as pl

    acc = json.loads((run / "manifest.json").read_text())["stages"]["ingest"]["accounting"]
    assert acc["balanced"], acc
    return pl.read_parquet(run / "pages.parquet"), pl.read_parquet(run / "errors.parquet")


def zeros_member(head: bytes, n: int, tail: bytes = b"") -> bytes:
    """One gzip member: `head`, `n` zero bytes, `tail` (n / 1000 bytes of gzip or so)."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [z.compress(head)]
    block = b"\0" * (1 << 20)
    for i in range(0, n, len(block)):
        out.append(z.compress(block[: min(len(block), n - i)]))
    return b"".join([*out, z.compress(tail), z.flush()])


def compressed_whole(data: bytes, codec: str) -> bytes:
    """`data` compressed whole, as one stream, with `codec` (bzip2, xz or zstd) at its fastest
    level: 16 MiB of zeros takes 0.1 s or less and a few KB."""
    import bz2
    import lzma

    if codec == "bzip2":
        return bz2.compress(data, 1)
    if codec == "xz":
        return lzma.compress(data, preset=0)
    import pyarrow as pa

    return pa.compress(data, "zstd", asbytes=True)  # type: ignore[no-any-return]


def mixed_page_parquet(
    path: Path,
    good: list[str],
    *,
    codec: str = "zstd",
    huge: int = 2_500_000,
    small: int = 300,
    version: str = "1.0",
) -> Path:
    """A Parquet file of three row groups: `good` html (two rows, https://g.example.org/0 and /1),
    then `small` + 1 rows (https://m.example.org/0…) whose html is one plain data page holding
    `<p>` + `huge` bytes at the group's middle row among cells of about 20 bytes (so its average
    cell is small), then `good` again (/2 and /3). `codec`, `version`: the writer's."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("url", pa.string()), ("html", pa.string())])
    html = [f"<p>small page {i}</p>" for i in range(small + 1)]
    html[small // 2] = "<p>" + "A" * huge
    urls = [f"https://m.example.org/{i}" for i in range(small + 1)]
    with pq.ParquetWriter(
        path,
        schema,
        compression=codec,
        use_dictionary=False,
        data_page_size=1 << 30,
        write_batch_size=1 << 20,
        data_page_version=version,
    ) as w:
        for first, rows in ((0, good), (None, html), (2, good)):
            if first is None:
                w.write_table(pa.table({"url": urls, "html": rows}, schema=schema))
                continue
            own = [f"https://g.example.org/{first + i}" for i in range(len(rows))]
            w.write_table(pa.table({"url": own, "html": rows}, schema=schema))
    return path


def spy_arrow_reads(monkeypatch: Any) -> list[tuple[int, int, tuple[str, ...] | None]]:
    """Record what pyarrow's ParquetFile is asked to decode, (the file's rows, row group, columns
    or None for all), through `iter_batches` and `read_row_group`: Arrow decodes each page of
    what it is asked for whole."""
    import pyarrow.parquet as pq

    calls: list[tuple[int, int, tuple[str, ...] | None]] = []
    iter_batches, read_row_group = pq.ParquetFile.iter_batches, pq.ParquetFile.read_row_group

    def batches(self: Any, *args: Any, **kw: Any) -> Any:
        groups = kw.get("row_groups", args[1] if len(args) > 1 else None)
        columns = kw.get("columns", args[2] if len(args) > 2 else None)
        for g in range(self.num_row_groups) if groups is None else groups:
            calls.append((self.metadata.num_rows, g, None if columns is None else tuple(columns)))
        return iter_batches(self, *args, **kw)

    def group(self: Any, i: int, *args: Any, **kw: Any) -> Any:
        columns = kw.get("columns", args[0] if args else None)
        calls.append((self.metadata.num_rows, i, None if columns is None else tuple(columns)))
        return read_row_group(self, i, *args, **kw)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", batches)
    monkeypatch.setattr(pq.ParquetFile, "read_row_group", group)
    return calls


def arrow_decoded(calls: list[Any], rows: int, group: int, column: str) -> bool:
    """Whether `spy_arrow_reads` saw pyarrow asked for `column` of row group `group` of the file
    of `rows` rows."""
    return any(
        n == rows and g == group and (cols is None or column in cols) for n, g, cols in calls
    )


class NoSeek(io.RawIOBase):
    """A file that cannot seek (not even back), as an object-storage stream or a pipe."""

    def __init__(self, data: bytes) -> None:
        self._src = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[no-untyped-def]
        chunk = self._src.read(len(b))
        b[: len(chunk)] = chunk
        return len(chunk)
