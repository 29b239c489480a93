"""Turn raw model output into calls, the way BFCL's decoders do, without running any of it.

Public interface:

- `decode_fc(output)`: function-calling outputs (`[{name: "<json args>"}]`, already-parsed
  `[{name: {..}}]`, OpenAI `tool_calls`).
- `decode_prompt(text, language)`: prompt-mode text; Python call lists give Python values,
  Java and JavaScript call syntax gives each argument as a string of source text (the checker
  converts it by the parameter's schema type, as BFCL does).
- `decode_output(output, *, mode, language)`: picks one of the two.

All raise only `DecodeError`, whose `error_type` is BFCL's name for the failure, and finish in
bounded time and memory on any input (see `limits.py`). docs/decoding.md lists every rule and
the few deliberate deviations from bfcl-eval 2026.3.23.
"""

from __future__ import annotations

from typing import Any

from bfcl_action.core.records import Call, Language, Mode
from bfcl_action.decode.errors import (
    DECODER_FAILED,
    WRONG_OUTPUT_FORMAT,
    DecodeError,
    DecodeErrorType,
)
from bfcl_action.decode.fc import decode_fc
from bfcl_action.decode.java_calls import POSITIONAL_KEY, decode_java
from bfcl_action.decode.javascript_calls import decode_javascript
from bfcl_action.decode.python_calls import KWARGS_KEY, decode_python

__all__ = [
    "DECODER_FAILED",
    "KWARGS_KEY",
    "POSITIONAL_KEY",
    "WRONG_OUTPUT_FORMAT",
    "DecodeError",
    "DecodeErrorType",
    "decode_fc",
    "decode_output",
    "decode_prompt",
    "decode_step",
]


_PROMPT, _FC = Mode.PROMPT, Mode.FC
_JAVA, _JAVASCRIPT = Language.JAVA, Language.JAVASCRIPT
"""Bound once: looking a member up on its enum class costs as much as the rest of a dispatch."""


def decode_prompt(text: str, language: Language | str = Language.PYTHON) -> list[Call]:
    """Decode prompt-mode model text written in `language`'s call syntax."""
    if type(language) is not Language:
        language = Language(language)
    if language is _JAVA:
        return decode_java(text)
    if language is _JAVASCRIPT:
        return decode_javascript(text)
    return decode_python(text)


def decode_output(
    output: Any, *, mode: Mode | str, language: Language | str = Language.PYTHON
) -> list[Call]:
    """Decode a stored model output (a BFCL result's `result` field) for `mode`.

    Text in prompt mode goes to `decode_prompt`. Anything else (and any output in FC mode)
    goes to `decode_fc`, so an already-decoded call list `[{name: {args}}]` is accepted in
    either mode; upstream would reject a non-text prompt-mode result (`decoder_failed`), and
    no BFCL result file contains one.
    """
    if mode is not _PROMPT and mode is not _FC:
        mode = Mode(mode)  # a string: validated (members skip the lookup on the hot path)
    if mode is _PROMPT and isinstance(output, str):
        return decode_prompt(output, language)
    return decode_fc(output)


def decode_step(output: Any, mode: Mode) -> list[Call]:
    """One step of a conversation's calls, as BFCL's execution decoding reads it: prompt
    text in prompt mode, tool calls otherwise; an output that does not decode is no call
    (multi-turn skips such steps; the agentic categories take the last one as the answer)."""
    try:
        if mode is Mode.PROMPT and isinstance(output, str):
            return decode_prompt(output, Language.PYTHON)
        return decode_fc(output)
    except Exception:  # any undecodable step is "no call", never a crash
        return []
