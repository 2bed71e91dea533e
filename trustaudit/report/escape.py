"""Make hostile page strings inert in every output format.

Page text, titles and URLs are attacker-controlled: they must not execute in HTML, break Markdown
tables, or run as formulas when a CSV is opened in a spreadsheet.
"""

from __future__ import annotations

import functools
import html
import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import polars as pl

# Terminal escape sequences (ECMA-48): CSI (ESC [ or the C1 byte 0x9b) with its parameters, OSC
# (ESC ] or 0x9d: hyperlinks OSC 8, clipboard writes OSC 52, titles) up to BEL/ST, DCS/SOS/PM/APC
# strings, and any other two-byte ESC sequence. Removed whole, so no `[2J` residue is left behind.
_ESCAPE_SEQ = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)
# C0 controls but tab, newline and CR (whitespace: callers fold them into spaces), DEL, C1 controls, zero-width, bidi embeddings/overrides/isolates,
# BOM and Unicode tag characters: they steer terminals and spreadsheets or hide and reorder text.
_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
    r"|[\U000e0000-\U000e007f]"
)


def strip_invisible(text: str) -> str:
    """Drop escape sequences and control, zero-width, bidi and tag characters (they hide or
    reorder text, or drive a terminal); whitespace (tab, newline, CR) stays for callers to fold."""
    return _CONTROL.sub("", _ESCAPE_SEQ.sub("", text))


def terminal(text: object, limit: int | None = None, *, multiline: bool = False) -> str:
    """The one sanitiser for input-derived strings (titles, URLs, snippets, ids, queries) before
    they reach a rich console: escape sequences and controls removed (`strip_invisible`), one line
    unless `multiline`, cut to `limit` characters, and rich markup escaped so `[red]` or
    `[link=…]` in a page stays text. Every command's terminal output goes through it."""
    from rich.markup import escape

    if text is None:
        return ""
    s = strip_invisible(str(text))
    if multiline:
        s = "\n".join(" ".join(line.split()) for line in s.split("\n"))
    else:
        s = " ".join(s.split())
    if limit is not None and len(s) > limit:
        s = s[: max(limit - 1, 0)] + "…"
    return escape(s)


def one_line(text: str | None, limit: int = 300) -> str:
    if not text:
        return ""
    return _one_line(str(text), limit)


