"""Payload families read from packages installed from a registry (issue 13, item 4: "payloads in
packages on the registries that ship them as data files").

``bastioncorpus`` (PyPI, MIT; pinned in pyproject's ``dev`` extra) ships one JSONL corpus of
prompt injections in five languages (en, de, fr, es, it), each row labelled ``malicious`` or
``benign`` (traps written to look like one). It is read where pip installed it, never copied into
this repository. Nobody here wrote it, so it is one more family to hold out (bench/injection_lofo.py)
and, in the other folds, training positives of the semantic head. Its benign traps are not used:
as training negatives they cost held-out InjecAgent recall (direct harm 0.30 -> 0.17: they are
requests a user makes of a support bot, "override the default shipping option", close to a tool
order).

Rows of its ``obfuscation`` category are left out: they are encodings (base64, ascii85, morse…)
whose wrapper sentence is all the head would read, and the obfuscation classes are measured by the
normalisation benches. Without the package installed the family is absent and the benches run as
before.
"""

from __future__ import annotations

import json
import random
from importlib import resources
from importlib.util import find_spec

BASTION = "bastioncorpus"
# The package's categories mapped to the intent classes (bench/injection_lofo.INTENTS).
_INTENT = {
    "direct_injection": "override",
    "instruction_override": "override",
    "delimiter_injection": "override",
    "jailbreak_persona": "persona",
    "exfiltration": "extraction",
    "indirect_injection": "tool",
}
# Its texts carry a ``{canary}`` slot its probe fills per run; we fill it the same way (seeded).
_SLOT = "{canary}"


def _bastion_rows() -> list[dict]:
    """The rows of bastioncorpus's corpus, in file order; [] when the package is missing."""
    if find_spec(BASTION) is None:
        return []
    ref = resources.files(BASTION).joinpath("corpus/injections.jsonl")
    return [json.loads(line) for line in ref.read_text(encoding="utf-8").splitlines() if line]


def _fill(text: str, rng: random.Random) -> str:
    token = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
    return text.replace(_SLOT, f"REF-{token}")


def registry_families(seed: int = 13) -> dict[str, list[tuple[str, str, str]]]:
    """name -> (text, language, intent class) of every payload of the registry families installed
    (today: ``bastioncorpus``, its malicious rows but the encoded ones), in file order, canary
    slots filled (seeded)."""
    rng = random.Random(seed)
    rows = [r for r in _bastion_rows() if r.get("label") == "malicious"]
    out = [
        (_fill(r["text"], rng), r.get("lang", "en"), _INTENT[r["category"]])
        for r in rows
        if r.get("category") in _INTENT
    ]
    return {BASTION: out} if out else {}
