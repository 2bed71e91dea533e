"""Policy section for input limits (owned by the readers): the `[inputs]` table of trustaudit.toml.

Every limit here bounds memory or time against a hostile input, and each one, when hit, turns into an
error row or a reason code instead of a crash (docs/limits.md lists them with what happens at each).
"""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class InputsPolicy:
    max_line_bytes: int = opt(
        50_000_000,
        "a JSONL line longer than this (after decompression) is skipped while streaming: error row"
        " LINE_TOO_LARGE; the next lines are still read",
    )
    max_decompressed_bytes: int = opt(
        20_000_000_000,
        "bytes read from one compressed JSONL file, or WARC compressed whole with bzip2, xz or"
        " zstd, after decompression; past it the file is cut: error row DECOMPRESSED_TOO_LARGE"
        " (the records before are kept)",
    )
    max_json_depth: int = opt(
        64, "nesting depth of one JSON record; deeper records are error rows (JSON_TOO_DEEP)"
    )
    max_field_bytes: int = opt(
        1_000_000,
        "size of one extra (non-html/text) JSONL/Parquet field; larger records are error rows"
        " (FIELD_TOO_LARGE)",
    )
    max_extra_fields: int = opt(
        256,
        "distinct extra field names (not url/html/text/...) in one JSONL file, each a column of"
        " pages.parquet: a record that would add names past it is an error row TOO_MANY_FIELDS;"
        " a Parquet file with more extra columns is one such row",
    )
    max_html_depth: int = opt(
        512,
        "element nesting depth of HTML (Chromium's limit); deeper tags are dropped before parsing,"
        " their text kept (reason HTML_TOO_DEEP)",
    )
    max_html_attributes: int = opt(
        256,
        "distinct attribute names of one HTML element the parsers read (their time grows with the"
        " square of it); the others are removed before parsing, except the first style, class,"
        " hidden, title, alt, aria-label... (reason HTML_TOO_MANY_ATTRIBUTES); the injection scan"
        " reads the removed ones apart",
    )
    max_html_names: int = opt(
        4096,
        "distinct element names (other than HTML's own) and distinct attribute names of one HTML"
        " page the parsers read (lexbor's time grows faster than the square of them); elements of"
        " later names are renamed span, attributes of later names removed before parsing (reason"
        " HTML_TOO_MANY_NAMES); the injection scan reads the removed ones apart; counted only on"
        " pages with 32 bytes of markup a name or more",
    )
    kill_after_s: float = opt(
        0.0,
        "a worker still on one document after this many seconds is killed and replaced, the record"
        " becomes EXTRACT_TIMEOUT (0 = 2 x extract.doc_timeout_s); needs --workers 2+ or 0",
    )
    batch_max_bytes: int = opt(
        64_000_000,
        "an ingest batch is cut at extract.batch_size records or at this many bytes of record"
        " bodies, whichever comes first (a larger record is a batch of its own): what one worker"
        " holds, and what a batch of large records costs the driver, no longer grows with the count",
        ge=1,
    )
    max_parquet_page_bytes: int = opt(
        256_000_000,
        "a Parquet dictionary page (decoded whole before any row of its row group, and up to 2 GiB"
        " from a few KB of zstd) larger than this once decompressed, or a data page larger than"
        " this whose size says it holds a cell over its cap (extract.max_record_bytes for"
        " html/text, inputs.max_field_bytes for others): its row group is not read, an error row"
        " TOO_LARGE (html/text) or FIELD_TOO_LARGE for each of its records; the other row groups"
        " are read. A data page larger than this of a top-level text column whose size does not"
        " say so is read a value at a time instead (zstd, gzip, brotli as a stream; snappy, LZ4"
        " decompressed whole once): a cell over its cap is an error row, the others records; one"
        " that cannot be read so (a nested column, a damaged page) costs its row group as above",
    )
    max_warc_header_bytes: int = opt(
        1_048_576,
        "a WARC/ARC record's header block, or the HTTP header block at the start of its payload,"
        " larger than this (one line or many; warcio reads them whole): error row WARC_CORRUPT for"
        " that record, reading goes on at the next one",
    )
    max_warc_skip_bytes: int = opt(
        1_073_741_824,
        "bytes of a compressed WARC decompressed only to find where a record ends, and so where"
        " the next one starts: a record over the payload cap, or one that is no page, with more"
        " than this left by its Content-Length (a gzip bomb expands 1,000-fold; bzip2, xz and"
        " zstd far more), a run of blank lines between records longer than this, or a damaged"
        " gzip member, is passed over by finding the next gzip member that starts a record in the"
        " raw bytes; error row TOO_LARGE (a record that shares the member, as in a WARC gzipped"
        " whole, is not read; a WARC compressed whole with bzip2, xz or zstd has no member to"
        " resume at: its records after that one are not read)",
    )
    max_warc_skip_total_bytes: int = opt(
        4_294_967_296,
        "bytes of one compressed WARC decompressed only to pass over things, all together: the"
        " rest of the records the reader is done with (over the payload cap, or no page) and the"
        " runs of blank lines between records (each at most inputs.max_warc_skip_bytes); past it"
        " the file stops there: error row TOO_LARGE, the records before it kept and those after"
        " it not read (a file of many gzip members, each passing over just under"
        " inputs.max_warc_skip_bytes, cost about 2 s a member without end)",
    )
    max_binary_share: float = opt(
        0.10,
        "after decoding (NULs stripped, UTF-16/32 detected), a document whose share of control and"
        " replacement characters exceeds this is not text: error row BINARY_CONTENT",
    )

    def __post_init__(self) -> None:
        for name in (
            "max_line_bytes",
            "max_decompressed_bytes",
            "max_json_depth",
            "max_field_bytes",
            "max_extra_fields",
            "max_html_depth",
            "max_html_attributes",
            "max_html_names",
            "batch_max_bytes",
            "max_parquet_page_bytes",
            "max_warc_header_bytes",
            "max_warc_skip_bytes",
            "max_warc_skip_total_bytes",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"inputs.{name} must be >= 1")
        if not self.kill_after_s >= 0:
            raise ValueError("inputs.kill_after_s must be >= 0")
        if not 0.0 < self.max_binary_share <= 1.0:
            raise ValueError("inputs.max_binary_share must be in (0, 1]")
