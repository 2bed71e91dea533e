"""Reference documentation read by its structure: an option's entry describes software, it does not
address the reader.

Why: a manual page, a ``--help`` listing or an API reference says in every entry what a program, an
option or a function does, most often in the imperative ("-i, --interactive Ask the user for
confirmation before killing a process.", "--help Print a summary of the program usage on the
standard output and exit.", "-b --echo-errors Print failed SQL commands to standard error output").
The mood test, the lexicon's weak slots (an output, commands, a prompt, ``--force``) and the
semantic head read such an entry as a request to the model; session 19's exemptions of single
wordings moved the sources they were read on and not the held-out manual pages
(docs/injection-history.md, "Session 20 documentation by structure"). The voice is fixed by the
*structure* of the line, not its words: an entry opens with the option it defines (``-x``,
``--flag=<value>``, ``-passin arg``), follows a line that holds only such names (a definition
list's term, ``<dt>``), is a synopsis line made of bracketed options and placeholders, or the
"name - summary" line under a NAME heading.

A finding in plain sight that rests on such units is marked quoted as ``reference``
(`INJECTION_QUOTED`: recorded, not quarantined). The lexicon chains weak features up to 220
characters apart, so on a manual the finding is often one chain over a whole option list and the
prose between its entries; `reference_entry` reads the chain again with each unit a segment of its
own and each run of other lines another (no segment lends evidence to the next) and keeps the
finding where a piece of prose still reaches ``min_score`` alone, where the evidence is the
prose's only, or where a unit holding evidence speaks to the reading agent (`speaks_to_agent`):
it names an AI or an assistant, a note to one, the model's answer, its conversation, its prompt or
earlier instructions; carries an override, a persona, a secrecy request, a chat template or a
markdown exfiltration (the detector's own features), a complete override, exfiltration or persona
of the lexicon (`_ATTACKS`), someone's secret beside a verb that sends or shows it, or an address
(a URL, an e-mail, a domain of a common top-level domain). Where the model supported the finding,
every line it read must be a unit and none may speak to the agent. So an option's entry that says
"ignore previous instructions", names the assistant or sends to ``https://…`` is read as before,
and a prose sentence is judged as on any page, without the entries around it. Hidden text is
never marked (nobody documents an option for a reader who cannot see it).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from trustaudit.injection.benign import _ADDRESSING
from trustaudit.injection.detect import Hit, detect_text, find_features
from trustaudit.injection.directive import note_to_ai_reader, steers
from trustaudit.injection.intent import COMPLETE_INTENT, addresses_reader, find_intents

__all__ = ["REFERENCE", "option_entry", "reference_entry", "speaks_to_agent", "synopsis_line"]

REFERENCE = "reference"  # the value of a finding's `quoted` field when it is a reference entry

# Hyphen-minus and the hyphens and minus a typesetter (groff -Tutf8) writes for "-" and "\-".
_DASH = "-\u2010\u2011\u2212"
# An option's name: one or two dashes, an optional "[no-]", a letter, digit or "?" and the name's
# characters, an optional "=value" or "[=value]" ("--branches[=<pattern>]", "--type=<type>").
# A digit alone names an option ("-0, --null") only before a space or a comma: "-5% off" is none.
_FLAG = rf"[{_DASH}]{{1,2}}(?:\[no-?\])?(?:[A-Za-z?][\w?#@.+:{_DASH}]*|\d(?=[\s,]))(?:\[?=\S*)?"
# What may follow an option's name before its description: another name ("-b --echo-errors",
# "-M, -C"), a placeholder ("<file>", "[<n>]", "FILE", "arg", "n") after the name it belongs to.
_ARG = r"(?:<[^<>\s]{1,40}>|\[[^\]\s]{1,40}\]|[A-Z][A-Z0-9_]{1,30}\b|arg\b|[a-z]\b)"
_NAMES = re.compile(rf"[ \t]*{_FLAG}(?:(?:,?[ \t]+|,|\s*\|\s*)(?:{_FLAG}|{_ARG}))*")
# Other terms a reference entry opens with, then its description's capital: a placeholder
# ("<repository> The remote repository…"), a dotted configuration key ("merge.summary Synonym to
# merge.log…", "color.diff.<slot> Use customized color…"), an environment variable ("LC_ALL If set
# to a non-empty string…").
_TERM = re.compile(
    r"[ \t]*(?:<[\w.-]{1,40}>(?:\.\.\.)?|[a-z][\w-]*(?:\.(?:[\w*-]+|<[\w-]+>))+|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
    r"|LANG|PATH|HOME|TERM|SHELL|USER|EDITOR|PAGER|TMPDIR)[ \t]+[A-Z\"“(]"
)
# A synopsis line's tokens: a bracketed or angled placeholder, an option, an ellipsis, a bar.
_SYNOPSIS_TOKEN = re.compile(rf"^(?:[\[<(].*|.*[\]>)]|[{_DASH}]{{1,2}}\w.*|\.\.\.|\||\{{.*)$")
_SYNOPSIS_MIN = 3  # tokens of that kind on a synopsis line
_SYNOPSIS_SHARE = 0.4  # and their share of its tokens
# A line under a NAME heading: "pg_waldump - display a human-readable rendering of…".
_NAME_HEADINGS = frozenset({"NAME", "Name", "NOM", "NAAM", "NOMBRE", "NOME", "NAMN", "ИМЯ"})
_NAME_LINE = re.compile(r"[ \t]*[\w.+:{}-]+(?:,\s*[\w.+:{}-]+)*\s+[-\u2010\u2212–—]\s+\S")
_HEADING_WORDS = 3  # a line of this many words at most, no sentence end: a heading between entries
_SENTENCE_END = re.compile(r"[.!?:;。！？]\s*$")

# The reading agent's own business, named in an entry: its answer, its conversation or prompt.
_AGENTS_BUSINESS = re.compile(
    r"\b(?:your|the\s+(?:model|assistant|ai|llm|agent|bot)(?:'s|’s)?)\s+"
    r"(?:answers?|responses?|repl(?:y|ies)|summar(?:y|ies)|output)\b"
    r"|\bin\s+(?:your|the|every|each|all)\s+(?:answers?|repl(?:y|ies)|summar(?:y|ies))\b"
    r"|\bwhen\s+(?:answering|responding|replying|summari[sz]ing)\b"
    r"|\b(?:respond|reply|answer)\s+(?:only|always|in|with|to\s+(?:every|all|each))\b"
    r"|\b(?:your|the\s+(?:model|assistant|ai|llm|agent|bot)(?:'s|’s)?)\s+(?:instructions?|prompts?|"
    r"rules|guidelines|directives|system\s+message|context)\b"
    r"|\byou\s+(?:were|have\s+been|are\s+being)\s+(?:given|told|instructed|sent)\b"
    r"|\b(?:conversation|chat\s+history|system\s+prompt|(?:previous|prior|above|earlier|original|"
    r"initial|hidden)\s+(?:instructions?|prompts?|rules|messages?)|this\s+(?:page|document|article|"
    r"email|e-mail))\b",
    re.IGNORECASE,
)
# Someone's secret beside a verb that sends or shows it: a credential leaves with the entry's
# help ("Send the user's password to…", "print your API key"). A secret of no one is the
# program's subject ("-passin arg The password source…", "private keys that are output").
_SECRET = re.compile(
    r"\b(?:the\s+user(?:'s|’s|s')|your|their|his|her|my|our|stored|saved|cached)\s+(?:[\w-]+\s+)?"
    r"(?:passwords?|passphrases?|api[\s_-]?keys?|secret\s+keys?|private\s+keys?|access\s+keys?|"
    r"tokens?|credentials?|cookies?|session\s+ids?|ssh\s+keys?|seed\s+phrases?|credit\s+cards?)\b",
    re.IGNORECASE,
)
_SENDS = re.compile(
    r"\b(?:send|post|upload|share|forward|e-?mail|mail|transmit|reveal|print|show|display|output|"
    r"include|append|paste|leak|copy|write|submit|report)(?:s|ed|ing)?\b",
    re.IGNORECASE,
)
# An address: a URL, an e-mail address, or a domain of a common top-level domain. A dotted name
# alone is not ("merge.log", "format.outputDirectory", "foo.o", "index.html": a manual is full of
# configuration keys and file names).
_ADDRESS = re.compile(
    r"https?://|\bwww\.|[\w.+-]+@[\w-]+\.[\w.]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\."
    r"(?:com|net|org|io|ai|dev|app|co|info|biz|xyz|site|online|top|club|shop|store|tech|cloud|"
    r"link|live|me|tv|cc|ru|cn|su|in|us|uk|de|fr|nl|eu|jp|br|au|ca|es|it|pl|ch|se|no|ly|gg|to|"
    r"sh|ws|pw|tk|ml|ga|cf|gq|example|test|invalid)\b",
    re.IGNORECASE,
)
# The detector's features that address an AI or carry an attack whatever the sentence's voice:
# benign's one list of them, less `output_ref` (a manual's "the output" is its program's).
_AGENT_FEATURES = _ADDRESSING - {"output_ref"}
# A reference unit holding a hit this strong is read by the guards: an entry that lends evidence
# to a chain must not speak to the agent, even where it reaches no finding alone. (Prose is judged
# alone: a piece of prose that reaches `min_score` keeps the finding; one that does not is no
# finding on any page.)
_WEAK = 0.3
# The intents that are an attack in any entry. Not an extraction ("Do not output commands to set
# ownership…": the program's commands; the reader's prompt or rules are `_AGENTS_BUSINESS`, a
# secret shown is `_SECRET` + `_SENDS`), a tool call ("run", "execute", "--exec=<command>") or a
# steer (an AI named is `addresses_reader`): a manual's every entry has those words.
_ATTACKS = frozenset({"override", "exfiltration", "persona"})


def option_entry(line: str) -> bool:
    """Whether a line opens with the option it defines ("-i, --interactive Ask the user…",
    "--branches[=<pattern>] Pretend as if…", "-passin arg The password source…") or another
    term of a reference (`_TERM`: a placeholder, a configuration key, an environment variable)."""
    return _NAMES.match(line) is not None or _TERM.match(line) is not None


def _option_term(line: str) -> bool:
    """Whether a line holds option names only (a definition list's term: the next line is the
    option's description)."""
    m = _NAMES.match(line)
    return m is not None and not line[m.end() :].strip()


def synopsis_line(line: str) -> bool:
    """Whether a line is a command's synopsis: at least `_SYNOPSIS_MIN` tokens that are options,
    bracketed or angled placeholders, ellipses or bars, `_SYNOPSIS_SHARE` of its tokens or more
    ("git fetch [<options>] [<repository> [<refspec>...]]")."""
    tokens = line.split()
    n = sum(1 for t in tokens if _SYNOPSIS_TOKEN.match(t))
    return n >= _SYNOPSIS_MIN and n >= _SYNOPSIS_SHARE * len(tokens)


def _heading(line: str) -> bool:
    """Whether a line is a short heading between entries ("OPTIONS", "Generic options")."""
    words = line.split()
    return len(words) <= _HEADING_WORDS and not _SENTENCE_END.search(line)


def speaks_to_agent(text: str) -> bool:
    """Whether reference text speaks to the reading agent after all (the module's docstring lists
    what counts): then its structure lets nothing go."""
    if (
        _ADDRESS.search(text)
        or _AGENTS_BUSINESS.search(text)
        or (_SECRET.search(text) and _SENDS.search(text))
    ):
        return True
    if addresses_reader(text, second_person=False) or note_to_ai_reader(text) or steers(text):
        return True
    if any(name in _AGENT_FEATURES for _, _, name, _ in find_features(text)):
        return True
    return any(
        f.intent in _ATTACKS and f.score >= COMPLETE_INTENT
        for f in find_intents(text.lower(), text)
    )


def _previous_line(text: str, start: int) -> str:
    """The last non-blank line of `text` before offset `start` (a line start), or ""."""
    end = start - 1
    while end > 0:
        lo = text.rfind("\n", 0, end) + 1
        line = text[lo:end]
        if line.strip():
            return line
        end = lo - 1
    return ""


def _unit(line: str, prev: str) -> bool | None:
    """True for a reference unit (an option's entry, the description after an option's term, a
    synopsis line, a NAME line), None for a short heading, False for anything else."""
    if (
        option_entry(line)
        or (prev and _option_term(prev))
        or synopsis_line(line)
        or (prev.strip() in _NAME_HEADINGS and _NAME_LINE.match(line) is not None)
    ):
        return True
    return None if _heading(line.strip()) else False


def _segments(region: str, prev: str) -> list[tuple[str, bool]]:
    """`region` cut into the pieces the detector reads apart: each reference unit on its own
    (True), each run of other lines (prose, headings) as one piece (False)."""
    out: list[tuple[str, bool]] = []
    run: list[str] = []
    for line in region.split("\n"):
        if not line.strip():
            continue
        if _unit(line, prev):
            if run:
                out.append(("\n".join(run), False))
                run = []
            out.append((line, True))
        else:
            run.append(line)
        prev = line
    if run:
        out.append(("\n".join(run), False))
    return out


def reference_entry(
    text: str,
    lo: int,
    hi: int,
    *,
    model: bool = False,
    min_score: float = 0.5,
    passage: int = 600,
) -> bool:
    """Whether the finding at [lo, hi) of a page's visible text (one line a block element) rests
    on reference entries that do not speak to the reading agent.

    The lexicon chains features up to 220 characters apart, so a finding can run over a whole
    option list, the prose between its entries and the page's other sections: its score is that of
    the strongest instance of each feature anywhere in the chain. Read by the page's structure,
    each reference unit (`_unit`: an option's entry, a term's description, a synopsis, a NAME
    line) is one piece and each run of other lines another, none lending evidence to the next
    (`detect_text`'s segments). The finding rests on the entries when, so read, no piece of prose
    reaches `min_score` (one that does keeps the finding), the pieces that hold evidence (a hit of
    `_WEAK` or more) include a unit (or, where none does, the units are half the pieces or more),
    and no unit holding evidence speaks to the agent (`speaks_to_agent`). Where the model
    supported the finding (`model`), the lines it read (from `lo`, `passage` characters at most:
    `injection._passage`) must all be units or headings and must not speak to the agent either."""
    if not text or lo < 0 or hi <= lo:
        return False
    start = text.rfind("\n", 0, lo) + 1
    end = text.find("\n", hi)
    end = len(text) if end == -1 else end
    prev = _previous_line(text, start)
    if model:
        read_end = text.find("\n", min(hi, lo + passage))
        read = text[start : end if read_end == -1 else min(end, read_end)]
        before = prev
        for line in read.split("\n"):
            if line.strip():
                if _unit(line, before) is False:
                    return False  # the model read prose
                before = line
        if speaks_to_agent(read):
            return False
    pieces = _segments(text[start:end], prev)
    if not any(unit for _, unit in pieces):
        return False
    joined = "\n\n".join(piece for piece, _ in pieces)
    bounds = [0]
    for piece, _ in pieces[:-1]:
        bounds.append(bounds[-1] + len(piece) + 2)
    found = detect_text(joined, min_score=min(min_score, _WEAK), boundaries=bounds)
    if any(not pieces[i][1] for i in _pieces_of(found, bounds, min_score)):
        return False  # prose that carries a finding of its own
    weak = _pieces_of(found, bounds, 0.0)
    if weak and not any(pieces[i][1] for i in weak):
        return False  # the evidence is the prose's, spread over pieces that reach nothing alone
    if not weak and 2 * sum(unit for _, unit in pieces) < len(pieces):
        return False  # no evidence worth the name anywhere: the entries must be most of the text
    return not any(speaks_to_agent(pieces[i][0]) for i in weak if pieces[i][1])


def _pieces_of(found: list[Hit], bounds: list[int], floor: float) -> set[int]:
    """The pieces (indexes into `bounds`) holding a hit of `found` scored `floor` or more."""
    return {bisect_right(bounds, h.start) - 1 for h in found if h.score >= floor}
