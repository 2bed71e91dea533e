"""Dev sets for the corpus signals, built from the real pages in ../shared/corpora.

- real pages: paragraphs from `<p>` elements (selectolax; trafilatura with `--trafilatura`),
- stitched pages: the same number of paragraphs, each taken from a different unrelated page,
- repetitive pages: two paragraphs repeated (mass repetition),
- spun copies: a page's text with a fraction of words replaced, published on other domains.

Pages stay local (publishers' copyright): nothing here is written into the package or docs.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import random
import re
from pathlib import Path

import polars as pl

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"
SETS = {
    "trafilatura-pages": "path",
    "article-extraction-benchmark": "path",
    "readability-test-pages": "path",
}
_WS = re.compile(r"\s+")


def _paragraphs_selectolax(html: bytes) -> tuple[str, list[str]]:
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html.decode("utf-8", "replace"))
    title_node = tree.css_first("title")
    title = _WS.sub(" ", title_node.text()).strip() if title_node else ""
    paras = [_WS.sub(" ", p.text(separator=" ")).strip() for p in tree.css("p")]
    return title, [p for p in paras if p]


def _paragraphs_trafilatura(html: bytes) -> tuple[str, list[str]]:
    import trafilatura

    doc = trafilatura.bare_extraction(
        html.decode("utf-8", "replace"), fast=True, with_metadata=True
    )
    if doc is None:
        return "", []
    text = doc.text or ""
    return doc.title or "", [p.strip() for p in text.split("\n") if p.strip()]


def load_real_pages(*, use_trafilatura: bool = False, limit: int | None = None) -> pl.DataFrame:
    """doc_id, url, host, registered_domain, title, paragraphs, text for every readable page."""
    from trustaudit.scoring.domain import registered_domain_of

    split = _paragraphs_trafilatura if use_trafilatura else _paragraphs_selectolax
    rows: list[dict[str, object]] = []
    for name in SETS:
        root = CORPORA / name
        with open(root / "manifest.csv", encoding="utf-8") as fh:
            for rec in csv.DictReader(fh):
                path = root / rec["path"]
                if not path.is_file():
                    continue
                url = rec.get("url") or f"file://{name}/{rec['path']}"
                host = rec.get("host") or f"{name}.invalid"
                title, paras = split(gzip.decompress(path.read_bytes()))
                rows.append(
                    {
                        "doc_id": hashlib.sha256(url.encode()).hexdigest()[:16],
                        "url": url,
                        "host": host,
                        "registered_domain": registered_domain_of(host) or host,
                        "title": title,
                        "paragraphs": paras,
                        "text": "\n".join(paras),
                    }
                )
                if limit and len(rows) >= limit:
                    return pl.DataFrame(rows)
    return pl.DataFrame(rows).unique("doc_id", keep="first", maintain_order=True)


def usable(pages: pl.DataFrame, *, min_chars: int = 40, min_paragraphs: int = 6) -> pl.DataFrame:
    """Pages with enough real paragraphs to say anything about coherence."""
    n = pl.col("paragraphs").list.eval(pl.element().str.len_chars() >= min_chars).list.sum()
    return pages.filter(n >= min_paragraphs)


def stitched(
    pages: pl.DataFrame, *, seed: int = 7, min_chars: int = 40, by: str | None = None
) -> pl.DataFrame:
    """For each page, a page with as many usable paragraphs, each from a different other page
    (of the same `by` group, e.g. language, when given: a content farm stitches one language)."""
    rng = random.Random(seed)
    pools = [
        [p for p in ps if len(p.strip()) >= min_chars] for ps in pages.get_column("paragraphs")
    ]
    groups = pages.get_column(by).to_list() if by else [None] * pages.height
    out: list[dict[str, object]] = []
    for i, (doc_id, own) in enumerate(zip(pages["doc_id"], pools, strict=True)):
        donors = [j for j in range(len(pools)) if j != i and groups[j] == groups[i]]
        others = rng.sample(donors, k=min(len(own), len(donors)))
        paras = [rng.choice(pools[j]) for j in others if pools[j]]
        row: dict[str, object] = {"doc_id": f"st-{doc_id}", "paragraphs": paras}
        if by:
            row[by] = groups[i]
        out.append(row)
    return pl.DataFrame(out)


def repetitive(pages: pl.DataFrame, *, copies: int = 6, min_chars: int = 40) -> pl.DataFrame:
    """Pages whose usable paragraphs are two paragraphs repeated `copies` times (spam templates)."""
    out = []
    for doc_id, ps in zip(pages["doc_id"], pages["paragraphs"], strict=True):
        good = [p for p in ps if len(p.strip()) >= min_chars][:2]
        out.append({"doc_id": f"rep-{doc_id}", "paragraphs": good * copies})
    return pl.DataFrame(out)


_WORD = re.compile(r"\S+")


def spin(text: str, fraction: float, rng: random.Random, vocab: list[str]) -> str:
    """Replace `fraction` of the words with random vocabulary words (a crude article spinner)."""
    words = _WORD.findall(text)
    for i in range(len(words)):
        if rng.random() < fraction:
            words[i] = rng.choice(vocab)
    return " ".join(words)


def template_spam(pages: pl.DataFrame, *, copies: int = 8, min_chars: int = 40) -> pl.DataFrame:
    """Doorway-page spam: one paragraph repeated with a single word changed per copy."""
    fillers = [
        "Berlin",
        "Lisbon",
        "Madrid",
        "Boston",
        "Austin",
        "Denver",
        "Munich",
        "Porto",
        "Lyon",
    ]
    out = []
    for doc_id, ps in zip(pages["doc_id"], pages["paragraphs"], strict=True):
        good = [p for p in ps if len(p.strip()) >= min_chars][:1]
        paras = [f"{good[0]} {fillers[i % len(fillers)]}" for i in range(copies)] if good else []
        out.append({"doc_id": f"spam-{doc_id}", "paragraphs": paras})
    return pl.DataFrame(out, schema={"doc_id": pl.String, "paragraphs": pl.List(pl.String)})
