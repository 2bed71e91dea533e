"""Domain reputation priors without the network: bundled public lists plus the user's own CSVs.

Offline, the domain sub-score had no evidence at all (every page said DOMAIN_AGE_MISSING). Public,
licence-compatible lists rate a few thousand domains: the Wikipedia perennial-sources consensus
(reliable / no consensus / unreliable / deprecated, CC BY-SA 3.0) and CRED-1's low-credibility
scores (CC BY 4.0). `trustaudit/data/README.md` records where each file comes from, its date and
its licence; bench/build_domain_priors.py rebuilds them from ../shared/corpora.

A prior is matched on the page's host or its nearest listed parent domain (`news.bbc.co.uk` ->
`bbc.co.uk`), most specific first; sources in precedence order: user files, Wikipedia, CRED-1.
"""

from __future__ import annotations

import csv
import functools
from importlib import resources
from pathlib import Path

import polars as pl

from trustaudit.policy import Policy

__all__ = ["BUNDLED", "Prior", "load_priors", "reputation_of_hosts"]

# file name -> (source shown in reasons and explain, licence)
BUNDLED: dict[str, tuple[str, str]] = {
    "wikipedia_rsp.csv": ("Wikipedia perennial sources (2021-03-17)", "CC BY-SA 3.0"),
    "cred1.csv": ("CRED-1 (2026, Loth et al.)", "CC BY 4.0"),
}

Prior = tuple[float, str, str]  # prior, label, source


def _read(text: str, source: str, into: dict[str, Prior]) -> None:
    for row in csv.DictReader(text.splitlines()):
        domain = (row.get("domain") or "").strip().lower().removeprefix("www.")
        try:
            prior = float(row.get("prior") or "")
        except ValueError:
            continue
        if domain and 0.0 <= prior <= 1.0 and domain not in into:
            into[domain] = (prior, (row.get("label") or "").strip(), source)


@functools.lru_cache(maxsize=8)
def _load(bundled: bool, files: tuple[str, ...]) -> dict[str, Prior]:
    out: dict[str, Prior] = {}
    for f in files:  # first source wins for a domain: user files before bundled ones
        _read(Path(f).read_text(encoding="utf-8"), Path(f).name, out)
    if bundled:
        folder = resources.files("trustaudit.data").joinpath("priors")
        for name, (source, _) in BUNDLED.items():
            _read(folder.joinpath(name).read_text("utf-8"), source, out)
    return out


def load_priors(policy: Policy) -> dict[str, Prior]:
    """domain -> (prior, label, source) from the policy's files and, if enabled, the bundled lists."""
    d = policy.domain
    return _load(d.bundled_priors, tuple(d.reputation_files))


def reputation_of_hosts(hosts: pl.Series, priors: dict[str, Prior]) -> pl.DataFrame:
    """host, reputation_prior, reputation_label, reputation_source for each unique host
    (null when neither the host nor a parent domain is rated)."""
    schema = {
        "host": pl.String,
        "reputation_prior": pl.Float64,
        "reputation_label": pl.String,
        "reputation_source": pl.String,
    }
    rows = []
    for h in hosts.drop_nulls().unique().to_list():
        labels = h.lower().rstrip(".").split(".")
        hit = next(
            (priors[c] for i in range(len(labels)) if (c := ".".join(labels[i:])) in priors), None
        )
        rows.append((h, *(hit or (None, None, None))))
    return pl.DataFrame(rows, schema=schema, orient="row")
