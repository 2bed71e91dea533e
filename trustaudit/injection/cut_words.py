"""Words cut in two by a space that the intent lexicon does not list, read whole by how often
each reading occurs in the language (wordfreq's frequency lists, shipped in its wheel).

Why: session 25 joined the lexicon's own words cut in two ("Ig nore all prev ious"), but the
rest of such a request stayed cut ("Augme nt your rep ly", "comp ly", "Inte grate"), and the
model read the fragments as noise. Which pairs to join is a question of frequencies, not of a
list: "rep ly" is far likelier one word cut than two words side by side, "for get" or "some one"
is not. The pairs are weighed only near a word the words automaton already found cut
(`normalize._join_split`): a text with no such cut costs nothing, and an ordinary page's two
words are read as one only there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from functools import cache, lru_cache

# two runs of letters parted by one space, the second read by a lookahead so that a word may be
# the second half of one pair and the first of the next
_PAIR = re.compile(r"(?<![^\W\d_])([^\W\d_]{2,}) (?=([^\W\d_]{2,})(?![^\W\d_]))")
# log10 of how much likelier a cut word must be than two words (the prior odds of a cut, near a
# word already found cut): `_zipf(ab) - _zipf(a) - _zipf(b) + 9 > _MARGIN`
_MARGIN = 3.0
_UNLISTED = 2.0  # the Zipf value of a word not in the list (whose floor is 3.0: 1 per million)
# letters of a word looked for cut in two (two at least each side of the cut)
MIN_WORD = 5
# the lexicon's languages as jusText names its stop-word lists, which wordfreq lists too (none for
# Chinese and Japanese, not written with spaces)
STOP_LISTS = {
    "en": "English", "pt": "Portuguese", "es": "Spanish", "fr": "French", "de": "German",
    "it": "Italian", "nl": "Dutch", "pl": "Polish", "tr": "Turkish", "ru": "Russian",
    "uk": "Ukrainian", "ar": "Arabic", "fa": "Persian", "he": "Hebrew", "hi": "Hindi",
    "id": "Indonesian", "vi": "Vietnamese", "ko": "Korean",
}  # fmt: skip
_LANGS = frozenset(STOP_LISTS)


@lru_cache(maxsize=64)
def stop_words(langs: frozenset[str]) -> frozenset[str]:
    """The stop words of `langs` (jusText's lists, trafilatura's own dependency; lower case)."""
    import justext

    return frozenset(
        w.lower()
        for lang in langs
        if lang in STOP_LISTS
        for w in justext.get_stoplist(STOP_LISTS[lang])
    )


@cache
def _frequencies(lang: str) -> dict[str, float]:
    """wordfreq's "small" list of `lang` (words of one per million or more, ≈ 10–60 thousand),
    loaded on first use (≈ 10–20 ms)."""
    from wordfreq import get_frequency_dict

    return get_frequency_dict(lang, "small")


def _listed(freq: dict[str, float], word: str) -> float | None:
    f = freq.get(word)
    return None if f is None else math.log10(f) + 9


def _zipf(freq: dict[str, float], word: str) -> float:
    z = _listed(freq, word)
    return _UNLISTED if z is None else z


def zipf(word: str, lang: str) -> float | None:
    """The Zipf value of lower-case `word` in `lang`'s list (log10 of its frequency per billion
    words); None when the list does not hold it (or `lang` has none here)."""
    return _listed(_frequencies(lang), word) if lang in _LANGS else None


def languages(text: str) -> frozenset[str]:
    """English and the language whose stop words `text` holds most of (jusText's lists): the
    lists a cut word is looked up in."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", text)]
    best, top = 0, ""
    for lang in sorted(_LANGS):
        hits = sum(w in stop_words(frozenset({lang})) for w in words)
        if hits > best:
            best, top = hits, lang
    return frozenset({"en", top} - {""})


def listed(word: str, langs: Iterable[str]) -> bool:
    """Whether `word` is in the frequency list of one of `langs`."""
    low = word.lower()
    return any(low in _frequencies(lang) for lang in set(langs) & _LANGS)


def joins(text: str, lo: int, hi: int, langs: Iterable[str]) -> list[tuple[int, int, int]]:
    """(gap, start, end) of each word of `text[lo:hi]` cut in two by one space that reads as one
    word of one of `langs`: the whole at least `MIN_WORD` letters and listed, and likelier as one
    word cut than as the two words side by side, by the margin: the best reading as one word in
    any of `langs` against the best as two words of one of them (so the English list cannot read
    a Spanish "que en" as "queen": Spanish reads it as two words far likelier). The second half
    opens in lower case (or the whole word is upper case): "Ana Lyze" is two names. Where two
    such pairs share a half ("the se ntiment"), the likelier join is kept."""
    tables = [_frequencies(lang) for lang in sorted(set(langs) & _LANGS)]
    if not tables:
        return []
    found: list[tuple[float, int, int, int]] = []
    for m in _PAIR.finditer(text, lo, hi):
        a, b = m.group(1), m.group(2)
        if len(a) + len(b) < MIN_WORD:
            continue
        if b[0].isupper() and not (a.isupper() and b.isupper()):
            continue
        la, lb = a.lower(), b.lower()
        whole = la + lb
        one = max((_zipf(freq, whole) for freq in tables if whole in freq), default=None)
        if one is None:
            continue
        two = max(_zipf(freq, la) + _zipf(freq, lb) for freq in tables)
        odds = one - two + 9
        if odds > _MARGIN:
            gap = m.end() - 1
            found.append((odds, gap, m.start(), gap + 1 + len(b)))
    out: list[tuple[int, int, int]] = []
    taken: set[int] = set()  # the starts of the halves joined
    for _, gap, start, end in sorted(found, reverse=True):
        if start in taken or gap + 1 in taken:
            continue
        taken.update((start, gap + 1))
        out.append((gap, start, end))
    return sorted(out)
