"""Policy section for `trustaudit eval build` (owned by trust-layer): the `[eval]` table.

How planted-source queries are made from a run and labels. The limits that fail a run's eval are
gate rules (`gate.max_planted_in_context`, `gate.max_planted_cited`, `gate.max_clean_lost`).
"""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt

PLANTED_KINDS = ("affiliate", "new_blog", "llm_review", "injection")


@dataclass(frozen=True)
class EvalPolicy:
    kinds: tuple[str, ...] = opt(
        PLANTED_KINDS,
        "planted kinds `eval build` cycles through: affiliate (affiliate reasons), new_blog (domain"
        " younger than new_domain_days), injection (an injection finding), llm_review (any other"
        " untrusted-labelled page: nothing structural gives it away)",
    )
    clean_per_query: int = opt(4, "clean (trusted-labelled) results per built query")
    new_domain_days: int = opt(
        90, "a planted page's domain younger than this is a new_blog (as domain.young_domain_days)"
    )
    planted_relevance_min: float = opt(
        0.7, "planted results get a relevance in [this, 1]: they are planted to look relevant"
    )

    def __post_init__(self) -> None:
        unknown = sorted(set(self.kinds) - set(PLANTED_KINDS))
        if unknown or not self.kinds:
            raise ValueError(f"eval.kinds: unknown {unknown} (known: {', '.join(PLANTED_KINDS)})")
        if self.clean_per_query < 1:
            raise ValueError("eval.clean_per_query must be >= 1")
        if not 0.0 <= self.planted_relevance_min <= 1.0:
            raise ValueError("eval.planted_relevance_min must be in [0, 1]")
