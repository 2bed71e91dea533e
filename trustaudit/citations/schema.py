"""Parse agent transcripts (one turn per JSONL line) into one normalised `Turn` shape.

Logs come from many agent frameworks; rather than make users convert, we accept a few common shapes
(canonical `tool_calls`, OpenAI-style or Anthropic Messages `messages`, flat `retrieved`/`fetched`/`listed` lists) and map
them to the same dataclasses. A broken line or item becomes an `ErrorRow`, never an exception: one
bad record must not hide the audit of the others.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from trustaudit.citations.anthropic import is_anthropic, parse_anthropic
from trustaudit.io.records import ErrorRow, normalize_url
from trustaudit.policy.citations import CitationsPolicy

Kind = Literal["search", "fetch", "listing"]
KINDS: tuple[Kind, ...] = ("search", "fetch", "listing")
STAGE = "citations"

# Spellings of `kind` seen in logs, mapped to the three kinds the rules know.
_KIND_ALIASES: dict[str, Kind] = {
    "search": "search", "snippet": "search", "snippets": "search", "retrieval": "search",
    "retrieve": "search", "rag": "search", "query": "search",
    "fetch": "fetch", "read": "fetch", "full": "fetch", "document": "fetch", "open": "fetch",
    "browse": "fetch", "page": "fetch",
    "listing": "listing", "list": "listing", "titles": "listing", "title": "listing",
    "index": "listing", "toc": "listing",
}  # fmt: skip
_ID_KEYS = ("id", "doc_id", "document_id", "source_id", "docid", "chunk_id", "url", "source", "uri")
_URL_KEYS = ("url", "source_url", "uri", "link", "href")
_RESULT_KEYS = ("results", "documents", "docs", "doc_ids", "ids", "returned", "output", "hits")
_CALL_KEYS = ("tool_calls", "tools", "calls", "steps", "retrievals", "tool_results")
_CITE_KEYS = ("citations", "sources", "references", "cited", "cited_ids", "cited_sources")
_QUESTION_KEYS = ("question", "query", "user", "prompt", "input", "user_message")
_ANSWER_KEYS = ("answer", "response", "output_text", "completion", "final_answer", "reply")
_FLAT_KINDS: dict[str, Kind] = {
    "retrieved": "search", "searched": "search", "search_results": "search", "snippets": "search",
    "fetched": "fetch", "read": "fetch", "opened": "fetch", "full_text": "fetch",
    "listed": "listing", "listing": "listing", "titles": "listing",
}  # fmt: skip
_URL_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


def doc_key(doc_id: str) -> str:
    """Canonical comparison key: URLs are normalised (case of host, default port, fragment)."""
    s = doc_id.strip()
    if _URL_RE.match(s):
        return normalize_url(s)
    return s


def is_http_url(value: object) -> bool:
    """True for an absolute http(s) URL with a host (what may become a `source_url`)."""
    if not isinstance(value, str) or not value.strip():
        return False
    s = value.strip()
    if not re.match(r"^https?://[^\s/?#]+", s, re.IGNORECASE):
        return False
    return not any(c.isspace() for c in s)


def clean_url(value: object) -> str | None:
    """The stripped URL when `value` is an http(s) URL, else None."""
    return value.strip() if isinstance(value, str) and is_http_url(value) else None


@dataclass(frozen=True)
class Retrieval:
    """One document a tool call returned."""

    doc_id: str
    kind: Kind
    tool: str
    call_index: int
    url: str | None = None  # the URL the *tool* returned, never one the model wrote
    title: str | None = None
    score: float | None = None
    score_scale: str | None = None

    @property
    def key(self) -> str:
        return doc_key(self.doc_id)


@dataclass(frozen=True)
class Citation:
    """One document the answer cites, with an optional span ("start-end" or a quote)."""

    doc_id: str
    span: str | None = None

    @property
    def key(self) -> str:
        return doc_key(self.doc_id)


@dataclass
class Turn:
    """One agent turn: the question, what tools returned, what the answer cites."""

    turn_id: str
    line: int
    question: str | None = None
    answer: str | None = None
    retrievals: list[Retrieval] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    concrete: bool | None = None  # explicit override from the log
    notes: list[str] = field(default_factory=list)  # "CODE: detail" flags met while parsing


def _err(source: str, line: int, code: str, message: str) -> ErrorRow:
    return ErrorRow(source=source, offset=line, url=None, stage=STAGE, code=code, message=message)


def _first(obj: Mapping[str, Any], keys: Iterable[str]) -> Any:
    for k in keys:
        if k in obj and obj[k] is not None:
            return obj[k]
    return None


def _text(value: Any) -> str | None:
    """A string from str / {"text"|"content": str} / list of content parts; else None."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return _text(_first(value, ("text", "content", "value")))
    if isinstance(value, list):
        parts = [t for t in (_text(v) for v in value) if t]
        return "\n".join(parts) if parts else None
    return None


