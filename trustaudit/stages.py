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

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

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
from trustaudit.scoring.coherence import coherence_signals
from trustaudit.scoring.corpus import CORPUS_COLUMNS, corpus_signals
from trustaudit.scoring.domain import domain_signals
from trustaudit.scoring.injection import injection_signals
from trustaudit.scoring.quality import quality_signals
from trustaudit.scoring.syndication import farm_signals
from trustaudit.scoring.textual import textual_signals

# memo(family, key, compute) -> frame: a cache of one family's output keyed by a digest of its inputs
Memo = Callable[[str, str, Callable[[], pl.DataFrame]], pl.DataFrame]
# page_map(pages, flagged links) -> page_signals' frame, computed wherever an engine chooses
PageMap = Callable[[pl.DataFrame, pl.DataFrame], pl.DataFrame]
# encode(texts) -> one vector per text (an Embedder's encode): title clustering of the claims step
Encode = Callable[[list[str]], Any]
# corpus_map(pages, encode) -> doc_id + the syndication and claim columns the policy enables
# (`corpus_stages.SYNDICATION_COLUMNS`, `CLAIM_COLUMNS`), computed in batches where an engine chooses
CorpusMap = Callable[[pl.DataFrame, Encode | None], pl.DataFrame]


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
    links: pl.DataFrame
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
    pages: pl.DataFrame,
    policy: Policy,
    embedder: Embedder | None,
    *,
    corpus_map: CorpusMap | None = None,
) -> pl.DataFrame:
    """The corpus family: `scoring.corpus.corpus_signals`' frame, with syndication and claims
    computed by `corpus_map` when an engine gives one (map -> group-by -> map, `run/ray_corpus.py`).

    Why here: coherence runs in this process in its own batches (`coherence_signals`), fed the batched
    cross_consistency; the join mirrors `corpus_signals` so both paths give the same columns.
    """
    if corpus_map is None or not distributed(policy, corpus_map=corpus_map, pages=pages.height):
        return corpus_signals(pages, None, policy, embedder)
    encode = embedder.encode if embedder is not None else None
    batched = corpus_map(pages, encode)
    out = pages.select("doc_id").join(batched, on="doc_id", how="left")
    if policy.coherence.enabled and embedder is not None:
        cross = batched.select("doc_id", "cross_consistency") if policy.claims.enabled else None
        coh = coherence_signals(pages, policy, embedder, cross=cross)
        out = out.drop("cross_consistency", strict=False).join(coh, on="doc_id", how="left")
    return out.select([c for c in CORPUS_COLUMNS if c in out.columns])


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
    """Every signal family over a batch of pages, joined on doc_id.

    `embedder` is called only when the corpus family really runs (a memo hit never loads the
    model). With `memo` and `digest`, the link flags, the page families and the corpus families are
    looked up by a digest of their inputs; domain signals depend on `now` and always run. An engine
    passes `page_map` to run `page_signals` over chunks of pages on its workers, and `corpus_map`
    to run syndication and claims as batched steps there (`run/ray.py`, `corpus_family`).
    """
    get = memo or _no_memo
    anchors = anchor_presence(links, pages, policy, extra_anchors=sorted(evidence.extra_anchors))
    page_domain, domains = domain_signals(
        pages,
        policy,
        now=now,
        allow=evidence.allow,
        block=evidence.block,
        created=evidence.created,
        anchors=anchors,
    )
    pages_key = digest(pages) if digest else ""
    links_key = digest(links) if digest else ""
    flags = get(
        "linkflags",
        links_key,
        lambda: flag_affiliate_links(links, policy).select("is_affiliate", "is_sponsored"),
    )
    links = links.drop("is_affiliate", "is_sponsored", strict=False).hstack(flags)

    def page_families() -> pl.DataFrame:
        per_page = page_map(pages, links) if page_map else page_signals(pages, links, policy)
        # behaviour compares a page with the other reviews of its entity: a corpus family
        return per_page.join(behaviour_signals(pages, policy), on="doc_id", how="left")

    # notes from reading each page (DECODED_UTF16, HTML_TRUNCATED, CANONICAL_MISMATCH…) join its reasons
    ingest_notes = (
        [pl.col("ingest_reasons").fill_null([]).alias("reasons_ingest")]
        if "ingest_reasons" in pages.columns
        else []
    )
    parts = [
        pages.select("doc_id", "url", "registered_domain", "word_count", *ingest_notes),
        page_domain,
        get("page", pages_key + links_key, page_families),
        get(
            "corpus",
            pages_key,
            lambda: corpus_family(pages, policy, embedder(), corpus_map=corpus_map),
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
        "corpus": corpus_status(policy, corpus_map=corpus_map, pages=pages.height),
        "behaviour": behaviour_status(pages.columns, policy),
    }
    return SignalTables(signals=signals, links=links, domains=domains, families=families)
