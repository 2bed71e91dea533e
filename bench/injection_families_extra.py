"""Payload families read from packages published on a registry (issue 13, item 4: "payloads in
packages on the registries that ship them as data files").

Nothing here is copied into this repository: each family is read from where the package lies, and
without it the family is simply absent and the benches run as before. Nobody here wrote these sets,
so each is one more family to hold out (bench/injection_lofo.py) and, unless `MEASURE_ONLY` names
it (the five later ones), training positives of the semantic head in the other folds. Only rows
that are injections are kept — an instruction planted for an AI reader (override, extraction,
persona, tool order, exfiltration) — never harmful-content requests ("how to make…"), which are not
injections, and never encodings (the normalisation benches measure those).

Light packages are pinned in pyproject's ``dev`` extra and read where pip installed them:

- ``bastioncorpus`` (MIT): one JSONL corpus in five languages, rows labelled ``malicious`` or
  ``benign`` (traps). Its benign traps are not used: as training negatives they cost held-out
  InjecAgent recall (direct harm 0.30 -> 0.17: requests a user makes of a support bot, close to a
  tool order); its ``obfuscation`` rows are encodings.
- ``aegisrt`` (MIT): ``datasets/jailbreak_templates.jsonl`` (overrides, persona, extraction),
  ``dan_variants.jsonl`` (persona) and ``multilingual_seeds.jsonl`` (overrides in a dozen
  languages). Its AdvBench / HarmBench subsets are harmful-content requests: left out.

Packages with heavy dependencies are not installed: ``make families`` downloads their pinned wheels
(``pip download --no-deps``, `WHEELS`) into `WHEEL_DIR`, and the wheel is read as a zip:

- ``pyrit`` (MIT): the jailbreak templates of ``pyrit/datasets/jailbreak/templates`` (the curated
  ones and ``Arth_Singh/``; the 488 ``in_the_wild/`` ones are left out, one source's crawl that
  would outweigh every other family), rendered with its ``{{ prompt }}`` slot empty (PyRIT puts the
  harmful question there); plus ``psfuzz_steal_system.prompt`` (system-prompt extraction) and
  the Skeleton Key text. Its ``garak/`` seeds are never read, nor its harm objectives (``airt/``,
  AdvBench).
- ``basilisk-ai`` (AGPL-3.0, read, not redistributed): ``basilisk/payloads/`` injection, extraction,
  guardrails (persona), toolabuse (tool orders) and multiturn_rag (planted in retrieved text); not
  its DoS, multimodal, multi-turn or training-data "exfiltration" rows, nor encoded ones.
- ``agentdojo`` (MIT): the injection tasks' goals (``GOAL``, class attributes of
  ``default_suites/*/*/injection_tasks.py``, read with `ast`, never imported), each wrapped in one of
  its fixed attack texts (``important_instructions``, ``injecagent``, ``ignore_previous``,
  ``system_message``, ``direct``), drawn seeded.
- ``spikee`` (Apache-2.0, WithSecure / Reversec's prompt-injection kit): the seed folders
  ``seeds-cybersec-2026-01`` and ``seeds-sysmsg-extraction-2025-04`` under
  ``spikee/data/workspace/datasets/``. spikee builds its attacks by putting an instruction into the
  ``<INSTRUCTION>`` slot of a jailbreak of the same language; here each jailbreak is filled once,
  with the folder's instructions of its language dealt in a seeded order (all 69 x 19 pairs would
  outweigh every other family). Not its other folders: investment advice and harmful instructions
  are requests, not injections; ``zzz_LEGACY`` repeats the cybersec set with encodings; the
  mailbox set repeats the jailbreaks; the in-the-wild, simsonsun, toxic-chat and wildguardmix
  folders are empty (filled from the Hugging Face hub, never read here).
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
import re
import zipfile
from collections.abc import Iterator
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# Where ``make families`` puts the pinned wheels of the heavy packages (``/.whl/`` is git-ignored).
WHEEL_DIR = ROOT / ".whl" / "families"
# name -> pinned version of the wheels read as zips (``make families`` downloads exactly these,
# through `download`), and the sha256 each must have: a wheel that differs is refused, not read.
WHEELS = {"pyrit": "1.1.0", "basilisk_ai": "2.0.2", "agentdojo": "0.1.35", "spikee": "0.9.2"}
WHEEL_SHA256 = {
    "pyrit": "84581036bace7ff2aa92712e1e3f472a3a3bccc77567d5fbe642540c0ba20b0a",
    "basilisk_ai": "6a7439f63a80532e9f4246a4125e271e5836443a0bb07b5a04fcf3004d4d6e9a",
    "agentdojo": "364bea4219716b716bf639f504d195943f7f6a5535d312ca41d7098704a2affd",
    "spikee": "60cec774a1138e62b68b4bed445285f5b5103818ffb68fab681f37b5e707802b",
}
# Families measured held out but never training rows of the head (bench/train_intent.training_data
# leaves them out). The four of the sixth round: as training positives they moved the mean held-out
# recall of the seven deciding folds by +0.003 against the same training matrices without them
# (0.650 -> 0.653; the rule asks +0.03) while the unseen test pages flagged per fold rose from
# <= 0.50 % to 0.75 % (docs/injection-history.md, "Sixth round"). spikee (session 16) is measured only
# from the start.
MEASURE_ONLY: tuple[str, ...] = ("aegisrt", "pyrit", "basilisk", "agentdojo", "spikee")
# Families added after the head was first trained with bastioncorpus: bench/train_intent.py draws
# their variants from a generator of their own, so their presence leaves every other training row
# as it was (a shared draw would change which negatives are upper-cased, and every fold with it).
OWN_DRAWS = ("aegisrt", "pyrit", "basilisk", "agentdojo", "spikee")

Row = tuple[str, str, str]  # text, language, intent class (bench/injection_lofo.INTENTS)

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
    return _jsonl(ref.read_text(encoding="utf-8"))


def _jsonl(text: str) -> list[dict]:
    """The records of a JSONL text, blank lines skipped."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _fill(text: str, rng: random.Random) -> str:
    token = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
    return text.replace(_SLOT, f"REF-{token}")


