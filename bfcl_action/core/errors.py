"""One exception hierarchy for the package.

Every error a user can cause carries where it happened (file, line, field) and what was
expected versus found, so the CLI can print it as one line and exit non-zero without a
traceback.
"""

from __future__ import annotations


class BfclActionError(Exception):
    """Base of every error bfcl-action raises on purpose (bad input, unreachable data)."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        """`file:line:col: field: message`, leaving out the parts that are unknown."""
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        field = f"{self.field}: " if self.field else ""
        return f"{where}{field}{self.message}"


class DatasetError(BfclActionError):
    """A dataset could not be fetched, verified or read."""


class LiveUnavailable(DatasetError):
    """A Live release that was asked for cannot be had: not known to this install, not
    found in the configured directory, or not downloadable. Callers that only offer Live
    data (derived-suite pools) catch this type; every other DatasetError stays an error."""


class InputError(BfclActionError):
    """A user-supplied file (results, cases, config, tools) is malformed."""


class ConfigError(InputError):
    """`.bfcl.yml` or a command-line option is invalid."""
