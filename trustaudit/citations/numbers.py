"""Numbers, amounts, percentages, dates, times and IDs in text, normalised so formats compare equal.

A KB card must not state a figure its source never said. Cards and sources write the same fact in
different formats (1,234.56 / 1.234,56; "$1,200" / "1200 USD"; "2024-03-05" / "March 5, 2024" /
"5 de março de 2024"), so each fact becomes a set of canonical values and support is set overlap.
Ambiguous forms keep every reading ("1.234" is 1234 or 1.234; "05/03/2024" is 5 March or May 3):
a card is only flagged when no reading of its fact appears in the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

_MONTHS: dict[str, int] = {}
for _i, _names in enumerate(
    (
        "january jan enero ene janeiro",
        "february feb febrero fevereiro fev",
        "march mar marzo março marco",
        "april apr abril abr",
        "may mayo maio mai",
        "june jun junio junho",
        "july jul julio julho",
        "august aug agosto ago",
        "september sep sept septiembre setiembre setembro set",
        "october oct octubre outubro out",
        "november nov noviembre novembro",
        "december dec diciembre dic dezembro dez",
    ),
    start=1,
):
    for _n in _names.split():
        _MONTHS[_n] = _i
_MONTH_RE = "|".join(sorted(map(re.escape, _MONTHS), key=len, reverse=True))

_CURRENCY_SYMBOLS = {
    "us$": "USD", "$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "dólares": "USD",
    "dolares": "USD", "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "£": "GBP",
    "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "libras": "GBP", "¥": "JPY", "jpy": "JPY",
    "yen": "JPY", "r$": "BRL", "brl": "BRL", "reais": "BRL", "real": "BRL", "₹": "INR",
    "inr": "INR", "c$": "CAD", "ca$": "CAD", "cad": "CAD", "a$": "AUD", "au$": "AUD", "aud": "AUD",
    "chf": "CHF", "mx$": "MXN", "mxn": "MXN", "ars": "ARS", "cny": "CNY", "rmb": "CNY",
}  # fmt: skip
_PREFIX_CUR = r"(?:US\$|R\$|CA\$|AU\$|MX\$|C\$|A\$|\$|€|£|¥|₹|USD|EUR|GBP|BRL|JPY|INR|CAD|AUD|CHF|MXN|ARS|CNY)"
_SUFFIX_CUR = (
    r"(?:USD|EUR|GBP|BRL|JPY|INR|CAD|AUD|CHF|MXN|ARS|CNY|€|\$|£|dollars?|dólares|dolares|euros?"
    r"|pounds?|libras|reais|yen)"
)
_MULTIPLIERS = {
    "k": 3, "thousand": 3, "mil": 3, "million": 6, "millions": 6, "mn": 6, "mln": 6,
    "milhão": 6, "milhões": 6, "millón": 6, "millones": 6, "billion": 9, "billions": 9, "bn": 9,
    "bilhão": 9, "bilhões": 9, "trillion": 12,
}  # fmt: skip
_MULT_RE = r"(?:\s?(?P<mult>" + "|".join(sorted(_MULTIPLIERS, key=len, reverse=True)) + r")\b)?"
_NUM = r"(?P<num>\d{1,3}(?:[ ,.\u00a0\u202f']\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
_NUM_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "dozen": 12, "twenty": 20,
    "hundred": 100, "um": 1, "uma": 1, "dois": 2, "duas": 2, "três": 3, "quatro": 4, "cinco": 5,
    "seis": 6, "sete": 7, "oito": 8, "nove": 9, "dez": 10, "uno": 1, "dos": 2, "tres": 3,
    "cuatro": 4, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
}  # fmt: skip

_I = re.IGNORECASE
_RE_ISO = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_RE_NUMDATE = re.compile(r"(?<![\d.])(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?!\d)")
_RE_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)", _I)
_RE_DMY = re.compile(
    rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|º|°)?\s+(?:de\s+)?({_MONTH_RE})\.?,?\s+(?:de\s+)?(\d{{4}})(?!\d)",
    _I,
)
_RE_MY = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:de\s+)?(\d{{4}})(?!\d)", _I)
_RE_MD = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*\d)", _I)
_RE_DM = re.compile(rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|º)?\s+(?:de\s+)?({_MONTH_RE})\b", _I)
_RE_TIME = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2})?(?:\s*([ap])\.?m\.?\b)?(?![\d:])", _I)
_RE_ID = re.compile(
    r"(?<![\w])(?:[A-Za-z][A-Za-z0-9]*(?:[-_./#][A-Za-z0-9]+)*[-_]?\d[A-Za-z0-9]*(?:[-_./][A-Za-z0-9]+)*"
    r"|\d+[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+"
    r"|\d+(?:-\d+){2,}|\d+(?:\.\d+){2,})(?![\w])"
)
_RE_UNIT = re.compile(r"^\d+(?:[.,]\d+)?[A-Za-z]{1,4}$")  # 5kg, 24h, 21st: a number, not an ID
_RE_AMOUNT_PRE = re.compile(rf"(?P<cur>{_PREFIX_CUR})\s?{_NUM}{_MULT_RE}", _I)
_RE_AMOUNT_SUF = re.compile(
    rf"(?<![\d.,]){_NUM}{_MULT_RE}\s?(?P<cur>{_SUFFIX_CUR})(?![A-Za-z])", _I
)
_RE_PERCENT = re.compile(
    rf"(?<![\d.,]){_NUM}\s?(?:%|percent\b|per cent\b|pct\b|por ciento\b|por cento\b)", _I
)
_RE_NUMBER = re.compile(rf"(?<![\d.,]){_NUM}{_MULT_RE}(?!\d)", _I)
_RE_NUMWORD = re.compile(r"\b(" + "|".join(_NUM_WORDS) + r")\b", _I)


@dataclass(frozen=True)
class Fact:
    """One figure found in text: its kind, the surface form, and every canonical reading."""

    kind: str  # date, month, monthday, amount, percent, time, id, number
    surface: str
    values: frozenset[str]


def _canon(d: Decimal) -> str:
    s = format(d.normalize(), "f")
    return s.rstrip("0").rstrip(".") if "." in s else s


def number_values(s: str, mult: str | None = None) -> set[str]:
    """Every value a written number may mean (thousand/decimal separators in en/de/fr/pt styles)."""
    s = re.sub(r"[ \u00a0\u202f']", "", s.strip())
    readings: list[str] = []
    has_dot, has_comma = "." in s, "," in s
    if has_dot and has_comma:
        dec = "." if s.rfind(".") > s.rfind(",") else ","
        other = "," if dec == "." else "."
        readings.append(s.replace(other, "").replace(dec, "."))
    elif has_dot or has_comma:
        sep = "." if has_dot else ","
        head, _, tail = s.rpartition(sep)
        if s.count(sep) > 1:
            readings.append(s.replace(sep, ""))
        elif len(tail) == 3 and 1 <= len(head) <= 3 and not head.startswith("0"):
            readings += [s.replace(sep, ""), s.replace(sep, ".")]
        else:
            readings.append(s.replace(sep, "."))
    else:
        readings.append(s)
    exp = _MULTIPLIERS.get(mult.lower(), 0) if mult else 0
    out: set[str] = set()
    for r in readings:
        try:
            out.add(_canon(Decimal(r).scaleb(exp)))
        except InvalidOperation:
            continue
    return out


def _date(y: int, m: int, d: int) -> str | None:
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _month(name: str) -> int:
    return _MONTHS[name.lower().rstrip(".")]


def extract_facts(text: str) -> list[Fact]:
    """All figures in `text`, most specific first (dates before IDs before amounts before numbers)."""
    facts: list[Fact] = []
    buf = list(text)

    def take(m: re.Match[str], kind: str, values: set[str]) -> None:
        if values:
            facts.append(Fact(kind, m.group(0).strip(), frozenset(values)))
        for i in range(m.start(), m.end()):
            buf[i] = " "

    def scan(rx: re.Pattern[str]) -> list[re.Match[str]]:
        return list(rx.finditer("".join(buf)))

    for m in scan(_RE_ISO):
        take(m, "date", {f"D:{v}" for v in [_date(int(m[1]), int(m[2]), int(m[3]))] if v})
    for m in scan(_RE_NUMDATE):
        a, b, y = int(m[1]), int(m[2]), int(m[3])
        take(m, "date", {f"D:{v}" for v in (_date(y, b, a), _date(y, a, b)) if v})
    for m in scan(_RE_MDY):
        take(m, "date", {f"D:{v}" for v in [_date(int(m[3]), _month(m[1]), int(m[2]))] if v})
    for m in scan(_RE_DMY):
        take(m, "date", {f"D:{v}" for v in [_date(int(m[3]), _month(m[2]), int(m[1]))] if v})
    for m in scan(_RE_MY):
        take(m, "month", {f"M:{int(m[2]):04d}-{_month(m[1]):02d}"})
    for m in scan(_RE_MD):
        if 1 <= int(m[2]) <= 31:
            take(m, "monthday", {f"MD:{_month(m[1]):02d}-{int(m[2]):02d}"})
    for m in scan(_RE_DM):
        if 1 <= int(m[1]) <= 31:
            take(m, "monthday", {f"MD:{_month(m[2]):02d}-{int(m[1]):02d}"})
    for m in scan(_RE_TIME):
        h, mi = int(m[1]), int(m[2])
        if m[3] and m[3].lower() == "p" and h < 12:
            h += 12
        if m[3] and m[3].lower() == "a" and h == 12:
            h = 0
        if h < 24 and mi < 60:
            take(m, "time", {f"T:{h:02d}:{mi:02d}"})
    for m in scan(_RE_ID):
        tok = m.group(0)
        if _RE_UNIT.match(tok) or not re.search(r"\d", tok):
            continue
        if re.fullmatch(_PREFIX_CUR + r"\d.*", tok, _I) and not re.search(
            r"[A-Za-z]\d.*[A-Za-z]", tok
        ):
            continue  # USD1200 is an amount, not an ID
        take(m, "id", {f"I:{id_key(tok)}"})
    for rx in (_RE_AMOUNT_PRE, _RE_AMOUNT_SUF):
        for m in scan(rx):
            cur = _CURRENCY_SYMBOLS.get(m["cur"].lower(), m["cur"].upper())
            take(m, "amount", {f"A:{cur}:{v}" for v in number_values(m["num"], m["mult"])})
    for m in scan(_RE_PERCENT):
        take(m, "percent", {f"P:{v}" for v in number_values(m["num"])})
    for m in scan(_RE_NUMBER):
        take(m, "number", {f"N:{v}" for v in number_values(m["num"], m["mult"])})
    return facts


def id_key(token: str) -> str:
    """IDs compare case- and separator-insensitively (SKU-4411 = sku_4411 = SKU 4411)."""
    return re.sub(r"[^0-9a-z]", "", token.lower())


@dataclass(frozen=True)
class SourceFacts:
    """Canonical values stated in a source, plus the looser readings a card may rely on."""

    exact: frozenset[str]
    loose: frozenset[str]  # values implied by exact ones: a date's year, month and day
    alnum: str  # the source lower-cased with separators removed, for ID look-ups


def source_facts(text: str) -> SourceFacts:
    """Index a source text once; check many cards against it."""
    exact: set[str] = set()
    loose: set[str] = set()
    for f in extract_facts(text):
        exact |= f.values
        for v in f.values:
            kind, _, rest = v.partition(":")
            if kind == "D":
                y, m, d = rest.split("-")
                loose |= {f"M:{y}-{m}", f"N:{int(y)}", f"MD:{m}-{d}"}
            elif kind == "M":
                loose.add(f"N:{int(rest.split('-')[0])}")
            elif kind == "A":
                loose.add("N:" + rest.split(":", 1)[1])
            elif kind == "P":
                loose.add("N:" + rest)
    for w in _RE_NUMWORD.finditer(text):
        loose.add(f"N:{_NUM_WORDS[w[1].lower()]}")
    return SourceFacts(frozenset(exact), frozenset(loose), id_key(text))


def supported(fact: Fact, src: SourceFacts) -> bool:
    """Does the source state this fact (in any format)?"""
    vals = fact.values
    if fact.kind in ("number", "month", "monthday"):
        return bool(vals & (src.exact | src.loose))
    if fact.kind == "amount":
        # Same currency and value, or the bare value where the source states no currency.
        bare = {"N:" + v.split(":", 2)[2] for v in vals}
        return bool(vals & src.exact) or bool(bare & src.exact)
    if fact.kind == "id":
        key = next(iter(vals))[2:]
        return f"I:{key}" in src.exact or (len(key) >= 5 and key in src.alnum)
    return bool(vals & src.exact)


def unsupported_facts(card_text: str, source: SourceFacts | str) -> tuple[list[Fact], int]:
    """(facts of the card that the source never states, how many facts the card has)."""
    src = source_facts(source) if isinstance(source, str) else source
    facts = extract_facts(card_text)
    return [f for f in facts if not supported(f, src)], len(facts)
