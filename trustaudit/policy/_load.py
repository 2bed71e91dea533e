"""Generic, strict TOML/env -> frozen dataclass loading.

One place for precedence (defaults < file < environment < flags) so every section behaves the same.
Unknown keys and wrong types are errors that name the key: a typo in a gate rule must not silently
relax the gate.
"""

from __future__ import annotations

import dataclasses
import os
import stat
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from trustaudit.policy._field import range_of

T = TypeVar("T")


class PolicyError(ValueError):
    """A policy file, environment variable or flag does not fit the policy schema."""


MAX_POLICY_BYTES = 1 << 20  # a policy is a few KB; `--policy /dev/zero` must not eat memory


def read_policy_text(path: Path) -> str:
    """The text of a policy file, refused up front when it is not a regular file (a FIFO would
    hang, a device never ends) and read with a size cap."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PolicyError(f"policy file not found: {path}") from None
    except OSError as exc:
        raise PolicyError(f"cannot read policy file {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (FIFO, device?)"
        raise PolicyError(f"policy file {path} is {kind}")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_POLICY_BYTES + 1)
    except OSError as exc:
        raise PolicyError(f"cannot read policy file {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_POLICY_BYTES:
        raise PolicyError(f"policy file {path} is larger than {MAX_POLICY_BYTES} bytes")
    return data.decode("utf-8-sig")  # a BOM (Windows editors) is not a TOML statement


def _coerce(value: Any, tp: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(value, arg, where)
            except PolicyError as exc:
                errors.append(str(exc))
        raise PolicyError(errors[0] if errors else f"{where}: invalid value {value!r}")
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, Mapping):
            raise PolicyError(f"{where}: expected a table, got {type(value).__name__}")
        return build(tp, value, where)  # type: ignore[arg-type]
    if origin in (tuple,):
        if not isinstance(value, list | tuple):
            raise PolicyError(f"{where}: expected a list, got {type(value).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_coerce(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise PolicyError(f"{where}: expected {len(args)} items, got {len(value)}")
        return tuple(
            _coerce(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args, strict=True))
        )
    if origin in (dict, Mapping) or tp is dict:
        if not isinstance(value, Mapping):
            raise PolicyError(f"{where}: expected a table, got {type(value).__name__}")
        vt = args[1] if len(args) == 2 else Any
        return {str(k): _coerce(v, vt, f"{where}.{k}") for k, v in value.items()}
    if tp is Any:
        return value
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in {
            "true",
            "1",
            "yes",
            "on",
            "false",
            "0",
            "no",
            "off",
        }:
            return value.lower() in {"true", "1", "yes", "on"}
        raise PolicyError(f"{where}: expected true/false, got {value!r}")
    if tp is float:
        if isinstance(value, bool):
            raise PolicyError(f"{where}: expected a number, got {value!r}")
        try:
            return float(value)
        except (TypeError, ValueError):
            raise PolicyError(f"{where}: expected a number, got {value!r}") from None
    if tp is int:
        if isinstance(value, bool):
            raise PolicyError(f"{where}: expected an integer, got {value!r}")
        if isinstance(value, int):
            return value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            try:
                return int(value)
            except ValueError:  # over Python's 4300-digit conversion limit
                raise PolicyError(f"{where}: integer too long ({len(value)} digits)") from None
        raise PolicyError(f"{where}: expected an integer, got {value!r}")
    if tp is str:
        if not isinstance(value, str):
            raise PolicyError(f"{where}: expected a string, got {value!r}")
        return value
    if typing.get_origin(tp) is typing.Literal:
        if value not in args:
            raise PolicyError(f"{where}: expected one of {list(args)}, got {value!r}")
        return value
    return value


def _key(where: str, name: str) -> str:
    """`flags.weights` + `domain` -> `weights.domain`: the key whatever layer the value came from."""
    section = where.split(".", 1)[1] if "." in where else ""
    return f"{section}.{name}" if section else name


def check_range(value: Any, key: str, field: dataclasses.Field[Any], where: str) -> None:
    """Every number of the policy is finite and inside its documented range (`_field.RANGES`);
    the error names the key and the layer it came from (file, environment or flags)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        rng = range_of(key, field)
        why = rng.problem(value)
        if why:
            name = f"{where}.{field.name}"
            if where.startswith("environment."):
                name = "TRUSTAUDIT_" + key.upper().replace(".", "__")
            raise PolicyError(f"{name} {why} (valid: {rng.text()})")
    elif isinstance(value, tuple):
        for v in value:
            check_range(v, key, field, where)


def _check_fields(cls: type, values: Mapping[str, Any], where: str) -> None:
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, value in values.items():
        if not dataclasses.is_dataclass(value):
            check_range(value, _key(where, name), fields[name], where)


def build(cls: type[T], data: Mapping[str, Any], where: str = "policy") -> T:
    """Build dataclass `cls` from a mapping, keeping defaults for absent keys."""
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - names)
    if unknown:
        raise PolicyError(
            f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(names))})"
        )
    kwargs = {k: _coerce(v, hints[k], f"{where}.{k}") for k, v in data.items()}
    _check_fields(cls, kwargs, where)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"{where}: {exc}") from None


def merge(base: Any, data: Mapping[str, Any], where: str = "policy") -> Any:
    """Return a copy of dataclass instance `base` with `data` (possibly nested) layered on top."""
    hints = typing.get_type_hints(type(base))
    names = {f.name for f in dataclasses.fields(base)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise PolicyError(
            f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(names))})"
        )
    changes: dict[str, Any] = {}
    for key, value in data.items():
        current = getattr(base, key)
        if dataclasses.is_dataclass(current) and isinstance(value, Mapping):
            changes[key] = merge(current, value, f"{where}.{key}")
        else:
            changes[key] = _coerce(value, hints[key], f"{where}.{key}")
    _check_fields(type(base), changes, where)
    try:
        return dataclasses.replace(base, **changes)
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"{where}: {exc}") from None


def to_plain(obj: Any) -> Any:
    """Dataclass tree -> JSON/TOML-ready plain values (tuples become lists)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple | list):
        return [to_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {k: to_plain(v) for k, v in obj.items()}
    return obj
