"""Policy section for the LLM judge on the tail (owned by trust-layer): the `[judge]` table.

Off unless an endpoint and a model are configured (or `--judge-endpoint`/`--judge-model` given):
heuristics decide most pages; a judge is spent only on the tail — pages near the threshold, new or
unknown domains, pages the user names with `--judge-url`. See docs/judge.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class JudgePolicy:
    endpoint: str = opt(
        "", "OpenAI-compatible base URL (vLLM, llama.cpp, Ollama), e.g. http://127.0.0.1:8000/v1"
    )
    model: str = opt("", "model name sent to the endpoint ('' with endpoint '' = judge off)")
    api_key_env: str = opt(
        "TRUSTAUDIT_JUDGE_API_KEY", "environment variable holding the endpoint's API key (optional)"
    )
    band_margin: float = opt(
        0.05, "judge pages whose trust is within this of bands.quarantine_below (0 = none)"
    )
    new_domains: bool = opt(
        True, "judge pages of domains with unknown age or younger than domain.young_domain_days"
    )
    max_pages: int = opt(
        20, "most pages judged per run (cache hits count too); the rest get JUDGE_SKIPPED_BUDGET"
    )
    max_tokens: int = opt(
        1500, "page text sent per page, in tokens (~4 characters each); longer text is cut"
    )
    reply_tokens: int = opt(120, "max_tokens asked of the model for its reply")
    concurrency: int = opt(4, "judge requests in flight at once")
    timeout_s: float = opt(30.0, "timeout of one judge request (a late reply is JUDGE_FAILED)")
    weight: float = opt(
        0.2, "adjust_judge = weight * (judge_score - 0.5): at most ±weight/2 on the trust score"
    )
    max_raise: float = opt(
        0.02,
        "most the judge may RAISE a trust score (adjust_judge is capped here; lowering is not):"
        " the judge reads hostile page text, so a page that talks it into a high score must not"
        " climb out of quarantine",
    )
    cache_dir: str = opt(
        "", "verdict cache ('' = RUN/cache/judge, or CACHE/judge with audit --cache CACHE)"
    )

    @property
    def configured(self) -> bool:
        return bool(self.endpoint and self.model)

    def __post_init__(self) -> None:
        if not 0.0 <= self.band_margin <= 1.0:
            raise ValueError("judge.band_margin must be in [0, 1]")
        if self.max_pages < 0 or self.max_tokens < 1 or self.reply_tokens < 1:
            raise ValueError("judge.max_pages >= 0, max_tokens >= 1 and reply_tokens >= 1 needed")
        if self.concurrency < 1 or self.timeout_s <= 0:
            raise ValueError("judge.concurrency >= 1 and timeout_s > 0 needed")
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError("judge.weight must be in [0, 1]")
        if not 0.0 <= self.max_raise <= 0.5:
            raise ValueError("judge.max_raise must be in [0, 0.5]")