def _id_of(item: Any) -> str | None:
    if isinstance(item, bool):
        return None
    if isinstance(item, str):
        return item.strip() or None
    if isinstance(item, int):
        return str(item)
    if isinstance(item, Mapping):
        for k in _ID_KEYS:
            v = item.get(k)
            if isinstance(v, str) and v.strip():
                return v.strip()
            if isinstance(v, int) and not isinstance(v, bool):
                return str(v)
        nested = item.get("url_citation") or item.get("document")
        if isinstance(nested, Mapping):
            return _id_of(nested)
    return None


def _float(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    f = float(v)
    return f if math.isfinite(f) else None


def _str(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


def _name_tokens(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t]


def tool_kind(name: str, explicit: Any, policy: CitationsPolicy) -> tuple[Kind, bool]:
    """(kind, guessed): explicit `kind` wins; else the first name word that starts a listed word."""
    if isinstance(explicit, str) and explicit.strip().lower() in _KIND_ALIASES:
        return _KIND_ALIASES[explicit.strip().lower()], False
    lists: tuple[tuple[Kind, tuple[str, ...]], ...] = (
        ("listing", policy.listing_tool_words),
        ("fetch", policy.fetch_tool_words),
        ("search", policy.search_tool_words),
    )
    for token in _name_tokens(name):
        for kind, words in lists:
            if any(w and token.startswith(w.lower()) for w in words):
                return kind, False
    return policy.unknown_tool_kind, True


def _results_list(value: Any) -> list[Any] | None:
    """Tool output -> list of result items; JSON strings are decoded; None when unreadable."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return None
    if isinstance(value, list):
        return value
    if isinstance(value, Mapping):
        inner = _first(value, _RESULT_KEYS)
        if inner is not None:
            return _results_list(inner)
        if _id_of(value) is not None:
            return [value]
    return None


class _Builder:
    """Accumulates one turn's retrievals/citations and the warnings met on the way."""

    def __init__(self, source: str, line: int, policy: CitationsPolicy) -> None:
        self.source, self.line, self.policy = source, line, policy
        self.turn = Turn(turn_id="", line=line)
        self.errors: list[ErrorRow] = []
        self.calls = 0

    def warn(self, code: str, message: str) -> None:
        self.errors.append(_err(self.source, self.line, code, message))

    def add_call(
        self, name: str, kind_value: Any, results: Any, scale: Any = None, raw_kind_hint: str = ""
    ) -> None:
        kind, guessed = tool_kind(name or raw_kind_hint, kind_value, self.policy)
        index = self.calls
        self.calls += 1
        if guessed:
            self.turn.notes.append(f"TOOL_KIND_GUESSED: tool {name or '?'!r} treated as {kind}")
        items = _results_list(results)
        if items is None:
            if results is not None:
                self.warn(
                    "TOOL_OUTPUT_UNPARSED", f"tool call {index} ({name!r}): no document IDs found"
                )
            return
        call_scale = _str(scale)
        for i, item in enumerate(items):
            doc = _id_of(item)
            if doc is None:
                self.warn("BAD_RESULT", f"tool call {index} result {i}: no document ID")
                continue
            url = title = None
            score = None
            item_scale = call_scale
            if isinstance(item, Mapping):
                url_v = _first(item, _URL_KEYS)
                url = url_v.strip() if is_http_url(url_v) else None
                title = _str(item.get("title"))
                score = _float(_first(item, ("score", "relevance", "similarity", "rerank_score")))
                item_scale = _str(item.get("score_scale")) or call_scale
            elif is_http_url(doc):
                url = doc
            self.turn.retrievals.append(
                Retrieval(doc, kind, name or "?", index, url, title, score, item_scale)
            )

    def add_citations(self, value: Any) -> None:
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            doc = _id_of(item)
            if doc is None:
                self.warn("BAD_CITATION", f"citation {i}: no document ID in {str(item)[:60]!r}")
                continue
            self.turn.citations.append(Citation(doc, _span(item)))


def _span(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    span = _first(item, ("span", "spans"))
    if isinstance(span, list) and len(span) == 2 and all(_float(x) is not None for x in span):
        return f"{int(span[0])}-{int(span[1])}"
    if isinstance(span, list) and span and all(isinstance(s, list) for s in span):
        return ";".join(_span({"span": s}) or "" for s in span) or None
    if isinstance(span, str):
        return span
    start, end = _float(item.get("start")), _float(item.get("end"))
    if start is None:
        start, end = _float(item.get("start_index")), _float(item.get("end_index"))
    if start is not None and end is not None:
        return f"{int(start)}-{int(end)}"
    return _str(_first(item, ("quote", "cited_text", "snippet")))


def _parse_canonical_calls(b: _Builder, calls: Any, top_scale: Any) -> None:
    if not isinstance(calls, list):
        b.warn("BAD_TOOL_CALL", f"tool calls: expected a list, got {type(calls).__name__}")
        return
    for i, call in enumerate(calls):
        if not isinstance(call, Mapping):
            b.warn("BAD_TOOL_CALL", f"tool call {i}: expected an object")
            continue
        fn = call.get("function")
        name = _str(_first(call, ("tool", "name", "tool_name"))) or (
            _str(fn.get("name")) if isinstance(fn, Mapping) else None
        )
        results = _first(call, _RESULT_KEYS)
        if results is None:
            results = _first(call, ("content", "result"))
        b.add_call(
            name or "",
            _first(call, ("kind", "type")),
            results,
            _first(call, ("score_scale",)) or top_scale,
        )


def _parse_messages(b: _Builder, messages: list[Any], top_scale: Any) -> None:
    """OpenAI-style chat: assistant tool_calls + role=tool outputs; the last assistant text answers.

    Anthropic Messages (content blocks: tool_use/tool_result, search_result, cited text blocks)
    are read by trustaudit.citations.anthropic."""
    if is_anthropic(messages):
        parse_anthropic(b, messages)
        return
    call_names: dict[str, str] = {}
    call_kinds: dict[str, Any] = {}
    for i, msg in enumerate(messages):
        if not isinstance(msg, Mapping):
            b.warn("BAD_MESSAGE", f"message {i}: expected an object")
            continue
        role = msg.get("role")
        if role == "user":
            text = _text(msg.get("content"))
            if text:
                b.turn.question = text
        elif role == "assistant":
            for tc in msg.get("tool_calls") or []:
                if isinstance(tc, Mapping) and isinstance(tc.get("id"), str):
                    fn = tc.get("function")
                    name = _str(fn.get("name")) if isinstance(fn, Mapping) else None
                    call_names[tc["id"]] = name or _str(tc.get("name")) or ""
                    call_kinds[tc["id"]] = tc.get("kind")
            text = _text(msg.get("content"))
            if text:
                b.turn.answer = text
            for k in ("citations", "annotations"):
                if isinstance(msg.get(k), list):
                    b.add_citations([a for a in msg[k] if not _is_foreign_annotation(a)])
        elif role in ("tool", "function"):
            cid = msg.get("tool_call_id")
            name = _str(msg.get("name")) or call_names.get(cid if isinstance(cid, str) else "", "")
            kind = msg.get("kind") or call_kinds.get(cid if isinstance(cid, str) else "")
            b.add_call(name, kind, msg.get("content"), msg.get("score_scale") or top_scale)


def _is_foreign_annotation(a: Any) -> bool:
    # OpenAI annotations also carry file paths etc.; only citation-like ones name sources.
    return isinstance(a, Mapping) and "type" in a and "citation" not in str(a.get("type"))


def parse_turn(
    obj: Any, *, source: str, line: int, policy: CitationsPolicy
) -> tuple[Turn | None, list[ErrorRow]]:
    """One decoded JSON value -> (turn or None when unusable, warnings/errors)."""
    if not isinstance(obj, Mapping):
        return None, [
            _err(source, line, "NOT_AN_OBJECT", f"expected a JSON object, got {type(obj).__name__}")
        ]
    b = _Builder(source, line, policy)
    tid = _first(obj, ("turn_id", "id", "turn", "trace_id"))
    b.turn.turn_id = (
        str(tid) if isinstance(tid, str | int) and not isinstance(tid, bool) else f"line-{line}"
    )
    top_scale = obj.get("score_scale")
    q = _first(obj, _QUESTION_KEYS)
    b.turn.question = _text(q)
    if isinstance(obj.get("concrete"), bool):
        b.turn.concrete = obj["concrete"]

    calls = _first(obj, _CALL_KEYS)
    if calls is not None:
        _parse_canonical_calls(b, calls, top_scale)
    if isinstance(obj.get("messages"), list):
        _parse_messages(b, obj["messages"], top_scale)
    for key, kind in _FLAT_KINDS.items():
        if key in obj and obj[key] is not None:
            b.add_call(key, kind, obj[key], top_scale)

    ans = _first(obj, _ANSWER_KEYS)
    if ans is not None:
        text = _text(ans)
        if text is not None:
            b.turn.answer = text
        if isinstance(ans, Mapping):
            cites = _first(ans, _CITE_KEYS)
            if cites is not None:
                b.add_citations(cites)
    cites = _first(obj, _CITE_KEYS)
    if cites is not None:
        b.add_citations(cites)

    t = b.turn
    if not t.retrievals and not t.citations and t.answer is None and t.question is None:
        return None, [
            *b.errors,
            _err(source, line, "EMPTY_TURN", "no question, answer, tool call or citation found"),
        ]
    return t, b.errors


def parse_lines(
    lines: Iterable[str], *, source: str, policy: CitationsPolicy
) -> Iterator[tuple[Turn | None, list[ErrorRow]]]:
    """Parse JSONL text lines (1-based line numbers); blank lines are skipped."""
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            yield None, [_err(source, n, "JSON_DECODE", f"not JSON: {exc}"[:200])]
            continue
        yield parse_turn(obj, source=source, line=n, policy=policy)


def read_turns(path: str | Path, policy: CitationsPolicy) -> tuple[list[Turn], list[ErrorRow]]:
    """Read a transcript JSONL file (or a JSON array) into turns and error rows.

    Turn IDs are made unique (`id@line`) so every output row names exactly one turn.
    """
    p = Path(path)
    raw = p.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    lines: Iterable[str]
    stripped = text.lstrip("\ufeff").lstrip()
    if stripped.startswith("["):
        try:
            arr = json.loads(stripped)
            lines = [json.dumps(x) for x in arr] if isinstance(arr, list) else text.splitlines()
        except (json.JSONDecodeError, RecursionError):
            lines = text.splitlines()
    else:
        lines = text.lstrip("\ufeff").splitlines()
    turns: list[Turn] = []
    errors: list[ErrorRow] = []
    seen: set[str] = set()
    for turn, errs in parse_lines(lines, source=str(p), policy=policy):
        errors.extend(errs)
        if turn is None:
            continue
        if turn.turn_id in seen:
            errors.append(
                _err(
                    str(p),
                    turn.line,
                    "DUPLICATE_TURN_ID",
                    f"turn id {turn.turn_id!r} repeated; renamed",
                )
            )
            turn.turn_id = f"{turn.turn_id}@{turn.line}"
        seen.add(turn.turn_id)
        turns.append(turn)
    return turns, errors
