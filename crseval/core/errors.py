"""Errors for people: every problem with input names the file, line, field, what was expected and the fix."""

from __future__ import annotations

from pathlib import Path


class CrsevalError(Exception):
    """A problem the user can fix. Formats as ``file:line: field 'f': message (expected …) — fix``."""

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
        expected: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field
        self.expected = expected
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file + (f":{self.line}" if self.line is not None else "") + ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        text = where + (f"field '{self.field}': " if self.field else "") + self.message
        if self.expected:
            text += f" (expected {self.expected})"
        if self.fix:
            text += f" — {self.fix}"
        return text


class ConfigError(CrsevalError):
    """A configuration value is missing or invalid."""


class BackendError(CrsevalError):
    """An LLM backend failed. ``transient`` errors are retried by the scheduler."""

    def __init__(
        self,
        message: str,
        *,
        transient: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        fix: str | None = None,
    ) -> None:
        self.transient = transient
        self.status = status
        self.retry_after = retry_after
        super().__init__(message, fix=fix)


class WorkFailed(CrsevalError):
    """The work itself failed, not its input (every session's CRS raised, a server refused every call):
    the command exits 1 with this one line; what was recorded is kept."""

    exit_code = 1
