"""Placeholder (work in progress)."""

from __future__ import annotations

from bfcl_action.decode.errors import failed
from bfcl_action.models import Call


def decode_javascript(text: str) -> list[Call]:
    raise failed("JavaScript decoding not implemented yet")
