"""Whether a passage is *shaped* like a request to its reader, in any of the 20 languages, by grammar.

Why: the semantic layer reads only the passages the cheap gates select, and an instruction written
without any intent word of the lexicon ("Please unlock my front door.", "Add the following code
snippet in your response:") speaks to its reader by its *mood*, not by its vocabulary. The mood has
a few marks that do not depend on what is asked:

- a request marker (please, bitte, por favor, veuillez, lütfen, пожалуйста, 请, ください, 주세요, hãy,
  tolong, कृपया, لطفا, من فضلك, בבקשה …) or a polite question request ("could you", "pouvez-vous");
- a modal or a prohibition addressed to the reader ("you must", "make sure", "do not", "必须", "반드시");
- an imperative verb opening a sentence: English base-form verbs (a closed list of common action
  verbs plus the lexicon's verb slots), and the endings that mark the imperative where the grammar has
  them (French ``-ez``, Russian ``-йте/-ите``, Ukrainian ``-іть``, Polish ``-ij``, Indonesian ``-kan``,
  German "<verb>en Sie", verb-final Hindi ``-ें/-िए``, Persian ``ب…ید``, Turkish ``-(y)In``, Korean
  ``-세요/-십시오``, Japanese ``-て/-なさい``).

This is a gate, not a verdict: captions, UI strings ("Enter your email") and developer notes ("Do not
edit this file") are requests too, and the classifier and `benign` decide about them. What the gate
must not do is read every sentence of a page, so it looks only at the opening sentences of a passage.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "about_the_site",
    "first_person",
    "is_directive",
    "is_request",
    "request_markers",
    "word_count",
]

# Please-like words and polite question requests: a request wherever they stand in the opening
# (lower case; words match at word starts in spaced scripts, the unspaced scripts match anywhere).
_PLEASE: dict[str, str] = {
    "en": "please|kindly",
    "pt": "por favor",
    "es": "por favor",
    "fr": "s'il vous plaît|s'il te plaît|svp|veuillez|merci de",
    "de": "bitte",
    "it": "per favore|per piacere|si prega",
    "nl": "alstublieft|alsjeblieft|gelieve",
    "pl": "proszę|prosimy",
    "tr": "lütfen",
    "ru": "пожалуйста",
    "uk": "будь ласка",
    "ar": "من فضلك|رجاء|يرجى|الرجاء",
    "fa": "لطفا|لطفاً",
    "he": "בבקשה|אנא",
    "hi": "कृपया",
    "zh": "请|請",
    "ja": "ください|下さい|なさい|してほしい",
    "ko": "주세요|하세요|십시오|해 줘|해줘",
    "id": "tolong|mohon|silakan|harap",
    "vi": "vui lòng|làm ơn|hãy",
}
# Polite question requests ("could you…"): a request too, but common in a site's own copy.
_ASKS: dict[str, str] = {
    "en": "could you|can you|would you|i want you|i need you|i'd like you",
    "pt": "poderia|você pode",
    "es": "podrías|puedes",
    "fr": "pouvez-vous|pourriez-vous|peux-tu",
    "de": "kannst du|können sie|könnten sie",
    "it": "potresti",
    "nl": "kun je|kunt u",
    "pl": "czy możesz",
    "tr": "yapabilir misin",
    "ru": "можешь ли|не могли бы вы",
}
# Modals and prohibitions addressed to the reader count where they open a sentence ("Do not…", "You
# must…"): inside one they are as often a headline's or a sermon's ("everything you need to know",
# "things you don't know", "…, jangan minta dalil").
_MODALS: dict[str, str] = {
    "en": "you must|you should|you need to|you have to|you are required|you will now|make sure|"
    "be sure to|ensure|do not|don't|never|always|remember to|let's|from now on",
    "pt": "você deve|voce deve|você precisa|certifique-se|não se esqueça|não|nunca|lembre-se",
    "es": "debes|usted debe|asegúrate|asegúrese|no olvides|no|nunca|recuerda",
    "fr": "vous devez|tu dois|assurez-vous|assure-toi|n'oubliez pas|ne jamais|ne pas",
    "de": "du musst|sie müssen|stelle sicher|stellen sie sicher|vergiss nicht|niemals|nicht",
    "it": "devi|deve|assicurati|assicuratevi|non dimenticare|ricorda|non",
    "nl": "je moet|u moet|zorg ervoor|zorg dat|vergeet niet|nooit|niet",
    "pl": "musisz|należy|upewnij się|nie zapomnij|pamiętaj|nie",
    "tr": "mutlaka|emin ol|unutma",
    "ru": "ты должен|вы должны|нужно|необходимо|убедитесь|убедись|не забудь|никогда|не",
    "uk": "ти повинен|ви повинні|потрібно|необхідно|переконайтеся|не забудь|ніколи|не",
    "ar": "يجب|عليك|تأكد|لا تنس|لا",
    "fa": "باید|مطمئن شو|فراموش نکن",
    "he": "עליך|חובה|ודא|הקפד|אל תשכח|אל",
    "hi": "आपको|सुनिश्चित करें|ज़रूर|जरूर",
    "zh": "務必|务必|必须|必須|一定要|不要|你需要|您需要|你应该|您应该",
    "ja": "必ず|しないで",
    "ko": "반드시|하지 마",
    "id": "anda harus|kamu harus|pastikan|jangan",
    "vi": "bạn phải|đừng|phải",
}
_UNSPACED_LANGS = frozenset({"zh", "ja", "ko", "ar", "fa", "he", "hi"})
# Common English action verbs, base form: a sentence that opens with one is an imperative (the -s
# and -ed forms that open headlines — "China cuts rates" — are not in it).
_EN_VERBS = (
    "access add allow append apply approve archive ask assign attach book buy call cancel change "
    "check clear click close collect combine compile complete confirm connect contact convert copy "
    "create delete deny deposit describe destroy disable dispatch display download drop edit email "
    "embed enable encode enter erase execute explain export extract fetch fill find fix follow "
    "forget format forward generate get give go grant guide help hide ignore import include "
    "incorporate inform initiate insert install invite invoke keep leave let list load lock log "
    "look make mark merge message modify move note notify open order output override paste pay "
    "place play post print provide publish purchase push put read record redirect refer "
    "register reinstall reject release remember remove rename render reply report request reset "
    "respond restart retrieve return reveal review run save say schedule search select sell send "
    "set share show sign skip sort start state stop store submit summarize summarise switch take "
    "tell transfer translate treat turn type unlock update upgrade upload use verify withdraw write"
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_LATIN_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*)[\"'“(*\-•]*\s*([^\W\d_][\w'-]*)")
# Imperative endings of the sentence's first word (verb-first languages) ...
_FIRST_WORD = re.compile(
    r"\w{3,}ez"  # fr: envoyez, ajoutez (vous)
    r"|\w{2,}(?:йте|ите|ьте)"  # ru: отправьте, покажите
    r"|\w{2,}(?:іть|їть)"  # uk: надішліть, покажіть
    r"|\w{3,}(?:ij|yj|cie)"  # pl: wyślij, podaj…, zignorujcie
    r"|\w{3,}kan(?:lah)?"  # id: kirimkan, berikan, abaikan
)
_NOT_IMPERATIVE = frozenset({"chez", "assez", "nez", "mij", "mnie", "akan", "bukan", "dan", "kan"})
# ... and of its last word (verb-final languages).
_LAST_WORD = re.compile(
    r"(?:\S+(?:ें|िए|िये|ो))"  # hi: भेजें, कीजिए, करो
    r"|(?:ب\S+ید|ن\S+ید)"  # fa: بفرستید, ننویسید
    r"|(?:\w*[çğıöşü]\w*(?:in|ın|un|ün)(?:iz|ız|uz|üz)?|\w+(?:yin|yın|iniz|ınız))"  # tr
    r"|(?:\S*(?:세요|십시오|시오|해라|하라|해줘|해 줘))"  # ko
    r"|(?:\S*(?:て|なさい|ろ|せよ))"  # ja
)
# A sentence that opens with a word and goes on with an article or a possessive ("Enhance your
# response", "Envía el archivo", "Stuur de gegevens") opens with a verb in the imperative, unless
# that word is a function word (how, why, all, with …) or a verb form that is not one (-s, -ed, -ing).
_DETERMINERS = _words(
    "the a an this these that those your my all every each any his her its our their "
    "el la los las un una tu tus mi mis su sus este esta estos estas todo todos todas "
    "o os as um uma seu sua seus suas meu minha teu tua esse essa "
    "il lo gli le uno tuo tua tuoi tue mio mia questo questa "
    "les une ton ta tes mon ma mes ce cette ces "
    "der die das den dem ein eine einen deine deinen dein meine meinen mein alle "
    "de het een je jouw uw mijn deze"
)
_FUNCTION_WORDS = _words(
    "how why what when where who which whose while if as at by for from in into of on onto to "
    "with without about above after against along among around before behind below beneath "
    "beside between beyond but and or nor so yet than then there here inside outside under "
    "over through toward towards upon within all both half most some many much more less "
    "meet is are was were be been being has have had do does did can could will would shall "
    "should may might must also just only even still not no yes this that these those it he she "
    "we they i you one two three first last next new best top "
    "cómo como por qué que cuando donde quién con sin para sobre entre tras desde hasta según "
    "y e ni pero más menos muy también ya es son fue está están hay "
    "com sem para sobre entre até pelo pela pelos pelas e mas mais muito também já é são foi está "
    "come perché quando dove chi con senza per su tra fra da fino e ma più meno molto anche già "
    "è sono era "
    "comment pourquoi quand où qui avec sans pour sur entre dans chez depuis jusqu et mais plus "
    "moins très aussi déjà est sont était voici voilà "
    "wie warum was wann wo wer mit ohne für auf unter über zwischen nach vor seit bis und aber "
    "mehr weniger sehr auch schon ist sind war hier "
    "hoe waarom wat wanneer waar wie met zonder voor op onder over tussen na sinds tot en maar "
    "meer minder zeer ook al is zijn was hier"
)
_DE_VERB_SIE = re.compile(r"(?:^|[.!?:]\s+)[A-ZÄÖÜ][a-zäöüß]+en\s+Sie\b")
_OPENING = 260  # characters of the passage whose mood is read


@lru_cache(maxsize=1)
def _verbs() -> frozenset[str]:
    """English base-form verbs: the common list plus the lexicon's English verb-slot words."""
    from trustaudit.injection.intent import lexicon

    words = set(_EN_VERBS.split())
    slots = lexicon()["slots"]
    for slot in ("override_v", "reveal_v", "exfil_v", "tool_v", "steer_v"):
        for term in slots.get(slot, {}).get("en", "").split():
            if "_" not in term and not term.endswith("*"):
                words.add(term)
    return frozenset(words)


