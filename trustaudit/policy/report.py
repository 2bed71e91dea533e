"""Policy section for calibration, allow/blocklist suggestions and the HTML report (owned by reports)."""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class ReportPolicy:
    target_recall: float = opt(
        0.90, "calibrate: recommended threshold reaches this recall of 'untrusted'"
    )
    target_precision: float = opt(
        0.0, "calibrate: when > 0, recommend for this precision instead of target_recall"
    )
    calibrate_warn_quarantined_share: float = opt(
        0.5,
        "calibrate: warn when the recommended threshold would quarantine more than this share "
        "of all pages (1 = never warn)",
    )
    suggest_min_pages: int = opt(3, "pages a domain needs before it is suggested for a list")
    suggest_z: float = opt(1.96, "z of the Wilson intervals behind suggestions (1.96 = 95%)")
    allow_min_trusted_lower: float = opt(
        0.50,
        "suggest allow when the Wilson lower bound of the trusted-band share is >= this, "
        "no page was quarantined and no injection was found",
    )
    block_min_quarantined_lower: float = opt(
        0.40, "suggest block when the Wilson lower bound of the quarantined share is >= this"
    )
    block_on_injection: bool = opt(
        True, "suggest block for any domain with an injection finding, whatever its page count"
    )
    html_max_rows: int = opt(
        5000, "report.html: rows per table (lowest trust first); full lists stay in the CSVs"
    )
