"""The one typed policy: defaults < trustaudit.toml < environment < flags, recorded in every run.

Sections live in one module per owner (scoring, injection, crawl, corpus, report, gate, citations) so
each family documents its own knobs; this module composes them and owns precedence.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trustaudit.policy._field import opt, range_of, section
from trustaudit.policy._load import PolicyError, build, merge, read_policy_text, to_plain
from trustaudit.policy.behaviour import BehaviourPolicy
from trustaudit.policy.citations import CitationsPolicy
from trustaudit.policy.corpus import (
    AnchorsPolicy,
    ClaimsPolicy,
    CoherencePolicy,
    EmbeddingPolicy,
    SyndicationPolicy,
)
from trustaudit.policy.crawl import CrawlPolicy
from trustaudit.policy.engine import EnginePolicy
from trustaudit.policy.eval import EvalPolicy
from trustaudit.policy.fusion import FusionPolicy
from trustaudit.policy.gate import GatePolicy
from trustaudit.policy.injection import InjectionPolicy
from trustaudit.policy.inputs import InputsPolicy
from trustaudit.policy.judge import JudgePolicy
from trustaudit.policy.report import ReportPolicy
from trustaudit.policy.scoring import (
    AffiliatePolicy,
    Bands,
    DomainPolicy,
    ExtractPolicy,
    ScoringPolicy,
    TextualPolicy,
    Weights,
)

__all__ = ["ENV_PREFIX", "Policy", "PolicyError", "load_policy", "policy_hash", "policy_toml"]

ENV_PREFIX = "TRUSTAUDIT_"
DEFAULT_FILE = "trustaudit.toml"


@dataclass(frozen=True)
class Policy:
    """Everything that decides a score, a band or a gate verdict."""

    profile: str = opt("default", "profile name recorded in the manifest ('strict' raises bands)")
    scoring: ScoringPolicy = section(ScoringPolicy)
    weights: Weights = section(Weights)
    bands: Bands = section(Bands)
    domain: DomainPolicy = section(DomainPolicy)
    affiliate: AffiliatePolicy = section(AffiliatePolicy)
    textual: TextualPolicy = section(TextualPolicy)
    extract: ExtractPolicy = section(ExtractPolicy)
    inputs: InputsPolicy = section(InputsPolicy)
    injection: InjectionPolicy = section(InjectionPolicy)
    embeddings: EmbeddingPolicy = section(EmbeddingPolicy)
    coherence: CoherencePolicy = section(CoherencePolicy)
    syndication: SyndicationPolicy = section(SyndicationPolicy)
    claims: ClaimsPolicy = section(ClaimsPolicy)
    anchors: AnchorsPolicy = section(AnchorsPolicy)
    crawl: CrawlPolicy = section(CrawlPolicy)
    report: ReportPolicy = section(ReportPolicy)
    gate: GatePolicy = section(GatePolicy)
    citations: CitationsPolicy = section(CitationsPolicy)
    fusion: FusionPolicy = section(FusionPolicy)
    engine: EnginePolicy = section(EnginePolicy)
    behaviour: BehaviourPolicy = section(BehaviourPolicy)
    judge: JudgePolicy = section(JudgePolicy)
    eval: EvalPolicy = section(EvalPolicy)

    def __post_init__(self) -> None:
        # cross-section rule: a capped page must land in quarantine by its number, not only its band
        if self.scoring.hard_rule_cap >= self.bands.quarantine_below:
            raise ValueError(
                f"scoring.hard_rule_cap ({self.scoring.hard_rule_cap}) must be below "
                f"bands.quarantine_below ({self.bands.quarantine_below})"
            )

    def with_overrides(self, data: Mapping[str, Any]) -> Policy:
        """Layer a nested mapping (e.g. from CLI flags) on top of this policy."""
        return merge(self, data)

    def to_dict(self) -> dict[str, Any]:
        return to_plain(self)


PROFILES: dict[str, dict[str, Any]] = {
    "default": {},
    # A strict profile for high-stakes KBs: only clearly trusted sources pass.
    "strict": {"bands": {"quarantine_below": 0.70, "trusted_from": 0.85}},
}


def _env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    """TRUSTAUDIT_BANDS__QUARANTINE_BELOW=0.5 -> {"bands": {"quarantine_below": "0.5"}}.

    Values are strings (or JSON lists for tuple fields); the typed loader coerces them.
    """
    out: dict[str, Any] = {}
    for key, value in environ.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        path = key[len(ENV_PREFIX) :].lower().split("__")
        parsed: Any = value
        if value.startswith("["):
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                raise PolicyError(f"{key}: not a JSON list: {value!r}") from None
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = parsed
    return out


def load_policy(
    path: str | Path | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    base: Policy | None = None,
) -> Policy:
    """Resolve the effective policy.

    `path` None means `./trustaudit.toml` when it exists. Relative list/CSV paths inside the file are
    resolved against the file's folder so a policy can travel with its lists. `base` (a run's
    recorded policy) replaces defaults and ./trustaudit.toml; environment and flags still apply.
    """
    environ = os.environ if environ is None else environ
    if base is not None and path is None:
        policy = base
        env = _env_overrides(environ)
        if env:
            policy = merge(policy, env, "environment")
        return merge(policy, overrides, "flags") if overrides else policy
    data: dict[str, Any] = {}
    base_dir: Path | None = None
    if path is None and Path(DEFAULT_FILE).is_file():
        path = DEFAULT_FILE
    if path is not None:
        p = Path(path)
        try:
            data = tomllib.loads(read_policy_text(p))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise PolicyError(f"policy file {p} is not valid TOML: {exc}") from None
        base_dir = p.resolve().parent
    profile = str(data.get("profile", (overrides or {}).get("profile", "default")))
    if profile not in PROFILES:
        raise PolicyError(f"unknown profile {profile!r} (known: {', '.join(PROFILES)})")
    policy = merge(Policy(), PROFILES[profile])
    if data:
        try:
            policy = merge(policy, data)
        except PolicyError as exc:
            raise PolicyError(f"{path}: {exc}") from None
        if base_dir is not None:
            policy = _resolve_paths(policy, base_dir)
    env = _env_overrides(environ)
    if env:
        policy = merge(policy, env, "environment")
    if overrides:
        policy = merge(policy, overrides, "flags")
    return policy


def _resolve_paths(policy: Policy, base: Path) -> Policy:
    def fix(p: str) -> str:
        return p if not p or Path(p).is_absolute() else str(base / p)

    d = policy.domain
    return dataclasses.replace(
        policy,
        domain=dataclasses.replace(
            d,
            allowlist_files=tuple(fix(p) for p in d.allowlist_files),
            blocklist_files=tuple(fix(p) for p in d.blocklist_files),
            domain_info_file=fix(d.domain_info_file),
        ),
        anchors=dataclasses.replace(
            policy.anchors, anchor_files=tuple(fix(p) for p in policy.anchors.anchor_files)
        ),
    )


def policy_hash(policy: Policy) -> str:
    """Stable short hash of the resolved policy (recorded in the manifest, keys caches)."""
    blob = json.dumps(policy.to_dict(), sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def _is_number(v: Any) -> bool:
    if isinstance(v, tuple) and v:
        v = v[0]
    return isinstance(v, int | float) and not isinstance(v, bool)


def policy_toml(policy: Policy) -> str:
    """The effective policy as a commented TOML document (what `trustaudit policy show` prints)."""
    lines: list[str] = []
    top = [
        f
        for f in dataclasses.fields(policy)
        if not dataclasses.is_dataclass(getattr(policy, f.name))
    ]
    for f in top:
        lines.append(f"# {f.metadata.get('doc', '')}")
        lines.append(f"{f.name} = {_toml_value(getattr(policy, f.name))}")
    for f in dataclasses.fields(policy):
        sec = getattr(policy, f.name)
        if not dataclasses.is_dataclass(sec):
            continue
        lines.append("")
        lines.append(f"[{f.name}]")
        for sf in dataclasses.fields(sec):
            doc = sf.metadata.get("doc")
            value = getattr(sec, sf.name)
            if doc and _is_number(value):
                doc = f"{doc} (valid: {range_of(f'{f.name}.{sf.name}', sf).text()})"
            if doc:
                lines.append(f"# {doc}")
            lines.append(f"{sf.name} = {_toml_value(to_plain(getattr(sec, sf.name)))}")
    return "\n".join(lines) + "\n"


def build_policy(data: Mapping[str, Any]) -> Policy:
    """Policy from a plain mapping (as stored in a manifest)."""
    return build(Policy, data)
