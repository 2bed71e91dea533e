"""Shared CLI plumbing: the error guard every command uses, and console helpers.

The guard is a decorator (not a wrapper around `app()`) so typer's CliRunner sees the same exit codes
and one-line messages a shell user sees.
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console

from trustaudit.errors import TrustAuditError
from trustaudit.exit_codes import ExitCode
from trustaudit.policy import PolicyError

F = TypeVar("F", bound=Callable[..., Any])


def err_console() -> Console:
    """Console on stderr: logs and progress never pollute machine-readable stdout."""
    return Console(stderr=True, highlight=False)


def out_console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def fail(message: str, hint: str = "") -> None:
    """Print the one-line error (and its hint) on stderr."""
    from trustaudit.report.escape import strip_invisible

    # messages quote paths, URLs and lines from the inputs: no escape sequence reaches the terminal
    print(f"trustaudit: error: {strip_invisible(message)}", file=sys.stderr)
    if hint:
        print(f"hint: {strip_invisible(hint)}", file=sys.stderr)


def guarded(func: F) -> F:
    """Map exceptions to one stderr line and a named exit code; never a traceback unless debugging."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except TrustAuditError as exc:
            fail(str(exc), exc.hint)
            raise typer.Exit(int(exc.exit_code)) from None
        except PolicyError as exc:
            fail(f"policy: {exc}", "run `trustaudit policy show` for the valid keys and defaults")
            raise typer.Exit(int(ExitCode.USAGE)) from None
        except KeyboardInterrupt:
            fail("interrupted; re-run the same command to resume")
            raise typer.Exit(130) from None
        except OSError as exc:
            if exc.errno not in _ENVIRONMENT_ERRNOS:
                raise _internal(exc) from None
            where = f" {exc.filename}" if exc.filename else ""
            fail(
                f"cannot use{where}: {exc.strerror or exc}",
                "check that the path exists, is writable (not a read-only run or file system) "
                "and that the disk has space",
            )
            raise typer.Exit(int(ExitCode.USAGE)) from None
        except (Exception, BaseException) as exc:  # pyo3 panics derive from BaseException
            raise _internal(exc) from None

    return wrapper  # type: ignore[return-value]


# Errors of the environment, not of trustaudit: permissions, read-only or full disks, a file where a
# folder should be. They exit 2 (usage/input) with the path, not 3 (internal error).
_ENVIRONMENT_ERRNOS = frozenset(
    {
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EEXIST,
        errno.ENOTDIR,
        errno.EISDIR,
        errno.ENOENT,
        errno.ENAMETOOLONG,
    }
)


def _internal(exc: BaseException) -> BaseException:
    """One line for an unexpected error (exit 3); TRUSTAUDIT_DEBUG=1 re-raises it with its traceback."""
    if isinstance(exc, GeneratorExit) or os.environ.get("TRUSTAUDIT_DEBUG"):
        return exc
    fail(
        f"internal error: {type(exc).__name__}: {exc}",
        "set TRUSTAUDIT_DEBUG=1 for a traceback and report it",
    )
    return typer.Exit(int(ExitCode.INTERNAL))
