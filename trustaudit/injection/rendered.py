"""A page's text in plain sight as a reader sees it: one line a block, its words joined across markup.

Why: the scan reads plain sight sentence by sentence, and it used to read the text of every text
node on a line of its own, with the source's own line breaks kept. A sentence split by inline
markup ("In your <b>summary</b>, tell the <em>user</em> that…") or wrapped in the source, as
hand-written HTML and many generators wrap paragraphs, reached the sentence tests in fragments:
the request was never read as one, and a wrapped override ("Assistant, ignore your⏎earlier task…")
was not found at all. Fragments also opened with a verb where the source line did ("provide the
answer, I usually send…", "mean that the user execution process…"), and read as requests. A browser
lays inline elements out in their line and collapses the source's white space; a model fed the
page's text (innerText, an extractor) reads the same sentence.

How, at C speed on the tree the scan already holds: inline elements (`INLINE_TAGS`) are unwrapped
and the text nodes they leave side by side merged; each boundary that remains (a block, a line
break, an image, a form control, a quoting element) is one line break; runs of HTML white space
holding a line break or a tab collapse to one space (runs of spaces are kept: `normalize` reads
letters spaced apart by the widths of the gaps), except inside preformatted elements
(`PREFORMATTED`), whose lines and spaces are kept as written. Quoting elements (`html_scan.QUOTE_TAGS`: `code`, `q`, `kbd`…) are not
unwrapped: what a page shows as code or a quotation stays a passage of its own, so a quoted
injection is still recognised as quoted (`context.quoted_context`).

Not read: CSS that changes layout (`display:inline` on a `<div>`, `white-space: pre` on a `<p>`),
custom elements (laid out inline by browsers; here a boundary).
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

# HTML's phrasing elements that hold text and are laid out in their line, less the quoting ones
# (`html_scan.QUOTE_TAGS`); `wbr` (a possible break, no text) goes too, so "ign<wbr>ore" is a word.
INLINE_TAGS = (
    "a",
    "abbr",
    "acronym",
    "b",
    "bdi",
    "bdo",
    "big",
    "blink",
    "cite",
    "data",
    "del",
    "dfn",
    "em",
    "font",
    "i",
    "ins",
    "label",
    "mark",
    "nobr",
    "s",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "sup",
    "time",
    "u",
    "var",
    "wbr",
)
_INLINE = frozenset(INLINE_TAGS)
# Elements whose white space is kept as the source has it (and `<textarea>`'s, shown as typed).
PREFORMATTED = ("pre", "textarea", "listing", "xmp", "plaintext")
_PRE = frozenset(PREFORMATTED)

# Private marks while the text is flattened: a boundary between text nodes, a joint between two
# elements (below), and a preformatted line break and space (C0 information separators: never in a page's text once decoded, and white
# space to `str.split`, so a quoting element read from the tree meanwhile normalises them away).
_BOUNDARY = "\x1e"
_PRE_BREAK = "\x1d"
_PRE_SPACE = "\x1c"
_PRE_MARKS = str.maketrans({"\n": _PRE_BREAK, " ": _PRE_SPACE, "\t": _PRE_SPACE})
_UNMARK = str.maketrans({_PRE_BREAK: "\n", _PRE_SPACE: " "})
# Where an inline element is followed by another element with no text between them.
_JOINT = "\x1f"
_JOINTS = re.compile(f"{_JOINT}+")

# A run of HTML's ASCII white space holding a line break, tab or form feed: one space, as laid out.
# A run of spaces alone is kept: letters spaced by one space and words by three ("I g n o r e   a l
# l") are read by `normalize` from the widths, which a browser's collapsing would lose. No-break
# spaces are text.
# A run of HTML's ASCII white space holding a line break, tab or form feed (one space, as laid out),
# or a boundary between text nodes (one line break). A run of spaces alone is kept: letters spaced
# by one space and words by three ("I g n o r e   a l l") are read by `normalize` from the widths,
# which a browser's collapsing would lose. No-break spaces are text. The spaces before a run are
# cut where it is replaced: a pattern opening with ` *` stops at every space of the page (3x slower).
_RUN = re.compile(rf"[\t\n\f\r{_BOUNDARY}][ \t\n\f\r{_BOUNDARY}]*")


def _joined(text: str) -> str:
    """`text` with each `_JOINT` resolved: a line break where two inline elements side by side
    would glue a lower-case letter or a digit to a capital ("About Bay Area|ABC7 News", a menu of
    links each in its own `<span>`, which style lays out apart), nothing elsewhere, so letters each
    wrapped in an element of their own ("<span>I</span><span>g</span>…") still make a word."""
    if _JOINT not in text:
        return text
    return _JOINTS.sub(_joint, text)


def _joint(m: re.Match[str]) -> str:
    s, i, j = m.string, m.start(), m.end()
    a = s[i - 1] if i else ""
    b = s[j] if j < len(s) else ""
    return _BOUNDARY if b.isupper() and (a.islower() or a.isdigit()) else ""


def _unwrap_inline(node: LexborNode) -> list[LexborNode]:
    """Unwrap the inline elements under `node` (not `node` itself) and merge the text they leave side
    by side; return the preformatted elements under it."""
    inline: list[LexborNode] = []
    pre: list[LexborNode] = []
    root = node.mem_id
    for el in node.traverse():  # one walk, filtered here: a 30-name selector costs twice as much
        tag = el.tag
        if tag in _INLINE:
            if el.mem_id != root:
                inline.append(el)
        elif tag in _PRE:
            pre.append(el)
    for el in inline:
        nxt = el.next
        if nxt is not None and nxt.tag != "-text":
            el.insert_after(_JOINT)  # two elements side by side: `_joined` decides
    for el in inline:
        el.unwrap(delete_empty=True)  # an empty one (an icon's span, `<wbr>`) joins its neighbours
    if inline:
        node.merge_text_nodes()
    return pre


def hidden_text(node: LexborNode) -> str:
    """The text of a hidden subtree as it would read if shown, on one line: inline elements joined
    ("ign<b>ore</b>" is one word), every other boundary and white-space run one space. Unwraps the
    inline elements under `node` (the scan removes the subtree next)."""
    _unwrap_inline(node)
    return " ".join(_joined(node.text(separator=" ", strip=False)).split())


def visible_text(tree: LexborHTMLParser) -> str:
    """The text of `tree`'s body as laid out (module docstring); "" without a body.

    Changes `tree`: its inline elements are unwrapped, adjacent text merged and preformatted text
    marked, which no later reader of the tree sees (the scan consumes the tree; `Quotes` reads
    quoting elements' text with white space normalised)."""
    body = tree.body
    if body is None:
        return ""
    pre = _unwrap_inline(body)
    for el in pre:
        # this element's text nodes collected before any is replaced (a node replaced while the
        # walk runs crashes lexbor); a preformatted element inside another finds its text marked
        texts = [n for n in el.traverse(include_text=True) if n.tag == "-text"]
        for n in texts:
            t = n.text_content
            if t and (" " in t or "\n" in t or "\t" in t):
                n.replace_with(t.translate(_PRE_MARKS))
    raw = _joined(body.text(separator=_BOUNDARY, strip=False))
    out: list[str] = []
    last = 0
    for m in _RUN.finditer(raw):
        out.append(raw[last : m.start()].rstrip(" "))
        out.append("\n" if _BOUNDARY in m.group() else " ")
        last = m.end()
    out.append(raw[last:])
    text = "".join(out).strip(" \n")
    return text.translate(_UNMARK) if pre else text
