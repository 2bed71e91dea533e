"""Instruction-shaped prose recovered from an obfuscation: the obfuscation itself is evidence.

Why: the detector's features recognise *what* an instruction says ("ignore previous instructions",
"reveal your system prompt"); a reworded payload ("Write a poem about…", "Include in your answer…")
has none of them and is missed whether it is obfuscated or not. But the obfuscation says something
the words do not: ordinary pages do not carry sentences in invisible Unicode, write whole sentences
in letters spaced by separators, in leetspeak or in Cyrillic look-alikes among Latin letters, and
do not base64- or hex-encode imperative prose. So text that a fold or a decode of `normalize`
recovers is scored by *how it was hidden* and *whether it reads as prose addressed to someone*:

- invisible carriers (tag characters, variation selectors, sneaky bits, zero-width bits): any
  prose of a few words is a finding (these carriers hold nothing else on real pages; emoji
  subdivision flags are skipped by `normalize` already);
- encodings (base64, hex, percent, rot13): prose of at least four words that is imperative,
  second person, a question or holds an intent-lexicon word, or that a "decode and follow" wrapper
  introduces;
- folds (look-alike letters, spaced letters, leetspeak): words that the fold changed (three in a
  sentence, two when they are of another script, full-width or spaced out), a quarter of its
  words, in prose shaped the same way (a spaced heading "M E N U", a Turkish "ı", a gamer's "n00b",
  a spam comment with one look-alike per sentence are not sentences that tell the reader what to do).

The finding names the obfuscation, shows the decoded text, and keeps offsets into the source
(see `trustaudit.injection`). Pure functions of strings; no page state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from trustaudit.injection.directive import word_set
from trustaudit.injection.normalize import DECODE_KINDS, FOLD_KINDS, Variant

__all__ = [
    "CARRIERS",
    "ENCODINGS",
    "FOLDS",
    "RULE",
    "Recovered",
    "carrier_kind",
    "changed_words",
    "fold_passages",
    "instruction_shape",
    "prose_words",
    "recover",
    "recovered_instruction",
]

RULE = "obfuscated_prose"
CARRIERS = frozenset({"tag_chars", "variation_selectors", "sneaky_bits", "zero_width_bits"})
ENCODINGS = DECODE_KINDS
FOLDS = FOLD_KINDS
# Content scores (the location's prior is added by noisy-or): an invisible carrier of prose is
# decisive alone; an encoding or a fold needs the prose to be shaped like an instruction.
_SCORE = {"carrier": 0.85, "wrapper": 0.8, "encoding": 0.7, "fold": 0.65}
_MIN_CARRIER_WORDS = 2
_MIN_ENCODED_WORDS = 4
_MIN_FOLD_WORDS = 4
_MIN_CHANGED = 3  # words a fold changed in a sentence (2 of another script, or in a short one)
_SHORT = 7
_GAP_WORDS = 12
_AROUND = 3
_LONGEST_WORD = 24
# Share of the passage's words a fold changed: an attacker hides a sentence, a spam comment swaps
# one letter here and there to slip past filters ("I usｅd to be suggested thiѕ web site").
_MIN_DENSITY = 0.25
_BLOCK = 300  # words: the script around a changed word is read this far each side
_MAX_CHANGED = 2000  # changed words looked at per text (a long Cyrillic page folds many)

_MARKUP = "<>{}[]=;\\#"
_JSONISH = ('":', '",')  # keys and items of JSON
_WHOLE_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_TOKEN = re.compile(r"\S+")
_LATIN_VOWELS = frozenset("aeiouyàáâãäåèéêëìíîïòóôõöùúûüýÿœæ")
_SENTENCE = re.compile(r"(?:^|[.!?:;\n>\]\)\"“]\s*|\s[-–—]\s)([^\W\d_][\w'’-]*)")


_LEADS = word_set(
    "please kindly now then also and just first finally always never immediately instead "
    "so but from next additionally"
)
# English verbs that open an instruction (BIPIA/InjecAgent-style tasks and the usual injection
# verbs). Other languages: the intent lexicon's verbs (`has_strong_slot`) and its second person.
_IMPERATIVE = word_set(
    """
    access act add adopt advise agree alert alter analyse analyze announce answer anagram append apply
    arrange ask assess assume attach augment avoid become begin behave believe bold book bring build
    buy calculate call cancel capitalize change check choose cite claim classify click close compare
    compose compute comply conclude confirm consider continue convert copy correct count craft create
    debug decline decode decrypt define delete deny deposit describe design detail determine develop
    disable disclose discuss dispatch display do don't download draft draw elaborate email embed
    emphasize emulate enable encode encourage encrypt end ensure enter enumerate erase estimate
    evaluate examine execute expand explain explore express fetch fill filter find finish fix follow
    forget format forward generate get give go grant group hide highlight identify ignore imagine
    imitate include incorporate indicate inform initiate inject insert install insult integrate
    introduce invest investigate invite invoke italicize join keep leak let link list locate lock log
    look make mark mention mimic modify move name navigate never notify obey offer omit open order
    organize outline output paraphrase paste pay pick plan play post praise predict prepare prepend
    present pretend print prioritize proceed produce promote propose provide publish purchase put
    quote rate rank read rearrange recommend redirect refer refuse reformat remember remind remove
    rename render reorder repeat rephrase replace reply report request research reserve reset
    respond restart retrieve retrive return reveal reverse review revoke reword rewrite rhyme role
    run save say schedule search select sell send set share shift shorten show sign simplify sing
    solve sort speak spell start state stop structure submit subscribe substitute suggest summarize
    summarise supply swap switch tabulate take talk tell thank transcribe transfer translate treat
    try turn tweet type underline unlock unsubscribe update upload use validate verify view visit
    warn withdraw write
    leave tease mess quit wait hurry
    break bring calculate chart clarify combine contrast convince criticize critique debate
    demonstrate detect discover divide draw estimate explore forecast guess illustrate interpret
    justify label match measure memorize narrate note observe persuade plot point prove rank reflect
    relate remember rephrase resolve restate revise rewrite schedule show simulate specify split
    study summarise support tag teach test trace track train transform troubleshoot tweak underline
    visualize weigh whisper yell
    """
)
# A sentence that asks the reader something: an interrogative or auxiliary first, "?" last.
_QUESTION = re.compile(
    r"(?:^|[.!?:;\n]\s*)(?:what|how|why|which|who|whom|whose|when|where|can|could|would|will|"
    r"should|is|are|do|does|did|have|has|may|might|shall)\b[^.!?\n]{6,300}\?"
    # without its "?": a wh-word and an auxiliary ("How do solar panels work")
    r"|(?:^|[.!?:;\n]\s*)(?:what|how|why|which|who|where|when)\s+(?:is|are|do|does|did|can|could|"
    r"should|would|will|was|were|has|have|to|much|many)\s+\w+\s+\w+"
)


@dataclass(frozen=True, slots=True)
class Recovered:
    """Recovered instruction-shaped prose: [start, end) in the decoded/folded text, content score,
    the evidence that made it (``carrier``, ``wrapper``, ``imperative``, ``second_person``,
    ``question``, ``intent_word``) and the number of words read."""

    start: int
    end: int
    score: float
    shape: str
    words: int


def carrier_kind(obfuscation: str) -> str:
    """``carrier``, ``encoding`` or ``fold`` for an obfuscation name (``homoglyph+spaced``,
    ``tag_chars+base64``…): the strongest kind among its parts; "" when none is known."""
    parts = set(obfuscation.split("+"))
    if parts & CARRIERS:
        return "carrier"
    if parts & ENCODINGS:
        return "encoding"
    if parts & FOLDS:
        return "fold"
    return ""


def prose_words(text: str, *, markup_per_100: float = 1.0) -> int:
    """Words of `text` when it reads as natural-language prose, else 0.

    Prose: hardly any markup characters (at most `markup_per_100` in 100 characters: not HTML,
    JSON, CSS or code); most whitespace-separated tokens are words of letters (punctuation at
    their edges aside) and hold most of the characters (not a hash, an id or a blob); words of
    Latin letters have vowels (not "xkcd qzt" noise from a wrong decode)."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        return 0
    markup = sum(text.count(c) for c in _MARKUP) + sum(text.count(q) for q in _JSONISH)
    if markup > max(2, len(text) * markup_per_100 / 100):  # HTML, JSON, CSS, code
        return 0
    words = [w for w in (_EDGE.sub("", t) for t in tokens) if _WHOLE_WORD.fullmatch(w)]
    letters = sum(len(w) for w in words if len(w) <= _LONGEST_WORD)
    chars = sum(len(t) for t in tokens)
    if not words or letters < 0.5 * chars or len(words) < 0.6 * len(tokens):
        return 0
    latin = [w for w in words if w.isascii()]
    voweled = sum(any(c in _LATIN_VOWELS for c in w.lower()) for w in latin)
    if latin and voweled < 0.75 * len(latin):
        return 0
    return len(words) if _has_function_words(text) else 0