def _bastion(rng: random.Random) -> list[Row]:
    rows = [r for r in _bastion_rows() if r.get("label") == "malicious"]
    return [
        (_fill(r["text"], rng), r.get("lang", "en"), _INTENT[r["category"]])
        for r in rows
        if r.get("category") in _INTENT
    ]


# ------------------------------------------------------------------------------------------ aegisrt

AEGIS = "aegisrt"
_AEGIS_FILES = ("jailbreak_templates.jsonl", "dan_variants.jsonl", "multilingual_seeds.jsonl")
_AEGIS_INTENT = {
    "instruction_override": "override",
    "persona_hijack": "persona",
    "system_prompt_extraction": "extraction",
    "prompt_extraction": "extraction",
}
# A technique name says more than the category for the mixed ``system_integrity`` rows.
_AEGIS_TECHNIQUE = {"instruction_override": "override", "prompt_extraction": "extraction"}
# Rows built around a harmful request or an encoding ("write a story about how to [INSERT HARMFUL
# ACTION]", "[base64-encoded harmful request]"): the slot is the point, not an instruction to the
# reader.
_HARMFUL_SLOT = re.compile(r"\[[^\]]*(harmful|topic|base64)[^\]]*\]", re.I)


def aegisrt_rows(root: resources.abc.Traversable | Path | None = None) -> list[Row]:
    """aegisrt's injection rows (`_AEGIS_FILES` under ``datasets/``), in file order; [] when the
    package is missing. `root`: the package's folder (a test's fake one), else where pip put it."""
    if root is None:
        if find_spec(AEGIS) is None:
            return []
        root = resources.files(AEGIS)
    out: list[Row] = []
    for name in _AEGIS_FILES:
        ref = root.joinpath("datasets").joinpath(name)
        for r in _jsonl(ref.read_text(encoding="utf-8")):
            text = re.sub(r"\s*\[INSERT QUERY\]", "", r["prompt"]).strip()
            if _HARMFUL_SLOT.search(text):
                continue
            intent = _AEGIS_TECHNIQUE.get(r.get("technique", ""))
            intent = intent or _AEGIS_INTENT.get(r.get("category", ""), "persona")
            out.append((text, r.get("language", "en"), intent))
    return out


# ------------------------------------------------------------------------------------ wheels (zips)


def wheel_path(name: str, wheel_dir: Path = WHEEL_DIR) -> Path:
    return wheel_dir / f"{name}-{WHEELS[name]}-py3-none-any.whl"


