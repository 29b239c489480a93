"""Decode function-calling (FC) outputs: BFCL's `[{name: "<json args>"}]` and OpenAI tool calls.

The rules follow the OpenAI-compatible handlers of bfcl-eval 2026.3.23 (their `decode_ast`
takes the first key of each item and `json.loads` its value), so that a BFCL FC result file
gets the same verdicts:

- the output is iterated item by item; an empty string or empty container is no call (`[]`),
  any other non-list (prose, `None`, a number) -> `decoder_failed`;
- each item must be a non-empty mapping; only its first key is used, as upstream does;
- a string value is parsed with `json.loads` (invalid JSON -> `decoder_failed`); if the result
  is not a JSON object -> `decoder_wrong_output_format` (upstream's format check);
- other values that are not mappings -> `decoder_failed` (upstream's `json.loads` raises).

Two extensions that upstream's OpenAI handler does not have, both for inputs it never sees in
a result file: an already-parsed mapping value (`[{name: {..}}]`, the checker's own input form,
as Gemini-style handlers produce) is taken as the arguments (with upstream's format check: one
key per such call, else `decoder_wrong_output_format`), and OpenAI `tool_calls` (dicts or
SDK objects with `function.name` / `function.arguments`) and Responses API `function_call`
items (`type`, `name`, `arguments`) are read directly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bfcl_action.core.records import Call
from bfcl_action.decode.errors import failed, wrong_format
from bfcl_action.decode.limits import MAX_JSON_CHARS


def decode_fc(output: Any) -> list[Call]:
    """Decode an FC-mode model output into calls, or raise `DecodeError`.

    Never raises anything else and never evaluates text: arguments go through `json.loads`.
    """
    if type(output) is list:
        return _decode_list(output)
    if isinstance(output, str | bytes | bytearray):
        if len(output) == 0:
            return []
        raise failed("FC output is text, not a list of calls")
    if isinstance(output, Mapping):
        if len(output) == 0:
            return []
        raise failed("FC output is a single mapping, not a list of calls")
    if not isinstance(output, list | tuple):
        raise failed(f"FC output of type {type(output).__name__} is not a list of calls")
    return [_decode_item(item, index) for index, item in enumerate(output)]


def _decode_list(output: list[Any]) -> list[Call]:
    """The common shape, `[{name: args}, ...]`, without the general checks of `_decode_item`;
    an item of any other shape (a tool-call-shaped `function` key, non-string keys, a
    tool-call object) goes to it. The checker's hot path: decoding must cost less than the
    check itself."""
    calls = []
    for index, item in enumerate(output):
        call = None
        if type(item) is dict and len(item) == 1:
            ((name, arguments),) = item.items()
            if type(name) is str and name != "function":
                if type(arguments) is str:  # JSON: its keys are always strings
                    call = Call(name, _decode_arguments(arguments, name))
                elif type(arguments) is dict and _string_keys(arguments):
                    call = Call(name, arguments.copy())
        calls.append(_decode_item(item, index) if call is None else call)
    return calls


def _string_keys(arguments: dict[Any, Any]) -> bool:
    # A loop: three times faster than all() over a generator, on the checker's hot path.
    for key in arguments:  # noqa: SIM110
        if type(key) is not str:
            return False
    return True


def _decode_item(item: Any, index: int) -> Call:
    if isinstance(item, Call):
        return item
    tool_call = _tool_call_parts(item)
    if tool_call is not None:
        name, arguments = tool_call
    elif isinstance(item, Mapping):
        if len(item) == 0:
            raise failed(f"call {index} is an empty mapping")
        name = next(iter(item))
        arguments = item[name]
        if len(item) > 1 and isinstance(arguments, Mapping):
            # An already-decoded call goes through upstream's format check, which wants one
            # key per call; only FC JSON items are read by their first key.
            raise wrong_format(f"decoded call {index} has {len(item)} keys, not one")
    else:
        raise failed(f"call {index} is a {type(item).__name__}, not a mapping")
    if not isinstance(name, str):
        raise wrong_format(f"call {index} has a {type(name).__name__} name, not a string")
    return Call(name=name, arguments=_decode_arguments(arguments, name))


def _tool_call_parts(item: Any) -> tuple[Any, Any] | None:
    """`(name, arguments)` of an OpenAI tool call (dict or SDK object), else None.

    Chat Completions tool calls nest `name`/`arguments` under `function`; Responses API
    `function_call` items carry them directly. A BFCL item `{"function": {..}}` is only taken
    for a tool call when its value has both `name` and `arguments`, which is the tool-call
    shape and not a plausible argument set.
    """
    function: Any
    if _is_responses_call(item):
        return _field(item, "name"), _field(item, "arguments")
    if isinstance(item, Mapping):
        function = item.get("function")
        if not (
            isinstance(function, Mapping)
            and "name" in function
            and "arguments" in function
            and set(item) <= {"id", "type", "function", "index"}
        ):
            return None
        return function["name"], function["arguments"]
    function = getattr(item, "function", None)
    if function is None or isinstance(item, str | bytes):
        return None
    name = getattr(function, "name", None)
    if name is None or not hasattr(function, "arguments"):
        return None
    return name, function.arguments


def _field(item: Any, key: str) -> Any:
    return item[key] if isinstance(item, Mapping) else getattr(item, key)


def _is_responses_call(item: Any) -> bool:
    try:
        return bool(
            _field(item, "type") == "function_call"
            and isinstance(_field(item, "name"), str)
            and _field(item, "arguments") is not None
        )
    except Exception:  # any odd object is simply not a Responses item
        return False


def _decode_arguments(arguments: Any, name: str) -> dict[str, Any]:
    if isinstance(arguments, str | bytes | bytearray):
        if len(arguments) > MAX_JSON_CHARS:
            raise failed(f"arguments of {name!r} are over {MAX_JSON_CHARS} characters")
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as exc:
            raise failed(f"arguments of {name!r} are not valid JSON: {exc}") from None
        if type(arguments) is dict:  # a new dict whose keys JSON made strings
            return arguments
    elif not isinstance(arguments, Mapping):
        raise failed(f"arguments of {name!r} are a {type(arguments).__name__}, not JSON text")
    if not isinstance(arguments, Mapping):
        raise wrong_format(
            f"arguments of {name!r} decode to a {type(arguments).__name__}, not an object"
        )
    if not all(isinstance(key, str) for key in arguments):
        raise wrong_format(f"arguments of {name!r} have a parameter name that is not a string")
    return dict(arguments)