# Short words every sentence of these languages uses (en de es fr pt it nl pl tr id vi): a run of
# ids or random tokens has none. Text mostly in other scripts is not asked for them.
_FUNCTION = word_set(
    """
    a an the to of in on at for and or but is are was be it this that with from by as not you your
    my me we our i he she they do if so no all does did have has can will would should what how
    why which who when where there their them his her its us about into than then also only up out
    more some any each every one near
    der die das und ist nicht ein eine zu den dem mit für auf ich du sie es wir
    el la los las y de que en un una por con para es no se lo al su tu
    le les et des du une est pas je vous il ce dans pour sur qui
    o os as e do da em um uma não que para com seu sua
    il lo gli di che è per non un una con del della
    het een en van de dat niet je is op te
    i w z na nie się to jest do że
    ve bir bu için ile da de ne
    dan yang di ke ini itu tidak
    và của là không có cho
    """
)
_MIN_FUNCTION = 1 / 10
_FUNCTION_FROM = 8  # tokens from which function words are asked for


def _has_function_words(text: str) -> bool:
    """Whether Latin-script `text` holds function words like prose does (one in ten tokens)."""
    tokens = [_EDGE.sub("", t).lower() for t in text.split()]
    latin = sum(t.isascii() for t in tokens)
    if len(tokens) < _FUNCTION_FROM or latin < len(tokens) / 2:
        return True  # a short order ("Suggest weekend getaways near…"), other scripts: not asked
    return sum(t in _FUNCTION for t in tokens) >= max(1.0, _MIN_FUNCTION * len(tokens))


