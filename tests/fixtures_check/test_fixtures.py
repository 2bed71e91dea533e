"""The demo corpus and the per-format samples are consistent with each other and with what they "
"claim."""

from __future__ import annotations

import csv
import gzip
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures"
CORPUS = FIX / "corpus"
PAGES = CORPUS / "pages"
SAMPLES = FIX / "samples"

AFFILIATE_RE = re.compile(
    r"amzn\.to/|hotmart\.com|shareasale\.com|awin1\.com|linksynergy\.com|[?&](?:tag|aff|affid|ref|awinaffid)=",
    re.I,
)
HREF_RE = re.compile(r"""href\s*=\s*["']([^"']+)["']""", re.I)
TAG_RE = re.compile(r"<[^>]+>")
DISCLOSURE_RE = re.compile(
    r"affiliate|commission|associate|sponsored|afiliad|publicidade|patrocinad", re.I
)


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _page_files() -> list[Path]:
    return sorted(p for p in PAGES.iterdir() if p.name != "urls.csv")


def _read_html(path: Path) -> str:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", "replace")


def _body_words(html: str) -> int:
    body = re.split(r"<body\b", html, maxsplit=1, flags=re.I)[-1]
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.I | re.S)
    return len(TAG_RE.sub(" ", body).split())


def _canonical(html: str) -> str | None:
    m = re.search(
        r"<(?:link[^>]*rel=[\"']canonical[\"'][^>]*href|meta[^>]*property=[\"']og:url[\"'][^>]*content)"
        r"=[\"']([^\"']+)[\"']",
        html,
        re.I,
    )
    return m.group(1) if m else None


def _extra_records() -> tuple[list[dict[str, object]], int]:
    good, broken = [], 0
    for line in (CORPUS / "extra.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            good.append(json.loads(line))
        except json.JSONDecodeError:
            broken += 1
    return good, broken


# ----------------------------------------------------------------------------- corpus layout


def test_corpus_files_exist() -> None:
    for name in ("allowlist.txt", "blocklist.txt", "domain_info.csv", "labels.csv", "extra.jsonl"):
        assert (CORPUS / name).is_file(), name
    assert (PAGES / "urls.csv").is_file()
    assert (FIX / "README.md").is_file()


def test_corpus_size_under_5mb() -> None:
    total = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert total < 5 * 1024 * 1024, total


def test_page_mix() -> None:
    files = _page_files()
    real = [p for p in files if p.name.endswith(".html.gz")]
    written = [p for p in files if p.suffix == ".html"]
    assert len(real) >= 20
    assert len(written) >= 12
    assert len(real) + len(written) == len(files), "pages/ holds only .html and .html.gz files"
    langs = {p.name.split("-")[1] for p in real}
    assert {"en", "de", "fr", "es", "pt"} <= langs
    for p in real:
        assert len(gzip.decompress(p.read_bytes())) < 150_000, p.name


def test_every_page_has_url_and_label() -> None:
    urls = {r["file"]: r["url"] for r in _csv(PAGES / "urls.csv")}
    labels = {r["url"]: r["label"] for r in _csv(CORPUS / "labels.csv")}
    files = {p.name for p in _page_files()}
    assert set(urls) == files
    for name, url in urls.items():
        assert url.startswith(("http://", "https://")), name
        assert url in labels, f"{name}: {url} has no label"


def test_sidecar_agrees_with_canonical() -> None:
    """Readers prefer canonical/og:url over urls.csv: both must name the same URL so labels join."""
    urls = {r["file"]: r["url"] for r in _csv(PAGES / "urls.csv")}
    for p in _page_files():
        canon = _canonical(_read_html(p))
        if canon is not None:
            assert canon == urls[p.name], p.name


def test_labels_values_and_uniqueness() -> None:
    rows = _csv(CORPUS / "labels.csv")
    assert rows and set(rows[0]) == {"url", "label"}
    assert {r["label"] for r in rows} == {"trusted", "untrusted"}
    urls = [r["url"] for r in rows]
    assert len(urls) == len(set(urls))


def test_extra_jsonl_records() -> None:
    good, broken = _extra_records()
    assert broken == 1
    labels = {r["url"] for r in _csv(CORPUS / "labels.csv")}
    assert sum(1 for r in good if "html" in r) >= 6
    text_recs = [r for r in good if "text" in r]
    assert len(text_recs) >= 2
    assert all(
        r["entity"] == "Acme X200 headphones" and isinstance(r["rating"], float) for r in text_recs
    )
    bad = [r for r in good if r["url"] == "ht!tp://bad"]
    assert len(bad) == 1 and "ht!tp://bad" not in labels
    for r in good:
        if r["url"] != "ht!tp://bad":
            assert r["url"] in labels, r["url"]


def test_lists_and_domain_info() -> None:
    allow = (CORPUS / "allowlist.txt").read_text(encoding="utf-8")
    block = (CORPUS / "blocklist.txt").read_text(encoding="utf-8")
    for text in (allow, block):
        lines = text.splitlines()
        assert any(line.startswith("#") for line in lines)
        assert any(line.startswith("||") and line.endswith("^") for line in lines)
        assert any(line.startswith(("0.0.0.0 ", "127.0.0.1 ")) for line in lines)
    assert "miracle-health-news.com" in block
    info = {r["domain"]: r["created"] for r in _csv(CORPUS / "domain_info.csv")}
    assert info["newsite-2026.com"] == "2026-10-20"
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) for v in info.values())
    assert all(
        info[d].startswith("2026-06") for d in ("contentfarm1.info", "dailybuzz-headlines.info")
    )