@functools.lru_cache(maxsize=1 << 16)  # domains and reasons repeat across thousands of rows
def _one_line(text: str, limit: int) -> str:
    text = " ".join(strip_invisible(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# A tag cut short at the end of a snippet: `<`, `</`, `<!`, `<?` or `<name attr="…` with no `>`.
# `a < b` is text (HTML opens a tag only when `<` is followed by a letter, `/`, `!` or `?`).
_PARTIAL_TAG_END = re.compile(r"<[/!?]?(?:[A-Za-z][^<>]{0,300})?$")
# The tail of a tag cut short at the start: `p>`, `/div>`, `class="x">`, `href=x target=_blank>`:
# a tag name or attributes (with `=`) up to the first `>`, so "Go to settings -> Privacy" stays.
_ATTR = r"""[A-Za-z_:][\w:.-]*\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>]+)"""
_PARTIAL_TAG_START = re.compile(
    rf"^(?:/?[A-Za-z][\w:-]{{0,40}}(?=\s|/?>)|{_ATTR})(?:\s+{_ATTR})*\s*/?>"
)


def cut_text(text: object, limit: int = 300) -> str:
    """A page snippet for display: one line, invisible characters removed, cut on a word boundary
    (not mid-word) with `…`, and no partial tag at either end.

    Snippets are cut out of page source or decoded text upstream (a 200-character injection
    window, a decoded tag-character run that runs into `</p>`), so a stored snippet can start or
    end inside a tag; a dangling `</` reads as a rendering bug and hides where the text ends.
    Complete tags stay as text (`<b>buy now</b>` is evidence): callers still escape the result for
    their format (DOM text, `md`, `terminal`).
    """
    if text is None:
        return ""
    s = " ".join(strip_invisible(str(text)).split())
    s = _PARTIAL_TAG_START.sub("", _PARTIAL_TAG_END.sub("", s)).strip()
    if len(s) <= limit:
        return s
    cut = s[: max(limit - 1, 0)]
    space = cut.rfind(" ")
    if space >= (limit * 2) // 3:  # a word boundary near the end; else a long token is cut
        cut = cut[:space]
    cut = _PARTIAL_TAG_END.sub("", cut).rstrip()
    return cut + "…"


def cut_text_expr(expr: pl.Expr, limit: int) -> pl.Expr:
    """`cut_text` as a Polars expression, for snippets cut inside a query (the gate's offender
    lines): whitespace folded, no partial tag at the end, cut on a word boundary with `…`."""
    import polars as pl

    end = _PARTIAL_TAG_END.pattern
    s = expr.str.replace_all(r"\s+", " ").str.replace(end, "").str.strip_chars()
    keep = (limit * 2) // 3
    cut = (
        s.str.slice(0, max(limit - 1, 0))
        .str.replace(rf"^(.{{{keep},}}) \S*$", "$1")  # back to the last word boundary
        .str.replace(end, "")
        .str.strip_chars_end()
    )
    return pl.when(s.str.len_chars() <= limit).then(s).otherwise(pl.concat_str([cut, pl.lit("…")]))


# GitHub and GitLab act on the text of a rendered comment, after Markdown, so neither a backslash
# nor an entity stops them: `:white_check_mark:` becomes ✅ (a page forging a verdict), `@org/team`
# notifies a team, `#12`, `owner/repo#12`, `GH-12` and a github.com issue or pull-request URL put
# a cross-reference in that timeline, a word of 7-40 hex digits links a commit; GitLab also
# reads `!12` (a merge request), `&12` (an epic), `$12` (a snippet), `~label` and `~12`,
# `%milestone` and `%12`, each also glued to a project's path (`group/project~12`, `project%12`,
# `project$3`), `[vulnerability:12]`, `*iteration:12` and `/-/issues/N`, `/-/merge_requests/N`,
# `/-/epics/N` URLs. A zero-width space after the sigil (or inside the hex word, every 6 digits)
# breaks the token and reads the same (Renovate and Dependabot defuse `@` in release notes so).
#
# Text outside URLs: every sigil before a character that can start a reference is broken, whatever
# stands before it (GitLab's patterns take an optional project path before the sigil, so `/~12`,
# `a%20b` and `проект~34` are references to it; its `\w` is ASCII, its milestone names are not).
_MD_REF = re.compile(
    r":(?=(?:[\w+-]*[A-Za-z_][\w+-]*|100|1234|[+-]1):)"  # emoji names without a letter: these four
    r"|@(?=[\w.])|[#!&$](?=\d)|(?<![A-Za-z0-9])GH-(?=\d)|[~%](?=[\w\"])"
    r"|github(?=\.com/[^/\s]+/[^/\s]+/(?:issues|pull|discussions)/\d)"
    r"|/-(?=/(?:issues|merge_requests|epics|work_items)/\d)"
    r"|\[(?=[a-z_]+:)|\*(?=iteration:)",
    re.IGNORECASE,
)
# A commit: a word of 7 to 40 hex digits holding a letter and a digit (GitHub and GitLab link one
# that names a commit of the repository, alone or after `user@`, `project@`, or in `a...b`); words
# of digits only (numbers) are left as written.
_MD_SHA = re.compile(
    r"(?<![\w])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w])", re.IGNORECASE | re.ASCII
)
# Inside a URL that both GitHub and GitLab link (http, https or ftp, its scheme not glued to a
# letter, as cmark-gfm reads it; or `www.` after a blank), no reference is read, and a break would
# cut the link: only the tokens GitHub reads whatever encloses them are broken there (emoji,
# mentions, `#12`, issue URLs), not percent-escapes (`a%20b`), `/~user` or ids in a path. Any other
# scheme (`javascript://`, `xhttps://`) may stay text: defused like text.
_MD_TRIGGER = re.compile(
    r":(?=(?:[\w+-]*[A-Za-z_][\w+-]*|100|1234|[+-]1):)"
    r"|@(?=[A-Za-z0-9])|#(?=\d)|(?<![A-Za-z0-9])GH-(?=\d)"
    r"|github(?=\.com/[^/\s]+/[^/\s]+/(?:issues|pull|discussions)/\d)"
    r"|(?<![=?/])[!&](?=\d)|(?<![\w/])[~%](?=[A-Za-z0-9\"])"
    r"|/-(?=/(?:issues|merge_requests|epics|work_items)/\d)",
    re.IGNORECASE | re.ASCII,
)
_URL_TOKEN = re.compile(
    r"(?<![a-z])(?:https?|ftp)://[^\s<>]*"
    r"|(?<!\S)www\.[^\s<>]*",
    re.IGNORECASE,
)
_MD_BREAK = "\u200b"


def _sha_break(m: re.Match[str]) -> str:
    word = m.group(0)
    return _MD_BREAK.join(word[i : i + 6] for i in range(0, len(word), 6))


def _defuse(text: str) -> str:
    """`text` with a zero-width space after each reference sigil GitHub or GitLab would act on:
    the broad rule (`_MD_REF`, `_MD_SHA`) outside URL tokens, `_MD_TRIGGER` inside them."""
    out, at = [], 0

    def plain(part: str) -> str:
        return _MD_SHA.sub(_sha_break, _MD_REF.sub(r"\g<0>" + _MD_BREAK, part))

    for m in _URL_TOKEN.finditer(text):
        out += [plain(text[at : m.start()]), _MD_TRIGGER.sub(r"\g<0>" + _MD_BREAK, m.group(0))]
        at = m.end()
    out.append(plain(text[at:]))
    return "".join(out)


# Markdown syntax of CommonMark and GitHub (strikethrough `~`, math `$`): escaped with a backslash.
# `<`, `>` and `&` are HTML-escaped first; quotes are left alone, so `it's` stays readable.
_MD_SYNTAX = re.compile(r"([\\`*_\[\]|!#<>()~$])")


def md(text: str | None, limit: int = 300) -> str:
    """Text for a Markdown cell or line (quarantine.md, diff.md, eval.md, calibration.md), the one
    Markdown sanitiser: one line, no HTML, no pipes, no Markdown links or images (an image in a
    PR comment fetches its URL when read; a bare URL may still be autolinked, a link never
    loaded), no emphasis, strikethrough or math, and no emoji code, @mention or issue reference
    left for GitHub to act on. Rendered, it reads as the text it was given."""
    t = _defuse(one_line(text, limit))
    return _MD_SYNTAX.sub(r"\\\1", html.escape(t, quote=False))


def csv_cell(text: str | None, limit: int = 2000) -> str:
    """Defuse spreadsheet formulas (=, +, -, @, tab, CR) by prefixing a quote."""
    t = one_line(text, limit)
    return "'" + t if t[:1] in ("=", "+", "-", "@", "\t", "\r") else t


def safe_href(url: str | None) -> str | None:
    """Only http(s) URLs become links; everything else (javascript:, data:, …) stays text."""
    if not url:
        return None
    try:
        scheme = urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return None
    return url.strip() if scheme in ("http", "https") else None


def html_text(text: str | None, limit: int = 500) -> str:
    return html.escape(one_line(text, limit), quote=True)
