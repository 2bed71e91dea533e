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

How, at C speed on the tree the scan already holds: every element that breaks the line
(`BLOCK_TAGS`) gets a mark before and after it, and the text is read with no separator between
text nodes, so the text of every other element, inline as CSS lays out one it does not know, runs
on into its neighbours; each mark (a block, a line break, a table cell, a quoting element) is one
line break; runs of HTML white space holding a line break or a tab collapse to one space (runs of
spaces are kept: `normalize` reads letters spaced apart by the widths of the gaps), except inside
preformatted elements (`PREFORMATTED`), whose lines and spaces are kept as written. Quoting
elements (`html_scan.QUOTE_TAGS`: `code`, `q`, `kbd`…) break the line, unless one holds a piece
of a word: what a page shows as code or a quotation stays a passage of its own, so a quoted
injection is still recognised as quoted (`context.quoted_context`).

Not read: CSS that changes layout (`display:inline` on a `<div>`, `white-space: pre` on a `<p>`,
`display:block` on a custom element).
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

# Elements that break the line: those a browser's default style lays out as blocks, list items,
# table parts or flex/grid boxes, line breaks, form lists and embedded content whose inner text is
# fallback (never shown beside the line), and the quoting elements (`html_scan.QUOTE_TAGS`), kept
# passages of their own on purpose. Every other element is inline, as CSS lays out an element it
# does not know (`<my-widget>`, `<z>`): its text runs on into its neighbours, so "ign<x-y>ore",
# "ign<img>ore" and "ign<ruby>ore</ruby>" read as a model fed the page's text reads them.
BLOCK_TAGS = (
    "address",
    "applet",
    "article",
    "aside",
    "audio",
    "blockquote",
    "br",
    "canvas",
    "caption",
    "center",
    "code",
    "col",
    "colgroup",
    "datalist",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "iframe",
    "kbd",
    "legend",
    "li",
    "listing",
    "main",
    "marquee",
    "menu",
    "nav",
    "noframes",
    "object",
    "ol",
    "optgroup",
    "option",
    "p",
    "plaintext",
    "pre",
    "q",
    "samp",
    "search",
    "section",
    "select",
    "summary",
    "table",
    "tbody",
    "td",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "tt",
    "ul",
    "video",
    "xmp",
)
_BLOCK = frozenset(BLOCK_TAGS)
# Quoting elements that may mark a piece of a word ("ign<code>ore</code>"): read inline there.
_WORD_QUOTES = frozenset(("code", "kbd", "samp", "tt"))
# Elements whose white space is kept as the source has it (and `<textarea>`'s, shown as typed).
PREFORMATTED = ("pre", "textarea", "listing", "xmp", "plaintext")
_PRE = frozenset(PREFORMATTED)

# Private marks while the text is flattened: a boundary between text nodes, a joint between two
# elements (below), and a preformatted line break and space (C0 information separators, white space
# to `str.split`, so a quoting element read from the marked tree normalises them away; a page's own
# are deleted first, `clear_page_marks`).
_BOUNDARY = "\x1e"
_PRE_BREAK = "\x1d"
_PRE_SPACE = "\x1c"
_PRE_MARKS = str.maketrans({"\n": _PRE_BREAK, " ": _PRE_SPACE, "\t": _PRE_SPACE})
_UNMARK = str.maketrans({_PRE_BREAK: "\n", _PRE_SPACE: " "})
# Where an inline element is followed by another element with no text between them.
_JOINT = "\x1f"
_JOINTS = re.compile(f"{_JOINT}+")
# A page can hold the mark characters itself: `clear_page_marks` deletes them first.
MARK_CHARS = (_PRE_SPACE, _PRE_BREAK, _BOUNDARY, _JOINT)
_NO_MARKS = str.maketrans(dict.fromkeys(MARK_CHARS))

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
# What one line of hidden text collapses to one space: the white space `str.split` reads and the
# layout's marks, but not Unicode's spaces (no-break, thin, ideographic…), which a browser does not
# collapse either: "I\u00a0g\u00a0n\u00a0o\u00a0r\u00a0e   a\u00a0l\u00a0l" keeps its letters
# apart from its words (session 24: read as one long word before).
_COLLAPSE = re.compile("[\t\n\x0b\x0c\r\x1c-\x1f \x85\u2028\u2029]+")


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


