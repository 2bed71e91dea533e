"""Readers: every input format, every kind of damage -> records or one-line error rows."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import SHARED, article_html, collect, write_jsonl, write_warc

from trustaudit.errors import UsageError
from trustaudit.io.readers import detect_kind, open_source, open_sources


def test_folder_reads_html_and_gz_with_sidecar_and_reports_bad_files(html_folder: Path) -> None:
    rows, errors = collect(open_source(html_folder))
    by_file = {r["source_file"]: r for r in rows}
    assert set(by_file) == {"a.html", "b.html", "c.html.gz", "binary.html"}
    assert by_file["b.html"]["url"] == "https://beta.example.net/b"
    assert by_file["b.html"]["url_origin"] == "sidecar"
    assert by_file["c.html.gz"]["url"].startswith("file://")
    assert b"Gamma" in by_file["c.html.gz"]["body"]  # gunzipped
    assert [(e.code, e.offset) for e in errors] == [
        ("EMPTY_FILE", 4)
    ]  # sorted: a, b, binary, c, empty
    assert "empty.html" in errors[0].message


def test_folder_batches_are_deterministic(html_folder: Path) -> None:
    a = [b.records.column("offset").to_pylist() for b in open_source(html_folder).batches(2)]
    b = [b.records.column("offset").to_pylist() for b in open_source(html_folder).batches(2)]
    assert a == b and len(a) >= 2


def test_corrupt_gzip_in_folder_is_an_error_row(tmp_path: Path) -> None:
    good = gzip.compress(article_html().encode(), mtime=0)
    (tmp_path / "t.html.gz").write_bytes(good[: len(good) // 2])
    rows, errors = collect(open_source(tmp_path))
    assert rows == [] and [e.code for e in errors] == ["GZIP_CORRUPT"]


def test_jsonl_keeps_extra_fields_and_reports_broken_lines(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"url": "https://a.example/1", "html": article_html(), "entity": "X200", "rating": 4.5},
            {"url": "https://a.example/2", "text": "only text here", "meta": {"k": 1}},
            {"url": "https://a.example/3"},
            [1, 2],
        ],
        raw_lines=['{"url": "https://a.example/4", "html": "<p>unterminated'],
    )
    rows, errors = collect(open_source(path))
    assert [r["offset"] for r in rows] == [1, 2]
    assert rows[0]["entity"] == "X200" and rows[0]["rating"] == 4.5
    assert rows[1]["given_text"] == "only text here" and rows[1]["body"] is None
    assert rows[1]["meta"] == '{"k": 1}'
    assert [(e.code, e.offset) for e in errors] == [
        ("MISSING_FIELDS", 3),
        ("NOT_AN_OBJECT", 4),
        ("JSON_DECODE", 5),
    ]


def test_jsonl_gz_truncated_keeps_what_came_before(tmp_path: Path) -> None:
    full = tmp_path / "full.jsonl.gz"
    write_jsonl(
        full, [{"url": f"https://a.example/{i}", "text": "x " * 2000 + str(i)} for i in range(50)]
    )
    data = full.read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    rows, errors = collect(open_source(cut))
    assert 0 < len(rows) < 50
    assert [e.code for e in errors] == ["GZIP_TRUNCATED"]


def test_empty_jsonl_is_one_error_row(tmp_path: Path) -> None:
    p = tmp_path / "e.jsonl"
    p.write_bytes(b"")
    rows, errors = collect(open_source(p))
    assert rows == [] and [e.code for e in errors] == ["EMPTY_FILE"]


def test_warc_round_trip(tmp_path: Path) -> None:
    p = write_warc(
        tmp_path / "x.warc.gz",
        [("https://w.example/a", article_html("A")), ("https://w.example/b", article_html("B"))],
    )
    rows, errors = collect(open_source(p))
    assert errors == []
    assert [r["url"] for r in rows] == ["https://w.example/a", "https://w.example/b"]
    assert all(r["status"] == 200 and r["content_type"].startswith("text/html") for r in rows)
    assert rows[0]["offset"] == 0 or rows[0]["offset"] < rows[1]["offset"]


@pytest.mark.skipif(not (SHARED / "warc-samples").is_dir(), reason="shared corpora not present")
@pytest.mark.parametrize(
    ("name", "pages", "codes"),
    [
        ("example-trunc.warc", 0, ["WARC_TRUNCATED"]),
        ("example-wrong-chunks.warc.gz", 0, ["WARC_TRUNCATED"]),
        ("example.arc.gz", 1, []),
        ("example-iana.org-chunked.warc", 1, []),
        ("example-resource.warc.gz", 1, []),
    ],
)
def test_warcio_edge_cases(name: str, pages: int, codes: list[str]) -> None:
    rows, errors = collect(open_source(SHARED / "warc-samples" / "warcio-edge-cases" / name))
    assert len(rows) == pages
    assert [e.code for e in errors] == codes
    assert all("\n" not in e.message for e in errors)


def test_truncated_warc_keeps_records_before_the_damage(tmp_path: Path) -> None:
    p = write_warc(
        tmp_path / "x.warc", [(f"https://w.example/{i}", article_html(str(i))) for i in range(4)]
    )
    data = p.read_bytes()
    cut = tmp_path / "cut.warc"
    cut.write_bytes(data[: int(len(data) * 0.8)])
    rows, errors = collect(open_source(cut))
    assert [r["url"] for r in rows] == [f"https://w.example/{i}" for i in range(3)]
    assert len(errors) == 1 and errors[0].code in (
        "WARC_TRUNCATED",
        "WARC_CORRUPT",
        "WARC_RECORD_CORRUPT",
    )


def test_parquet_input(tmp_path: Path) -> None:
    p = tmp_path / "in.parquet"
    pq.write_table(
        pa.table(
            {
                "url": ["https://p.example/1", "https://p.example/2", None],
                "html": [article_html(), None, None],
                "text": [None, "plain text", None],
                "lang_hint": ["en", "de", "fr"],
            }
        ),
        p,
    )
    rows, errors = collect(open_source(p))
    assert [r["url"] for r in rows] == ["https://p.example/1", "https://p.example/2"]
    assert rows[0]["lang_hint"] == "en" and rows[1]["given_text"] == "plain text"
    assert [(e.code, e.offset) for e in errors] == [("MISSING_FIELDS", 2)]


def test_garbage_parquet_is_an_error_row(tmp_path: Path) -> None:
    p = tmp_path / "bad.parquet"
    p.write_bytes(b"PAR1 this is not parquet")
    rows, errors = collect(open_source(p))
    assert rows == [] and errors[0].code == "PARQUET_CORRUPT"


def test_detection_by_name_and_content(tmp_path: Path) -> None:
    (tmp_path / "noext").write_bytes(b"WARC/1.0\r\n")
    (tmp_path / "data").write_text('{"url": "x"}\n')
    (tmp_path / "urls.txt").write_text("https://a.example/\n")
    (tmp_path / "junk.bin").write_bytes(b"\x00\x01\x02")
    assert detect_kind(tmp_path / "noext") == "warc"
    assert detect_kind(tmp_path / "data") == "jsonl"
    assert detect_kind(tmp_path / "urls.txt") == "urls"
    rows, errors = collect(open_source(tmp_path / "junk.bin"))
    assert rows == []
    assert errors[0].code == "UNKNOWN_FORMAT"
    with pytest.raises(UsageError, match="URL list") as exc:
        open_source(tmp_path / "urls.txt")
    assert "trustaudit crawl" in exc.value.hint
    with pytest.raises(UsageError, match="not found"):
        open_source(tmp_path / "missing.warc")


def test_folder_expands_archives_inside(tmp_path: Path, html_folder: Path) -> None:
    write_warc(html_folder / "inner.warc.gz", [("https://w.example/z", article_html("Z"))])
    kinds = [s.kind for s in open_sources(html_folder)]
    assert kinds == ["folder", "warc"]
    empty = tmp_path / "nothing"
    empty.mkdir()
    (empty / "notes.md").write_text("hi")
    _, errors = collect(open_sources(empty)[0])
    assert errors[0].code == "NO_INPUT_FILES"
    shutil.rmtree(empty)


def test_a_bad_urls_csv_sidecar_costs_its_records_not_the_folder(tmp_path: Path) -> None:
    """Before: a sidecar with one byte not valid UTF-8 or a cell over csv's 128 KiB raised
    UsageError (`cannot read URL sidecar`): the whole audit stopped with exit 2. Now each bad
    record is one URL_SIDECAR_INVALID error row, the file it names keeps its file: URL, and the
    other records still map."""
    from trustaudit.io.lines import MAX_LIST_LINE_BYTES

    for name in "abcde":
        (tmp_path / f"{name}.html").write_text(article_html(name, url=None), encoding="utf-8")
    long_url = "https://d.example/" + "d" * 300_000  # over csv's default cell cap
    (tmp_path / "urls.csv").write_bytes(
        b"file,url\n"
        b"a.html,https://a.example/\n"
        b"b.html,https://b.example/\xff\n"
        b'c.html,"https://c.example/' + b"c" * (2 * MAX_LIST_LINE_BYTES) + b'"\n'
        b"d.html," + long_url.encode() + b"\n"
        b"e.html,https://e.example/\n"
    )
    rows, errors = collect(open_source(tmp_path))
    urls = {r["source_file"]: r["url"] for r in rows}
    assert sorted(urls) == [f"{c}.html" for c in "abcde"]  # every page read
    assert urls["a.html"] == "https://a.example/" and urls["e.html"] == "https://e.example/"
    assert urls["d.html"] == long_url
    assert urls["b.html"].startswith("file://") and urls["c.html"].startswith("file://")
    assert [(e.code, e.offset, e.url) for e in errors] == [("URL_SIDECAR_INVALID", None, None)] * 2
    assert "record 2: file 'b.html' or its URL is not valid UTF-8" in errors[0].message
    assert f"record 3: line 4 is {2 * MAX_LIST_LINE_BYTES + 28} bytes" in errors[1].message
    assert all("keeps its location as URL" in e.message for e in errors)
