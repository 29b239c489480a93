"""Case questions as chat messages (single-turn cases; multi-turn needs the execution loop)."""

from __future__ import annotations

from typing import Any

from bfcl_action.models import TestCase
from bfcl_action.runner.backends import PermanentError


def first_turn_messages(case: TestCase) -> list[dict[str, Any]]:
    """The chat messages of a single-turn case, as plain dicts ready for a request body."""
    if len(case.question) != 1:
        raise PermanentError(
            f"{case.id}: multi-turn cases ({len(case.question)} turns) are not run yet"
        )
    return [m.model_dump(mode="json", exclude_none=True) for m in case.question[0]]