def wheel(name: str, wheel_dir: Path = WHEEL_DIR) -> zipfile.ZipFile | None:
    """The pinned wheel `name` (`WHEELS`) that ``make families`` downloaded, or None when it is
    absent. A file whose sha256 is not `WHEEL_SHA256`'s raises: a tampered or re-published wheel
    would change the family silently."""
    path = wheel_path(name, wheel_dir)
    if not path.is_file():
        return None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256[name]:
        raise ValueError(f"{path.name}: sha256 {digest}, expected {WHEEL_SHA256[name]}")
    return zipfile.ZipFile(path)


def download(wheel_dir: Path = WHEEL_DIR) -> None:
    """``make families``: fetch the pinned wheels (no dependencies, nothing installed), pip
    checking each one's sha256 (`--require-hashes`, so a stale or altered file already there is
    refused too), then read back through `wheel`."""
    import subprocess
    import sys
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
        for name, version in WHEELS.items():
            req.write(f"{name.replace('_', '-')}=={version} --hash=sha256:{WHEEL_SHA256[name]}\n")
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:"]
    try:
        subprocess.run([*cmd, "--require-hashes", "-d", str(wheel_dir), "-r", req.name], check=True)
    finally:
        Path(req.name).unlink()
    for name in WHEELS:
        if wheel(name, wheel_dir) is None:
            raise SystemExit(f"{wheel_path(name, wheel_dir).name}: not downloaded")
        print(f"{name} {WHEELS[name]}: sha256 ok")


_OVERRIDE = re.compile(
    r"\b(ignore|disregard|forget|override|supersede|previous instructions|system prompt|"
    r"new instructions)\b",
    re.I,
)


def _override_or_persona(text: str) -> str:
    return "override" if _OVERRIDE.search(text[:400]) else "persona"


PYRIT_TEMPLATES = "pyrit/datasets/jailbreak/templates/"
# One source's crawl of 488 jailbreaks (TrustAIRLab): it would outweigh every other family.
_PYRIT_SKIP = ("in_the_wild/",)
_PYRIT_SEEDS = {
    "pyrit/datasets/seed_datasets/local/psfuzz_steal_system.prompt": "extraction",
    "pyrit/datasets/executors/skeleton_key/skeleton_key.prompt": "override",
}
# A template whose own text (its slot removed) is shorter is a wrapper around the harmful question
# ("{{ prompt }}. Start with 'Absolutely! Here's'"), not an instruction to the reader.
_MIN_TEMPLATE = 150


def _seed_values(doc: dict) -> Iterator[str]:
    for s in doc.get("seeds", []):
        if isinstance(s, dict) and isinstance(s.get("value"), str):
            yield s["value"]


def pyrit_rows(zf: zipfile.ZipFile) -> list[Row]:
    """PyRIT's jailbreak templates (slots empty) and its two injection seed files, by path."""
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    # The templates come from a downloaded wheel: rendered in Jinja's sandbox, so a template can
    # reach no Python object (its SecurityError is a TemplateError: the template is skipped).
    jinja = ImmutableSandboxedEnvironment(autoescape=False)  # text, not HTML
    out: list[Row] = []
    for path in sorted(zf.namelist()):
        if path.startswith(PYRIT_TEMPLATES) and path.endswith(".yaml"):
            if any(s in path for s in _PYRIT_SKIP):
                continue
            doc = yaml.safe_load(zf.read(path))
            value = doc.get("value") if isinstance(doc, dict) else None
            if not isinstance(value, str):
                continue
            try:  # rendered as PyRIT renders it, every parameter (the harmful question) empty
                text = jinja.from_string(value).render()
            except jinja2.TemplateError:
                continue
            text = re.sub(r"[ \t]+", " ", text).strip()
            if len(text) >= _MIN_TEMPLATE:
                out.append((text, "en", _override_or_persona(text)))
        elif path in _PYRIT_SEEDS:
            for value in _seed_values(yaml.safe_load(zf.read(path))):
                # psfuzz's seed is four numbered attempts joined by " |": each is a payload
                for part in re.split(r"\s*\|\s*(?=\d+\.\s)|^\d+\.\s", value.strip()):
                    part = re.sub(r"^\d+\.\s*", "", part).strip(" |\n")
                    if len(part) > 20:
                        out.append((part, _lang(part), _PYRIT_SEEDS[path]))
    return out