@lru_cache(maxsize=1)
def _second_person() -> frozenset[str]:
    """Single-word second-person forms of the intent lexicon's ``you`` slot, all languages."""
    from trustaudit.injection.intent import lexicon

    out: set[str] = set()
    for terms in lexicon()["slots"].get("you", {}).values():
        for t in terms if isinstance(terms, list) else str(terms).split():
            t = t.rstrip("*").lower()
            if t and "_" not in t and " " not in t:
                out.add(t)
    return frozenset(out | {"you", "your", "yours", "yourself", "you're", "you'll"})


def _leet_verb(word: str) -> bool:
    """Whether `word` is an instruction verb once each i/l it holds may be the other (leetspeak's
    "1" is read as i or l: "3xp1@1n" folds to "expiain" or "explaln")."""
    spots = [k for k, c in enumerate(word) if c in "il"]
    if not spots or len(spots) > 4:
        return False
    chars = list(word)
    for mask in range(1, 1 << len(spots)):
        for bit, k in enumerate(spots):
            chars[k] = ("l" if word[k] == "i" else "i") if mask >> bit & 1 else word[k]
        if "".join(chars) in _IMPERATIVE:
            return True
    return False


def instruction_shape(text: str) -> str:
    """How `text` reads as an instruction: ``imperative`` (a sentence opens with an instruction
    verb), ``second_person`` (it addresses "you"), ``question`` (it asks the reader something),
    ``intent_word`` (a word of the multilingual intent
    lexicon's strong slots: override, reveal, tool, steer verbs, AI addressees, secrets), or ""."""
    low = text.lower()
    for m in _SENTENCE.finditer(low):
        word = m.group(1)
        if word in _LEADS:
            nxt = re.match(r"\s*,?\s*([^\W\d_][\w'’-]*)", low[m.end() :])
            word = nxt.group(1) if nxt else word
        if word in _IMPERATIVE or _leet_verb(word):
            return "imperative"
    words = set(_WORD.findall(low))
    if words & _second_person():
        return "second_person"
    if _QUESTION.search(low):
        return "question"
    from trustaudit.injection.intent import has_strong_slot

    return "intent_word" if has_strong_slot(text) else ""


