"""Map stage: a record table -> pages, links and error rows.

Runs per batch in worker processes. Per document: decode, cheap metadata from meta tags/JSON-LD with
lexbor (selectolax), links, main text with trafilatura under a time budget (trafilatura has no timeout
of its own), and the raw-HTML injection scan. One pathological page degrades to a fast fallback
extraction; it never stalls or kills the batch.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import signal
import threading
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import pyarrow as pa
from selectolax.lexbor import LexborHTMLParser

from trustaudit.hostname import ascii_host
from trustaudit.io.decode import charset_from_content_type, decode_document
from trustaudit.io.html_attrs import RAW_TEXT_ELEMENTS, SPILL_NOTE, limit_attributes, limit_names
from trustaudit.io.records import RECORD_COLUMNS, ErrorRow, doc_id_for, normalize_url
from trustaudit.policy import Policy
from trustaudit.schema import FINDING_TYPE as FINDING_TYPE  # re-exported for old callers
from trustaudit.schema import LINK_SCHEMA, PAGE_SCHEMA

if TYPE_CHECKING:
    from trustaudit.injection import ScanBatch, ScanResult

_HTML_TYPES = ("text/html", "application/xhtml", "text/plain", "application/xml", "text/xml")
_DATE_RE = re.compile(r"(19[89]\d|20\d\d)[-/.](1[0-2]|0?[1-9])[-/.](3[01]|[12]\d|0?[1-9])(?!\d)")
_JSONLD_DATE = re.compile(r'"datePublished"\s*:\s*"([^"]{8,40})"')
_JSONLD_AUTHOR = re.compile(r'"author"\s*:\s*(?:\[\s*)?\{[^{}]*?"name"\s*:\s*"([^"]{1,120})"')
_JSONLD_LICENSE = re.compile(r'"license"\s*:\s*"([^"]{1,300})"')
_DATE_METAS = (
    "article:published_time",
    "og:published_time",
    "datepublished",
    "date",
    "pubdate",
    "publishdate",
    "dc.date",
    "dc.date.issued",
    "dcterms.date",
    "dcterms.created",
    "citation_publication_date",
    "sailthru.date",
    "parsely-pub-date",
    "publish-date",
)
_SKIP_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "object")
_MAX_LINKS = 5000
_MAX_PARAGRAPHS = 400


class _Timeout(BaseException):
    """BaseException so library code's `except Exception` cannot swallow the budget."""


@contextlib.contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Raise _Timeout after `seconds` (main thread only; elsewhere no budget is enforced)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _raise(signum: int, frame: Any) -> None:
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class ExtractResult:
    pages: pa.Table
    links: pa.Table
    errors: list[ErrorRow] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)  # record index of each page row


# C0 controls, space, DEL and C1 controls: never part of a URL (a browser or crawler would have
# percent-encoded them), so one in a page URL comes from a hand-made or hostile record.
_URL_CONTROLS = re.compile(r"[\x00-\x20\x7f-\x9f]")


