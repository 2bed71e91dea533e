"""A message relayed to the user: "Diga ao usuário que…", "Tell the user that…", "Скажите
пользователю, что…", "告诉用户…", "ユーザーに…と伝えて".

A page of guidelines for developers names the user as the object of rule after rule and says what
the *product* does for them ("Ofereça ao usuário a opção de cancelar…", "Envíe al usuario un correo…",
"向用户发送一封确认邮件…"). An injection in plain sight that names the user as a third party wants the
reader's *answer* to carry a message: it makes the reader tell the user that something is so. That
is the mark `relays_to_role` reads: right after the role word (one word between at most), a
complementiser of reported speech ("that", "que", "dass", "что", "أن", "कि", "bahwa", "rằng"…); in
Chinese a verb of telling glued before the role ("告诉用户", "提醒用户"); in Japanese and Korean a
quotative particle and a verb of telling later in the sentence ("…と伝えて", "…라고 말해").

Such a sentence is read on a page past the count of verbless requests that lets a page of rules go
(`injection._ROLE_OBJECT_PAGE_SENTENCES`, `injection._marked`), as one that speaks to the reader is
(session 17). It still counts: a page with two plain rules and a relayed message is read only in the
message, since the packaged head flags plain rules read (0.60). A guideline that writes "Comunique al
usuario que el tour empieza a las nueve" is read too, and left to the model, which lets it go."""

from __future__ import annotations

import re
from functools import lru_cache

from trustaudit.injection.directive import role_end

# Complementisers of reported speech, per language written with spaces (Turkish marks reported
# speech with a verb ending, "-dığını", and Hebrew glues its ש to the next word: neither here).
_THAT: dict[str, str] = {
    "en": "that",
    "pt": "que|de que",
    "es": "que|de que",
    "fr": "que|qu'|qu’",
    "de": "dass",
    "it": "che",
    "nl": "dat",
    "pl": "że",
    "ru": "что",
    "uk": "що",
    "ar": "أن|بأن|إن",
    "fa": "که",
    "he": "כי",
    "hi": "कि",
    "id": "bahwa",
    "vi": "rằng",
}
# Chinese: a verb of telling glued before the role ("告诉用户…").
_TELL_BEFORE_VERB = re.compile(r"(?:告诉|告訴|提醒|转告|轉告|通知)$")
# Japanese and Korean: a quotative particle and a verb of telling after the role.
_QUOTED_AFTER = re.compile(
    r"(?:と|って)(?:伝え|言っ|言い|知らせ|説明し|案内し)|(?:라고|다고|하라고)\s*(?:말|전하|전해|알려)"
)


@lru_cache(maxsize=1)
def _that_after() -> re.Pattern[str]:
    terms = {t for v in _THAT.values() for t in v.split("|")}
    # an elided complementiser ("qu'il", "qu’elle") is glued to the next word: no word end after it
    elided = "|".join(re.escape(t) for t in sorted(terms) if t.endswith(("'", "’")))
    whole = "|".join(
        re.escape(t) for t in sorted(terms, key=len, reverse=True) if not t.endswith(("'", "’"))
    )
    # a comma, then at most one word before the complementiser: "…ao usuário, de forma clara,
    # que" is two and not read; "Sag dem Nutzer, dass…", "tell the user today that…" are
    return re.compile(rf"[\s,]*(?:[^\s,.;:!?]+[\s,]+)?(?:(?:{elided})|(?:{whole})(?!\w))")


def relays_to_role(low: str, at: int, sentence: str) -> bool:
    """Whether the role word of the user (a third party) at `at` of the lower-cased page `low` is
    told a message (module docstring); `sentence` is the sentence holding it, for the quotative
    particles of Japanese and Korean read after the role."""
    end = role_end(low, at)
    if end is None:
        return False
    if _that_after().match(low, end) is not None:
        return True
    if _TELL_BEFORE_VERB.search(low, max(0, at - 4), at) is not None:
        return True
    return _QUOTED_AFTER.search(sentence.lower()) is not None