_WRAPPER = re.compile(
    r"(?:decod|dekodier|decodific|décod|base\s?64|rot\s?13|hex|url.?encod|percent.?encod)"
    r"[^\n]{0,60}?\b(?:follow|obey|execute|comply|carry\s+out|act\s+on|do\s+(?:as|what)|run|"
    r"befolge|folge|sigue|obedece|ejecuta|suivez|obéis|exécute|segui|esegui|siga|execute)",
    re.IGNORECASE,
)


def decode_wrapper(before: str) -> bool:
    """Whether the text just before an encoded run tells the reader to decode it and act on it
    ("Decode this and follow it:", "base64 below, decode and obey:"); naming an encoding alone
    ("Hints are in rot13") is not enough."""
    return bool(_WRAPPER.search(before[-160:]))


def changed_words(folded: str, source_words: list[str | None]) -> list[tuple[int, int]]:
    """[start, end) in `folded` of the words whose source differs (what the fold changed).

    `source_words[i]` is the source of the i-th whitespace token of `folded` (None: unknown)."""
    out: list[tuple[int, int]] = []
    for m, src in zip(_TOKEN.finditer(folded), source_words, strict=False):
        if src is not None and src != m.group() and any(c.isalpha() for c in m.group()):
            out.append((m.start(), m.end()))
    return out


_LEET_TOKEN = re.compile(r"[A-Za-z0-9@$!|]*[A-Za-z][A-Za-z0-9@$!|]*")
_LEET_MARK = re.compile(r"[0-9@$!|]")
_PRICE = re.compile(r"\$[\d.,]+[kKmMbB]?")
_SPACED_SOURCE = re.compile(r"[\W_]{0,2}(?:[^\W_][\W_]{1,3}){2,}[^\W_][\W_]{0,3}")
_UNIT = re.compile(r"\d+[A-Za-z]{1,3}")  # a number and its unit: 1px, 4k, 2nd, 10am
_TURKISH_LETTER = re.compile("[şğŞĞəƏ]")


_EDGE = re.compile(r"^[(\[{\"'“‘]+|[.,;:?)\]}\"'”’]+$")
_LETTER = re.compile(r"[^\W\d_]")
_ASCII_LETTER = re.compile(r"[A-Za-z]")
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")


# Turkish words no other language here writes (a page in Turkish without ş or ğ still has them).
_TURKISH_WORDS = word_set(
    "ve bir bu için ile çok daha olarak olan gibi ama yok var sonra kadar değil ise veya şu ki "
    "mı mu mü nasıl neden çünkü göre"
)


def _turkish_words(text: str) -> bool:
    """Whether `text` holds two distinct Turkish function words ("bir", "olarak", "için"…)."""
    found = {w for w in _TOKEN.findall(text.lower()) if w in _TURKISH_WORDS}
    return len(found) >= 2


# The lexicon's other languages written in Latin letters: a word with a dotless ı is one of theirs
# in disguise when its i-fold is listed there ("ıgnore", "prevıous", "ınstruccıones").
_DISGUISED = ("en", "pt", "es", "fr", "de", "it", "nl", "pl", "id", "vi")


@lru_cache(maxsize=4096)
def _spelling(word: str) -> int:
    """How `word` (with a dotless ı or a dotted İ) is spelled: 1 in Turkish, -1 as another
    language's word with its i swapped, 0 unknown. Turkish when wordfreq lists it in Turkish at
    least as often as its i-fold in any of `_DISGUISED` ("akıllı", "ekranı"); a disguise when
    the fold is listed there more often ("thıs", "ıs": English 7.1 against Turkish 3.9,
    "ınstructıons", "sıstema"); unknown when neither list holds it ("faturalarınızı", a made-up
    word)."""
    from trustaudit.injection.cut_words import zipf

    low = word.replace("İ", "i").lower()
    turkish = zipf(low, "tr")
    fold = low.replace("ı", "i")
    other = max((z for lang in _DISGUISED if (z := zipf(fold, lang)) is not None), default=None)
    if turkish is not None and (other is None or turkish >= other):
        return 1
    return -1 if other is not None else 0


