"""Contributed function definitions go through the same loaders as a repository's tools, so
every format the Action accepts (OpenAI, Responses, MCP, Anthropic, BFCL) is accepted here,
with the same validation and the same error messages."""

from __future__ import annotations

import json
from typing import Any

from bfcl_action.errors import InputError
from bfcl_action.records import FunctionDoc
from bfcl_action.tools import ToolValidationError, parse_tools


def parse_functions(raw: list[dict[str, Any]], where: str) -> list[FunctionDoc]:
    """Normalised function docs, or an `InputError` listing every problem found."""
    try:
        text = json.dumps(raw, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"functions are not JSON-serialisable: {exc}", file=where) from None
    try:
        return parse_tools(text, where).functions
    except ToolValidationError as exc:
        issues = "; ".join(i.render() for i in exc.issues[:5])
        more = f" (+{len(exc.issues) - 5} more)" if len(exc.issues) > 5 else ""
        raise InputError(f"invalid function definitions: {issues}{more}", file=where) from None
