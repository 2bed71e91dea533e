"""The pure stage functions: frames and a policy in, frames out, no run directory, cache or pool.

`extract_batch` (records -> pages, links, errors), `page_signals` (the per-page families, safe to run
on any chunking of the pages) and `signal_tables` (every family, joined on doc_id). Both engines
(`run.local`, `run.ray`), `run.signals.compute_signals` (a run directory, the memo, the progress bar)
and the Python API's `compute_signals` (frames in a notebook) call these, so a family added here runs
in all of them and they can never disagree on which families run or how they are joined. The list
files the policy names are read by `read_domain_evidence` before the stage runs, and a cache is
passed in as a `Memo` callable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import polars as pl
import pyarrow as pa

from trustaudit.embed.base import Embedder
from trustaudit.io.extract import extract_records
from trustaudit.io.lists import read_domain_info, read_domain_lists
from trustaudit.io.records import errors_table
from trustaudit.policy import Policy
from trustaudit.scoring.affiliate import affiliate_signals, flag_affiliate_links
from trustaudit.scoring.anchors import anchor_presence
from trustaudit.scoring.behaviour import behaviour_signals, behaviour_status
from trustaudit.scoring.coherence import (
    coherence_apply_step,
    coherence_corpus,
    page_batches,
    page_text_bytes,
)
from trustaudit.scoring.corpus import CORPUS_COLUMNS, corpus_signals
from trustaudit.scoring.domain import domain_signals
from trustaudit.scoring.injection import injection_signals
from trustaudit.scoring.quality import quality_signals
from trustaudit.scoring.syndication import farm_signals
from trustaudit.scoring.textual import textual_signals

# memo(family, key, compute) -> frame: a cache of one family's output keyed by a digest of its inputs
Memo = Callable[[str, str, Callable[[], pl.DataFrame]], pl.DataFrame]
# page_map(batches of (pages, their flagged links), corpus pages) -> page_signals' frame of each
# batch, in order, computed wherever an engine chooses
PageMap = Callable[[Iterable[tuple[pl.DataFrame, pl.DataFrame]], int], list[pl.DataFrame]]
# encode(texts) -> one vector per text (an Embedder's encode): title clustering of the claims step
Encode = Callable[[list[str]], Any]
# corpus_map(pages, encode) -> doc_id + the syndication and claim columns the policy enables
# (`corpus_stages.SYNDICATION_COLUMNS`, `CLAIM_COLUMNS`), computed in batches where an engine
# chooses; `pages` is a frame or the Parquet files that hold them (a run's pages.parquet)
CorpusMap = Callable[[pl.DataFrame | list[Path], Encode | None], pl.DataFrame]
# batch_map(step, batches, extra) -> [step(batch, policy, embedder, extra) for each batch], in
# order, run where an engine chooses (its workers, each with the policy's own embedder): the maps
# of coherence. A corpus map may offer one as `corpus_map.batch_map(pages) -> BatchMap | None`
BatchMap = Callable[[Callable[..., Any], Iterable[pl.DataFrame], Any], list[Any]]

# page columns no whole-corpus step reads: the text and what is derived from it. `PageSource.meta`
# leaves them out; the per-page and corpus families read them a batch of pages at a time
HEAVY_COLUMNS = (
    "text", "paragraphs", "html_hidden_text", "page_disclosure_text", "injection_findings",
)  # fmt: skip


class PageSource(Protocol):
    """The pages and links a signal stage reads: in memory (`FramePages`) or a run's Parquet
    files read a batch at a time (`run.pages.ParquetPages`), so that no step holds every page's
    text unless the corpus is below the batched steps' thresholds."""

    height: int

    def meta(self) -> pl.DataFrame:
        """Every page, every column but HEAVY_COLUMNS."""
        ...

    def text_bytes(self) -> list[int]:
        """Each page's text size in bytes (what its batch will hold), in page order."""
        ...

    def slices(self, bounds: list[tuple[int, int]]) -> Iterator[pl.DataFrame]:
        """Whole pages rows, one frame per (start, length) of `bounds` (consecutive, in order)."""
        ...

    def read_all(self) -> pl.DataFrame:
        """Every page, every column (a corpus below the batched steps' thresholds)."""
        ...

    def corpus_input(self) -> pl.DataFrame | list[Path]:
        """What a `CorpusMap` reads: the pages frame or its Parquet files."""
        ...

    def link_batches(self) -> Iterator[pl.DataFrame]:
        """The links as given (flags, if any, not yet replaced), in order, in batches."""
        ...

    def put_link_flags(self, flags: pl.DataFrame) -> None:
        """Keep the links with `flags` (is_affiliate, is_sponsored; one row per link, in order)."""
        ...

    def links_of(self, pages: pl.DataFrame) -> pl.DataFrame:
        """The flagged links of these pages (after `put_link_flags`), in order."""
        ...

    def flagged_links(self) -> pl.DataFrame | None:
        """The flagged links as a frame, or None where they were written to a file."""
        ...

    def digest(self, digest: Callable[[pl.DataFrame], str], *, links: bool = False) -> str:
        """A digest of the pages (or links) table: `digest` of the whole, or of its batches."""
        ...