def url_problem(url: str) -> str | None:
    """Why `url` is not a page URL (one line), or None when it is: http(s) with a host, or file:.

    javascript:, data:, garbage, a port out of range, and control characters or spaces anywhere
    are refused: such a URL would be the page's identity in every report (an escape sequence in
    it reaches a terminal or a CSV reader), and two different broken ports used to normalise to the
    same doc_id (one page reported as a DUPLICATE_URL of an unrelated one)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return f"not an http(s) or file URL: {url[:200]!r}"
    if parts.scheme not in ("http", "https", "file"):
        return f"not an http(s) or file URL: {url[:200]!r}"
    if _URL_CONTROLS.search(url):
        return f"URL holds a space or control character: {url[:200]!r}"
    if parts.scheme == "file":
        return None
    host = parts.hostname or ""
    if not host or any(c in host for c in "<>\"'{}|\\^`") or ".." in host:
        return f"not an http(s) or file URL: {url[:200]!r}"
    if any(unicodedata.category(c) == "Cf" for c in url):  # bidi overrides, zero-width joiners
        # anywhere, not only in the host: a U+202E in the path reordered the page's URL wherever
        # a report showed it (report.html); crawlers and browsers write it percent-encoded
        where = "host" if any(unicodedata.category(c) == "Cf" for c in host) else "URL"
        return f"{where} holds an invisible formatting character: {url[:200]!r}"
    try:
        parts.port  # noqa: B018 - raises ValueError on a port out of range or not a number
    except ValueError:
        return f"URL has an invalid port: {url[:200]!r}"
    return None


_TABS_AND_BREAKS = re.compile(r"[\t\n\r]")
_C0_AND_SPACE = "".join(map(chr, range(0x21)))


def browser_url(url: str) -> str:
    """`url` as a browser reads it (WHATWG URL parsing): tabs and line breaks dropped, leading and
    trailing spaces and C0 controls stripped, inner spaces percent-encoded.

    Why: a <link rel=canonical> href written over two lines or with a space in its path names a
    real URL to every browser; `url_problem` refuses the raw text, so the claim was ignored."""
    return _TABS_AND_BREAKS.sub("", url.strip(_C0_AND_SPACE)).replace(" ", "%20")


def record_url(url: str) -> str:
    """A record's own URL (WARC-Target-URI, JSONL `url`) with outer spaces stripped and inner
    spaces percent-encoded, as a crawler would have written it: "http://example.com/a b" is the
    page http://example.com/a%20b, not a BAD_URL. Tabs, line breaks and other controls are kept,
    for `url_problem` to refuse: in a record's identity they come from a hand-made or hostile
    record, not from a browser."""
    return url.strip(" ").replace(" ", "%20")


def valid_url(url: str) -> bool:
    """http(s) with a host, or file:. Everything else (javascript:, data:, garbage) is not a page URL."""
    return url_problem(url) is None


def host_of(url: str | None) -> str | None:
    if not url:
        return None
    try:
        return ascii_host(urlsplit(url).hostname or "") or None
    except ValueError:
        return None


def _parse_date(value: str | None) -> date | None:
    if not value:
        return None
    m = _DATE_RE.search(value)
    if not m:
        return None
    try:
        d = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
    return d if d.year <= datetime.now(UTC).year + 1 else None


def _meta(tree: LexborHTMLParser) -> dict[str, str]:
    """All <meta> name/property/itemprop -> content (first wins), keys lower-cased."""
    out: dict[str, str] = {}
    for node in tree.css("meta"):
        attrs = node.attributes
        key = (
            attrs.get("property")
            or attrs.get("name")
            or attrs.get("itemprop")
            or attrs.get("http-equiv")
        )
        content = attrs.get("content")
        if key and content and key.lower() not in out:
            out[key.lower()] = content.strip()
    return out


def _metadata(tree: LexborHTMLParser, head_html: str) -> dict[str, Any]:
    meta = _meta(tree)
    title_node = tree.css_first("title")
    title = (title_node.text(strip=True) if title_node else "") or meta.get("og:title") or None
    canonical = None
    license_ = None
    for link in tree.css("link[rel]"):
        rels = (link.attributes.get("rel") or "").lower().split()
        href = link.attributes.get("href")
        if not href:
            continue
        if "canonical" in rels and canonical is None:
            canonical = href.strip()
        if "license" in rels and license_ is None:
            license_ = href.strip()
    if license_ is None:
        a = tree.css_first('a[rel~="license"]')
        if a is not None:
            license_ = a.attributes.get("href")
    jsonld = " ".join(n.text() or "" for n in tree.css('script[type="application/ld+json"]'))[
        :200_000
    ]
    published = None
    for key in _DATE_METAS:
        published = _parse_date(meta.get(key))
        if published:
            break
    if published is None and jsonld:
        m = _JSONLD_DATE.search(jsonld)
        published = _parse_date(m.group(1)) if m else None
    if published is None:
        t = tree.css_first("time[datetime]")
        published = _parse_date(t.attributes.get("datetime")) if t is not None else None
    author = meta.get("author") or meta.get("article:author") or meta.get("dc.creator")
    if not author and jsonld:
        m = _JSONLD_AUTHOR.search(jsonld)
        author = m.group(1) if m else None
    if license_ is None:
        license_ = meta.get("license") or meta.get("dc.rights") or meta.get("dcterms.license")
        if license_ is None and jsonld:
            m = _JSONLD_LICENSE.search(jsonld)
            license_ = m.group(1) if m else None
    html_node = tree.css_first("html")
    lang = html_node.attributes.get("lang") if html_node is not None else None
    lang = lang or meta.get("content-language") or meta.get("og:locale") or meta.get("language")
    if lang:
        lang = re.split(r"[-_]", lang.strip().lower())[0][:8] or None
    return {
        "title": title[:1000] if title else None,
        "canonical": canonical,
        "og_url": meta.get("og:url"),
        "published": published,
        "license": license_[:500] if license_ else None,
        "sitename": meta.get("og:site_name") or meta.get("application-name"),
        "author": author[:200] if author else None,
        "lang": lang,
    }


_ABS_URL = re.compile(r"^(https?)://(?:[^@/?#]*@)?(\[[^\]]*\]|[^/:?#]*)", re.IGNORECASE)
_HOSTILE_SCHEMES = ("javascript:", "data:", "mailto:", "tel:", "vbscript:", "about:", "blob:")


def _resolver(base: str | None) -> Any:
    """href -> absolute URL; the common shapes (absolute, /path, //host) skip urljoin (≈5x faster)."""
    m = _ABS_URL.match(base or "")
    origin = f"{m.group(1).lower()}://{base[m.end(1) + 3 : m.end()]}" if m and base else None

    def resolve(href: str) -> str:
        if _ABS_URL.match(href):
            return href
        if origin and href.startswith("//"):
            return f"{m.group(1).lower()}:{href}"  # type: ignore[union-attr]
        if origin and href.startswith("/") and "/.." not in href and "/./" not in href:
            return origin + href
        return urljoin(base, href) if base else href

    return resolve


def _links(tree: LexborHTMLParser, base: str | None, doc_id: str) -> list[dict[str, Any]]:
    base_node = tree.css_first("base[href]")
    if base_node is not None and base:
        base = urljoin(base, base_node.attributes.get("href") or "")
    resolve = _resolver(base)
    out: list[dict[str, Any]] = []
    for node in tree.css("a[href], area[href]"):
        attrs = node.attributes
        href = (attrs.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        low = href[:12].lower().replace("\t", "").replace("\n", "")
        if low.startswith(_HOSTILE_SCHEMES):
            continue  # never followed, never counted as a link
        try:
            absolute = resolve(href)
        except ValueError:
            continue
        m = _ABS_URL.match(absolute)
        if m is None:  # not http(s) after resolution
            continue
        rel = (attrs.get("rel") or "").lower().split()
        text = node.text(deep=True, separator=" ", strip=True)[:200]
        out.append(
            {
                "doc_id": doc_id,
                "href": absolute[:2000],
                "host": m.group(2).lower().strip("[]").rstrip(".") or None,
                "rel": rel,
                "anchor_text": text,
            }
        )
        if len(out) >= _MAX_LINKS:
            break
    return out


def _fallback_text(tree: LexborHTMLParser) -> str:
    """Cheap main-text guess used when trafilatura finds nothing or runs out of time."""
    tree.strip_tags(list(_SKIP_TAGS))
    blocks = [
        n.text(deep=True, separator=" ", strip=True)
        for n in tree.css("p, li, h1, h2, h3, blockquote")
    ]
    blocks = [b for b in blocks if len(b) > 1]
    if blocks:
        return "\n".join(blocks)
    body = tree.body
    return body.text(separator="\n", strip=True) if body is not None else ""


# Visible lines anywhere on the page (header, sidebar, footer) that may carry a site-wide affiliate
# disclosure: publishers often put it outside the article ("… we may earn an affiliate commission"
# in an <aside>). Scoring matches the policy's disclosure phrases on them; this only bounds the text.
_DISCLOSURE_HINT = re.compile(
    r"affiliat|afiliad|affili|commission|comiss|comisi|provision|prämie|sponsor|patrocin|werb|"
    r"anzeige|publicid|advertis|partnerlink|associate|qualifying purchase|earn ",
    re.IGNORECASE,
)
_DISCLOSURE_MAX_CHARS = 2_000


def _disclosure_lines(full_text: str) -> str | None:
    """Short visible lines with a disclosure hint, at most 2,000 characters (None when there are none)."""
    kept: list[str] = []
    size = 0
    for line in full_text.splitlines():
        line = line.strip()
        if 12 <= len(line) <= 600 and _DISCLOSURE_HINT.search(line):
            kept.append(line)
            size += len(line) + 1
            if size >= _DISCLOSURE_MAX_CHARS:
                break
    return "\n".join(kept)[:_DISCLOSURE_MAX_CHARS] if kept else None


def _plain_text(tree: Any, *, main_content: bool) -> str:
    """Text of a resiliparse tree as a reader sees it: no alt texts, links, forms, noscript, comments."""
    from resiliparse.extract.html2text import extract_plain_text

    return str(
        extract_plain_text(
            tree,
            main_content=main_content,
            preserve_formatting=True,
            list_bullets=False,
            alt_texts=False,
            links=False,
            form_fields=False,
            noscript=False,
            comments=False,
        )
    )


def _visible_text(tree: Any) -> str:
    """All visible text of a resiliparse tree (no main-content cut), for disclosure lines."""
    return _plain_text(tree, main_content=False)


def _resiliparse(html: str, url: str | None, fast: bool, tree: Any = None) -> str | None:
    """Main content with resiliparse: ≈400 pages/s per core here against ≈27 for trafilatura."""
    from resiliparse.parse.html import HTMLTree

    tree = tree if tree is not None else HTMLTree.parse(html)
    text = _plain_text(tree, main_content=True)
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _trafilatura(html: str, url: str | None, fast: bool) -> str | None:
    import trafilatura

    return trafilatura.extract(
        html,
        url=url,
        fast=fast,
        include_comments=False,
        include_tables=True,
        deduplicate=False,
        with_metadata=False,
        output_format="txt",
    )


def _paragraphs(text: str) -> list[str]:
    paras = [p.strip() for p in text.split("\n")]
    return [p for p in paras if p][:_MAX_PARAGRAPHS]


def _scan(
    html: str | None,
    text: str | None,
    policy: Policy,
    tree: LexborHTMLParser | None = None,
    scans: ScanBatch | None = None,
) -> ScanResult | None:
    """The injection scan of raw HTML (every hiding place) or, for text-only inputs, of the text;
    None when the scan is off. With `scans`, an HTML page's findings are complete once the batch
    is flushed (`ScanBatch`)."""
    if not policy.injection.enabled:
        return None
    from trustaudit.injection import scan_html, scan_text

    if html is None:
        return scan_text(text or "", policy.injection)
    if scans is not None:
        return scans.scan_html(html, tree=tree)
    return scan_html(html, policy.injection, tree=tree)


@dataclass(slots=True)
class _PageScan:
    """A page's scan results: its head and, past `max_html_chars`, the windows of the rest (with
    where each starts), read into the page once they are complete (`_settle`)."""

    head: ScanResult | None
    rest: list[tuple[int, ScanResult]] = field(default_factory=list)
    # the scan of the attributes `limit_attributes` removed: where they stood is not kept
    spill: list[tuple[int, ScanResult]] = field(default_factory=list)
    # the scans of the page's other readings (`Decoded.others`), each with how it was read
    others: list[tuple[str, list[tuple[int, ScanResult]]]] = field(default_factory=list)


def _settle(page: dict[str, Any], scan: _PageScan, policy: Policy) -> None:
    """Set the page's `injection_findings` and `html_hidden_text` from its (complete) scan."""
    head = scan.head
    findings = list(head.findings) if head is not None else []
    hidden = (head.hidden_text or None) if head is not None else None
    if scan.rest:
        more: list[dict[str, Any]] = []
        for start, res in scan.rest:
            for f in res.findings:
                f = dict(f)
                if isinstance(f.get("offset"), int) and f["offset"] >= 0:
                    f["offset"] += start
                more.append(f)
        findings = _merge_findings(findings, more, policy.injection.max_findings)
        more_hidden = [res.hidden_text for _, res in scan.rest if res.hidden_text]
        if more_hidden:
            joined = "\n".join([hidden or "", *more_hidden]).strip("\n")
            hidden = joined[: policy.injection.max_hidden_chars] or None
    if scan.spill:
        spilled = [
            {**f, "offset": -1, "location": f"{f.get('location') or ''} ({SPILL_NOTE})"}
            for _, res in scan.spill
            for f in res.findings
        ]
        findings = _merge_findings(findings, spilled, policy.injection.max_findings)
    for how, windows in scan.others:
        note = f"in the page read as {how}, not as a browser reads it"
        read_so = [
            {**f, "offset": -1, "location": f"{f.get('location') or ''} ({note})"}
            for _, res in windows
            for f in res.findings
        ]
        findings = _merge_findings(findings, read_so, policy.injection.max_findings)
    page["injection_findings"] = findings
    page["html_hidden_text"] = hidden


# Elements that never nest (void) or that HTML closes implicitly: they do not add nesting depth.
_FLAT_TAGS = frozenset(
    # void elements and those HTML closes implicitly; an <a> inside an <a> closes the first (the
    # adoption agency algorithm), so <a> never nests either
    [
        *("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param"),
        *("source", "track", "wbr", "keygen", "p", "li", "dt", "dd", "option", "optgroup", "tr"),
        *("td", "th", "thead", "tbody", "tfoot", "rt", "rp", "colgroup", "!doctype", "a"),
    ]
)
# What the HTML tokenizer does not read as tags (WHATWG HTML 13.2.5): a comment (`<!-->` and
# `<!--->` end at once; `-->` or `--!>` end one; one left open runs to the end of the page), a
# bogus comment (`<!x`, `<?x`, `</ x`: to the next `>`), the text of a raw-text element (script
# data: script; RAWTEXT: style, xmp, iframe, noembed, noframes; RCDATA: textarea, title) up to
# its end tag or, left open, to the end of the page, and everything after `<plaintext>`. Tags are
# read with their attributes, quotes respected, so a `>`, `<!--` or `<script>` inside an
# attribute value is no markup. noscript is markup (every parser here runs with scripting off).
# Inside <svg> or <math> (foreign content) none of these elements holds raw text, and the
# parsers disagree on <title>: nothing is skipped there but comments (a breakout element such as
# <div> or <p> ends foreign content). Skipping less than a parser reads would let a bomb through
# (lexbor reads nested <div>s in an svg <title>); skipping more would count, and split, text.
_RAW_TEXT = frozenset(RAW_TEXT_ELEMENTS) - {"plaintext"}  # html_attrs' one list; plaintext ends all
_FOREIGN = frozenset(["svg", "math"])
_BREAKOUT_NAMES = """b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head
    hr i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt
    u ul var"""
_BREAKOUT = frozenset(_BREAKOUT_NAMES.split())
_ATTRS = r"""(?:[\s/]*+[^\s/>][^\s/>=]*+(?:\s*+=\s*+(?:"[^"]*+"|'[^']*+'|[^\s>]*+))?+)*+"""
_MARKUP_RE = re.compile(
    r"<(?:(?P<comment>!--)|(?P<cdata>!\[CDATA\[)|(?P<bogus>[!?]|/(?![a-zA-Z>]))"
    r"|(?P<close>/?)(?P<name>[a-zA-Z][^\s/>]*+)" + _ATTRS + r"[\s/]*+>?)"
)
_COMMENT_END = re.compile(r"--!?>")
_RAW_END: dict[str, re.Pattern[str]] = {
    n: re.compile(r"</" + n + r"(?=[\s/>])" + _ATTRS + r"[\s/]*+>?", re.IGNORECASE)
    for n in _RAW_TEXT
}
_TAG_QUICK_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9:-]*)")


