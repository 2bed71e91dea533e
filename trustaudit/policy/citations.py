"""Policy section for citation provenance and KB cards (owned by citations)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class CitationsPolicy:
    # --- provenance (trustaudit citations) ---
    typo_max_distance: int = opt(
        2, "a fabricated citation names the retrieved ID within this edit distance (1..N)"
    )
    fetch_tool_words: tuple[str, ...] = opt(
        ("fetch", "read", "open", "browse", "scrape", "download", "visit", "crawl"),
        "a tool without `kind` whose name has a word starting with one of these returned full text",
    )
    listing_tool_words: tuple[str, ...] = opt(
        ("list", "titles", "index", "toc", "catalog"),
        "a tool without `kind` whose name has a word starting with one of these returned titles only",
    )
    search_tool_words: tuple[str, ...] = opt(
        ("search", "retriev", "query", "lookup", "find", "rag"),
        "a tool without `kind` whose name has a word starting with one of these returned snippets",
    )
    unknown_tool_kind: Literal["search", "fetch", "listing"] = opt(
        "search",
        "kind assumed for a tool call whose kind cannot be told (flagged TOOL_KIND_GUESSED)",
    )
    concrete_min_words: int = opt(
        3, "a question with at least this many words (or any digit) is concrete"
    )
    smalltalk_patterns: tuple[str, ...] = opt(
        (
            r"^\s*(hi|hello|hey|thanks|thank you|ok|okay|bye|good (morning|afternoon|evening))\b",
            r"^\s*(ol[áa]|oi|obrigad[oa]|valeu|hola|gracias|buenos d[íi]as)\b",
            r"\b(who are you|what can you do|are you (a bot|an ai))\b",
        ),
        "questions matching one of these regexes (case-insensitive) are small talk, never a doc gap",
    )
    # --- KB cards (trustaudit cards) ---
    card_min_similarity: float = opt(0.5, "cards less similar than this to their source fail")
    card_top_paragraphs: int = opt(
        2, "similarity = best of the top paragraph and the top-N paragraphs joined"
    )
    card_fail_on_medium: bool = opt(False, "fail cards whose source the run marked medium")
    # --- optional LLM-as-judge, borderline cards only ---
    judge_enabled: bool = opt(
        False, "ask an LLM judge about borderline cards (needs endpoint+model)"
    )
    judge_endpoint: str = opt("", "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    judge_model: str = opt("", "model name sent to the judge endpoint")
    judge_api_key_env: str = opt(
        "TRUSTAUDIT_JUDGE_API_KEY", "environment variable holding the judge's API key (optional)"
    )
    judge_margin: float = opt(
        0.1, "borderline = similarity within this distance of card_min_similarity"
    )
    judge_max_calls: int = opt(50, "most judge requests per command (cache hits are free)")
    judge_timeout_s: float = opt(30.0, "timeout of one judge request")
    judge_cache_dir: str = opt("", "judge answer cache ('' = ~/.cache/trustaudit/judge)")

    def __post_init__(self) -> None:
        if self.typo_max_distance < 0:
            raise ValueError("typo_max_distance must be >= 0")
        if self.card_top_paragraphs < 1:
            raise ValueError("card_top_paragraphs must be >= 1")
        if self.judge_max_calls < 0:
            raise ValueError("judge_max_calls must be >= 0")