@dataclass
class FramePages:
    """A PageSource over frames in memory (the Python API, tests)."""

    pages: pl.DataFrame
    links: pl.DataFrame

    def __post_init__(self) -> None:
        self.height = self.pages.height
        self._flagged: pl.DataFrame | None = None

    def meta(self) -> pl.DataFrame:
        return self.pages.drop(HEAVY_COLUMNS, strict=False)

    def text_bytes(self) -> list[int]:
        return page_text_bytes(self.pages)

    def slices(self, bounds: list[tuple[int, int]]) -> Iterator[pl.DataFrame]:
        for start, length in bounds:
            yield (
                self.pages
                if (start, length) == (0, self.height)
                else self.pages.slice(start, length)
            )

    def read_all(self) -> pl.DataFrame:
        return self.pages

    def corpus_input(self) -> pl.DataFrame | list[Path]:
        return self.pages

    def link_batches(self) -> Iterator[pl.DataFrame]:
        yield self.links

    def put_link_flags(self, flags: pl.DataFrame) -> None:
        self._flagged = self.links.drop("is_affiliate", "is_sponsored", strict=False).hstack(flags)

    def links_of(self, pages: pl.DataFrame) -> pl.DataFrame:
        assert self._flagged is not None, "put_link_flags first"
        if pages.height == self.height:
            return self._flagged
        return self._flagged.filter(pl.col("doc_id").is_in(pages["doc_id"].implode()))

    def flagged_links(self) -> pl.DataFrame | None:
        return self._flagged

    def digest(self, digest: Callable[[pl.DataFrame], str], *, links: bool = False) -> str:
        return digest(self.links if links else self.pages)


@dataclass(frozen=True)
class DomainEvidence:
    """What the domain family reads from files: the lists and registration dates."""

    allow: set[str] = field(default_factory=set)
    block: set[str] = field(default_factory=set)
    created: dict[str, Any] = field(default_factory=dict)
    extra_anchors: set[str] = field(default_factory=set)


def read_domain_evidence(policy: Policy, *, rdap_ages: Path | None = None) -> DomainEvidence:
    """The list and domain-info files the policy names. RDAP ages (a crawl's or `--rdap`'s
    domain_ages.csv) fill in registration dates; the user's --domain-info CSV wins over them."""
    d = policy.domain
    created = read_domain_info(rdap_ages) if rdap_ages is not None and rdap_ages.is_file() else {}
    if d.domain_info_file:
        created.update(read_domain_info(d.domain_info_file))
    return DomainEvidence(
        allow=read_domain_lists(d.allowlist_files),
        block=read_domain_lists(d.blocklist_files),
        created=created,
        extra_anchors=read_domain_lists(policy.anchors.anchor_files),
    )


@dataclass(frozen=True)
class SignalTables:
    """The signal stage's output: one row per page, the links with affiliate flags, one row per
    registered domain, and which families ran (for the manifest)."""

    signals: pl.DataFrame
    links: pl.DataFrame | None  # None: written to the source's file (`run.pages.ParquetPages`)
    domains: pl.DataFrame
    families: dict[str, str]