def _tags(html: str) -> Iterator[tuple[int, int, bool, str]]:
    """(start, end, is an end tag, name) of each tag the HTML tokenizer reads (see `_RAW_TEXT`'s
    comment for what it skips). Linear: each skip searches forward once, and one left open ends
    the page."""
    pos = foreign = 0
    while (m := _MARKUP_RE.search(html, pos)) is not None:
        start = m.start()
        if m.group("comment"):
            body = m.end()
            if html.startswith(">", body) or html.startswith("->", body):
                pos = html.index(">", body) + 1
                continue
            e = _COMMENT_END.search(html, body)
            if e is None:
                return
            pos = e.end()
            continue
        if m.group("cdata") and foreign:
            e_at = html.find("]]>", m.end())
            if e_at < 0:
                return
            pos = e_at + 3
            continue
        if m.group("cdata") or m.group("bogus"):
            e_at = html.find(">", m.end())
            if e_at < 0:
                return
            pos = e_at + 1
            continue
        name, close, end = m.group("name"), bool(m.group("close")), m.end()
        lower = name.lower()
        yield start, end, close, name
        pos = end
        if close:
            if lower in _FOREIGN and foreign:
                foreign -= 1
            continue
        if lower in _FOREIGN:
            if not html.startswith("/>", end - 2):
                foreign += 1
            continue
        if foreign:
            if lower in _BREAKOUT:
                foreign = 0
            continue
        if lower == "plaintext":
            return
        if lower in _RAW_TEXT:
            e = _RAW_END[lower].search(html, pos)
            if e is None:
                return  # left open: its text runs to the end of the page
            yield e.start(), e.end(), True, lower
            pos = e.end()


