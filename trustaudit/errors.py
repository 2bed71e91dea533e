"""Exceptions that carry a one-line message and a hint; the CLI maps them to exit codes."""

from __future__ import annotations

from trustaudit.exit_codes import ExitCode


class TrustAuditError(Exception):
    """A diagnostic error: `str(exc)` is the one line shown to the user, `hint` what to do next."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class UsageError(TrustAuditError):
    """Bad arguments or inputs the command cannot work with at all."""


class NothingReadError(TrustAuditError):
    """Every input failed: there is no page to score."""


class RunDirError(TrustAuditError):
    """The run directory is missing, incomplete, or locked by another process."""
