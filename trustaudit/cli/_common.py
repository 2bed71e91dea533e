"""Shared CLI plumbing: the error guard every command uses, and console helpers.

The guard is a decorator (not a wrapper around `app()`) so typer's CliRunner sees the same exit codes
and one-line messages a shell user sees.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from trustaudit.errors import TrustAuditError
from trustaudit.exit_codes import ExitCode
from trustaudit.policy import PolicyError

F = TypeVar("F", bound=Callable[..., Any])


# `--width N` (the app's global option) or $COLUMNS; when stdout is not a terminal and neither is
# set, plain output is not cut at rich's 80-column default (URLs stay whole in logs and files).
WIDTH: dict[str, int | None] = {"width": None}
PIPE_WIDTH = 1000


def output_width(stream: Any) -> int | None:
    """The width tables render at: `--width`, else $COLUMNS, else the terminal's, else PIPE_WIDTH."""
    if WIDTH["width"]:
        return WIDTH["width"]
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if stream.isatty():
            return None  # rich asks the terminal
    except (AttributeError, ValueError):
        pass
    return PIPE_WIDTH


# rich turns `:name:` into an emoji by default, which `report.escape.terminal` cannot escape: a page
# titled ":white_check_mark: verified" would print a check mark. Our own text uses none.
def err_console() -> Console:
    """Console on stderr: logs and progress never pollute machine-readable stdout."""
    return Console(stderr=True, highlight=False, emoji=False, width=output_width(sys.stderr))


class _StdoutConsole(Console):
    """rich's own broken-pipe handler exits 1; hand the closed pipe to `guarded` instead, which
    exits 0 with nothing on stderr (`trustaudit explain RUN URL | head -1`)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def out_console() -> Console:
    """Console on stdout for tables; a reader that goes away ends the command quietly."""
    return _StdoutConsole(
        highlight=False, emoji=False, soft_wrap=True, width=output_width(sys.stdout)
    )


def quiet_libraries() -> None:
    """Silence the model libraries' progress bars, load reports and warnings (`--quiet`): the
    first run builds the static model through transformers/model2vec, which print kilobytes to
    stderr. Environment variables reach worker processes and libraries not imported yet."""
    import logging
    import warnings

    for key, value in {
        "TQDM_DISABLE": "1",
        "HF_HUB_DISABLE_PROGRESS_BARS": "1",
        "TRANSFORMERS_VERBOSITY": "error",
        "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }.items():
        os.environ[key] = value
    for name in ("transformers", "sentence_transformers", "model2vec", "huggingface_hub", "torch"):
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")
    # Only when already imported: importing transformers imports torch (≈280 MB of RSS for every
    # run, model or not); a later import reads TRANSFORMERS_VERBOSITY and the variables above.
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()


def fail(message: str, hint: str = "") -> None:
    """Print the one-line error (and its hint) on stderr."""
    from trustaudit.report.escape import strip_invisible

    # messages quote paths, URLs, lines and exception texts from the inputs: no escape sequence
    # reaches the terminal, and a CR or line break cannot print over or under the error line
    print(f"trustaudit: error: {' '.join(strip_invisible(message).split())}", file=sys.stderr)
    if hint:
        print(f"hint: {' '.join(strip_invisible(hint).split())}", file=sys.stderr)


_closed_pipe_exit = int(ExitCode.OK)


def exit_code_if_stdout_closes(code: int) -> None:
    """A verdict command (gate, diff) calls this once its verdict is known, before printing: a
    reader that goes away (`trustaudit gate RUN | head -1`) must not turn a failed gate into 0."""
    global _closed_pipe_exit
    _closed_pipe_exit = int(code)


def guarded(func: F) -> F:
    """Map exceptions to one stderr line and a named exit code; never a traceback unless debugging."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        exit_code_if_stdout_closes(ExitCode.OK)
        try:
            result = func(*args, **kwargs)
            sys.stdout.flush()  # a closed pipe shows here, inside the guard, not at exit
            return result
        except BrokenPipeError:
            raise closed_stdout(_closed_pipe_exit) from None
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
                raise _environment_or_internal(exc, kwargs) from None
            where = f" {exc.filename}" if exc.filename else ""
            fail(f"cannot use{where}: {exc.strerror or exc}", _ENVIRONMENT_HINT)
            raise typer.Exit(int(ExitCode.USAGE)) from None
        except (Exception, BaseException) as exc:  # pyo3 panics derive from BaseException
            raise _environment_or_internal(exc, kwargs) from None

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


