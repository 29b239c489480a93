"""Turn a contribution into an `Item`: functions in BFCL's form, answers as option lists.

Contributors may write an argument as a plain value or as a list of acceptable options. A
list is read as options, except for a parameter whose schema type is an array (or tuple):
there a list is the value itself, and only a list of lists is read as options. For a dict
parameter, each key of a dict value likewise holds a value or a list of options.
"""

from __future__ import annotations

from typing import Any

from bfcl_action.models import ExpectedCall, FunctionDoc, Message
from curation.models import Contribution, Item, Origin

_ARRAY_TYPES = {"array", "tuple", "list"}
_DICT_TYPES = {"dict", "object"}


def question_turns(question: str | list[Message]) -> list[list[Message]]:
    """A single-turn question as BFCL writes it: one turn of chat messages."""
    if isinstance(question, str):
        return [[Message(role="user", content=question)]]
    return [list(question)]


def _param_type(doc: FunctionDoc | None, param: str) -> str:
    if doc is None:
        return ""
    props = doc.parameters.get("properties", {})
    spec = props.get(param, {}) if isinstance(props, dict) else {}
    kind = spec.get("type", "") if isinstance(spec, dict) else ""
    return kind if isinstance(kind, str) else ""


def _nested(value: Any) -> Any:
    """Dict answers hold an option list per key (BFCL's form); plain values become one option."""
    if isinstance(value, dict):
        return {k: v if isinstance(v, list) else [v] for k, v in value.items()}
    return value


def _options(value: Any, param_type: str) -> list[Any]:
    if param_type in _DICT_TYPES:
        if isinstance(value, dict):
            return [_nested(value)]
        return [_nested(v) for v in value] if isinstance(value, list) else [value]
    if not isinstance(value, list):
        return [value]
    if param_type in _ARRAY_TYPES:
        if value and all(isinstance(v, list) for v in value):
            return list(value)
        return [value]
    return list(value)


def expected_calls(
    ground_truth: list[dict[str, dict[str, Any]]], functions: list[FunctionDoc]
) -> list[ExpectedCall]:
    """Ground truth in BFCL's possible-answer form: every argument a list of options."""
    by_name = {f.name: f for f in functions}
    calls: list[ExpectedCall] = []
    for call in ground_truth:
        for name, args in call.items():
            doc = by_name.get(name)
            calls.append(
                {name: {p: _options(v, _param_type(doc, p)) for p, v in (args or {}).items()}}
            )
    return calls


def to_item(contribution: Contribution, functions: list[FunctionDoc], origin: Origin) -> Item:
    """Normalise one contribution whose functions were already parsed by the tool loaders."""
    return Item(
        origin=origin,
        question=question_turns(contribution.question),
        functions=functions,
        possible_answer=expected_calls(contribution.ground_truth, functions),
        contributor=contribution.contributor,
        license=contribution.license,
        source=contribution.source,
        requested_category=contribution.category,
        publish_handle=contribution.publish_handle,
    )
