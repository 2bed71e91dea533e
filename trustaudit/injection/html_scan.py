"""Collect the text of a raw HTML page by where it lives: visible, hidden, or out of band.

Why raw HTML: text extractors drop hidden nodes, comments and attributes, which is exactly where an
injection aimed at an AI is planted. The scanner parses once with lexbor (selectolax) for structure
(hidden subtrees, visible text) and uses regexes over the source for what has a natural position there
(comments, attributes, scripts, templates, invisible Unicode, base64), so most segments carry an exact
character offset. Each segment carries a *prior*: how suspicious its location is before reading it.
"""

from __future__ import annotations

import html as htmllib
import re
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

from trustaudit.injection.detect import decode_base64_text, has_astral, reveal_invisible

__all__ = ["PRIORS", "Segment", "collect_segments", "hiding_technique"]

# Suspicion of a location before its text is read (added to the detector's score by noisy-or).
PRIORS: dict[str, float] = {
    "visible": 0.0,
    "display_none": 0.25,
    "visibility_hidden": 0.25,
    "opacity_zero": 0.25,
    "font_size_zero": 0.25,
    "zero_size": 0.2,
    "offscreen": 0.25,
    "same_color": 0.25,
    "hidden_attr": 0.25,
    "css_hidden_class": 0.2,
    "aria_hidden": 0.1,
    "noscript": 0.2,
    "template": 0.2,
    "comment": 0.25,
    "script": 0.15,
    "css_content": 0.25,
    "attr_alt": 0.2,
    "attr_title": 0.2,
    "attr_aria_label": 0.2,
    "meta_content": 0.2,
    "attr_data": 0.25,
    "attr_other": 0.1,
    "unicode_tags": 0.45,
    "zero_width": 0.3,
    "bidi": 0.3,
    "base64": 0.3,
}


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of page text with the technique that hid it (or "visible"), where it was, and its offset."""

    technique: str
    location: str
    text: str
    offset: int

    @property
    def prior(self) -> float:
        return PRIORS.get(self.technique, 0.2)


_S = re.IGNORECASE | re.DOTALL
_TEMPLATE = re.compile(r"<template\b[^>]*>(.*?)</template\s*>", _S)
_TAGS = re.compile(r"<[^>]*>")
# Attribute values that can carry text a model reads but a human does not see on the page.
_JS_STRING = re.compile(r"\"([^\"\n]{16,800})\"|'([^'\n]{16,800})'|`([^`]{16,800})`")
_JS_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\([nrt\"'\\/])")
_JS_SIMPLE = {"n": "\n", "r": " ", "t": " "}
_CSS_CONTENT = re.compile(
    r"content\s*:\s*(?:\"([^\"]{8,})\"|'([^']{8,})')"
)  # literal first: fast scan
_CSS_HIDE_HINT = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|opacity\s*:\s*0|font-size\s*:\s*0|:\s*-\d{3,}|clip\s*:\s*rect\(0"
)
_DATA_ATTR = re.compile(r"(data-[\w.:-]+)\s*=\s*(?:\"([^\"<>]{12,4000})\"|'([^'<>]{12,4000})')")
_SIMPLE_SELECTOR = re.compile(r"^[.#][A-Za-z_][\w-]*$")


class _Wordy:
    """Prose test: at least three words. A space count (C speed) is enough to skip ids and URLs."""

    @staticmethod
    def search(s: str) -> bool:
        return s.count(" ") >= 2


_WORDY = _Wordy()

# Hiding declarations, checked on a lower-cased declaration block with whitespace removed.
_HIDE_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("display_none", re.compile(r"(?:^|[;{])display:none")),
    ("visibility_hidden", re.compile(r"(?:^|[;{])visibility:(?:hidden|collapse)")),
    ("opacity_zero", re.compile(r"(?:^|[;{])opacity:(?:0?\.0\d*|0)(?:[;!}]|$)")),
    (
        "font_size_zero",
        re.compile(r"(?:^|[;{])font-size:(?:0|0?\.0*[0-4]\d*)(?:px|pt|em|rem|%)?(?:[;!}]|$)"),
    ),
    (
        "offscreen",
        re.compile(
            r"(?:^|[;{])(?:left|top|right|text-indent|margin-left|margin-top):-\d{3,}"
            r"|transform:translate[xy]?\(-\d{3,}"
        ),
    ),
    ("zero_size", re.compile(r"clip:rect\(0(?:px)?,?0|clip-path:inset\((?:50|100)%")),
]
_HIDE_HINT_INLINE = re.compile(r"none|hidden|collapse|opacity|font-size|-\d{3}|clip|color")
_BODY_RULE = re.compile(r"body\s*\{([^}]*)\}")
_ZERO_BOX = re.compile(
    r"(?:^|;)(?:width|height|max-width|max-height):(?:0|1px)(?:px|em|%)?(?:[;!]|$)"
)
_OVERFLOW_HIDDEN = re.compile(r"overflow:hidden")
_COLOR = re.compile(r"(?:^|;)color:([^;!]+)")
_BG = re.compile(r"(?:^|;)background(?:-color)?:([^;!]+)")
_WHITES = {"#fff", "#ffffff", "white", "#fefefe", "rgb(255,255,255)", "#fffffe"}


def _norm_color(c: str) -> str:
    c = c.strip().lower()
    if c in _WHITES or c.startswith("rgba(255,255,255"):
        return "white"
    return c


def hiding_technique(style: str, page_bg: str = "white") -> str | None:
    """Which hiding technique an inline style uses, or None when it renders visibly."""
    s = style.lower()
    if not _HIDE_HINT_INLINE.search(s):
        return None
    s = s.replace(" ", "").replace("\n", "").replace("\t", "")
    for name, rx in _HIDE_RULES:
        if rx.search(s):
            return name
    if _OVERFLOW_HIDDEN.search(s) and _ZERO_BOX.search(s):
        return "zero_size"
    cm = _COLOR.search(s)
    if cm:
        color = _norm_color(cm.group(1))
        if color == "transparent":
            return "same_color"
        bm = _BG.search(s)
        bg = _norm_color(bm.group(1)) if bm else page_bg
        if color == bg:
            return "same_color"
    return None


def _page_background(tree: LexborHTMLParser, css: str) -> str:
    body = tree.body
    if body is not None:
        attrs = body.attributes
        if attrs.get("bgcolor"):
            return _norm_color(attrs["bgcolor"] or "")
        st = (attrs.get("style") or "").lower().replace(" ", "")
        m = _BG.search(st)
        if m:
            return _norm_color(m.group(1))
    m = _BODY_RULE.search(css)
    if m:
        bm = _BG.search(m.group(1).lower().replace(" ", "").replace("\n", ""))
        if bm:
            return _norm_color(bm.group(1))
    return "white"


def _tag_text(fragment: str) -> str:
    return htmllib.unescape(_TAGS.sub(" ", fragment))


def _iter_blocks(html: str, start_tok: str, end_tok: str) -> list[tuple[int, str]]:
    """(offset, inner text) of `start_tok ... end_tok` blocks, found with str.find (C speed)."""
    out: list[tuple[int, str]] = []
    i = html.find(start_tok)
    while i != -1:
        j = html.find(end_tok, i + len(start_tok))
        if j == -1:
            break
        out.append((i + len(start_tok), html[i + len(start_tok) : j]))
        i = html.find(start_tok, j + len(end_tok))
    return out


def _unescape_js(m: re.Match[str]) -> str:
    if m.group(1):
        return chr(int(m.group(1), 16))
    if m.group(2):
        return chr(int(m.group(2), 16))
    c = m.group(3)
    return _JS_SIMPLE.get(c, c)


def _js_strings(code: str) -> list[str]:
    """String literals of a script that read like prose (3+ words), unescaped just enough to read."""
    out: list[str] = []
    for sm in _JS_STRING.finditer(code):
        lit = sm.group(1) or sm.group(2) or sm.group(3) or ""
        if _WORDY.search(lit):
            out.append(_JS_ESCAPE.sub(_unescape_js, lit) if "\\" in lit else lit)
    return out


def _css_hidden(css: str, page_bg: str, limit: int = 40) -> list[tuple[str, str]]:
    """Simple `.class`/`#id` selectors whose rule hides the element (from <style> blocks)."""
    out: list[tuple[str, str]] = []
    for m in _CSS_HIDE_HINT.finditer(css):
        lo = css.rfind("{", 0, m.start())
        hi = css.find("}", m.end())
        if lo == -1 or hi == -1:
            continue
        tech = hiding_technique(css[lo + 1 : hi], page_bg)
        if tech is None or tech == "same_color":
            continue
        sel_start = max(css.rfind("}", 0, lo), css.rfind("{", 0, lo)) + 1
        for sel in css[sel_start:lo].split(","):
            sel = sel.strip()
            if _SIMPLE_SELECTOR.match(sel):
                out.append((sel, tech))
        if len(out) >= limit:
            break
    return out[:limit]


_INVISIBLE_PROBES = tuple(
    "\u200b\u200c\u200d\u2060\ufeff\u202e\u202d\u2066\u2067\u2068\U000e0041\U000e0020"
)
# A script is only read when it contains one of these (lower-cased): the words detector features need.
_SCRIPT_GATES = (
    "ignor",
    "instruc",
    "summar",
    "assistant",
    "you are",
    "pretend",
    "your respon",
    "your answer",
    "chatgpt",
    "[system",
    "<system",
    "ai model",
    "ai agent",
    "an ai",
    "new instructions",
    "important:",
    "<|",
    "[inst",
    "atob(",
    "disregard",
    "as if you",
    "the user",
)
_TAG_CHAR = re.compile("[\U000e0000-\U000e007f]")


def _has_invisible(html: str) -> bool:
    if html.isascii():
        return False
    if any(c in html for c in _INVISIBLE_PROBES):  # 12 C-speed scans beat one charset regex
        return True
    # Tag characters are astral: only possible when the string holds a code point above U+FFFF.
    return has_astral(html) and _TAG_CHAR.search(html) is not None


def collect_segments(html: str, *, max_text: int = 400_000) -> tuple[list[Segment], str]:
    """All hidden or out-of-band text segments of a page, and the page's visible text.

    Segments found in the source (comments, attributes, invisible Unicode, base64) carry exact offsets;
    segments from the DOM (hidden subtrees, scripts, styles) carry -1 and are located when they hit.
    """
    segs: list[Segment] = []

    for off, body in _iter_blocks(html, "<!--", "-->"):
        if body.lstrip().startswith("[if"):
            continue
        if _WORDY.search(body):
            segs.append(Segment("comment", "comment", body, off))
        if len(body) < 24:
            continue
        for boff, txt in decode_base64_text(body, limit=4):
            segs.append(Segment("base64", "comment base64", txt, off + boff))

    if "<template" in html or "<TEMPLATE" in html:
        for m in _TEMPLATE.finditer(html):
            t = _tag_text(m.group(1))
            if _WORDY.search(t):
                segs.append(Segment("template", "<template>", t, m.start(1)))

    if " data-" in html:
        for m in _DATA_ATTR.finditer(html):
            if not html[m.start() - 1].isspace():
                continue
            value = m.group(2) if m.group(2) is not None else (m.group(3) or "")
            off = m.start(2) if m.group(2) is not None else m.start(3)
            name = m.group(1)
            if len(value) >= 24 and " " not in value:
                for boff, txt in decode_base64_text(value, limit=4):
                    segs.append(Segment("base64", f"[{name}] base64", txt, off + boff))
            if _WORDY.search(value):
                # data-placeholder & co. are form hints ("Write your answer"), not hidden prose.
                tech = "attr_other" if "placeholder" in name or "label" in name else "attr_data"
                segs.append(Segment(tech, f"[{name}]", htmllib.unescape(value), off))

    if _has_invisible(html):
        for inv in reveal_invisible(html):
            segs.append(
                Segment(
                    inv.technique,
                    f"invisible unicode ({inv.technique})",
                    _tag_text(inv.text),
                    inv.offset,
                )
            )

    tree = LexborHTMLParser(html)

    for node in tree.css(
        "[alt],[title],[aria-label],[aria-description],[placeholder],meta[content]"
    ):
        tag = node.tag or "?"
        for name, value in node.attributes.items():
            if not value or len(value) < 12:
                continue
            if name == "alt":
                tech = "attr_alt"
            elif name == "title":
                tech = "attr_title"
            elif name in ("aria-label", "aria-description"):
                tech = "attr_aria_label"
            elif name == "content" and tag == "meta":
                tech = "meta_content"
            elif name == "placeholder":
                tech = "attr_other"
            else:
                continue
            if _WORDY.search(value):
                segs.append(Segment(tech, f"<{tag} {name}>", value, -1))

    for node in tree.css("script"):
        if node.attrs.get("src"):  # one attribute, no dict of all of them
            continue
        code = node.text(deep=True)
        if len(code) < 18:
            continue
        low = code.lower()
        if not any(g in low for g in _SCRIPT_GATES):
            continue
        strings = _js_strings(code)
        if strings:
            kind = "json-ld" if "ld+json" in (node.attrs.get("type") or "") else "<script>"
            segs.append(Segment("script", f"{kind} string", "\n\n".join(strings), -1))
        if "atob(" in low:
            for _, txt in decode_base64_text(code, limit=8):
                segs.append(Segment("base64", "<script> base64", txt, -1))

    css_parts = [n.text(deep=True) for n in tree.css("style")]
    css_all = "\n".join(css_parts)
    for cm in _CSS_CONTENT.finditer(css_all):
        lit = cm.group(1) or cm.group(2) or ""
        if _WORDY.search(lit):
            segs.append(Segment("css_content", "<style> content:", lit, -1))

    page_bg = _page_background(tree, css_all)
    hidden: dict[int, tuple[LexborNode, str, str]] = {}

    def mark(node: LexborNode, technique: str, how: str) -> None:
        hidden.setdefault(node.mem_id, (node, technique, how))

    for node in tree.css("[style]"):
        style = node.attrs.get("style") or ""
        hide = hiding_technique(style, page_bg)
        if hide is not None:
            mark(node, hide, f'style="{style.strip()[:60]}"')
    for node in tree.css("[hidden]"):
        mark(node, "hidden_attr", "hidden attribute")
    for node in tree.css('[aria-hidden="true"]'):
        mark(node, "aria_hidden", 'aria-hidden="true"')
    for node in tree.css("noscript"):
        mark(node, "noscript", "")
    for sel, rule in _css_hidden(css_all, page_bg):
        try:
            nodes = tree.css(sel)
        except Exception:  # lexbor rejects some selectors our regex accepts
            continue
        for node in nodes[:200]:
            mark(node, "css_hidden_class", f"{sel} {{{rule}}}")

    outermost: list[tuple[LexborNode, str, str]] = []
    for mem_id, (node, tech, how) in hidden.items():
        parent = node.parent
        nested = False
        while parent is not None:
            if parent.mem_id in hidden and parent.mem_id != mem_id:
                nested = True
                break
            parent = parent.parent
        if not nested:
            outermost.append((node, tech, how))

    for node, tech, how in outermost:
        tag = node.tag or "?"
        if tag in ("script", "style", "template", "head", "html", "body"):
            if tag in ("script", "style", "template"):
                node.decompose()
            continue
        hidden_text = node.text(separator=" ", strip=False)
        node.decompose()
        if not hidden_text or not _WORDY.search(hidden_text):
            continue
        hidden_text = " ".join(hidden_text.split())[:max_text]
        segs.append(Segment(tech, f"<{tag}> {how}".strip(), hidden_text, -1))

    tree.strip_tags(["script", "style", "noscript", "template", "svg"])
    body_node = tree.body
    visible = body_node.text(separator="\n", strip=False) if body_node is not None else ""
    return segs, visible[:max_text]
