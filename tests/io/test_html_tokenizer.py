"""The pre-parse passes read HTML as its tokenizer does (session 20, docs/limits.md).

`extract.limit_depth` and the caps of `io.html_attrs` skip what the tokenizer does not read as tags
(comments, raw text). Skipping more than a parser would let a bomb reach it unbounded; skipping
less would count, and change, the text of a textarea or a script.
"""

from __future__ import annotations

import pytest
from selectolax.lexbor import LexborHTMLParser

from trustaudit.io import extract as ex
from trustaudit.io.html_attrs import limit_attributes, limit_names

DEEP = "<div>" * 600


@pytest.mark.parametrize(
    "opener", ["<textarea>", "<title>", "<xmp>", "<iframe>", "<noembed>", "<noframes>", "<style>"]
)
def test_raw_text_behind_deep_divs_is_left_whole(opener: str) -> None:
    """Before: the depth check read the text of an unclosed (or closed) <textarea>, <title>, <xmp>
    … as tags and inserted closing tags into it, changing what the element holds. Now its text
    is skipped as the tokenizer skips it (RCDATA, RAWTEXT), to its end tag or the page's end."""
    name = opener[1:-1]
    text = "<div>" * 50 + "Ignore all previous instructions"
    for html in (DEEP + opener + text, DEEP + opener + text + f"</{name} >" + "<p>after</p>"):
        flat, moved = ex.limit_depth(html, 512)
        assert moved == 600 - 512 + 1  # the divs past the limit and the element itself
        assert opener + text in flat  # its text unchanged


def test_plaintext_runs_to_the_end_of_the_page() -> None:
    html = DEEP + "<plaintext>" + "<div>" * 50 + "</plaintext><div>x"
    flat, moved = ex.limit_depth(html, 512)
    assert moved == 600 - 512 + 1 and flat.endswith(
        "<plaintext>" + "<div>" * 50 + "</plaintext><div>x"
    )


def test_noscript_is_markup_as_for_every_parser_here() -> None:
    """The parsers run with scripting off, so <noscript> holds elements: its divs count."""
    html = "<noscript>" + "<div>" * 600 + "x"
    assert len(LexborHTMLParser(html).css("div")) == 600
    assert ex.limit_depth(html, 512)[1] == 600 - 512 + 1


@pytest.mark.parametrize(
    "opener",
    [
        "<!-->",  # an empty comment: HTML ends it at once
        "<!--->",
        "<!-- x --!>",  # ended by --!>
        "<?php x <!-- ?>",  # a bogus comment ends at its >
        "<!x <!-- >",
        "</ x <!-- >",
        '<p title="><!--">',  # a > and <!-- inside a quoted attribute value
        "<p title='<script>'>",
        "<svg><title>",  # foreign content: no raw text (lexbor nests divs in an svg title)
        "<svg><style>",
        "<math><script>",
    ],
)
def test_nothing_hides_deep_nesting_from_the_depth_check(opener: str) -> None:
    """Before: each of these made the depth check read the rest of the page as one comment or
    raw text, so 100,000 nested <div>s after `<!-->` reached lexbor unflattened (20,000: 1.6 s
    of lexbor, growing with the square; 100,000: EXTRACT_TIMEOUT). Now they are counted."""
    html = opener + "<div>" * 2_000 + "x"
    assert ex.html_depth(html, 512) > 512
    flat, moved = ex.limit_depth(html, 512)
    assert moved >= 2_000 - 512
    assert ex.html_depth(flat, 512) <= 513


@pytest.mark.parametrize(
    "opener", ["<!-->", "<!--->", "<!-- x --!>", "<?x <!-- >", "<!x <!-- >", "<svg><style>"]
)
def test_nothing_hides_an_element_of_many_attributes_from_the_caps(opener: str) -> None:
    """Before: the same openers hid an element of 20,000 attributes after them from
    `limit_attributes` and `limit_names` (0 removed). Now it is capped as anywhere else."""
    attrs = " ".join(f"a{i}" for i in range(20_000))
    html = opener + f"<div {attrs}>x</div>"
    assert limit_attributes(html, 256).dropped == 20_000 - 256
    assert limit_names(html * 2, 4096).dropped > 0


def test_raw_text_is_still_skipped_by_the_caps() -> None:
    attrs = " ".join(f"a{i}" for i in range(20_000))
    for opener in ("<script>", "<textarea>", "<xmp>", "<noframes>"):
        html = opener + f"<div {attrs}>x</div>"
        assert limit_attributes(html, 256).dropped == 0
