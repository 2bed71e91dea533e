"""The letters of the cased scripts the 20 languages are written in, as regular-expression classes.

Why one definition: Python's `re` has no ``\\p{Lu}``, and the classes written by hand where they were
needed ("A-ZÀ-ÖØ-ÞА-ЯЁІЇЄҐ", "a-zß-öø-ÿа-яёіїєґ") stopped at Latin-1: Polish Ł Ś Ż Ć, Turkish Ş Ğ
İ, Czech Č Š Ž and Vietnamese Đ Ạ Ả Ấ… were no capitals, so "khen Đà Lạt Travel" named no one, and
their lower-case letters (ł ś ş ğ ı ạ ả…) no lower case. These classes are read off Unicode's own
categories (`unicodedata`: Lu, Ll) over the blocks of the Latin, Greek and Cyrillic scripts, once.
"""

from __future__ import annotations

import unicodedata

__all__ = ["CASED", "LOWER", "UPPER"]

# Basic Latin to the Cyrillic Supplement (Latin-1, Latin Extended-A and B, IPA, Greek, Cyrillic),
# Latin Extended Additional (Vietnamese) and Greek Extended.
_BLOCKS = ((0x41, 0x52F), (0x1E00, 0x1FFF))


def _class(category: str) -> str:
    """The letters of `category` in `_BLOCKS`, as the body of a character class (ranges of code
    points that follow one another)."""
    points = [
        c
        for lo, hi in _BLOCKS
        for c in range(lo, hi + 1)
        if unicodedata.category(chr(c)) == category
    ]
    out: list[str] = []
    start = prev = points[0]
    for c in [*points[1:], -1]:
        if c == prev + 1:
            prev = c
            continue
        out.append(chr(start) if start == prev else f"{chr(start)}-{chr(prev)}")
        start = prev = c
    return "".join(out)


UPPER = _class("Lu")  # capitals: A-Z, À, Ł, Ş, İ, Đ, Ạ, Α, Ж…
LOWER = _class("Ll")  # lower case: a-z, ß, ł, ş, ı, ạ, α, ж…
CASED = UPPER + LOWER
