"""BFCL v4's format-sensitivity return formats: Python, JSON, verbose XML and concise XML
call text, optionally inside a `<TOOLCALL>...</TOOLCALL>` tag.

Every format starts like the plain prompt decoder (backticks, newlines and spaces stripped at
both ends, `[` ... `]` added where missing), then:

- tag: the text between the first `<TOOLCALL>` and the first `</TOOLCALL>` after it (none:
  the output did not decode), stripped of white space and then of `'`;
- Python: parsed as a call or a list/tuple of calls (the plain prompt decoder's rules);
- JSON: the first `[ {…} , {…} ]`-shaped span (bfcl-eval finds it with a regex; `json_span`
  finds the same span in linear time), `json.loads`; text that is not JSON decodes to *no
  call*; each object's `function` and `parameters` keys are the call (an object without them:
  the output did not decode; a non-object element is skipped);
- verbose / concise XML: the span from the first `<functions>` to the first `</functions>`
  after it, parsed as XML; every `<function name=…>` is a call; its `<param name=… type=…>`
  values (verbose: the `value` attribute, concise: the element text) are converted by `type`
  (integer, float, boolean, null; array/tuple/object/dict as a Python literal; anything else
  stays a string).

Deviations, all on hostile input only: XML with a `<!DOCTYPE` or `<!ENTITY` is refused
(entity expansion), and every text is bounded as plain prompt text is (`bracket_text`).
"""

from __future__ import annotations

import ast
import bisect
import json
import xml.etree.ElementTree as ET
from enum import StrEnum
from typing import Any

from bfcl_action.core.records import Call
from bfcl_action.decode.errors import DecodeError, failed, wrong_format
from bfcl_action.decode.prompt_text import bracket_text
from bfcl_action.decode.python_calls import decode_python


class ReturnFormat(StrEnum):
    PYTHON = "python"
    JSON = "json"
    VERBOSE_XML = "verbose_xml"
    CONCISE_XML = "concise_xml"


TAG_OPEN, TAG_CLOSE = "<TOOLCALL>", "</TOOLCALL>"


def decode_return_format(text: Any, fmt: ReturnFormat, *, tool_call_tag: bool) -> list[Call]:
    """Calls in `text` written in `fmt` (see the module docstring), or `DecodeError`."""
    body = bracket_text(text)
    if tool_call_tag:
        start = body.find(TAG_OPEN)
        end = body.find(TAG_CLOSE, start + len(TAG_OPEN)) if start >= 0 else -1
        if end < 0:
            raise failed("no <TOOLCALL>...</TOOLCALL> tag in the output")
        body = body[start + len(TAG_OPEN) : end].strip()
    if fmt is ReturnFormat.PYTHON:
        return _python(body.strip().strip("'") if tool_call_tag else body)
    if fmt is ReturnFormat.JSON:
        return _json(body)
    return _xml(body, verbose=fmt is ReturnFormat.VERBOSE_XML)


def _python(source: str) -> list[Call]:
    # Parsed as written: a call list is never closed for the model, and backticks stay.
    if source.endswith("]") and not source.startswith("["):
        raise failed("not a Python call list: unbalanced brackets")
    if source.startswith("`") or source.endswith("`"):
        raise failed("not a Python call list: backticks")
    return decode_python(source)


def json_span(text: str) -> tuple[int, int] | None:
    """The span bfcl-eval's `\\[\\s*{.*?}\\s*(?:,\\s*{.*?}\\s*)*\\]` (DOTALL) search finds.

    The regex's backtracking order is followed exactly (leftmost `[`, the nearest `}` that
    lets the rest match, more repetitions before fewer) but each position is decided once,
    right to left, so the time is O(n log n) where the regex can take far longer.
    """
    n = len(text)

    def skip(i: int) -> int:
        while i < n and text[i].isspace():
            i += 1
        return i

    closes = [i for i, ch in enumerate(text) if ch == "}"]
    # end[k]: where `\s*(?:,\s*{.*?}\s*)*\]` matching after closes[k] ends (None: fails);
    # first_ok[k]: the smallest j >= k with end[j] set (what the lazy `.*?` settles on).
    end: list[int | None] = [None] * len(closes)
    first_ok: list[int | None] = [None] * (len(closes) + 1)

    def rest(q: int) -> int | None:
        q = skip(q)
        if q < n and text[q] == ",":
            brace = skip(q + 1)
            if brace < n and text[brace] == "{":
                k = bisect.bisect_right(closes, brace)
                j = first_ok[k]
                if j is not None:
                    return end[j]
        return q + 1 if q < n and text[q] == "]" else None

    for k in range(len(closes) - 1, -1, -1):
        end[k] = rest(closes[k] + 1)
        first_ok[k] = k if end[k] is not None else first_ok[k + 1]
    for start in (i for i, ch in enumerate(text) if ch == "["):
        brace = skip(start + 1)
        if brace < n and text[brace] == "{":
            j = first_ok[bisect.bisect_right(closes, brace)]
            if j is not None:
                stop = end[j]
                assert stop is not None
                return start, stop
    return None


