"""Answer shapes that OpenAI-compatible servers send instead of the standard one, and what to
fix for each.

Answers are scored as they came (official categories keep BFCL's verdicts, which count most
of these as wrong); the run summary counts each shape and names the likely cause, so a
misconfigured server reads as "turn the tool parser on", not as a weak model.
"""

from __future__ import annotations

from collections.abc import Mapping

ARGUMENTS_EMPTY = "arguments_empty"
ARGUMENTS_OBJECT = "arguments_object"
LEGACY_FUNCTION_CALL = "legacy_function_call"
CONTENT_PARTS = "content_parts"
CALLS_AS_TEXT = "calls_as_text"

ADVICE: dict[str, str] = {
    ARGUMENTS_EMPTY: (
        'answers had tool-call `arguments` "" or null instead of "{}" (BFCL scores them as '
        "unparsable): the server should send a JSON object string"
    ),
    ARGUMENTS_OBJECT: (
        "answers had tool-call `arguments` as a JSON object, not a string (read as JSON; the spec "
        "says string)"
    ),
    LEGACY_FUNCTION_CALL: (
        "answers used the legacy `function_call` field instead of `tool_calls` (scored as no "
        "call): does the server support the `tools` API?"
    ),
    CONTENT_PARTS: (
        "answers had `content` as a list of parts instead of a string (scored as empty text): "
        "the server should return plain string content"
    ),
    CALLS_AS_TEXT: (
        "answers carried tool calls as text in `content` (scored as no call): is the server's "
        "tool-call parser on? (vLLM: --enable-auto-tool-choice --tool-call-parser ...)"
    ),
}


def describe_shapes(counts: Mapping[str, int]) -> list[str]:
    """One line per shape seen, most frequent first: "41 answers carried tool calls as text..."."""
    seen = sorted(((n, s) for s, n in counts.items() if n), key=lambda x: (-x[0], x[1]))
    return [f"{n} {ADVICE.get(shape, shape)}" for n, shape in seen]
