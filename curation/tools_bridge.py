"""Contributed function definitions go through the same loaders as a repository's tools."""

from __future__ import annotations

from typing import Any

from bfcl_action.errors import InputError
from bfcl_action.models import FunctionDoc


def parse_functions(raw: list[dict[str, Any]], where: str) -> list[FunctionDoc]:
    docs = []
    for n, f in enumerate(raw):
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            raise InputError(
                "a function needs a string `name`", file=where, field=f"functions[{n}]"
            )
        docs.append(FunctionDoc.model_validate(f))
    return docs