def _deepest(tags: Iterable[tuple[bool | str, str]], limit: int) -> int:
    depth = deepest = 0
    for close, name in tags:
        if not name or name in _FLAT_TAGS or name.lower() in _FLAT_TAGS:
            continue
        if close:
            depth = max(depth - 1, 0)
        else:
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
    return deepest


def html_depth(html: str, limit: int) -> int:
    """Approximate element nesting depth (stops counting past `limit`); cheap: no parse.

    Why: the HTML parsers (lexbor, resiliparse) are C code whose time grows faster than linearly with
    depth (100k nested <div>s took minutes) and that no Python signal can interrupt. A quick count
    first (under 1 ms for a 90 KB page, about 5 % of its extraction); only a page it puts past the
    limit is counted again as the tokenizer reads it (`_tags`: not the tag-like strings of
    comments, scripts, styles, textareas and other raw text, which put 3 of 1,217 real pages in
    ../shared/corpora over).
    """
    if html.count("<") <= limit:
        return 0
    quick = _deepest(_TAG_QUICK_RE.findall(html), limit)
    if quick <= limit:
        return quick
    return _deepest(((c, name) for _, _, c, name in _tags(html)), limit)


def limit_depth(html: str, limit: int) -> tuple[str, int]:
    """Flatten the tags nested deeper than `limit`: (html, number of tags moved).

    Like a browser past its own nesting limit (Chromium reparents past depth 512), an element
    that would open below `limit` is kept, with its attributes, as a sibling at depth limit + 1:
    the previous such element is closed first. Dropping deep tags instead would strip their
    attributes, so a `display:none` block behind 600 unclosed <div>s would turn into visible
    text and its injection would no longer count as hidden. Tags are read as the tokenizer reads
    them (`_tags`), so no close is ever inserted into a comment, a script or a textarea's text.
    """
    if html_depth(html, limit) <= limit:
        return html, 0
    out: list[str] = []
    last = depth = moved = 0
    overflow: str | None = None  # the element kept open at depth limit + 1
    for start, end, close, name in _tags(html):
        if name in _FLAT_TAGS or name.lower() in _FLAT_TAGS:
            continue
        if close:
            if depth > limit:
                if overflow is not None and name.lower() == overflow.lower():
                    overflow = None  # closes the kept element: the tag stays
                else:  # closes an element that was already closed as a sibling: drop it
                    out.append(html[last:start])
                    last = end
            depth = max(depth - 1, 0)
            continue
        depth += 1
        if depth > limit:
            head = f"</{overflow}>" if overflow else ""
            out.append(html[last:start] + head + html[start:end])
            last = end
            overflow = name
            moved += 1
    out.append(html[last:])
    return "".join(out), moved


