"""Problems found in tool definitions, collected rather than raised one at a time.

A team fixing a tools file wants every problem of the file in one go, each with the file,
line and column, the tool, the field, what was expected and what was found.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from bfcl_action.core.errors import InputError
from bfcl_action.safety.redact import shorten


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


class ToolIssue(BaseModel):
    """One problem in one tool definition (or in the file around it)."""

    file: str
    line: int | None = None
    column: int | None = None
    tool: str | None = None
    case: str | None = None
    field: str | None = None
    message: str
    expected: str | None = None
    found: str | None = None
    severity: Severity = Severity.ERROR
    tool_only: bool = False
    """An error that leaves only this tool out (a provider's limit, such as OpenAI's 1,024
    description characters): the other tools of the set still load and run."""

    def render(self) -> str:
        """`file:line:col: tool NAME: field: message: expected X, found Y`."""
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        parts = [where]
        if self.severity is Severity.WARNING:
            parts.append("warning")
        if self.tool:
            parts.append(f"tool {self.tool}")
        if self.case:
            parts.append(f"case {self.case}")
        if self.field:
            parts.append(self.field)
        text = self.message
        if self.tool_only and self.severity is Severity.ERROR:
            text += "; this tool is left out, the others are evaluated"
        if self.expected is not None or self.found is not None:
            detail = []
            if self.expected is not None:
                detail.append(f"expected {self.expected}")
            if self.found is not None:
                detail.append(f"found {self.found}")
            text += f" ({', '.join(detail)})"
        parts.append(text)
        return ": ".join(parts)


def describe(value: Any) -> str:
    """A short, type-revealing rendering of a found value for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    kind = json_type_name(value)
    text = shorten(repr(value), 60, "...")
    return f"{text} ({kind})"


def json_type_name(value: Any) -> str:
    """The JSON type name of a Python value, as users write it in schemas."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class ToolValidationError(InputError):
    """Tool definitions have errors; `issues` holds all of them (every file, every tool)."""

    what = "tool definitions"

    def __init__(self, issues: Iterable[ToolIssue]) -> None:
        self.issues = sorted(
            (i for i in issues if i.severity is Severity.ERROR),
            key=lambda i: (i.file, i.line or 0, i.column or 0),
        )
        count = len(self.issues)
        files = len({i.file for i in self.issues})
        head = f"{count} error{'s' if count != 1 else ''} in {self.what}"
        if files > 1:
            head += f" ({files} files)"
        lines = "\n".join(f"  {i.render()}" for i in self.issues)
        super().__init__(f"{head}:\n{lines}")


class CaseValidationError(ToolValidationError):
    """Own case files have errors (or cases whose `expect` cannot pass); all of them listed."""

    what = "case files"