_LETTERS = re.compile(r"[^\W\d_]+")


def _spelled_turkish(text: str) -> bool:
    """Whether more of the distinct words of `text` written with ı or İ are spelled in Turkish
    than disguised (`_spelling`): a short Turkish text needs neither ş, ğ nor two function words
    to be Turkish ("Asistan artık faturalarınızı özetleyip…"), and an English sentence with one
    Turkish-looking word among its disguised ones ("…wıth the COVİD-19 vaccınatıon rates") stays
    English. Distinct and listed words only: a word repeated or made up casts no vote."""
    if "ı" not in text and "İ" not in text:
        return False
    words = {w for w in _LETTERS.findall(text) if "ı" in w or "İ" in w}
    votes = sum(map(_spelling, words))
    return votes > 0


@dataclass(frozen=True, slots=True)
class _Script:
    """What the text around a fold is written in (decides which changed words are evidence)."""

    turkish: bool  # ş, ğ, ə or Turkish words around: dotless ı is ordinary spelling
    cjk: bool  # CJK text writes Latin letters full-width
    latin: bool  # mostly ASCII letters: a word all of look-alikes stands out

    @classmethod
    def of(cls, text: str) -> _Script:
        letters = len(_LETTER.findall(text))
        ascii_letters = len(_ASCII_LETTER.findall(text))
        return cls(
            bool(_TURKISH_LETTER.search(text)) or _turkish_words(text) or _spelled_turkish(text),
            bool(_CJK.search(text)),
            ascii_letters >= 0.7 * letters,
        )


_LATIN = _Script(turkish=False, cjk=False, latin=True)


def _evidence(src: str, script: _Script) -> str:
    """What a word the fold changed (`src`, as in the source) is evidence of, "" if nothing: a
    look-alike from another script inside a Latin word or a word all of look-alikes in Latin text
    (``lookalike``), full-width letters outside CJK text (``fullwidth``), dotless ı outside
    Turkish/Azeri text (``dotless``), letters spaced by separators (``spaced``), or a word made of
    letters and leet digits/symbols only (``leet``; not an e-mail, a handle, a CSS unit, a price)."""
    core = _EDGE.sub("", src)
    if not core:
        return ""
    if not core.isascii():
        if "ı" in core or "İ" in core:  # English in Turkish letters, not a Turkish word
            ok = not script.turkish and core.replace("ı", "").replace("İ", "").isascii()
            return "dotless" if ok else ""
        if any("\uff01" <= c <= "\uff5e" for c in core):
            return "" if script.cjk else "fullwidth"
        mixed = any(c.isascii() and c.isalpha() for c in core)
        return "lookalike" if script.latin or mixed else ""
    if _SPACED_SOURCE.fullmatch(src.strip()):  # "i.g.n.o.r.e", "i g n o r e"
        return "spaced"
    leet = (
        _LEET_TOKEN.fullmatch(core)
        and _LEET_MARK.search(core)
        and core[0] not in "@#!|"
        and not _UNIT.fullmatch(core)
        and not _PRICE.fullmatch(core)
    )
    return "leet" if leet else ""


def _fold_region(folded: str, changed: list[tuple[int, int]]) -> tuple[int, int, int] | None:
    """The run of changed words with the most of them, consecutive ones at most `_GAP_WORDS`
    unchanged words apart (one sentence): (start, end, count); None without changed words."""
    best: tuple[int, int, int] | None = None
    index = {(m.start(), m.end()): i for i, m in enumerate(_TOKEN.finditer(folded))}
    run: list[tuple[int, int]] = []
    for span in changed:
        if run and index.get(span, 0) - index.get(run[-1], 0) > _GAP_WORDS + 1:
            run = []
        run.append(span)
        if best is None or len(run) > best[2]:
            best = (run[0][0], run[-1][1], len(run))
    return best


