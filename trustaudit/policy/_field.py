"""`opt(default, doc)`: a dataclass field that carries its documentation for `policy show`."""

from __future__ import annotations

import dataclasses
from typing import Any


def opt(default: Any, doc: str) -> Any:
    """A frozen-dataclass field with a default and a one-line doc shown by `trustaudit policy show`."""
    if isinstance(default, list | dict | set):
        raise TypeError("use a tuple (immutable) default")
    return dataclasses.field(default=default, metadata={"doc": doc})


def section(cls: type) -> Any:
    """A nested section field (default-constructed)."""
    return dataclasses.field(default_factory=cls)
