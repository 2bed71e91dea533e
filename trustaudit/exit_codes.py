"""Named exit codes. CI users depend on these numbers: tests pin each one."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # the command ran (whatever it found); gate: every rule passed
    GATE_FAILED = 1  # gate: at least one rule failed; diff: a --fail-on condition held
    USAGE = 2  # bad arguments, unreadable policy, or nothing at all could be read
    INTERNAL = 3  # a bug: please report it with the message