_SCAN_OVERLAP = 65_536


def _scan_rest(
    html: str, scanned_upto: int, policy: Policy, scans: ScanBatch | None = None
) -> list[tuple[int, ScanResult]]:
    """Injection scan of html[scanned_upto:] in bounded windows (overlapping, so nothing at a seam
    escapes): the scan covers the whole document even when extraction reads only its head. Each
    window's result with where it starts in `html` (`_settle` shifts its offsets)."""
    from trustaudit.injection import scan_html

    window = max(policy.injection.max_html_chars, 2 * _SCAN_OVERLAP)
    out: list[tuple[int, ScanResult]] = []
    start = max(scanned_upto - _SCAN_OVERLAP, 0)
    while start < len(html):
        chunk = html[start : start + window]
        res = scans.scan_html(chunk) if scans is not None else scan_html(chunk, policy.injection)
        out.append((start, res))
        if start + window >= len(html):
            break
        start += window - _SCAN_OVERLAP
    return out


def _merge_findings(
    first: list[dict[str, Any]], more: list[dict[str, Any]], limit: int
) -> list[dict[str, Any]]:
    """Findings of the head and of the rest, duplicates (same technique and snippet) once, best first."""
    seen = {(f.get("technique"), f.get("snippet")) for f in first}
    extra = []
    for f in more:
        key = (f.get("technique"), f.get("snippet"))
        if key not in seen:
            seen.add(key)
            extra.append(f)
    merged = first + extra
    merged.sort(key=lambda f: -(f.get("score") or 0.0))
    return merged[:limit]