def _sentence_bounds(text: str, lo: int, hi: int) -> tuple[int, int]:
    """[lo, hi) widened to the sentences around it (at most 300 characters each side)."""
    a = max(text.rfind(c, max(0, lo - 300), lo) for c in ".!?\n")
    b_opts = [i for i in (text.find(c, hi, hi + 300) for c in ".!?\n") if i != -1]
    return (a + 1 if a != -1 else max(0, lo - 300)), (
        min(b_opts) + 1 if b_opts else min(len(text), hi + 300)
    )


_LETTER_ESCAPE = re.compile(r"%(?:4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa])")


def _letters_escaped(encoded: str, decoded: str) -> bool:
    """Whether most letters of a %-encoded run were escaped (an obfuscation, not a URL)."""
    letters = sum(c.isascii() and c.isalpha() for c in decoded)
    return len(_LETTER_ESCAPE.findall(encoded)) >= 0.5 * letters


def recovered_instruction(
    text: str,
    obfuscation: str,
    *,
    before: str = "",
    encoded: str = "",
    source_words: list[str | None] | None = None,
) -> Recovered | None:
    """Score `text`, recovered from the page by `obfuscation`, as an instruction hidden that way.

    `before`: the source text just before an encoded run (for a "decode and follow" wrapper);
    `encoded`: the run itself (%-escapes count only when they encode letters: a URL's query
    string escapes spaces and punctuation, never ASCII letters).
    `source_words`: for a fold, the source of each whitespace token of `text` (which words the fold
    changed); without it a fold is never evidence. Returns None when the recovered text is not
    instruction-shaped prose or the obfuscation is not evidence enough."""
    kind = carrier_kind(obfuscation)
    if not kind or not text.strip():
        return None
    if kind == "carrier":
        # Words are enough: an invisible carrier holds nothing readable on real pages (symbols
        # in the payload, or '"><' of the markup around plain tag punctuation, do not matter).
        n = len(_WORD.findall(text))
        letters = sum(c.isalpha() for c in text)
        if n < _MIN_CARRIER_WORDS or letters < 8:
            return None
        return Recovered(0, len(text), _SCORE["carrier"], "carrier", n)
    if kind == "encoding":
        n = prose_words(text)
        if n < _MIN_ENCODED_WORDS:
            return None
        if "percent" in obfuscation.split("+") and not _letters_escaped(encoded, text):
            return None
        if decode_wrapper(before):
            return Recovered(0, len(text), _SCORE["wrapper"], "wrapper", n)
        shape = instruction_shape(text)
        return Recovered(0, len(text), _SCORE["encoding"], shape, n) if shape else None
    if not source_words:
        return None
    changed = changed_words(text, source_words)
    tokens = list(_TOKEN.finditer(text))
    src_of = {(m.start(), m.end()): s for m, s in zip(tokens, source_words, strict=False)}
    sources = [src_of.get(c) or "" for c in changed]
    index = {(m.start(), m.end()): i for i, m in enumerate(tokens)}
    scripts: dict[int, _Script] = {}  # per block of words: what the source around is written in
    keep = []
    for c, src in zip(changed[:_MAX_CHANGED], sources, strict=False):
        block = index.get(c, 0) // _BLOCK
        if block not in scripts and not src.isascii():  # ASCII words need no script
            around = source_words[max(0, (block - 1) * _BLOCK) : (block + 2) * _BLOCK]
            scripts[block] = _Script.of(" ".join(x for x in around if x))
        kind = _evidence(src, scripts.get(block, _LATIN))
        if kind:
            keep.append((c, kind))
    if not keep:
        return None
    region = _fold_region(text, [c for c, _ in keep])
    if region is None:
        return None
    lo, hi, count = region
    # The words the fold changed are read as prose (the page around them may be anything); the
    # shape is read from the start of their sentence ("Reference: Ｓｕｇｇｅｓｔ…").
    core = text[lo:hi]
    # the changed words and up to three words either side (a short "t.o" was not changed)
    left = text[max(0, lo - 200) : lo].split()[-_AROUND:]
    right = text[hi : hi + 200].split()[:_AROUND]
    n = max(prose_words(core), prose_words(" ".join([*left, core, *right])))
    # Two words with letters of another script (or full-width, or spaced out) in one sentence are
    # already rare; two with dotless ı or two leet words ("e4x", "9to5") only in a short passage.
    kinds = {kind for _, kind in keep}
    strong = bool(kinds & {"lookalike", "fullwidth", "spaced"})
    need = _MIN_CHANGED - 1 if strong or (n <= _SHORT and kinds != {"leet"}) else _MIN_CHANGED
    if count < need or n < _MIN_FOLD_WORDS or count < _MIN_DENSITY * len(core.split()):
        return None
    s_lo, s_hi = _sentence_bounds(text, lo, hi)
    shape = instruction_shape(text[s_lo:s_hi])
    return Recovered(s_lo, s_hi, _SCORE["fold"], shape, n) if shape else None


