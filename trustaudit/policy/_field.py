"""`opt(default, doc)`: a dataclass field that carries its documentation (and its valid range) for
`policy show`, and the range table every number of the policy is checked against at load.

Why ranges live here: a `weight = nan` or a negative weight used to load silently and give NaN scores
(issue #15.5); one table (plus `opt(..., ge=…)` for new keys) keeps every section checked the same
way, whether the value came from a file, the environment or a flag.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Range:
    """Bounds of one number: `ge`/`gt` below, `le` above; every policy number must be finite."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None

    def problem(self, value: float) -> str | None:
        """Why `value` is out of range (None when it fits)."""
        if not math.isfinite(float(value)):
            return f"must be a finite number, got {value!r}"
        if self.ge is not None and value < self.ge:
            return f"must be >= {self.ge:g}, got {value!r}"
        if self.gt is not None and value <= self.gt:
            return f"must be > {self.gt:g}, got {value!r}"
        if self.le is not None and value > self.le:
            return f"must be <= {self.le:g}, got {value!r}"
        return None

    def text(self) -> str:
        """`policy show`'s wording: `[0, 1]`, `> 0`, `>= 0`."""
        low = (
            f">= {self.ge:g}"
            if self.ge is not None
            else f"> {self.gt:g}"
            if self.gt is not None
            else ""
        )
        if self.le is not None and self.ge is not None:
            return f"[{self.ge:g}, {self.le:g}]"
        return " and ".join(x for x in (low, f"<= {self.le:g}" if self.le is not None else "") if x)


NON_NEGATIVE = Range(ge=0.0)  # the default: no number of the policy means anything below 0
POSITIVE = Range(gt=0.0)  # caps, windows, sizes, timeouts and divisors
UNIT = Range(ge=0.0, le=1.0)  # weights, shares, scores, thresholds, probabilities
AT_LEAST_ONE = Range(ge=1.0)

_UNIT_KEYS = (
    "weights.domain weights.affiliate weights.coherence "
    "bands.quarantine_below bands.trusted_from "
    "domain.age_neutral domain.activity_neutral domain.age_weight domain.activity_weight "
    "domain.anchor_bonus_per_anchor domain.anchor_bonus_cap "
    "textual.weight textual.max_dup_line_frac textual.min_lexical_density "
    "injection.min_score "
    "coherence.neutral coherence.low coherence.high coherence.center coherence.out_of_band "
    "coherence.intra_weight coherence.cross_neutral coherence.min_latin_share "
    "coherence.split_penalty coherence.interleave_penalty "
    "syndication.penalty_per_domain syndication.copy_penalty syndication.penalty_cap "
    "syndication.min_jaccard syndication.min_containment "
    "claims.title_min_cosine "
    "report.target_recall report.target_precision report.allow_min_trusted_lower "
    "report.block_min_quarantined_lower report.calibrate_warn_quarantined_share "
    "gate.max_quarantined_share gate.warn_quarantined_share gate.max_medium_share "
    "gate.warn_medium_share gate.min_mean_trust gate.warn_mean_trust gate.min_precision "
    "gate.min_recall gate.max_failed_card_share "
    "citations.card_min_similarity citations.judge_margin "
    "fusion.alpha fusion.beta fusion.research_below fusion.unscored_trust fusion.min_trust"
)
_POSITIVE_KEYS = (
    "domain.age_cap_years domain.activity_window_days domain.recent_window_days "
    "extract.max_html_bytes extract.max_record_bytes extract.doc_timeout_s "
    "injection.max_html_chars "
    "coherence.width claims.z_full_conflict claims.outlier_z "
    "report.suggest_z "
    "crawl.timeout_s crawl.connect_timeout_s crawl.read_timeout_s crawl.max_body_bytes "
    "crawl.commit_interval_s crawl.commit_bytes crawl.rdap_timeout_s "
    "citations.judge_timeout_s"
)
_AT_LEAST_ONE_KEYS = (
    "extract.batch_size embeddings.batch_size embeddings.max_chars coherence.max_paragraphs "
    "syndication.shingle_words syndication.num_perm syndication.bands syndication.batch_docs "
    "syndication.containment_sample_mod crawl.concurrency crawl.max_per_host crawl.commit_rows "
    "report.html_max_rows fusion.top_k citations.card_top_paragraphs"
)

# Keys whose range is not the default `>= 0` (a key declared with `opt(..., ge=…)` wins over this).
RANGES: dict[str, Range] = {
    **dict.fromkeys(_UNIT_KEYS.split(), UNIT),
    **dict.fromkeys(_POSITIVE_KEYS.split(), POSITIVE),
    **dict.fromkeys(_AT_LEAST_ONE_KEYS.split(), AT_LEAST_ONE),
}


def opt(
    default: Any,
    doc: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
) -> Any:
    """A frozen-dataclass field with a default and a one-line doc shown by `trustaudit policy show`.

    `ge`/`gt`/`le` declare the valid range of a number (default: finite and >= 0, or the entry of
    `RANGES`); the loader rejects anything outside it with the key's name.
    """
    if isinstance(default, list | dict | set):
        raise TypeError("use a tuple (immutable) default")
    meta: dict[str, Any] = {"doc": doc}
    if ge is not None or gt is not None or le is not None:
        meta["range"] = Range(ge=ge, gt=gt, le=le)
    return dataclasses.field(default=default, metadata=meta)


def section(cls: type) -> Any:
    """A nested section field (default-constructed)."""
    return dataclasses.field(default_factory=cls)


def range_of(key: str, field: dataclasses.Field[Any]) -> Range:
    """The valid range of number field `field` at dotted `key` (e.g. `weights.domain`)."""
    declared = field.metadata.get("range")
    if isinstance(declared, Range):
        return declared
    return RANGES.get(key, NON_NEGATIVE)
