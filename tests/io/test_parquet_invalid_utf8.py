"""A Parquet text cell that is not UTF-8 (session 25). Arrow keeps the bytes a writer gives a string
column, and converting the batch to Python raised: the audit gave one `SOURCE_FAILED` "reading
stopped: UnicodeDecodeError…" row and every other record of the file was lost."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from helpers import audit_cli, balanced_run, collect

from trustaudit.io.readers import open_source

GOOD = b"<html><body><p>A good page about soil and compost in the garden.</p></body></html>"
LATIN1 = "<html><head><title>Café</title></head><body><p>Un café au lait.</p></body></html>"


def _strings(cells: list[bytes | None]) -> pa.Array:
    """A string column holding exactly these bytes, UTF-8 or not (as a careless writer leaves it)."""
    return pa.array(cells, type=pa.binary()).view(pa.string())


def _file(path: Path) -> Path:
    table = pa.table(
        {
            "url": _strings(
                [b"https://p.example/1", b"https://p.example/caf\xe9", b"https://p.example/3"]
            ),
            "html": _strings([GOOD, LATIN1.encode("latin-1"), None]),
            "text": _strings([None, None, b"Plain text of the third record, na\xefve."]),
            "lang": _strings([b"en", b"fr\xff", b"en"]),
        }
    )
    pq.write_table(table, path)
    return path


def test_every_record_is_read_when_a_text_cell_is_not_utf8(tmp_path: Path) -> None:
    rows, errors = collect(open_source(_file(tmp_path / "p.parquet")))
    assert errors == []
    assert [r["url"] for r in rows] == [
        "https://p.example/1",
        "https://p.example/caf\ufffd",
        "https://p.example/3",
    ]
    # the html is kept as its bytes: the page's decoder reads its charset
    assert rows[1]["body"] == LATIN1.encode("latin-1")
    assert rows[0]["body"] == GOOD
    # other text columns are read with U+FFFD where they are not UTF-8
    assert rows[2]["given_text"] == "Plain text of the third record, na\ufffdve."
    assert rows[1]["input_lang"] == "fr\ufffd"


def test_a_file_of_utf8_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "ok.parquet"
    pq.write_table(pa.table({"url": ["https://p.example/é"], "html": [GOOD.decode()]}), path)
    rows, errors = collect(open_source(path))
    assert errors == [] and rows[0]["url"] == "https://p.example/é"
    assert rows[0]["body"] == GOOD


def test_audit_keeps_every_record_of_a_file_with_a_cell_not_utf8(
    runner, app, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "in"
    folder.mkdir()
    _file(folder / "p.parquet")
    run = tmp_path / "run"
    res = audit_cli(runner, app, str(folder), "--out", str(run))
    assert res.exit_code == 0, res.output
    pages, errors = balanced_run(run)
    assert errors.height == 0, errors.to_dicts()
    assert pages.height == 3
    assert "Café" in pages.filter(pages["url"] == "https://p.example/caf\ufffd")["title"].to_list()