def _lang(text: str) -> str:
    """'zh' for a text mostly in CJK ideographs, else 'en' (the registry sets are English but for
    the few rows that say their language)."""
    cjk = sum("\u4e00" <= ch <= "\u9fff" for ch in text)
    return "zh" if cjk > len(text) / 4 else "en"


BASILISK_FILES = {
    "injection": "override",
    "extraction": "extraction",
    "guardrails": "persona",
    "toolabuse": "tool",
    "multiturn_rag": "override",
}
# Tags of the rows that are encodings or spacing tricks: the normalisation benches' business.
_BASILISK_ENCODED = {"obfuscation", "encoding", "tokenization"}


def basilisk_rows(zf: zipfile.ZipFile) -> list[Row]:
    """basilisk-ai's single-text payloads of `BASILISK_FILES`, in file order, encodings left out."""
    out: list[Row] = []
    for name, intent in BASILISK_FILES.items():
        rows = yaml.safe_load(zf.read(f"basilisk/payloads/{name}.yaml")) or []
        for r in rows:
            text = r.get("payload") if isinstance(r, dict) else None
            if isinstance(text, str) and not _BASILISK_ENCODED & set(r.get("tags") or ()):
                out.append((text.strip(), "en", intent))
    return out


AGENTDOJO_TASKS = re.compile(r"^agentdojo/default_suites/[^/]+/[^/]+/injection_tasks\.py$")
AGENTDOJO_ATTACKS = (
    "agentdojo/attacks/baseline_attacks.py",
    "agentdojo/attacks/important_instructions_attacks.py",
)
# Names its attacks fill in (agentdojo.attacks: ImportantInstructionsAttack, base_attacks.DEFAULT_*).
_AGENTDOJO_NAMES = {"user": "Emma Johnson", "model": "the AI language model"}
_SEND_AWAY = re.compile(r"\b(send|forward|e-?mail|post|share|upload)\b", re.I)
_ADDRESS = re.compile(r"@|https?://|www\.", re.I)


