"""The tables every stage passes on, declared once: pages, links, errors and the finding struct.

Why one module: readers, extraction, the run layer and both engines build these tables; when each kept
its own copy they drifted. Import from here; `io.extract` and `io.records` re-export for old callers.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["ERROR_SCHEMA", "FINDING_TYPE", "LINK_SCHEMA", "PAGE_SCHEMA"]

FINDING_TYPE = pa.struct(
    [
        pa.field("location", pa.string()),
        pa.field("technique", pa.string()),
        pa.field("snippet", pa.string()),
        pa.field("offset", pa.int64()),
        pa.field("rule", pa.string()),
        pa.field("score", pa.float64()),
        pa.field("obfuscation", pa.string()),  # injection.FINDING_FIELDS: how it was disguised
        pa.field("decoded", pa.string()),
        pa.field("quoted", pa.string()),
        pa.field("intent", pa.string()),  # injection.FINDING_FIELDS: intent class, language
        pa.field("lang", pa.string()),
    ]
)

PAGE_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string()),
        pa.field("url", pa.string()),
        pa.field("final_url", pa.string()),
        pa.field("url_source", pa.string()),
        pa.field("host", pa.string()),
        pa.field("source", pa.string()),
        pa.field("offset", pa.int64()),
        pa.field("fetched_at", pa.timestamp("us", tz="UTC")),
        pa.field("status", pa.int32()),
        pa.field("content_type", pa.string()),
        pa.field("content_hash", pa.string()),
        pa.field("title", pa.string()),
        pa.field("text", pa.string()),
        pa.field("published", pa.date32()),
        pa.field("license", pa.string()),
        pa.field("sitename", pa.string()),
        pa.field("author", pa.string()),
        pa.field("lang", pa.string()),
        pa.field("word_count", pa.int64()),
        pa.field("paragraphs", pa.list_(pa.string())),
        pa.field("html_hidden_text", pa.string()),
        pa.field("page_disclosure_text", pa.string()),
        pa.field("html_bytes", pa.int64()),
        pa.field("html_truncated", pa.bool_()),
        pa.field("extractor", pa.string()),
        pa.field("encoding", pa.string()),
        pa.field("injection_findings", pa.list_(FINDING_TYPE)),
        # a <link rel=canonical> (or og:url) that differs from the page's URL: recorded, never its identity
        pa.field("canonical_url", pa.string()),
        # "CODE: detail" notes from reading the page (decoding, truncation, canonical): they join the
        # page's reasons in scores.parquet
        pa.field("ingest_reasons", pa.list_(pa.string())),
    ]
)

LINK_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string()),
        pa.field("href", pa.string()),
        pa.field("host", pa.string()),
        pa.field("rel", pa.list_(pa.string())),
        pa.field("anchor_text", pa.string()),
        pa.field(
            "_record", pa.string()
        ),  # source#offset, so duplicate records' links can be dropped
    ]
)

# one row per input record that did not become a page (read, extract or dedupe stage)
ERROR_SCHEMA = pa.schema(
    [
        pa.field("source", pa.string()),
        pa.field("offset", pa.int64()),
        pa.field("url", pa.string()),
        pa.field("stage", pa.string()),
        pa.field("code", pa.string()),
        pa.field("message", pa.string()),
    ]
)
