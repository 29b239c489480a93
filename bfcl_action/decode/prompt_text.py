"""The text clean-up every prompt-mode decoder starts with, as BFCL does it."""

from __future__ import annotations

from bfcl_action.decode.errors import failed
from bfcl_action.decode.limits import MAX_OPERATORS, MAX_STRUCTURE, MAX_TEXT_CHARS

_STRUCTURAL = "([{,=:"
_OPERATORS = "+-*/%|&^~@<>"


def bracket_text(text: object) -> str:
    """Strip backticks, newlines and spaces at both ends, then make sure of `[` ... `]`.

    Only those three characters are stripped (not tabs or `\\r`), and a fence with a language
    word (```` ```python ````) leaves the word in place, so such text fails to parse, exactly
    as upstream. Refuses non-text, text over `MAX_TEXT_CHARS`, and text with more than
    `MAX_STRUCTURE` brackets and separators or `MAX_OPERATORS` operator characters (see
    `limits.py`), so parsing stays cheap.
    """
    if not isinstance(text, str):
        raise failed(f"prompt output is a {type(text).__name__}, not text")
    if len(text) > MAX_TEXT_CHARS:
        raise failed(f"prompt output is over {MAX_TEXT_CHARS} characters")
    if len(text) > MAX_STRUCTURE and sum(map(text.count, _STRUCTURAL)) > MAX_STRUCTURE:
        raise failed(f"prompt output has over {MAX_STRUCTURE} brackets and separators")
    if len(text) > MAX_OPERATORS and sum(map(text.count, _OPERATORS)) > MAX_OPERATORS:
        raise failed(f"prompt output has over {MAX_OPERATORS} operator characters")
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text