def _static(node: ast.expr, scope: dict[str, str]) -> str | None:
    """The value of a string literal or an f-string over names of `scope`; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name):
                if v.value.id not in scope:
                    return None
                parts.append(scope[v.value.id])
            else:
                return None
        return "".join(parts)
    return None


def agentdojo_goals(source: str) -> list[str]:
    """The ``GOAL`` of every class of an injection_tasks.py, read statically (class and module
    string constants filled into its f-string)."""
    tree = ast.parse(source)
    module: dict[str, str] = {}
    goals = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and (v := _static(node.value, module)) is not None:
                module[target.id] = v
        if not isinstance(node, ast.ClassDef):
            continue
        scope = dict(module)
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign | ast.Assign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                if len(targets) != 1 or not isinstance(targets[0], ast.Name) or stmt.value is None:
                    continue
                v = _static(stmt.value, scope)
                if v is not None:
                    scope[targets[0].id] = v
        if "GOAL" in scope:
            goals.append(scope["GOAL"])
    return goals


def agentdojo_attacks(source: str) -> list[str]:
    """The fixed attack texts of an attacks module: every string literal with a ``{goal}`` slot
    and no other slot than ``{user}`` / ``{model}`` (the tool-knowledge attack needs a task's
    ground truth: left out)."""
    tree = ast.parse(source)
    # docstrings quote the texts ("Attack which uses the attack string `…{goal}`"): not attacks
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    out = []
    for node in ast.walk(tree):
        if id(node) in docs:
            continue
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "{goal}" in node.value
        ):
            slots = set(re.findall(r"\{(\w+)\}", node.value))
            if slots <= {"goal", "user", "model"}:
                out.append(node.value)
    return out


def agentdojo_rows(zf: zipfile.ZipFile, rng: random.Random) -> list[Row]:
    """Each distinct injection goal of agentdojo's suites (every version, in path order) wrapped in
    one of its fixed attack texts (seeded), as a tool order, or a request to send data away when
    it names an address."""
    attacks: list[str] = []
    for path in AGENTDOJO_ATTACKS:
        attacks += agentdojo_attacks(zf.read(path).decode("utf-8"))
    goals: dict[str, None] = {}
    for path in sorted(p for p in zf.namelist() if AGENTDOJO_TASKS.match(p)):
        goals.update(dict.fromkeys(agentdojo_goals(zf.read(path).decode("utf-8"))))
    out: list[Row] = []
    for goal in goals:
        text = rng.choice(attacks).format(goal=goal, **_AGENTDOJO_NAMES).strip()
        intent = "exfiltration" if _SEND_AWAY.search(goal) and _ADDRESS.search(goal) else "tool"
        out.append((text, "en", intent))
    return out


SPIKEE_SEEDS = "spikee/data/workspace/datasets/"
SPIKEE_FOLDERS = ("seeds-cybersec-2026-01", "seeds-sysmsg-extraction-2025-04")
# Its instruction types as intent classes: a markdown image whose address carries data out; a
# script or a long repetition the answer must carry (the reader's output steered); its system
# message or the secret in it repeated.
SPIKEE_INTENT = {
    "data-exfil-markdown": "exfiltration",
    "xss": "steer_ai",
    "long-output": "steer_ai",
    "sysmsg-extract": "extraction",
}
_SPIKEE_SLOT = "<INSTRUCTION>"


def spikee_rows(zf: zipfile.ZipFile, rng: random.Random) -> list[Row]:
    """Each jailbreak of `SPIKEE_FOLDERS` (in file order) with its ``<INSTRUCTION>`` slot filled
    by one instruction of the same folder and language, as spikee pairs them: the instructions are
    dealt in a seeded order, again once all are dealt, so each is used about equally. Instructions
    of a type `SPIKEE_INTENT` does not name are left out; a missing language means English."""
    out: list[Row] = []
    for folder in SPIKEE_FOLDERS:
        base = f"{SPIKEE_SEEDS}{folder}/"
        pool: dict[str, list[dict]] = {}
        for r in _jsonl(zf.read(base + "instructions.jsonl").decode("utf-8")):
            if r.get("instruction_type") in SPIKEE_INTENT and isinstance(r.get("instruction"), str):
                pool.setdefault(r.get("lang", "en"), []).append(r)
        deck: dict[str, list[dict]] = {}
        for jb in _jsonl(zf.read(base + "jailbreaks.jsonl").decode("utf-8")):
            lang, text = jb.get("lang", "en"), jb.get("text")
            if not isinstance(text, str) or _SPIKEE_SLOT not in text or lang not in pool:
                continue
            if not deck.get(lang):
                deck[lang] = rng.sample(pool[lang], len(pool[lang]))
            r = deck[lang].pop()
            filled = text.replace(_SPIKEE_SLOT, r["instruction"].strip()).strip()
            out.append((filled, lang, SPIKEE_INTENT[r["instruction_type"]]))
    return out


def _from_wheel(name: str, wheel_dir: Path, rng: random.Random) -> list[Row]:
    zf = wheel(name, wheel_dir)
    if zf is None:
        return []
    with zf:
        if name == "pyrit":
            return pyrit_rows(zf)
        if name == "basilisk_ai":
            return basilisk_rows(zf)
        if name == "spikee":
            return spikee_rows(zf, rng)
        return agentdojo_rows(zf, rng)


# Family names as the benches print them (the wheel's distribution name -> family).
FAMILY = {"pyrit": "pyrit", "basilisk_ai": "basilisk", "agentdojo": "agentdojo", "spikee": "spikee"}


def registry_families(
    seed: int = 13, *, wheel_dir: Path = WHEEL_DIR
) -> dict[str, list[tuple[str, str, str]]]:
    """name -> (text, language, intent class) of every payload of the registry families present
    (installed: ``bastioncorpus``, ``aegisrt``; downloaded by ``make families`` into `wheel_dir`:
    ``pyrit``, ``basilisk``, ``agentdojo``, ``spikee``), each in file order, slots filled (seeded),
    duplicates within a family dropped. A family whose package is missing is absent."""
    rng = random.Random(seed)
    fams: dict[str, list[Row]] = {BASTION: _bastion(rng), AEGIS: aegisrt_rows()}
    for name in WHEELS:
        fams[FAMILY[name]] = _from_wheel(name, wheel_dir, random.Random(f"{seed}-{name}"))
    out = {}
    for name, rows in fams.items():
        seen: dict[str, Row] = {}
        for row in rows:
            seen.setdefault(row[0], row)
        if seen:
            out[name] = list(seen.values())
    return out


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--download"]:
        raise SystemExit("usage: python bench/injection_families_extra.py --download")
    download()
