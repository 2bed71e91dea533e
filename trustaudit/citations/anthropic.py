"""Anthropic Messages transcripts: content blocks instead of OpenAI's tool messages.

What a turn retrieved: `search_result` blocks (in `tool_result` content or directly in a user
message), `web_search_tool_result` blocks (the server web-search tool), `document` blocks. What the
answer cites: `citations` on assistant `text` blocks, of type `search_result_location` (by `source`,
else by `search_result_index` across the request), `web_search_result_location` (by `url`),
`char_location` / `page_location` / `content_block_location` (by `document_index`). Shapes follow
the public Messages API documentation; unknown block types are ignored, not errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

ANTHROPIC_BLOCKS = frozenset(
    {
        "tool_use",
        "tool_result",
        "search_result",
        "server_tool_use",
        "web_search_tool_result",
        "document",
    }
)
_DOC_CITES = ("char_location", "page_location", "content_block_location")


class Builder(Protocol):
    """What the schema's turn builder offers (trustaudit.citations.schema._Builder)."""

    turn: Any

    def add_call(self, name: str, kind_value: Any, results: Any, scale: Any = None) -> None: ...

    def add_citations(self, value: Any) -> None: ...

    def warn(self, code: str, message: str) -> None: ...


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, list):
        return [b for b in content if isinstance(b, Mapping)]
    return []


def is_anthropic(messages: list[Any]) -> bool:
    """True when any message carries Anthropic content blocks (tool_use, search_result, …) or
    text blocks with citations."""
    for m in messages:
        if not isinstance(m, Mapping):
            continue
        for b in _blocks(m.get("content")):
            t = b.get("type")
            if t in ANTHROPIC_BLOCKS or (t == "text" and isinstance(b.get("citations"), list)):
                return True
    return False


def _str(v: Any) -> str | None:
    return v.strip() if isinstance(v, str) and v.strip() else None


def _search_item(block: Mapping[str, Any]) -> dict[str, Any] | None:
    source = _str(block.get("source"))
    if source is None:
        return None
    return {"id": source, "url": source, "title": _str(block.get("title"))}


def _document_id(block: Mapping[str, Any], index: int) -> str:
    src = block.get("source")
    if isinstance(src, Mapping) and _str(src.get("url")):
        return str(_str(src.get("url")))
    return _str(block.get("title")) or f"document:{index}"


class _State:
    """Search results and documents in request order: citations refer to them by index."""

    def __init__(self) -> None:
        self.search_results: list[str] = []
        self.documents: list[str] = []


def _retrievals(b: Builder, blocks: list[Mapping[str, Any]], name: str, st: _State) -> None:
    """search_result / document blocks of one message (or one tool_result) -> retrievals."""
    found = []
    for block in blocks:
        if block.get("type") == "search_result":
            item = _search_item(block)
            if item is None:
                b.warn("BAD_RESULT", "search_result block without a `source`")
                continue
            st.search_results.append(item["id"])
            found.append(item)
        elif block.get("type") == "document":
            doc = _document_id(block, len(st.documents))
            st.documents.append(doc)
            item = {"id": doc, "title": _str(block.get("title"))}
            if "://" in doc:
                item["url"] = doc
            b.add_call("document", "fetch", [item])
    if found:
        b.add_call(name, None, found)


def _citation(c: Mapping[str, Any], st: _State) -> dict[str, Any] | None:
    t = c.get("type")
    quote = _str(c.get("cited_text"))
    if t == "search_result_location":
        doc = _str(c.get("source"))
        idx = c.get("search_result_index")
        if doc is None and isinstance(idx, int) and 0 <= idx < len(st.search_results):
            doc = st.search_results[idx]
        span = _blocks_span(c)
    elif t == "web_search_result_location":
        doc, span = _str(c.get("url")), None
    elif t in _DOC_CITES:
        idx = c.get("document_index")
        doc = (
            st.documents[idx]
            if isinstance(idx, int) and 0 <= idx < len(st.documents)
            else _str(c.get("document_title"))
        )
        if t == "char_location":
            span = _range(c, "start_char_index", "end_char_index", "")
        elif t == "page_location":
            span = _range(c, "start_page_number", "end_page_number", "pages ")
        else:
            span = _blocks_span(c)
    else:
        return None
    if doc is None:
        return {"id": None}
    return {"id": doc, "span": span or quote}


def _range(c: Mapping[str, Any], a: str, z: str, prefix: str) -> str | None:
    s, e = c.get(a), c.get(z)
    if isinstance(s, int) and isinstance(e, int) and not isinstance(s, bool):
        return f"{prefix}{s}-{e}"
    return None


def _blocks_span(c: Mapping[str, Any]) -> str | None:
    return _range(c, "start_block_index", "end_block_index", "blocks ")


def parse_anthropic(b: Builder, messages: list[Any]) -> None:
    """Fill the turn from Anthropic Messages: question, retrievals, answer, citations."""
    st = _State()
    names: dict[str, str] = {}
    for i, msg in enumerate(messages):
        if not isinstance(msg, Mapping):
            b.warn("BAD_MESSAGE", f"message {i}: expected an object")
            continue
        role, content = msg.get("role"), msg.get("content")
        if isinstance(content, str):
            if role == "user":
                b.turn.question = content
            elif role == "assistant":
                b.turn.answer = content
            continue
        blocks = _blocks(content)
        texts = [str(x.get("text")) for x in blocks if x.get("type") == "text" and x.get("text")]
        if role == "user":
            if texts:
                b.turn.question = "\n".join(texts)
            _retrievals(b, blocks, "search_result", st)
            for block in blocks:
                if block.get("type") == "tool_result":
                    tid = block.get("tool_use_id")
                    name = names.get(tid, "") if isinstance(tid, str) else ""
                    inner = block.get("content")
                    if isinstance(inner, str) or not _blocks(inner):
                        b.add_call(name, None, inner)  # a JSON string or plain text, as before
                    else:
                        _retrievals(b, _blocks(inner), name, st)
        elif role == "assistant":
            for block in blocks:
                t = block.get("type")
                if t in ("tool_use", "server_tool_use") and isinstance(block.get("id"), str):
                    names[block["id"]] = _str(block.get("name")) or ""
                elif t == "web_search_tool_result":
                    tid = block.get("tool_use_id")
                    name = names.get(tid, "web_search") if isinstance(tid, str) else "web_search"
                    items = [
                        {"id": r["url"], "url": r["url"], "title": _str(r.get("title"))}
                        for r in _blocks(block.get("content"))
                        if _str(r.get("url"))
                    ]
                    b.add_call(name or "web_search", "search", items)
                elif t == "text" and isinstance(block.get("citations"), list):
                    cites = [_citation(c, st) for c in _blocks(block["citations"])]
                    b.add_citations([c for c in cites if c is not None])
            if texts:
                b.turn.answer = "".join(texts)