def _domain(url: str | None) -> str | None:
    from trustaudit.scoring.domain import registered_domain_of

    return registered_domain_of(host_of(url))


def _provenance(
    url: str | None, url_source: str, canonical: str | None, og_url: str | None
) -> tuple[str | None, str, str | None, list[str]]:
    """(page URL, url_source, canonical_url, reasons): the operator's URL decides the identity.

    A page's own claim (<link rel=canonical>, og:url) replaces only a `file:` URL (the operator gave
    none); otherwise a differing claim is recorded in canonical_url, and one on another registered
    domain is the reason CANONICAL_MISMATCH (a blocklisted page must not pass as an allowlisted one).
    """
    claim = None
    claim_origin = "canonical"
    for candidate, origin in ((canonical, "canonical"), (og_url, "og_url")):
        candidate = browser_url(candidate or "")
        if not candidate:
            continue
        try:
            absolute = urljoin(url, candidate) if url else candidate
        except ValueError:
            continue
        if absolute.startswith(("http://", "https://")) and valid_url(absolute):
            claim, claim_origin = absolute[:2000], origin
            break
    if claim is None:
        return url, url_source, None, []
    if url_source == "file" or not url:
        return claim, claim_origin, None, []
    if normalize_url(claim) == normalize_url(url):
        return url, url_source, None, []
    reasons = []
    given, claimed = _domain(url), _domain(claim)
    if claimed != given:
        reasons.append(
            f"CANONICAL_MISMATCH: the page names {claim[:200]} ({claimed or 'no domain'}) as its"
            f" {'canonical URL' if claim_origin == 'canonical' else 'og:url'}; it was given as"
            f" {url[:200]} ({given or 'no domain'})"
        )
    return url, url_source, claim, reasons