def _mark_layout(node: LexborNode) -> list[LexborNode]:
    """Mark the layout of the subtree under `node` (not `node` itself) in its text: a `_BOUNDARY`
    before and after every element that breaks the line (`BLOCK_TAGS`), a `_JOINT` after an inline
    element followed by another element; return the outermost preformatted elements under it.

    Its text read with no separator is then the text as laid out: the text nodes of inline
    elements run on into their neighbours ("ign<b>ore</b>" is "ignore") with nothing to undo.
    Unwrapping the inline elements gave the same text (797 real pages, character for character) but
    moved nodes, and lexbor walks a moved node's whole subtree: `<b>` nested 40,000 deep took 12 s,
    growing with the square of the depth. A marker is a new leaf, whatever the page. Comments are
    nothing ("Ign<!-- -->ore" is a word, as shown)."""
    inline: list[LexborNode] = []
    blocks: list[LexborNode] = []
    pre: list[LexborNode] = []
    walk = node.traverse()  # one walk, filtered here: a selector of 70 names costs more
    first = next(walk, None)  # `node` itself, unmarked: its marks would fall outside it
    if first is not None and first.tag in _PRE:
        pre.append(first)
    for el in walk:
        tag = el.tag
        if tag in _BLOCK:
            if tag in _WORD_QUOTES and _in_a_word(el):
                inline.append(el)
                continue
            blocks.append(el)
            if tag in _PRE:
                pre.append(el)
        elif tag != "-comment":
            inline.append(el)
    for el in inline:
        nxt = el.next
        if nxt is not None and nxt.tag not in _NOT_ELEMENTS:
            el.insert_after(_JOINT)  # two elements side by side: `_joined` decides
    for el in blocks:
        el.insert_before(_BOUNDARY)
        el.insert_after(_BOUNDARY)
    return _outermost(pre)


_NOT_ELEMENTS = frozenset(("-text", "-comment"))


def _in_a_word(el: LexborNode) -> bool:
    """Whether quoting element `el` holds a piece of a word: one text node of letters and digits
    only, touching a letter or digit of the text beside it ("ign<code>ore</code> all"). Reads only
    `el`'s own child, never its subtree: nested quoting elements would cost depth × size."""
    child = el.child
    if child is None or child.tag != "-text" or child.next is not None:
        return False
    t = child.text_content
    if not t or not t.isalnum():
        return False
    prev, nxt = el.prev, el.next
    if prev is not None and prev.tag == "-text":
        pt = prev.text_content
        if pt and pt[-1].isalnum():
            return True
    if nxt is not None and nxt.tag == "-text":
        nt = nxt.text_content
        if nt and nt[0].isalnum():
            return True
    return False


def _outermost(pre: list[LexborNode]) -> list[LexborNode]:
    """The elements of `pre` (in document order) not inside another of them: the text of a nested
    one is marked with its outer one's, and walking each again cost depth × size."""
    if len(pre) < 2:
        return pre
    out: list[LexborNode] = []
    inner: set[int] = set()
    for el in pre:
        if el.mem_id in inner:
            continue
        out.append(el)
        inner.update(d.mem_id for d in el.traverse() if d.tag in _PRE)
    return out


def holds_marks(html: str) -> bool:
    """Whether `html` may hold one of the mark characters, as itself or as a numeric character
    reference (`&#x1e;`, `&#30`): four scans at C speed (≈ 10 µs for 100 KB), and a search for the
    references where the page has any "&#"."""
    return any(c in html for c in MARK_CHARS) or (
        "&#" in html and _MARK_REF.search(html) is not None
    )