def page_signals(pages: pl.DataFrame, links: pl.DataFrame, policy: Policy) -> pl.DataFrame:
    """The per-page families (affiliate, textual, quality, injection): one row per page, computed
    from that page and its own (flagged) links only.

    Why a function of its own: it is the signal stage's map part. Any chunking of the pages (with
    each page's links) gives the same rows, so an engine may run it per chunk on its workers; a
    family that compares pages with each other belongs in `signal_tables`' corpus part instead.
    """
    frame = (
        affiliate_signals(pages, links, policy)
        .join(textual_signals(pages, policy), on="doc_id", how="left")
        .join(quality_signals(pages, links, policy), on="doc_id", how="left")
    )
    if policy.injection.enabled:
        frame = frame.join(injection_signals(pages, policy), on="doc_id", how="left")
    return frame


def extract_batch(records: pa.Table, policy: Policy) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The extraction stage over one record batch: (pages, links, errors), all Arrow tables.

    A record that does not become a page is a row of the errors table (`trustaudit.schema`), never an
    exception, so every input record is accounted for: records == pages + errors.
    """
    result = extract_records(records, policy)
    return result.pages, result.links, errors_table(result.errors)


def corpus_family(
    pages: pl.DataFrame | PageSource,
    policy: Policy,
    embedder: Embedder | None,
    *,
    corpus_map: CorpusMap | None = None,
) -> pl.DataFrame:
    """The corpus family: `scoring.corpus.corpus_signals`' frame, with syndication and claims
    computed by `corpus_map` when an engine gives one (map -> group-by -> map, `run/ray_corpus.py`).

    Why here: coherence runs in its own batches (`corpus_coherence`), fed the batched
    cross_consistency: its maps on the engine's workers when the corpus map offers a `batch_map`
    (`engine_batch_map`), else in this process; the join mirrors `corpus_signals` so both paths
    give the same columns. Below the batched steps' threshold the corpus is read whole
    (`corpus_signals`).
    """
    source = FramePages(pages, pl.DataFrame()) if isinstance(pages, pl.DataFrame) else pages
    if corpus_map is None or not distributed(policy, corpus_map=corpus_map, pages=source.height):
        return corpus_signals(source.read_all(), None, policy, embedder)
    encode = embedder.encode if embedder is not None else None
    batched = corpus_map(source.corpus_input(), encode)
    out = source.meta().select("doc_id").join(batched, on="doc_id", how="left")
    if policy.coherence.enabled and embedder is not None:
        cross = batched.select("doc_id", "cross_consistency") if policy.claims.enabled else None
        batch_map = engine_batch_map(corpus_map, source.height)
        coh = corpus_coherence(source, policy, embedder, cross=cross, batch_map=batch_map)
        out = out.drop("cross_consistency", strict=False).join(coh, on="doc_id", how="left")
    return out.select([c for c in CORPUS_COLUMNS if c in out.columns])


def page_bounds(source: PageSource, policy: Policy) -> list[tuple[int, int]]:
    """The batches of pages the batched steps take: at most `engine.corpus_batch_pages` pages and
    `engine.coherence_batch_bytes` of text each (coherence's own cut, `coherence_signals`)."""
    return page_batches(
        source.text_bytes(),
        max_pages=policy.engine.corpus_batch_pages,
        max_bytes=policy.engine.coherence_batch_bytes,
    )


def engine_batch_map(corpus_map: CorpusMap | None, pages: int) -> BatchMap | None:
    """The map over batches of pages an engine's corpus map offers for this many pages (the Ray
    engine's, from `engine.distributed_corpus_min_pages`), or None: coherence in this process."""
    offer = getattr(corpus_map, "batch_map", None)
    return offer(pages) if offer is not None else None


def corpus_coherence(
    source: PageSource,
    policy: Policy,
    embedder: Embedder,
    *,
    cross: pl.DataFrame | None = None,
    batch_map: BatchMap | None = None,
) -> pl.DataFrame:
    """`coherence.coherence_signals` over a PageSource: its corpus-wide aggregates merged over
    the batches (`coherence_corpus`), then each batch scored (`coherence_apply`), one batch of
    pages read at a time; a corpus of one batch is its own corpus, as there.

    With `batch_map` (an engine's workers) the three maps (counts, words, apply) run there and
    only their outputs come back: the merges (integer sums, in batch order), the boilerplate
    keys and the language means stay here, so the scores are those of the run in this process."""
    bounds = page_bounds(source, policy)
    run = batch_map or _in_process(policy, embedder)
    if len(bounds) <= 1:
        (one,) = run(coherence_apply_step, [source.read_all()], (None, cross))
        return one
    corpus = coherence_corpus(
        lambda: source.slices(bounds),
        policy,
        embedder,
        run=lambda step, extra: run(step, source.slices(bounds), extra),
    )
    parts = run(coherence_apply_step, source.slices(bounds), (corpus, cross))
    return pl.concat(parts, how="vertical_relaxed")


def _in_process(policy: Policy, embedder: Embedder) -> BatchMap:
    """The BatchMap of this process: each step over each batch, in order."""

    def run(step: Callable[..., Any], batches: Iterable[pl.DataFrame], extra: Any) -> list[Any]:
        return [step(b, policy, embedder, extra) for b in batches]

    return run


def distributed(policy: Policy, *, corpus_map: CorpusMap | None, pages: int) -> bool:
    """Whether syndication and claims run as the engine's batched steps: the engine offers them,
    one of them is on, and the corpus is large enough (`engine.distributed_corpus_min_pages`: below
    it the extra datasets and tasks cost more than they save; the columns are the same)."""
    # an engine's steps may say from how many pages they pay off (the local engine's spilled
    # batches: `engine.local_corpus_min_pages`, `run.local.LocalCorpusMap`)
    min_pages = getattr(corpus_map, "min_pages", policy.engine.distributed_corpus_min_pages)
    return (
        corpus_map is not None
        and (policy.syndication.enabled or policy.claims.enabled)
        and pages >= min_pages
    )


def corpus_status(policy: Policy, *, corpus_map: CorpusMap | None, pages: int) -> str:
    """The manifest's word for the corpus family: which steps ran batched on the engine."""
    steps = [
        name
        for name, on in (
            ("syndication", policy.syndication.enabled),
            ("claims", policy.claims.enabled),
        )
        if on
    ]
    if not distributed(policy, corpus_map=corpus_map, pages=pages):
        return "computed"
    if policy.coherence.enabled and engine_batch_map(corpus_map, pages) is not None:
        steps.append("coherence")
    return f"distributed ({', '.join(steps)})"


def _no_memo(_family: str, _key: str, compute: Callable[[], pl.DataFrame]) -> pl.DataFrame:
    return compute()


def signal_tables(
    pages: pl.DataFrame,
    links: pl.DataFrame,
    policy: Policy,
    *,
    now: date,
    evidence: DomainEvidence,
    embedder: Callable[[], Embedder],
    memo: Memo | None = None,
    digest: Callable[[pl.DataFrame], str] | None = None,
    page_map: PageMap | None = None,
    corpus_map: CorpusMap | None = None,
) -> SignalTables:
    """Every signal family over frames of pages and links, joined on doc_id
    (`source_signal_tables` over `FramePages`)."""
    return source_signal_tables(
        FramePages(pages, links),
        policy,
        now=now,
        evidence=evidence,
        embedder=embedder,
        memo=memo,
        digest=digest,
        page_map=page_map,
        corpus_map=corpus_map,
    )


def merge_anchor_presence(parts: list[pl.DataFrame]) -> pl.DataFrame:
    """The associative merge of `anchor_presence` over batches of links: per link target, the
    union of its anchors (sorted), counted, sorted by target."""
    if len(parts) == 1:
        return parts[0]
    both = pl.concat(parts)
    return (
        both.explode("anchor_domains")
        .group_by("registered_domain")
        .agg(anchor_domains=pl.col("anchor_domains").unique().sort())
        .with_columns(anchor_count=pl.col("anchor_domains").list.len().cast(pl.Int32))
        .sort("registered_domain")
        .select(both.columns)
    )


def source_signal_tables(
    source: PageSource,
    policy: Policy,
    *,
    now: date,
    evidence: DomainEvidence,
    embedder: Callable[[], Embedder],
    memo: Memo | None = None,
    digest: Callable[[pl.DataFrame], str] | None = None,
    page_map: PageMap | None = None,
    corpus_map: CorpusMap | None = None,
) -> SignalTables:
    """Every signal family over a PageSource, joined on doc_id.

    Whole-corpus steps read the pages without their text (`PageSource.meta`) and the links a
    batch at a time (anchors merged over batches, link flags per row); the per-page families run
    per batch of pages with their own links, the corpus family through `corpus_family`. So a
    source on disk (`run.pages.ParquetPages`) is never held whole.

    `embedder` is called only when the corpus family really runs (a memo hit never loads the
    model). With `memo` and `digest`, the link flags, the page families and the corpus families are
    looked up by a digest of their inputs; domain signals depend on `now` and always run. An engine
    passes `page_map` to run `page_signals` over the batches on its workers, and `corpus_map`
    to run syndication and claims as batched steps there (`run/ray.py`, `corpus_family`).
    """
    get = memo or _no_memo
    meta = source.meta()
    extra = sorted(evidence.extra_anchors)
    anchors = merge_anchor_presence(
        [anchor_presence(b, meta, policy, extra_anchors=extra) for b in source.link_batches()]
    )
    page_domain, domains = domain_signals(
        meta,
        policy,
        now=now,
        allow=evidence.allow,
        block=evidence.block,
        created=evidence.created,
        anchors=anchors,
    )
    pages_key = source.digest(digest) if digest else ""
    links_key = source.digest(digest, links=True) if digest else ""

    def link_flags() -> pl.DataFrame:
        flags = [
            flag_affiliate_links(b, policy).select("is_affiliate", "is_sponsored")
            for b in source.link_batches()
        ]
        return flags[0] if len(flags) == 1 else pl.concat(flags)

    source.put_link_flags(get("linkflags", links_key, link_flags))

    def page_families() -> pl.DataFrame:
        bounds = page_bounds(source, policy)
        batches = ((b, source.links_of(b)) for b in source.slices(bounds))
        frames = (
            page_map(batches, source.height)
            if page_map
            else [page_signals(b, links, policy) for b, links in batches]
        )
        per_page = frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")
        # behaviour compares a page with the other reviews of its entity: a corpus family
        return per_page.join(behaviour_signals(meta, policy), on="doc_id", how="left")

    # notes from reading each page (DECODED_UTF16, HTML_TRUNCATED, CANONICAL_MISMATCH…) join its reasons
    ingest_notes = (
        [pl.col("ingest_reasons").fill_null([]).alias("reasons_ingest")]
        if "ingest_reasons" in meta.columns
        else []
    )
    parts = [
        meta.select("doc_id", "url", "registered_domain", "word_count", *ingest_notes),
        page_domain,
        get("page", pages_key + links_key, page_families),
        get(
            "corpus",
            pages_key,
            lambda: corpus_family(source, policy, embedder(), corpus_map=corpus_map),
        ),
    ]
    signals = parts[0]
    for frame in parts[1:]:
        signals = signals.join(frame, on="doc_id", how="left")
    signals = farm_signals(signals, policy)  # needs syndication and domain columns together
    families = {
        "anchors": "computed",
        "domain": "computed",
        "affiliate": "computed",
        "textual": "computed",
        "injection": "computed"
        if policy.injection.enabled
        else "not computed (injection.enabled = false)",
        "corpus": corpus_status(policy, corpus_map=corpus_map, pages=source.height),
        "behaviour": behaviour_status(meta.columns, policy),
    }
    links = source.flagged_links()
    return SignalTables(signals=signals, links=links, domains=domains, families=families)