def extract_record(
    rec: dict[str, Any], policy: Policy, scans: ScanBatch | None = None
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], ErrorRow | None]:
    """One record -> (page row, link rows, error). Exactly one of page/error is set.

    With `scans`, the page's injection findings and hidden text are set once the batch is flushed
    (`extract_records`); the page carries its pending scan under ``_scan`` until then."""
    source, offset, url = rec.get("source") or "", rec.get("offset"), rec.get("url")
    if isinstance(url, str):
        url = record_url(url)

    def err(code: str, message: str) -> tuple[None, list[dict[str, Any]], ErrorRow]:
        return None, [], ErrorRow(source, offset, url, "extract", code, message)

    problem = url_problem(url) if url is not None else None
    if problem is not None:
        return err("BAD_URL", problem)
    status = rec.get("status")
    if status is not None and status >= 400:
        return err("HTTP_STATUS", f"HTTP status {status}")
    if status is not None and 300 <= status < 400:
        return err("HTTP_REDIRECT", f"HTTP status {status} (a redirect, not a page)")
    ctype = (rec.get("content_type") or "").lower()
    if ctype and not ctype.startswith(_HTML_TYPES):
        return err("NOT_HTML", f"content type {ctype[:80]!r} is not HTML or text")
    body: bytes | None = rec.get("body")
    given_text: str | None = rec.get("given_text")
    x = policy.extract
    page: dict[str, Any] = {
        "source": source,
        "offset": offset,
        "fetched_at": rec.get("fetched_at"),
        "status": status,
        "content_type": rec.get("content_type"),
        "html_truncated": False,
        "html_bytes": len(body or b""),
        "published": None,
        "license": None,
        "sitename": None,
        "author": None,
        "lang": None,
        "title": None,
        "html_hidden_text": None,
        "page_disclosure_text": None,
        "canonical_url": None,
    }
    reasons: list[str] = []
    links: list[dict[str, Any]] = []
    url_source = rec.get("url_origin") or "input"
    if body is None:
        if given_text is None:
            return err("EMPTY_BODY", "record has neither HTML nor text")
        text = given_text
        page.update(
            extractor="given_text",
            encoding=None,
            content_hash=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
        )
        res = _scan(None, text, policy)
        findings = list(res.findings) if res is not None else []
        final_url = url
    else:
        if not body.strip():
            return err("EMPTY_BODY", "empty document")
        page["content_hash"] = hashlib.sha256(body).hexdigest()
        charset = rec.get("http_charset") or charset_from_content_type(rec.get("content_type"))
        decoded = decode_document(body, charset, max_binary_share=policy.inputs.max_binary_share)
        if decoded.text is None:
            return err("BINARY_CONTENT", decoded.error or "binary content, not HTML")
        reasons.extend(decoded.reasons)
        page["encoding"] = decoded.encoding
        cut = limit_attributes(decoded.text, policy.inputs.max_html_attributes)
        if cut.dropped:
            reasons.append(
                f"HTML_TOO_MANY_ATTRIBUTES: {cut.dropped} attribute(s) past the first"
                f" {policy.inputs.max_html_attributes} names of {cut.elements} element(s) removed"
                " before parsing (the injection scan read them apart)"
            )
        names = limit_names(cut.html, policy.inputs.max_html_names)
        if names.renamed or names.dropped:
            reasons.append(
                f"HTML_TOO_MANY_NAMES: past the page's first {policy.inputs.max_html_names}"
                f" element and attribute names, {names.renamed} element(s) renamed span and"
                f" {names.dropped} attribute(s) removed before parsing (the injection scan read"
                " them apart)"
            )
        spill = cut.spill + names.spill
        full_html, dropped = limit_depth(names.html, policy.inputs.max_html_depth)
        if dropped:
            reasons.append(
                f"HTML_TOO_DEEP: {dropped} tag(s) nested deeper than"
                f" {policy.inputs.max_html_depth} made siblings before parsing (attributes and"
                " text kept)"
            )
        html = full_html
        if len(html) > x.max_html_bytes:
            html = html[: x.max_html_bytes]
            page["html_truncated"] = True
            reasons.append(
                f"HTML_TRUNCATED: extraction read the first {x.max_html_bytes} of"
                f" {len(full_html)} characters; the injection scan read all of them"
            )
        tree = LexborHTMLParser(html)
        meta = _metadata(tree, html)
        final_url, url_source, canonical_url, notes = _provenance(
            url, url_source, meta.pop("canonical"), meta.pop("og_url")
        )
        page["canonical_url"] = canonical_url
        reasons.extend(notes)
        page.update(meta)
        base = final_url if final_url and final_url.startswith(("http://", "https://")) else url
        links = _links(tree, base, "")  # before the scan, which consumes the tree
        scan = _PageScan(_scan(html, None, policy, tree, scans))
        scanned_upto = min(len(html), policy.injection.max_html_chars)
        if policy.injection.enabled and len(full_html) > scanned_upto:
            scan.rest = _scan_rest(full_html, scanned_upto, policy, scans)
            if len(full_html) > policy.injection.max_html_chars and not page["html_truncated"]:
                reasons.append(
                    f"HTML_TRUNCATED: {len(full_html)} characters; the injection scan read them"
                    f" in windows of {policy.injection.max_html_chars}"
                )
        if policy.injection.enabled and spill:
            scan.spill = _scan_rest(spill, 0, policy, scans)
        if policy.injection.enabled:
            # readings a browser does not show but another reader of the page may (a label only
            # Python decodes, ISO-2022-JP's bytes without their escapes): scanned, each bounded
            # like the page (its characters are at most its bytes)
            scan.others = [(how, _scan_rest(o, 0, policy, scans)) for how, o in decoded.others]
        extracted: str | None = None
        extractor: str = x.extractor
        rtree: Any = None
        try:
            with time_budget(x.doc_timeout_s):
                from resiliparse.parse.html import HTMLTree

                rtree = HTMLTree.parse(html)
                if extractor == "trafilatura":
                    extracted = _trafilatura(html, final_url, x.trafilatura_fast)
                else:
                    extracted = _resiliparse(html, final_url, x.trafilatura_fast, rtree)
                # the visible-text pass is inside the budget too (it is a second walk of the tree)
                with contextlib.suppress(Exception):  # a signal, never a reason to lose the page
                    page["page_disclosure_text"] = _disclosure_lines(_visible_text(rtree))
        except _Timeout:
            extractor = "fallback-timeout"
        except Exception:  # extractors choke on some broken HTML
            extractor = "fallback-error"
        if not extracted:
            if extractor == x.extractor:
                extractor = "fallback-empty"
            extracted = _fallback_text(LexborHTMLParser(html))
        text = extracted
        page["extractor"] = extractor
    doc_id = doc_id_for(final_url, source, offset)
    record_key = f"{source}#{offset}"
    for link in links:
        link["doc_id"] = doc_id
        link["_record"] = record_key
    paragraphs = _paragraphs(text)
    page.update(
        doc_id=doc_id,
        url=final_url,
        final_url=final_url,
        url_source=url_source,
        host=host_of(final_url),
        text=text,
        paragraphs=paragraphs,
        word_count=len(text.split()),
        ingest_reasons=reasons,
    )
    if body is None:
        page["injection_findings"] = findings
    elif scans is None:
        _settle(page, scan, policy)
    else:
        page["_scan"] = scan
    return page, links, None