def _alternatives(*tables: dict[str, str], spaced: bool) -> str:
    """One regex alternation of the terms of `tables` for the spaced (or the unspaced) languages."""
    terms = {
        t.strip()
        for table in tables
        for lang, terms in table.items()
        if (lang not in _UNSPACED_LANGS) == spaced
        for t in terms.split("|")
    }
    return "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))


@lru_cache(maxsize=1)
def _markers() -> re.Pattern[str]:
    """Please-like words anywhere, modals where a sentence opens (lower-cased text)."""
    spaced = _alternatives(_PLEASE, _ASKS, spaced=True)
    unspaced = _alternatives(_PLEASE, spaced=False)
    m_spaced = _alternatives(_MODALS, spaced=True)
    m_unspaced = _alternatives(_MODALS, spaced=False)
    start = r"(?:^|[.!?:;。！？]\s*|\n\s*)[\"'“«(*\-•…\s]*"
    return re.compile(
        rf"(?<![\w'])(?:{spaced})(?![\w'])|{unspaced}"
        rf"|{start}(?:(?:{m_spaced})(?![\w'])|{m_unspaced})"
    )


def request_markers() -> list[str]:
    """The please-like words of every language (lower case) that are distinctive enough to open a
    script for reading (`html_scan`): five letters or more, or two characters of a script without
    spaces; shorter ones ("svp", "hãy", "请") would open every script."""
    out = set()
    for lang, terms in _PLEASE.items():
        for t in terms.split("|"):
            t = t.strip()
            if len(t) >= 5 or (len(t) >= 2 and lang in _UNSPACED_LANGS):
                out.add(t)
    return sorted(out)