def _json(body: str) -> list[Call]:
    first, last = body.find("["), body.rfind("]")
    if 0 <= first < last:  # bfcl-eval's greedy `\[.*\]`
        body = body[first : last + 1]
    span = json_span(body)
    if span is not None:
        body = body[span[0] : span[1]]
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return []  # bfcl-eval reads text that is not JSON as no call
    except (ValueError, RecursionError) as exc:
        raise failed(f"JSON that cannot be read: {type(exc).__name__}") from None
    if not isinstance(data, list | dict | str):
        raise failed(f"JSON {type(data).__name__} is not a list of calls")
    found: list[tuple[Any, Any]] = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict):
            continue  # skipped, as bfcl-eval skips it
        if "function" not in item or "parameters" not in item:
            raise failed("a JSON call needs 'function' and 'parameters'")
        if isinstance(item["function"], list | dict):
            raise failed("a JSON call's 'function' is not a name")
        found.append((item["function"], item["parameters"]))
    if any(not isinstance(arguments, dict) for _, arguments in found):
        raise wrong_format("a JSON call's 'parameters' is not an object")
    return [
        Call(name=name if isinstance(name, str) else json.dumps(name), arguments=arguments)
        for name, arguments in found
    ]


def _xml(body: str, *, verbose: bool) -> list[Call]:
    start = body.find("<functions>")
    end = body.find("</functions>", start + len("<functions>")) if start >= 0 else -1
    if end < 0:
        raise failed("no <functions>...</functions> block in the output")
    xml = body[start : end + len("</functions>")]
    if "<!DOCTYPE" in xml or "<!ENTITY" in xml:
        raise failed("XML with a DOCTYPE or ENTITY declaration is not decoded")
    try:
        root = ET.fromstring(xml)  # noqa: S314 - no DTD can reach the parser
    except ET.ParseError as exc:
        raise failed(f"not XML: {exc}") from None
    calls: list[Call] = []
    for function in root.findall("function"):
        if "name" not in function.attrib:
            raise failed("a <function> without a name")
        arguments: dict[str, Any] = {}
        if verbose:
            container = function.find("params")
            params = (container if container is not None else function).findall("param")
        else:
            params = function.findall("param")
        for param in params:
            if verbose:
                name, raw = param.attrib.get("name"), param.attrib.get("value", "")
            else:
                if "name" not in param.attrib:
                    raise failed("a <param> without a name")
                name, raw = param.attrib["name"], (param.text or "").strip()
            arguments[str(name) if name is not None else "None"] = _typed(
                raw, param.attrib.get("type", "string")
            )
        calls.append(Call(name=function.attrib["name"], arguments=arguments))
    return calls


def _typed(raw: str, type_name: str) -> Any:
    """An XML parameter's value converted by its declared type, as bfcl-eval converts it."""
    try:
        if type_name == "integer":
            return int(raw)
        if type_name == "float":
            return float(raw)
        if type_name == "boolean":
            return raw.lower() == "true"
        if type_name == "null":
            return None
        if type_name in {"array", "tuple", "object", "dict"}:
            return ast.literal_eval(raw)  # literals only: never evaluates code
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise failed(f"a {type_name} parameter that does not convert: {exc}") from None
    return raw


__all__ = ["DecodeError", "ReturnFormat", "decode_return_format", "json_span"]
