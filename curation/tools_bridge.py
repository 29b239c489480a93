"""Contributed function definitions go through the same loaders as a repository's tools, so
every format the Action accepts (OpenAI, Responses, MCP, Anthropic, BFCL) is accepted here,
with the same validation and the same error messages."""

from __future__ import annotations

import json
from typing import Any

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import FunctionDoc
from bfcl_action.tools import ToolIssue, ToolValidationError, parse_tools


def parse_functions(raw: list[dict[str, Any]], where: str) -> list[FunctionDoc]:
    """Normalised function docs, or an `InputError` listing every problem found."""
    try:
        text = json.dumps(raw, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"functions are not JSON-serialisable: {exc}", file=where) from None
    try:
        tools = parse_tools(text, where)
    except ToolValidationError as exc:
        raise _invalid(exc.issues, where) from None
    # A published test case offers every function it names: one a provider would leave out,
    # or a `required` name no property defines, makes the case unusable, not a warning.
    strict = [*tools.left_out, *(w for w in tools.warnings if UNDEFINED_REQUIRED in w.message)]
    if strict:
        raise _invalid(strict, where)
    return tools.functions


UNDEFINED_REQUIRED = "is not defined in properties"


def _invalid(issues: list[ToolIssue], where: str) -> InputError:
    listed = "; ".join(i.render() for i in issues[:5])
    more = f" (+{len(issues) - 5} more)" if len(issues) > 5 else ""
    return InputError(f"invalid function definitions: {listed}{more}", file=where)
