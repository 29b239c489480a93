"""Stage 1: reject what cannot become a fair test, each with a reason.

A fair test has sane sizes, a schema a model can read, an accepted license, and an answer
that some output can pass. The last is checked by rendering the expected calls with each
parameter's first option and running our own checker on them: BFCL shipped entries whose
answer no output could pass, and they must not reach a release.
"""

from __future__ import annotations

import json
from typing import Any

from bfcl_action.cases.authoring import checker_objection, option_problem
from bfcl_action.core.records import FunctionDoc, TestCase
from curation.models import Item
from curation.settings import CurationSettings


class Rejection(Exception):
    """Why an item is not admitted: a short reason code and a human detail."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def _schema_shape(value: Any, depth: int = 0) -> tuple[int, int]:
    """(max depth, node count) of a JSON value, iteratively so a bomb cannot recurse us."""
    max_depth, nodes = 0, 0
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        node, d = stack.pop()
        nodes += 1
        max_depth = max(max_depth, d)
        if isinstance(node, dict):
            stack.extend((v, d + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, d + 1) for v in node)
    return max_depth, nodes


def check_sizes(item: Item, settings: CurationSettings) -> None:
    lim = settings.limits
    question = " ".join(m.content or "" for turn in item.question for m in turn)
    if not question.strip():
        raise Rejection("empty_question", "the question has no text")
    if len(question) > lim.max_question_chars:
        raise Rejection(
            "too_large", f"question has {len(question)} chars > {lim.max_question_chars}"
        )
    if not item.functions and item.possible_answer:
        raise Rejection("no_functions", "the answer expects a call but no function is offered")
    if len(item.functions) > lim.max_functions:
        raise Rejection("too_large", f"{len(item.functions)} functions > {lim.max_functions}")
    if len(item.possible_answer) > lim.max_calls:
        raise Rejection("too_large", f"{len(item.possible_answer)} calls > {lim.max_calls}")
    for f in item.functions:
        depth, nodes = _schema_shape(f.parameters)
        if depth > lim.max_schema_depth or nodes > lim.max_schema_nodes:
            raise Rejection(
                "schema_too_complex",
                f"{f.name}: depth {depth} / {nodes} nodes (limits {lim.max_schema_depth} / "
                f"{lim.max_schema_nodes})",
            )
        desc_chars = _longest_description(f)
        if desc_chars > lim.max_description_chars:
            raise Rejection(
                "too_large",
                f"{f.name}: a description has {desc_chars} chars > {lim.max_description_chars}",
            )
    size = len(json.dumps(item.model_dump(mode="json"), ensure_ascii=False).encode("utf-8"))
    if size > lim.max_item_bytes:
        raise Rejection("too_large", f"item is {size} bytes > {lim.max_item_bytes}")


def _longest_description(doc: FunctionDoc) -> int:
    longest = len(doc.description)
    stack: list[Any] = [doc.parameters]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            d = node.get("description")
            if isinstance(d, str):
                longest = max(longest, len(d))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return longest


def check_license(item: Item, settings: CurationSettings) -> None:
    if item.license not in settings.licenses:
        raise Rejection(
            "license",
            f"{item.license!r} is not accepted; use one of {', '.join(settings.licenses)}",
        )


def check_names(item: Item) -> None:
    names = [f.name for f in item.functions]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise Rejection("duplicate_function", f"functions defined twice: {', '.join(dupes)}")
    for call in item.possible_answer:
        for name in call:
            if name not in names:
                raise Rejection("unknown_function", f"the answer calls {name!r}, not offered")


def _bad_option(option: Any, spec: dict[str, Any]) -> str | None:
    """Why a schema-following output can never produce this option, or None if it can
    (`bfcl_action.cases.authoring.option_problem`, the rule own cases follow too)."""
    problem = option_problem(option, spec)
    return f"option {option!r}: {problem}" if problem else None


def prune_answer_options(item: Item) -> list[str]:
    """Remove every option no schema-following output can produce; the notes say which.

    BFCL's checker accepts a value of a wrong-typed option's type by exact membership, but a
    model that follows the schema never produces it, and an out-of-enum value likewise. Such
    an option is pruned (with a note) rather than the whole entry rejected, because another
    option, often `""` (may be omitted), can still pass. Only when nothing is left for a
    parameter is the entry rejected. A parameter absent from the schema is dropped when it
    may be omitted: an output can never carry it.
    """
    docs = {f.name: f for f in item.functions}
    notes: list[str] = []
    answer: list[dict[str, dict[str, list[Any]]]] = []
    for expected in item.possible_answer:
        call: dict[str, dict[str, list[Any]]] = {}
        for name, params in expected.items():
            props = docs[name].parameters.get("properties", {})
            kept_params: dict[str, list[Any]] = {}
            for param, options in params.items():
                spec = props.get(param) if isinstance(props, dict) else None
                if not isinstance(spec, dict):
                    if "" in options:
                        notes.append(f"pruned {name}.{param}: not in the schema, may be omitted")
                        continue
                    raise Rejection("unknown_parameter", f"{name}.{param} is not in the schema")
                if not options:
                    raise Rejection("empty_options", f"{name}.{param} has no acceptable value")
                kept, why = [], []
                for option in options:
                    bad = _bad_option(option, spec)
                    if bad is None:
                        kept.append(option)
                    else:
                        why.append(bad)
                if not kept:
                    reason = (
                        "answer_outside_enum"
                        if all("enum" in w for w in why)
                        else "answer_type_mismatch"
                    )
                    raise Rejection(reason, f"{name}.{param}: {'; '.join(why)}")
                notes.extend(f"pruned {name}.{param}: {w}" for w in why)
                kept_params[param] = kept
            call[name] = kept_params
        answer.append(call)
    item.possible_answer = answer
    return notes


def check_answer_passes(item: Item, category: str) -> None:
    """The answer must pass our checker (AST categories); otherwise no output ever could."""
    case = TestCase(
        id=item.origin.ref,
        category=category,
        question=item.question,
        functions=item.functions,
        possible_answer=item.possible_answer,
    )
    objection = checker_objection(case)
    if objection:
        raise Rejection("unpassable_answer", objection)