RecordOutcome = tuple[dict[str, Any] | None, list[dict[str, Any]], ErrorRow | None]


def record_error(rec: dict[str, Any], code: str, message: str) -> ErrorRow:
    """The error row of one record that did not become a page (stage `extract`)."""
    return ErrorRow(
        rec.get("source") or "", rec.get("offset"), rec.get("url"), "extract", code, message
    )


def extract_guarded(
    rec: dict[str, Any], policy: Policy, scans: ScanBatch | None = None
) -> RecordOutcome:
    """extract_record that never raises: any exception is this record's error row (class named)."""
    try:
        return extract_record(rec, policy, scans)
    except _Timeout:  # pragma: no cover - only if a budget fires outside the extractor
        return None, [], record_error(rec, "EXTRACT_TIMEOUT", "extraction timed out")
    except (Exception, RecursionError) as exc:
        return None, [], record_error(rec, "EXTRACT_FAILED", f"{type(exc).__name__}: {exc}"[:300])


def assemble(records: pa.Table, outcomes: list[RecordOutcome]) -> ExtractResult:
    """Per-record outcomes (in record order) -> one batch's pages, links and error rows."""
    pages: list[dict[str, Any]] = []
    kept: list[int] = []
    links: list[dict[str, Any]] = []
    errors: list[ErrorRow] = []
    for i, (page, page_links, error) in enumerate(outcomes):
        if error is not None or page is None:
            errors.append(error or ErrorRow("", None, None, "extract", "EXTRACT_FAILED", "no page"))
            continue
        pages.append(page)
        kept.append(i)
        links.extend(page_links)
    try:
        table = pa.Table.from_pylist(pages, schema=PAGE_SCHEMA)
    except Exception:
        return _assemble_slowly(records, outcomes)
    table = attach_extras(table, records, kept)
    return ExtractResult(table, pa.Table.from_pylist(links, schema=LINK_SCHEMA), errors, kept)


def _assemble_slowly(records: pa.Table, outcomes: list[RecordOutcome]) -> ExtractResult:
    """assemble() when the batch does not convert: each page is tried alone; failures become errors."""
    rows = records.select(["source", "offset", "url"]).to_pylist()
    fixed: list[RecordOutcome] = []
    for rec, (page, page_links, error) in zip(rows, outcomes, strict=True):
        if page is not None:
            try:
                pa.Table.from_pylist([page], schema=PAGE_SCHEMA)
                pa.Table.from_pylist(page_links, schema=LINK_SCHEMA)
            except Exception as exc:
                msg = f"{type(exc).__name__}: {exc}"[:300]
                page, page_links, error = None, [], record_error(rec, "EXTRACT_FAILED", msg)
        fixed.append((page, page_links, error))
    return assemble(records, fixed)


def extract_records(records: pa.Table, policy: Policy) -> ExtractResult:
    """The map stage over one batch. Never raises for a bad record: it becomes an ErrorRow.

    The pages' injection scans share a `ScanBatch`: each page is scanned lexically as it is
    extracted, and the passages the semantic layer reads are judged a few pages at a time."""
    scans = _scan_batch(policy)
    outcomes = [extract_guarded(rec, policy, scans) for rec in records.to_pylist()]
    if scans is not None:
        scans.flush()
        for page, _, _ in outcomes:
            if page is not None and "_scan" in page:
                _settle(page, page.pop("_scan"), policy)
    return assemble(records, outcomes)


def _scan_batch(policy: Policy) -> ScanBatch | None:
    """The batch the pages' HTML scans share (None when the scan is off)."""
    if not policy.injection.enabled:
        return None
    from trustaudit.injection import ScanBatch

    return ScanBatch(policy.injection)


def attach_extras(pages: pa.Table, records: pa.Table, kept: list[int]) -> pa.Table:
    """Append the input's extra columns (JSONL fields etc.) of the records that became `pages`."""
    extra_cols = [c for c in records.column_names if c not in RECORD_COLUMNS]
    if not extra_cols:
        return pages
    picked = records.select(extra_cols).take(pa.array(kept, type=pa.int64()))
    for name in extra_cols:
        pages = pages.append_column(name, picked.column(name))
    return pages