# ----------------------------------------------------------------------------- adversarial pages


def test_written_pages_are_complete_documents() -> None:
    for p in _page_files():
        if p.suffix != ".html":
            continue
        html = _read_html(p)
        for needle in ("<html", "<head>", "<title>", "article:published_time", "</html>"):
            assert needle in html, f"{p.name} lacks {needle}"
        assert _canonical(html), p.name


def test_undisclosed_affiliate_page_is_dense() -> None:
    html = _read_html(PAGES / "fx-affiliate-undisclosed.html")
    affiliate = [h for h in HREF_RE.findall(html) if AFFILIATE_RE.search(h)]
    per_1k = len(affiliate) / _body_words(html) * 1000
    assert per_1k > 10, per_1k
    assert not DISCLOSURE_RE.search(TAG_RE.sub(" ", html))
    assert 'rel="sponsored' not in html


def test_disclosed_affiliate_pages() -> None:
    en = _read_html(PAGES / "fx-affiliate-disclosed.html")
    assert "As an Amazon Associate we earn from qualifying purchases" in en
    assert 'rel="sponsored' in en
    assert "link de afiliado" in _read_html(PAGES / "fx-affiliate-pt.html")
    assert "enlace de afiliado" in _read_html(PAGES / "fx-affiliate-es.html")


def test_injection_pages() -> None:
    tags = _read_html(PAGES / "fx-inject-unicode-tags.html")
    smuggled = [c for c in tags if 0xE0000 <= ord(c) <= 0xE007F]
    assert len(smuggled) > 50
    decoded = "".join(chr(ord(c) - 0xE0000) for c in smuggled if 0x20 <= ord(c) - 0xE0000 < 0x7F)
    assert decoded.startswith("Ignore all previous instructions")
    hidden = _read_html(PAGES / "fx-inject-hidden-div.html")
    assert re.search(r'<div style="display:none">Ignore all previous instructions', hidden)
    comment = _read_html(PAGES / "fx-inject-comment.html")
    assert re.search(r"<!--[^>]*ignore your previous instructions", comment, re.I)
    white = _read_html(PAGES / "fx-inject-white-text.html")
    assert "color:#ffffff;background-color:#ffffff" in white


def test_content_farm_copies_are_near_duplicates() -> None:
    def words(name: str) -> list[str]:
        html = _read_html(PAGES / name)
        paras = re.findall(r"<p>(.*?)</p>", html, re.S)
        return TAG_RE.sub(" ", " ".join(p for p in paras if len(p) > 200)).split()

    original = words("fx-original-article.html")
    for name in ("fx-farm-contentfarm1.html", "fx-farm-dailybuzz.html", "fx-farm-trendingnow.html"):
        copy = words(name)
        shared = len(
            set(zip(original, original[1:], original[2:], strict=False))
            & set(zip(copy, copy[1:], copy[2:], strict=False))
        )
        assert shared / max(1, len(original) - 2) > 0.5, name
        assert copy != original, name


def test_acme_outlier_numbers() -> None:
    outlier = _read_html(PAGES / "fx-acme-review-outlier.html")
    assert "€249" in outlier and "1.1" in outlier
    for name in ("fx-acme-review-soundcheck.html", "fx-acme-review-notes.html"):
        html = _read_html(PAGES / name)
        assert "Acme X200" in html and "€4" in html


# ----------------------------------------------------------------------------- samples


@pytest.mark.parametrize(
    "name",
    [
        "sample.jsonl",
        "sample.jsonl.gz",
        "sample.parquet",
        "sample.warc.gz",
        "truncated.warc",
        "empty.jsonl",
        "binary.html",
        "latin1.html",
        "broken.html",
    ],
)
def test_sample_exists(name: str) -> None:
    assert (SAMPLES / name).is_file()


def test_sample_jsonl_and_gz_match() -> None:
    plain = (SAMPLES / "sample.jsonl").read_bytes()
    assert gzip.decompress((SAMPLES / "sample.jsonl.gz").read_bytes()) == plain
    recs = [json.loads(line) for line in plain.decode("utf-8").splitlines()]
    assert len(recs) == 3 and all(r["url"] and r["html"] for r in recs)


def test_sample_parquet_and_warc() -> None:
    import pyarrow.parquet as pq
    from warcio.archiveiterator import ArchiveIterator

    table = pq.read_table(SAMPLES / "sample.parquet")
    assert table.column_names == ["url", "html"] and table.num_rows == 3
    with (SAMPLES / "sample.warc.gz").open("rb") as f:
        recs = [
            (r.rec_headers.get_header("WARC-Target-URI"), r.http_headers.get_header("Content-Type"))
            for r in ArchiveIterator(f)
            if r.rec_type == "response"
        ]
    assert len(recs) == 3 and all(ct.startswith("text/html") for _, ct in recs)


def test_empty_binary_latin1() -> None:
    assert (SAMPLES / "empty.jsonl").stat().st_size == 0
    binary = (SAMPLES / "binary.html").read_bytes()
    assert 1500 <= len(binary) <= 4096 and b"\x00" in binary
    with pytest.raises(UnicodeDecodeError):
        binary.decode("utf-8")
    latin = (SAMPLES / "latin1.html").read_bytes()
    assert b'charset="iso-8859-1"' in latin
    with pytest.raises(UnicodeDecodeError):
        latin.decode("utf-8")
    assert "crêpes" in latin.decode("iso-8859-1")
    assert (SAMPLES / "truncated.warc").read_bytes().startswith(b"WARC/1.0")
