"""What every Ray worker process runs when it starts: kept to the standard library, because the
hook runs in each of the job's processes (Ray Data's own actors included), not only in those that
extract: importing the scoring code there would cost every one of them a second of CPU."""

from __future__ import annotations

import sys


def settle_fsspec_import() -> None:
    """Settle whether fsspec's HTTP filesystem imports, once, before Ray's threaded path listing
    asks: without aiohttp, concurrent first imports race and a thread sees a half-initialised
    module (an ImportError Ray does not catch). Marking the module missing makes every later
    import a ModuleNotFoundError, which Ray catches ("no HTTP filesystem"). Ray lists files in
    worker processes too: pass this function to `ray.init` as
    `runtime_env={"worker_process_setup_hook": settle_fsspec_import}`."""
    try:
        import fsspec.implementations.http  # noqa: F401
    except ImportError:
        sys.modules["fsspec.implementations.http"] = None  # type: ignore[assignment]
