"""The pure stage functions the executors share, and what the Ray executor ships between nodes."""

from __future__ import annotations

import polars as pl
import pyarrow as pa
from helpers import article_html
from polars.testing import assert_frame_equal

from trustaudit.io.records import records_table
from trustaudit.policy import Policy
from trustaudit.run.local import LocalExecutor
from trustaudit.run.ray import extract_packed, from_ipc, signals_packed, to_ipc, unpack
from trustaudit.schema import ERROR_SCHEMA, PAGE_SCHEMA
from trustaudit.scoring.affiliate import flag_affiliate_links
from trustaudit.scoring.domain import with_registered_domain
from trustaudit.stages import extract_batch, page_signals


def _records(n: int) -> pa.Table:
    rows = [
        {
            "source": "mem",
            "offset": i,
            "url": f"https://site{i % 3}.example/p{i}",
            "status": 200,
            "content_type": "text/html",
            "body": article_html(f"Page {i}", url=None).encode(),
        }
        for i in range(n)
    ]
    # two records that cannot become pages: no body at all, and bytes that are not a document
    rows.append({"source": "mem", "offset": n, "url": "https://x.example/empty", "body": b""})
    rows.append(
        {
            "source": "mem",
            "offset": n + 1,
            "url": "https://x.example/bin",
            "body": bytes(range(256)) * 8,
        }
    )
    return records_table(rows)


def test_extract_batch_accounts_every_record_as_a_page_or_an_error_row() -> None:
    records = _records(5)
    pages, links, errors = extract_batch(records, Policy())
    assert pages.num_rows + errors.num_rows == records.num_rows
    assert errors.num_rows == 2 and errors.schema == ERROR_SCHEMA
    assert set(errors.column("stage").to_pylist()) == {"extract"}
    assert pages.schema.names[: len(PAGE_SCHEMA)] == PAGE_SCHEMA.names
    assert links.num_rows > 0


def test_page_signals_give_the_same_rows_whatever_the_chunking() -> None:
    """What the Ray engine relies on to run the per-page families on chunks of pages."""
    pages, links, _ = extract_batch(_records(9), Policy())
    pages_df = with_registered_domain(pl.DataFrame(pages))
    links_df = flag_affiliate_links(
        with_registered_domain(pl.DataFrame(links)).drop("_record"), Policy()
    )
    whole = page_signals(pages_df, links_df, Policy())
    chunks = [pages_df.slice(0, 4), pages_df.slice(4)]
    parts = [
        page_signals(c, links_df.filter(pl.col("doc_id").is_in(c["doc_id"].implode())), Policy())
        for c in chunks
    ]
    assert whole.height == pages_df.height
    assert_frame_equal(pl.concat(parts), whole)


def test_packed_extraction_equals_the_local_executor() -> None:
    """A part extracted on a Ray worker (packed as Arrow IPC) is the part the local executor makes."""
    records = _records(4)
    [(_, local)] = list(LocalExecutor(1).run(iter([("k", records)]), Policy()))
    batch = pa.table({"key": [7], "records": pa.array([to_ipc(records)], pa.binary())})
    [row] = extract_packed(batch, Policy()).to_pylist()
    shipped = unpack(row)
    assert row["key"] == 7
    assert shipped.pages.equals(local.pages) and shipped.links.equals(local.links)
    assert shipped.errors == local.errors and shipped.kept == local.kept


def test_packed_page_signals_round_trip() -> None:
    pages, links, _ = extract_batch(_records(3), Policy())
    pages_df = with_registered_domain(pl.DataFrame(pages))
    links_df = flag_affiliate_links(
        with_registered_domain(pl.DataFrame(links)).drop("_record"), Policy()
    )
    batch = pa.table(
        {
            "key": [0],
            "pages": pa.array([to_ipc(pages_df.to_arrow())], pa.binary()),
            "links": pa.array([to_ipc(links_df.to_arrow())], pa.binary()),
        }
    )
    [row] = signals_packed(batch, Policy()).to_pylist()
    assert_frame_equal(
        pl.DataFrame(from_ipc(row["frame"])), page_signals(pages_df, links_df, Policy())
    )