_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")


def _verb_then_article(head: str, end: int, word: str) -> bool:
    """Whether `word` (a sentence's first word, ending at `end`) is followed by an article or a
    possessive and is shaped like a verb in the imperative (see `_DETERMINERS`)."""
    if len(word) < 3 or word in _FUNCTION_WORDS or word.endswith(("ed", "ing", "ly")):
        return False
    if word.endswith("s") and not word.endswith(("ss", "us")):
        return False  # "Cuts the…", "Photos the…": a third person or a plural, not an imperative
    nxt = _NEXT_WORD.match(head, end)
    return nxt is not None and nxt.group(1).lower() in _DETERMINERS


# The intent lexicon's action-verb slots: imperative forms or stems in every language it covers.
_VERB_SLOTS = ("override_v", "reveal_v", "exfil_v", "tool_v")
_START = r"(?:^|[.!?:;。！？]\s*|\n\s*)[\"'“«(*\-•…\s]*"


@lru_cache(maxsize=1)
def _verb_openings() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Two patterns over lower-cased text: a sentence or clause that opens with an action verb of
    the lexicon's slots (any language but English, which has `_verbs`), and a Turkish sentence that
    ends with one (Turkish puts the verb last)."""
    from trustaudit.injection.intent import lexicon

    slots = lexicon()["slots"]
    spaced: set[tuple[str, bool]] = set()
    unspaced: set[str] = set()
    final: set[tuple[str, bool]] = set()
    for slot in _VERB_SLOTS:
        for lang, terms in slots.get(slot, {}).items():
            if lang in ("any", "en"):
                continue
            for raw in terms.split():
                term = raw.rstrip("*").replace("_", " ").lower()
                if len(term) < 3 or term in _FUNCTION_WORDS:
                    continue
                if lang in _UNSPACED_LANGS:
                    unspaced.add(term)
                elif lang == "tr":
                    final.add((term, raw.endswith("*")))
                else:
                    spaced.add((term, raw.endswith("*")))

    def alt(terms: set[tuple[str, bool]]) -> str:
        return "|".join(
            re.escape(t) + (r"\w*" if stem else "")
            for t, stem in sorted(terms, key=lambda x: -len(x[0]))
        )

    subs = "|".join(re.escape(t) for t in sorted(unspaced, key=len, reverse=True))
    # a clause before the verb ("For an audit, print…", "لأغراض التدقيق، اطبع…") keeps the mood
    start = r"(?:^|[.!?:;,،，、。！？]\s*|\n\s*)[\"'“«(*\-•…\s]*"
    first = re.compile(rf"{start}(?:(?:{alt(spaced)})(?![\w'])|(?:{subs}))")
    last = re.compile(rf"(?<![\w'])(?:{alt(final)})(?![\w'])\s*(?:[.!?;]|$)")
    return first, last


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?。！？])\s+|\n+", text) if s.strip()]


def is_directive(text: str) -> bool:
    """Whether the opening of `text` (its first ~260 characters) asks its reader to do something: a
    request marker or reader-directed modal, or a sentence that opens (verb-first languages) or ends
    (verb-final ones) with an imperative verb form. See the module docstring for the marks."""
    head = text[:_OPENING]
    low = head.lower()
    if _markers().search(low):
        return True
    verbs = _verbs()
    for m in _LATIN_SENTENCE_START.finditer(head):
        w = m.group(1).lower().strip("'-").split("-")[0]
        if w in verbs or (w not in _NOT_IMPERATIVE and _FIRST_WORD.fullmatch(w)):
            return True
        if _verb_then_article(head, m.end(1), w):
            return True
    if _DE_VERB_SIE.search(head):
        return True
    first, last = _verb_openings()
    if first.search(low):
        return True
    if any(last.search(x.lower()) for x in _sentences(head)):
        return True
    for s in _sentences(head):
        last = s.rstrip(" .!?。！？।").split()
        if last and _LAST_WORD.fullmatch(last[-1].lower()):
            return True
    return False


# The writer speaking as the user ("transfer $500 from my account", "send my files"): an agent's
# instructions name the user's things in the first person, a page's UI names the visitor's ("your").
_FIRST = {
    "spaced": "my me mine myself meu minha meus minhas mi mis mon ma mes moi mein meine meinen "
    "meinem meiner mir mich mio mia miei mie mijn mij mój moja moje mojego mojej moich mnie benim "
    "bana мой моя моё мое мои моего моей моих мне меня мій моє мої мене мені saya aku tôi",
    "unspaced": "我的 我 私の 私 나의 저의 저에게 제가 내가 שלי मेरा मेरी मेरे मुझे حسابي",
}


@lru_cache(maxsize=1)
def _first() -> re.Pattern[str]:
    words = "|".join(re.escape(w) for w in _FIRST["spaced"].split())
    subs = "|".join(re.escape(w) for w in _FIRST["unspaced"].split())
    return re.compile(rf"(?<![\w'])(?:{words})(?![\w'])|{subs}")


def first_person(text: str) -> bool:
    """Whether the opening of `text` speaks in the first person (my, mein, мой, 我的, मेरा …)."""
    return bool(_first().search(text[:_OPENING].lower()))


_LETTERS = re.compile(r"[^\W\d_]{2,}")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")


def word_count(text: str) -> int:
    """Words of letters in `text`; two characters count as a word in scripts without spaces."""
    n = len(_LETTERS.findall(_UNSPACED.sub(" ", text)))
    return n + len(_UNSPACED.findall(text)) // 2


def is_request(text: str, *, min_words: int, reader: bool) -> bool:
    """Whether `text` reads as a request to do something with the reader's output or the user's
    things: directive mood (`is_directive`), at least `min_words` words, and addressed to the reader
    (`reader`: the caller's second-person / AI-addressee test, `intent.addresses_reader`), written
    as the user (`first_person`) or naming where to send (an e-mail address, a URL with a query).
    Short UI strings ("Enter your email") fail on length."""
    if word_count(text) < min_words or not is_directive(text):
        return False
    return reader or first_person(text) or _TARGET.search(text[:_OPENING]) is not None


# A site's own interface: what a page asks its visitor to do with the page ("enable JavaScript in your
# browser", "click here to subscribe", "you must be signed in to comment"). An agent's instructions
# name the user's data, accounts and output instead.
_SITE_UI = re.compile(
    r"\b(?:browser|javascript|js|cookies?|click(?:ing)?|tap|sign(?:ed)?[\s-]+(?:in|up)|log(?:ged)?[\s-]+in|"
    r"subscri(?:be|ption)|newsletter|search(?:\s+box)?|comments?|this\s+(?:page|site|website|form|field|box)|"
    r"button|plugin|flash|app\s+store|notifications?|reload|refresh|try\s+again|error|captcha|spam|"
    r"scroll|menu|tab|popup|pop-up|ad\s*blocker|adblock\w*|follow\s+us|share\s+on|"
    r"(?:please\s+)?wait|enter\s+your|password|username|spammer|robot|contact\s+(?:us|the\s+site|"
    r"site\s+admin\w*|the\s+administrator)|administrators?|your\s+(?:url|inbox|request)|"
    r"warte\w*|versuche|anfrage|maschine|passwort|"
    r"navigateur|cliquez|abonne\w*|connexion|connectez|recherche|"
    r"browsers?|anmelden|angemeldet|abonnier\w*|klicken?|suche|kommentar\w*|feld|schaltfläche|"
    r"navegador|haga\s+clic|haz\s+clic|clique|suscr\w+|inscreva|iniciar\s+sesión|buscar|pesquis\w+|"
    r"clicca|accedi|cerca|iscriviti|zoek\w*|inloggen|aanmelden|przeglądar\w+|zaloguj\w*|"
    r"браузер\w*|войдите|подпиш\w+)\b",
    re.IGNORECASE,
)
# Where an agent is asked to send something: an e-mail address, a URL with a query to fill in.
_TARGET = re.compile(r"\S+@\S+\.\w+|https?://[^\s?]+\?\S*=")


def about_the_site(text: str) -> bool:
    """Whether a request is about the page's own interface (browser, JavaScript, cookies, clicks,
    sign-in, subscriptions, search, comments, buttons …), naming no address to send to and not
    written as the user: a site's message to its visitor, not an instruction to an agent."""
    head = text[:_OPENING]
    if _TARGET.search(head) or first_person(head):
        return False
    return _SITE_UI.search(head) is not None
