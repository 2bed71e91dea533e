"""Build the bundled domain reputation priors from ../shared/corpora (run once, commit the output).

    .venv/bin/python bench/build_domain_priors.py

Writes trustaudit/data/priors/cred1.csv (CC BY 4.0) and wikipedia_rsp.csv (CC BY-SA 3.0), one row
per domain: domain, prior (0-1, higher = more credible), label. Each output keeps its source's licence;
provenance, dates and the mapping are documented in trustaudit/data/README.md. Sources without a
licence that allows redistribution (baly: none stated; opensources: LGPL file) are not used.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
OUT = ROOT / "trustaudit" / "data" / "priors"

# Wikipedia RSP status -> prior. The status is a consensus on reliability for citing facts.
RSP_PRIOR = {
    "Generally reliable": 0.9,
    "No consensus": 0.5,
    "Generally unreliable": 0.2,
    "Deprecated": 0.1,
    "Blacklisted": 0.05,
}
# Platforms RSP rates for their user-generated content: a blog on them is its own publisher
# (private suffixes make *.wordpress.com sites their own registered domain), so they get no prior.
PLATFORMS = {
    "wordpress.com", "blogspot.com", "medium.com", "substack.com", "linkedin.com", "fandom.com",
    "wikia.com", "wikipedia.org", "stackexchange.com", "stackoverflow.com", "reddit.com",
    "twitter.com", "facebook.com", "instagram.com", "youtube.com", "tiktok.com", "quora.com",
    "github.com", "imdb.com", "goodreads.com", "ancestry.com", "findagrave.com", "change.org",
    "scribd.com", "academia.edu", "researchgate.net", "wikidata.org", "wikinews.org",
    "wikiquote.org", "wikisource.org", "wikitree.com", "tumblr.com", "discogs.com",
    "genius.com", "lulu.com", "examiner.com", "famousbirthdays.com", "myspace.com",
}  # fmt: skip


def _host(u: str) -> str | None:
    u = u.strip().lower()
    if not u or "/" in u or " " in u:  # a path-scoped entry (forbes.com/sites) is not a domain
        return None
    return u.removeprefix("www.")


def build_cred1() -> list[tuple[str, float, str]]:
    rows = []
    with open(CORPORA / "cred-1" / "cred1_current.csv", newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            host = _host(r["domain"])
            if host and r["credibility_score"]:
                rows.append((host, round(float(r["credibility_score"]), 3), r["category"]))
    return sorted(set(rows))


def build_rsp() -> list[tuple[str, float, str]]:
    best: dict[str, tuple[float, str]] = {}
    path = CORPORA / "wikipedia-perennial-sources" / "perennial-sources.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        for r in csv.DictReader(fh):
            statuses = [s for s in json.loads(r["status"]) if s in RSP_PRIOR]
            if not statuses:
                continue
            prior = round(sum(RSP_PRIOR[s] for s in statuses) / len(statuses), 3)
            label = " / ".join(statuses).lower()
            for u in json.loads(r["urls"]):
                host = _host(u)
                if not host or host in PLATFORMS or any(host.endswith("." + p) for p in PLATFORMS):
                    continue
                # several entries per domain are sections (The Guardian vs its blogs, both
                # theguardian.com): the domain's main entry is the better rated one
                if host not in best or prior > best[host][0]:
                    best[host] = (prior, label)
    return sorted((h, p, lab) for h, (p, lab) in best.items())


def _write(name: str, rows: list[tuple[str, float, str]]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / name, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["domain", "prior", "label"])
        w.writerows(rows)
    print(f"{name}: {len(rows)} domains")


def main() -> int:
    _write("cred1.csv", build_cred1())
    _write("wikipedia_rsp.csv", build_rsp())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
