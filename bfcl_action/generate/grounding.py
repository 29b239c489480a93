"""Grounding: every expected value must be stated or implied by the request.

A proposer that expects `unit: celsius` for "weather in Tokyo" has invented an answer the
user never asked for; a model that omits the unit would be graded wrong. A value is grounded
when one of its alternatives is:
- a string whose checker-normalised form occurs in the normalised request, or whose words
  all occur among the request's words (so "Tokyo, Japan" matches "Japan's capital Tokyo");
- an enum value the request names (its words, `_` read as a space);
- a number the request writes (digits, or a number word up to twenty);
- a boolean (`true` or `false`) whose parameter the request talks about: a word of its name
  of three letters or more occurs in the request ("even out of stock" grounds
  `in_stock_only: false`; which value is right is the verify model's to agree with);
- the parameter's documented default (`default`, or "default X" in its description);
- `null`, or an array / object whose items are all grounded.
An omittable parameter ("" among its alternatives) needs nothing.
"""

from __future__ import annotations

import re
from typing import Any

from bfcl_action.checker.normalize import normalize_text
from bfcl_action.core.records import FunctionDoc
from bfcl_action.generate.models import Candidate, Drop, DropReason

_WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_DEFAULT = re.compile(r"\bdefaults?\b(?:\s+(?:is|to|of))?\s*[:=]?\s*['\"`]?([\w.+-]+)", re.I)
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}


class _Request:
    def __init__(self, text: str) -> None:
        self.normalised = normalize_text(text)
        self.words = {w.lower() for w in _WORD.findall(text)}
        self.numbers = {float(n) for n in _NUMBER.findall(text.replace(",", ""))}
        self.numbers |= {float(v) for w, v in _NUMBER_WORDS.items() if w in self.words}


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text.replace("_", " "))}


def _documented_default(value: Any, schema: dict[str, Any]) -> bool:
    if (
        "default" in schema
        and schema["default"] == value
        and type(schema["default"]) is type(value)
    ):
        return True
    match = _DEFAULT.search(str(schema.get("description") or ""))
    if match is None:
        return False
    found = match.group(1).rstrip(".")
    return found.lower() == str(value).lower()


def _grounded(value: Any, schema: dict[str, Any], name: str, req: _Request) -> bool:
    if value is None or _documented_default(value, schema):
        return True
    if isinstance(value, bool):  # either value, once the request talks about the parameter
        return bool({w for w in _words(name) if len(w) > 2} & req.words)
    if isinstance(value, int | float):
        return float(value) in req.numbers
    if isinstance(value, str):
        norm = normalize_text(value)
        if norm and norm in req.normalised:
            return True
        words = _words(value)
        return bool(words) and words <= req.words
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    if isinstance(value, list):
        return all(_grounded(v, items or {}, name, req) for v in value)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        for key, options in value.items():
            sub = _schema_of(props, key)
            opts = options if isinstance(options, list) else [options]
            if not _any_grounded(opts, sub, key, req):
                return False
        return True
    return False


def _schema_of(props: Any, name: str) -> dict[str, Any]:
    found = props.get(name) if isinstance(props, dict) else None
    return found if isinstance(found, dict) else {}


def _any_grounded(options: list[Any], schema: dict[str, Any], name: str, req: _Request) -> bool:
    real = [o for o in options if o != ""]
    return not real or "" in options or any(_grounded(o, schema, name, req) for o in real)


def grounding_check(candidate: Candidate, tools: dict[str, FunctionDoc]) -> Drop | None:
    """A `hallucinated` drop naming the first expected value the request does not give."""
    req = _Request(candidate.request)
    for call in candidate.possible_answer():
        for fname, params in call.items():
            props = tools[fname].parameters.get("properties") or {}
            for param, options in params.items():
                schema = _schema_of(props, param)
                if not _any_grounded(options, schema, param, req):
                    shown = [o for o in options if o != ""]
                    return Drop(
                        candidate.tool,
                        DropReason.HALLUCINATED,
                        f"{fname}.{param} = {shown[0]!r:.80} is not in the request",
                        candidate.request,
                    )
    return None
