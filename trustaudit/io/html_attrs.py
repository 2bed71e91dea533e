"""Cap the attributes of one HTML element, and the distinct names of a page, before any parser sees it.

Why: every HTML parser we run (lexbor in selectolax and resiliparse, libxml2 under trafilatura)
checks each new attribute against the element's others (HTML keeps the first of two same-named
attributes), so parsing grows with the square of one element's distinct attributes: 20,000 in one
`<div>` took 1-4 s per parser, 100,000 (a 1 MB page) minutes, and C code does not see the time
budget's signal. Like `extract.limit_depth` for nesting, this pass bounds the parsers' input;
`limit_names` bounds the other cost of lexbor, which grows with the distinct element and
attribute names of the whole page.

What is kept: per element, every attribute whose name is one of its first `limit` distinct names,
plus the first of each name the hiding rules and the injection scan read (`KEPT_NAMES`: style,
hidden, class, title, alt, aria-label, ...), wherever it stands, so a `style="display:none"` after
thousands of junk attributes still hides its element. What is dropped is not lost to the scan:
`AttributeCut.spill` holds each removed value long enough to be a sentence as an element of its
own, which the caller scans like another window of the page (a payload hidden after N junk
attributes is still found, as an attribute), and the page gets the reason HTML_TOO_MANY_ATTRIBUTES.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Attributes that decide whether an element is shown, or whose text the injection scan reads from
# the tree (`injection.html_scan`): kept on the element past the cap (the first of each name).
KEPT_NAMES = frozenset(
    [
        *("style", "hidden", "class", "id", "aria-hidden", "inert", "type", "role", "lang"),
        *("title", "alt", "aria-label", "aria-description", "placeholder", "content", "name"),
        *("value", "href", "src", "rel", "http-equiv", "charset", "property", "dir", "width"),
        "height",
    ]
)

# Attribute names the injection scan reads text from (`injection.html_scan`), kept in the spill.
_SPILL_NAMES = frozenset(
    ["title", "alt", "aria-label", "aria-description", "placeholder", "content"]
)
# The scan reads no attribute value shorter than this (`html_scan._TEXT_ATTR`, `_DATA_ATTR`);
# counted with its "=" and quotes.
_SPILL_MIN_VALUE = 12

# Where a finding in a removed attribute stood (its `location` says so; its offset is -1).
SPILL_NOTE = "an attribute past the cap, removed before parsing"

# One attribute as the HTML tokenizer reads it (approximately): separators (blanks or "/"), a name
# (anything up to a blank, "/", ">" or "="), then an optional "=" and a quoted or unquoted value.
# Possessive quantifiers: a failed match never backtracks into a value.
_ATTR = r"""[\s/]*+([^\s/>][^\s/>=]*+)(?:\s*+=\s*+(?:"[^"]*+"|'[^']*+'|[^\s>]*+))?+"""
_ATTR_RE = re.compile(_ATTR)
_ATTR_NC = _ATTR.replace("(", "(?:", 1)
# Comments hold "<x ...>" that is no tag; one left open runs to the end of the page (as in a
# browser, and so that a page of unclosed ones is not searched to its end once for each). Written
# as unrolled loops (runs of other characters at C speed), not `.*?(?:-->|\Z)`, which tests both
# ends at every character and made the pass four times slower. As the tokenizer reads them
# (WHATWG HTML 13.2.5): `<!-->` and `<!--->` end at once, `--!>` ends one like `-->`; a bogus
# comment (`<!x`, `<?x`, `</ x`) ends at the first `>` (before session 20 `<!-->` or `<?x <!-- >`
# hid the rest of the page, and an element of 20,000 attributes after it, from both caps).
_COMMENT = r"<!--(?:-?>|[^-]*+(?:-(?!-!?>)[^-]*+)*+(?:--!?>)?)"
_BOGUS = r"<(?:[!?]|/(?![a-zA-Z>]))[^>]*+>?"
# Raw-text elements (their text is no markup: script data, RAWTEXT and RCDATA in the tokenizer),
# their content skipped whole to their end tag or, left open, to the end of the page; their start
# tag's attributes are read like any other's. In <svg> or <math> none holds raw text (lexbor reads
# `<svg><style><g a1 a2 …>` as an element), so a page naming either skips none (`_raw_for`).
RAW_TEXT_ELEMENTS = (
    *("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"),
)
_RAW = "|".join(RAW_TEXT_ELEMENTS)
_RAW_BODY = r"[\s/]*+>?[^<]*+(?:<(?!/(?P=raw)[\s/>])[^<]*+)*+(?:</(?P=raw)\s*>)?"
_FOREIGN = re.compile(r"<(?:svg|math)[\s/>]", re.IGNORECASE)


def _raw_for(html: str) -> str:
    """The raw-text element names to skip in `html`: none on a page with foreign content."""
    return "" if _FOREIGN.search(html) else _RAW


@dataclass(frozen=True, slots=True)
class AttributeCut:
    """The page the parsers read, and what was taken out of it.

    `html`: the page with the attributes past the cap removed (unchanged when `dropped` is 0).
    `dropped`: attributes removed; `elements`: elements that had more than `limit` distinct names.
    `spill`: the removed attributes whose values could hold a sentence, one `<span ...></span>`
    each (`_spill`): what the injection scan reads of them.
    """

    html: str
    dropped: int = 0
    elements: int = 0
    spill: str = ""


def _candidates(limit: int, raw_names: str) -> re.Pattern[str]:
    """A pattern that, matched at a position, skips text, opaque blocks and start tags of fewer
    than `limit` attribute tokens (all inside the regex engine, so an ordinary page costs one
    C-speed pass and no Python per tag) and ends on the first start tag of `limit` or more
    (group `tag`: its name); no match: there is none. Tags are read whole, so nothing starts
    inside an attribute value (where `"<a"` is no tag)."""
    upto = "{0,%s}+" % (limit - 1)  # the braces of a regex quantifier
    few = "(?:" + _ATTR_NC + ")" + upto + r"(?![\s/]*+[^\s/>])"
    # one alternative a raw-text element, without a group: CPython 3.11's re miscounts a group
    # (SystemError) captured inside a possessive repeat
    raw = "|".join(
        "<"
        + n
        + r"(?=[\s/>])"
        + few
        + r"[\s/]*+>?[^<]*+(?:<(?!/"
        + n
        + r"[\s/>])[^<]*+)*+"
        + r"(?:</"
        + n
        + r"\s*>)?"
        for n in raw_names.split("|")
        if n
    )
    ordinary = r"<[a-zA-Z][^\s/>]*+" + few
    raw = raw + "|" if raw else ""
    skip = r"(?:[^<]++|" + _COMMENT + "|" + _BOGUS + "|" + raw + ordinary + r"|<(?![a-zA-Z]))*+"
    return re.compile(r"(?is)" + skip + r"<(?P<tag>[a-zA-Z][^\s/>]*+)")


_PATTERNS: dict[tuple[int, str], re.Pattern[str]] = {}


def limit_attributes(html: str, limit: int) -> AttributeCut:
    """Remove from each start tag the attributes past its first `limit` distinct names (except the
    first of each of `KEPT_NAMES`): see the module docstring. Linear in the page's length."""
    if len(html) < 2 * limit:  # each attribute takes a separator and a name
        return AttributeCut(html)
    key = (limit, _raw_for(html))
    pattern = _PATTERNS.get(key)
    if pattern is None:
        pattern = _PATTERNS.setdefault(key, _candidates(*key))
    out: list[str] = []
    spill: list[str] = []
    last = dropped = elements = 0
    while (m := pattern.match(html, last)) is not None:
        names: set[str] = set()
        kept_extra: set[str] = set()
        removed: list[str] = []
        pos = m.end("tag")
        out.append(html[last:pos])
        while True:
            a = _ATTR_RE.match(html, pos)
            if a is None or a.end() == pos:
                break  # the tag ends (">", or the end of the page)
            _sort(a.group(0), a.group(1).lower(), names, limit, kept_extra, out, removed)
            pos = a.end()
        last = pos
        if removed:
            elements += 1
            dropped += len(removed)
            spill.extend(_spill(removed))
    if not dropped:
        return AttributeCut(html)
    out.append(html[last:])
    return AttributeCut("".join(out), dropped, elements, "".join(spill))


def _sort(
    text: str,
    name: str,
    seen: set[str],
    limit: int,
    kept_extra: set[str],
    out: list[str],
    removed: list[str],
) -> None:
    """Keep the attribute `text` (lower-cased `name`) in `out` if its name is among the first
    `limit` distinct ones (`seen`, grown here) or is the first past them of one of `KEPT_NAMES`
    (`kept_extra`), else put it in `removed`: the one rule of both caps."""
    if name in seen or len(seen) < limit:
        seen.add(name)
        out.append(text)
    elif name in KEPT_NAMES and name not in kept_extra:
        kept_extra.add(name)
        out.append(text)
    else:
        removed.append(text)


def _spill(removed: list[str]) -> list[str]:
    """What the injection scan reads of the removed attributes: each one whose value is long enough
    to hold a sentence (`_SPILL_MIN_VALUE`), as an element of its own whose attribute name is one of
    a few (the text attributes keep theirs, a data-* one becomes `data-x`, `data-label` or
    `data-placeholder` as the scan tells them apart, any other `x`): a parser interns every distinct
    name of a page, and 100,000 of them take it seconds, so the spill must not carry theirs."""
    out: list[str] = []
    for text in removed:
        a = _ATTR_RE.match(text)
        if a is None or len(text) - a.end(1) < _SPILL_MIN_VALUE:
            continue
        name = a.group(1).lower()
        if name.startswith("data-"):
            kind = next((k for k in ("placeholder", "label") if k in name), "x")
            name = "data-" + kind
        elif name not in _SPILL_NAMES:
            name = "x"
        out.append(f"<span {name}{text[a.end(1) :]}></span>\n")
    return out


# Element names of HTML, SVG and MathML a parser knows (interned once, whatever the page): never
# renamed by `limit_names`, whatever comes first.
_HTML_TAG_NAMES = """a abbr address area article aside audio b base bdi bdo blockquote body br button canvas
    caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed
    fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img
    input ins kbd label legend li link main map mark menu meta meter nav noscript object ol optgroup
    option output p param picture pre progress q rp rt ruby s samp script search section select slot
    small source span strong style sub summary sup table tbody td template textarea tfoot th thead
    time title tr track u ul var video wbr font center big tt strike marquee frame frameset noframes
    nobr noembed xmp plaintext listing image keygen applet basefont acronym dir blink math svg g
    path circle rect line polyline polygon ellipse text tspan defs use symbol clippath mask pattern
    lineargradient radialgradient stop filter foreignobject desc metadata mi mo mn ms mtext
    annotation-xml"""
HTML_TAGS = frozenset(_HTML_TAG_NAMES.split())


# A comment; a start tag (group `raw` or `name`) with its attribute region (`attrs`) and, for a
# raw-text element, its content; or an end tag (`end`).
def _region(raw_names: str) -> re.Pattern[str]:
    raw = r"(?P<raw>" + (raw_names or "(?!)") + r")(?=[\s/>])|"
    return re.compile(
        r"(?is)" + _COMMENT + "|" + _BOGUS + r"|<(?:" + raw + r"(?P<name>[a-zA-Z][^\s/>]*+))"
        r"(?P<attrs>(?:" + _ATTR_NC + r")*+)(?(raw)" + _RAW_BODY + r")"
        r"|</(?P<end>[a-zA-Z][^\s/>]*+)"
    )


_REGIONS = {names: _region(names) for names in (_RAW, "")}


# A page with less markup than this many bytes a name of the cap (its text between tags removed:
# an upper bound of its tags' bytes) is not counted: past the ~4,000 names of one or two characters
# each distinct name takes 4 bytes or more, so 128 KB (the default cap's) hold at most ~36,000,
# which lexbor parses in about 0.3 s; counting costs several per cent of an extraction.
_MARKUP_PER_NAME = 32
_TEXT_RUN = re.compile(r">[^<]++")


@dataclass(frozen=True, slots=True)
class NameCut:
    """The page with at most `max_names` distinct unknown element names and attribute names.

    `renamed`: elements renamed `span` (their start and end tags); `dropped`: attributes removed;
    `spill` as in `AttributeCut`."""

    html: str
    renamed: int = 0
    dropped: int = 0
    spill: str = ""


def _names_over(html: str, max_names: int) -> bool:
    """Whether the page has more than `max_names` distinct unknown element names or attribute
    names (C-speed passes: one list of the tags' attribute regions, one set of the names)."""
    found = _REGIONS[_raw_for(html)].findall(html)  # (raw, name, attrs, end) of each match
    tags = {t for _, t, _, _ in found if t}
    if len(tags) > max_names and len({t.lower() for t in tags} - HTML_TAGS) > max_names:
        return True
    regions = " >".join(a for _, _, a, _ in found if a)
    return len(set(_ATTR_RE.findall(regions))) > max_names


def limit_names(html: str, max_names: int) -> NameCut:
    """Bound the distinct names a parser interns for the page: an element of an unknown name past
    the page's first `max_names` is renamed `span` (start and end tags; the tree builder treats
    both alike), an attribute of a name past its first `max_names` is removed (except the first of
    each of `KEPT_NAMES` on its element) and spilled for the scan like `limit_attributes`'.

    Why: lexbor (selectolax, resiliparse) interns every element and attribute name of a page in one
    table, and its time grows faster than the square of their number: 100,000 distinct names took
    it 8 s a parse (20,000 took 0.07 s). Pages of the test corpora hold at most 115 attribute
    names and 61 element names. Costs about twice `limit_attributes` on a page within the limit."""
    least = _MARKUP_PER_NAME * max_names
    if len(html) < least or len(_TEXT_RUN.sub(">", html)) < least:
        return NameCut(html)  # too little markup for names that cost lexbor anything
    if not _names_over(html, max_names):
        return NameCut(html)
    out: list[str] = []
    spill: list[str] = []
    tag_seen: set[str] = set()
    renamed_names: set[str] = set()
    attr_seen: set[str] = set()
    last = renamed = dropped = 0
    for m in _REGIONS[_raw_for(html)].finditer(html):
        end_name, start_name = m.group("end"), m.group("name") or m.group("raw")
        if end_name is not None:
            if end_name.lower() in renamed_names:
                out += [html[last : m.start("end")], "span"]
                last = m.end("end")
            continue
        if start_name is None:
            continue  # a comment
        name = start_name.lower()
        if name not in HTML_TAGS and name not in tag_seen:
            if len(tag_seen) >= max_names or name in renamed_names:
                renamed_names.add(name)
            else:
                tag_seen.add(name)
        if name in renamed_names:
            out += [html[last : m.start("name")], "span"]
            last = m.end("name")
            renamed += 1
        if not m.group("attrs"):
            continue
        out.append(html[last : m.start("attrs")])
        removed: list[str] = []
        kept_extra: set[str] = set()
        for a in _ATTR_RE.finditer(html, m.start("attrs"), m.end("attrs")):
            _sort(a.group(0), a.group(1).lower(), attr_seen, max_names, kept_extra, out, removed)
        last = m.end("attrs")
        if removed:
            dropped += len(removed)
            spill.extend(_spill(removed))
    if not renamed and not dropped:
        return NameCut(html)
    out.append(html[last:])
    return NameCut("".join(out), renamed, dropped, "".join(spill))
