"""Load a script of the repository's bench/ folder as a module, for the tests of the benches.

Why by path: tests/bench is a test package also named `bench`, which would shadow the repository's
folder; the scripts' own `bench.*` imports need the repository's folder first while they load.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def bench_imports() -> Iterator[None]:
    """Inside: `bench.*` names the repository's folder (for a script's imports, even lazy ones)."""
    saved = sys.modules.pop("bench", None)
    path = sys.path[:]
    sys.path[:] = [str(ROOT)] + [p for p in path if Path(p or ".").resolve() != ROOT / "tests"]
    try:
        yield
    finally:
        sys.path[:] = path
        sys.modules.pop("bench", None)
        if saved is not None:
            sys.modules["bench"] = saved


def load(name: str) -> ModuleType:
    """bench/<name>.py as the module `name` (registered in sys.modules: dataclasses look it up)."""
    with bench_imports():
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        return mod