_ENVIRONMENT_HINT = (
    "check that the path exists, is writable (not a read-only run or file system) "
    "and that the disk has space"
)
_OS_ERROR_RE = re.compile(r"\(os error (\d+)\)")
_LOW_SPACE = 1 << 20


def _environment_or_internal(exc: BaseException, kwargs: dict[str, Any]) -> BaseException:
    """Exit 2 for an environment failure that reaches us wrapped (Polars' `ComputeError: ... (os
    error 28)`, an OSError without errno, sqlite's `database or disk is full`, a table cut short
    because its disk filled up), else the internal error (exit 3)."""
    text = str(exc)
    m = _OS_ERROR_RE.search(text)
    full = _full_disk(kwargs)
    why = None
    if m and int(m.group(1)) in _ENVIRONMENT_ERRNOS:
        why = os.strerror(int(m.group(1)))
    elif "database or disk is full" in text:
        why = os.strerror(errno.ENOSPC)
    elif full is not None:
        why = "its file system is full"
    if why is None or isinstance(exc, GeneratorExit) or os.environ.get("TRUSTAUDIT_DEBUG"):
        return _internal(exc)
    paths = _local_paths(kwargs)
    where = f" {full or paths[0]}" if full or paths else ""
    first = text.splitlines()[0][:200] if text else ""
    fail(f"cannot use{where}: {why} ({type(exc).__name__}: {first})", _ENVIRONMENT_HINT)
    return typer.Exit(int(ExitCode.USAGE))


def _local_paths(kwargs: dict[str, Any]) -> list[Path]:
    """The command's arguments that name local paths: Path values, and strings (a run may be
    given as a string so that it can also be a remote URI) naming something that exists."""
    out: list[Path] = []
    for value in kwargs.values():
        for item in value if isinstance(value, list | tuple) else [value]:
            if isinstance(item, Path):
                out.append(item)
            elif isinstance(item, str) and item and "://" not in item:
                try:
                    if os.path.lexists(item):
                        out.append(Path(item))
                except (OSError, ValueError):
                    continue
    return out


def _full_disk(kwargs: dict[str, Any]) -> Path | None:
    """A path argument of the command whose file system has (almost) no space left, else None."""
    for item in _local_paths(kwargs):
        probe = item
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        try:
            if shutil.disk_usage(probe).free < _LOW_SPACE:
                return item
        except OSError:
            continue
    return None


def check_accounting(summary: dict[str, Any]) -> None:
    """Every input record must end as a page or an error row. When a run's accounting does not
    balance (`balanced: false`: a damaged or tampered run, or a reader that lost or doubled
    records), the tables and reports are written but the command warns and exits 2: its numbers
    cannot be trusted as they are."""
    acc = summary.get("accounting") or {}
    if acc.get("balanced") is not False:
        return
    fail(
        f"accounting does not balance in {summary.get('run_dir')}: {acc.get('inputs')} input "
        f"record(s) but {acc.get('pages')} page(s) + {acc.get('errors')} error row(s)",
        "its tables may be damaged or modified: re-run the audit with --fresh, and report it if "
        "it persists",
    )
    raise typer.Exit(int(ExitCode.USAGE))


def closed_stdout(code: int = ExitCode.OK) -> typer.Exit:
    """The reader went away (`trustaudit policy show | head -1`): what it read is what it wanted,
    so exit 0 (or the verdict a gate already reached) with nothing on stderr, and point stdout at
    /dev/null so the interpreter's final flush does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return typer.Exit(int(code))


def _internal(exc: BaseException) -> BaseException:
    """One line for an unexpected error (exit 3); TRUSTAUDIT_DEBUG=1 re-raises it with its traceback."""
    if isinstance(exc, GeneratorExit) or os.environ.get("TRUSTAUDIT_DEBUG"):
        return exc
    fail(
        f"internal error: {type(exc).__name__}: {exc}",
        "set TRUSTAUDIT_DEBUG=1 for a traceback and report it",
    )
    return typer.Exit(int(ExitCode.INTERNAL))


# `--judge-url`, shared by `audit` and `score` (the tail judge, docs/judge.md)
JudgeUrls = Annotated[
    list[str] | None,
    typer.Option(
        "--judge-url",
        help="Also send this page to the LLM judge (repeatable; needs judge.endpoint, judge.model).",
    ),
]