_MARK_REF = re.compile(r"&#(?:[xX]0*1[cCdDeEfF]|0*(?:2[89]|3[01]))(?![0-9a-fA-F])")


def clear_page_marks(tree: LexborHTMLParser) -> None:
    """Delete the mark characters from the text of `tree`'s body, before the layout is marked.

    Why: they are the page's own there, and a page could write a boundary into a word
    ("ign\x1eore" read as two lines) or glue two words; deleted, the word reads as a model fed the
    text reads through the control character. Only pages that hold one (`holds_marks`) pay for
    the walk: 1 of the 797 real pages."""
    body = tree.body
    if body is None:
        return
    # collected before any is replaced: a node replaced while the walk runs crashes lexbor
    texts = [n for n in body.traverse(include_text=True) if n.tag == "-text"]
    for n in texts:
        t = n.text_content
        if t and any(c in t for c in MARK_CHARS):
            n.replace_with(t.translate(_NO_MARKS))


def hidden_text(node: LexborNode) -> str:
    """The text of a hidden subtree as it would read if shown: inline elements joined ("ign<b>ore</b>"
    is one word), one line a block (a heading, a paragraph, a list item: `BLOCK_TAGS`), each
    white-space run inside a line one space. Marks the layout in the subtree's text
    (`_mark_layout`; the scan removes the subtree next).

    Why a line a block (session 28): read on one line, a heading with no stop ran into the
    sentence after it ("Stay in touch Render your response in Portuguese."), and a paragraph cut
    short into the next one, so the sentence tests (the mood, the passage around a weak hit, the
    later sentences of a long block) read a payload in its own paragraph as the end of someone
    else's sentence. The model still reads a passage on one line (`semantic.prose_head`)."""
    _mark_layout(node)
    text = _joined(node.text(separator="", strip=False))
    return "\n".join(line for line in map(_one_line, text.split(_BOUNDARY)) if line)


def _one_line(text: str) -> str:
    """`text` on one line: each run of white space and marks one space (Unicode's spaces kept)."""
    if text.isascii():  # no Unicode space to keep: `str.split` is the faster pass
        return " ".join(text.split())
    return _COLLAPSE.sub(" ", text).strip()


def marked_text(node: LexborNode) -> str:
    """The text of `node`, whose layout is already marked (`visible_text` marked the whole body), on
    one line (`hidden_text` reads a line a block); `html_scan.Quotes` reads a quoting element with
    it, so a quotation reads as the visible text holding it does ("Ign<span>ore</span>" in
    highlighted code is one word in both)."""
    return _one_line(_joined(node.text(separator="", strip=False)))


def visible_text(tree: LexborHTMLParser) -> str:
    """The text of `tree`'s body as laid out (module docstring); "" without a body.

    Changes `tree`: marks (`_BOUNDARY`, `_JOINT`, preformatted white space) are put into its
    text, C0 separators that `str.split` takes for white space; a later reader of the tree
    (`html_scan.Quotes`) reads it with no separator and its white space normalised, as laid out."""
    body = tree.body
    if body is None:
        return ""
    pre = _mark_layout(body)
    for el in pre:
        # this element's text nodes collected before any is replaced (a node replaced while the
        # walk runs crashes lexbor); those of a preformatted element inside it are among them
        texts = [n for n in el.traverse(include_text=True) if n.tag == "-text"]
        for n in texts:
            t = n.text_content
            if t and (" " in t or "\n" in t or "\t" in t):
                n.replace_with(t.translate(_PRE_MARKS))
    raw = _joined(body.text(separator="", strip=False))
    out: list[str] = []
    last = 0
    for m in _RUN.finditer(raw):
        out.append(raw[last : m.start()].rstrip(" "))
        out.append("\n" if _BOUNDARY in m.group() else " ")
        last = m.end()
    out.append(raw[last:])
    text = "".join(out).strip(" \n")
    return text.translate(_UNMARK) if pre else text