_CHUNK = 256  # characters compared at once (C speed) when looking for what a fold changed
_MAX_DIFFS = 4000  # changed characters looked at per text
_WINDOW_GAP = 300  # changes further apart than this are read as separate passages
_MAX_WINDOWS = 8


def _changed_ranges(v: Variant, source: str) -> list[tuple[int, int]]:
    """[start, end) in `v.text` of what the fold changed: where source characters were dropped
    (separators between spaced letters), every span that is not a one-to-one copy, and the characters a one-to-one span changed (found chunk by chunk with `==`,
    so a long page with a few look-alikes costs a few comparisons, not a loop over its letters)."""
    out: list[tuple[int, int]] = []
    last = -1
    for a, b, sa, sb in v.pieces:
        if last != -1 and sa > last:  # source characters dropped here (spaced letters joined)
            out.append((max(0, a - 1), a + 1))
        last = sb
        if b - a != sb - sa:
            out.append((a, b))
            continue
        for c in range(a, b, _CHUNK):
            d = min(b, c + _CHUNK)
            if v.text[c:d] == source[sa + c - a : sa + d - a]:
                continue
            out.extend(
                (i, i + 1) for i in range(c, d) if v.text[i] != source[sa + i - a : sa + i - a + 1]
            )
            if len(out) >= _MAX_DIFFS:
                return out
    return out


def fold_passages(v: Variant, source: str) -> list[tuple[int, str, list[str | None]]]:
    """The passages of a fold worth reading: (start in `v.text`, the passage, the source of each of
    its whitespace tokens), one per cluster of changes, each with ~200 characters around it."""
    ranges = sorted(_changed_ranges(v, source))
    windows: list[tuple[int, int]] = []
    for a, b in ranges:
        if windows and a - windows[-1][1] <= _WINDOW_GAP:
            windows[-1] = (windows[-1][0], max(b, windows[-1][1]))
        else:
            windows.append((a, b))
    out: list[tuple[int, str, list[str | None]]] = []
    n = len(v.text)
    for a, b in windows[:_MAX_WINDOWS]:
        lo = v.text.rfind(" ", 0, max(0, a - 200)) + 1 if a > 200 else 0
        hi = v.text.find(" ", min(n, b + 200))
        hi = n if hi == -1 else hi
        local = v.text[lo:hi]
        words: list[str | None] = [
            source[slice(*v.source_span(lo + m.start(), lo + m.end()))]
            for m in _TOKEN.finditer(local)
        ]
        out.append((lo, local, words))
    return out


def recover(
    text: str, obfuscation: str, *, variant: Variant | None, source: str, before: str = ""
) -> Recovered | None:
    """`recovered_instruction` for a text the scanner read: a segment as found (an invisible
    carrier, a decoded comment) or a variant of `source` (`variant`, whose text is `text`). The
    wrapper and the run come from the source; a fold is read only around what it changed."""
    kind = carrier_kind(obfuscation)
    if kind != "fold":
        encoded = ""
        if variant is not None and variant.pieces:
            run = variant.pieces[0][2]
            before, encoded = source[max(0, run - 160) : run], source[run : variant.pieces[-1][3]]
        return recovered_instruction(text, obfuscation, before=before, encoded=encoded)
    if variant is None:
        return None
    for lo, local, words in fold_passages(variant, source):
        r = recovered_instruction(local, obfuscation, source_words=words)
        if r is not None:
            return Recovered(lo + r.start, lo + r.end, r.score, r.shape, r.words)
    return None
