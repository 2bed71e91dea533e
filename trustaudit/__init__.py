"""trustaudit: score how far each web source deserves trust before an LLM reads it.

The supported Python API is what `__all__` lists (docs/python-api.md); every other module is
internal. Names load on first use (PEP 562), so `import trustaudit` stays fast and pulls in neither
Polars nor the scoring code until a function is called.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Extracted",
    "Policy",
    "PolicyError",
    "Run",
    "TrustAuditError",
    "__version__",
    "audit",
    "compute_signals",
    "extract_pages",
    "load_policy",
    "read_run",
    "score_pages",
]

_HOME = {
    "Extracted": "trustaudit.api",
    "Run": "trustaudit.api",
    "audit": "trustaudit.api",
    "compute_signals": "trustaudit.api",
    "extract_pages": "trustaudit.api",
    "load_policy": "trustaudit.api",
    "read_run": "trustaudit.api",
    "score_pages": "trustaudit.api",
    "Policy": "trustaudit.policy",
    "PolicyError": "trustaudit.policy",
    "TrustAuditError": "trustaudit.errors",
}

if TYPE_CHECKING:
    from trustaudit.api import (
        Extracted,
        Run,
        audit,
        compute_signals,
        extract_pages,
        load_policy,
        read_run,
        score_pages,
    )
    from trustaudit.errors import TrustAuditError
    from trustaudit.policy import Policy, PolicyError


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'trustaudit' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # later look-ups skip this hook
    return value


def __dir__() -> list[str]:
    """What a notebook's completion offers on `ta.`: the supported API, not the module's imports
    (`Any`, `import_module`) nor the subpackages loaded so far."""
    return sorted(__all__)
