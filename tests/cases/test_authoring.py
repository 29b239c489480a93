"""One reading of authored answers: an own case and a Live item written from the same answer
hold the same possible answer, and both are judged fair by the same rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cases.authoring import (
    call_problems,
    call_shape,
    checker_objection,
    expected_calls,
    option_problem,
    to_options,
)
from bfcl_action.cases.own import parse_cases
from bfcl_action.core.records import FunctionDoc, Message, TestCase
from bfcl_action.tools import load_tools
from curation.categorize import categorize
from curation.intake import Intake
from curation.models import Origin

SEARCH = {
    "name": "search_issues",
    "description": "Search the tracker's issues.",
    "parameters": {
        "type": "dict",
        "properties": {
            "query": {"type": "string", "description": "Free text"},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels"},
            "state": {"type": "string", "enum": ["open", "closed"], "description": "State"},
            "filters": {
                "type": "dict",
                "description": "Narrowing",
                "properties": {
                    "authors": {"type": "array", "items": {"type": "string"}},
                    "limit": {"type": "integer"},
                },
            },
        },
        "required": ["query"],
    },
}

AUTHORED: list[dict[str, Any]] = [
    {"query": "crash"},
    {"query": ["crash", "segfault"], "state": ["open", ""]},
    {"query": "crash", "tags": [["a"], ""]},
    {"query": "crash", "tags": ["a", "b"]},
    {"query": "crash", "tags": [["a", "b"], ["b", "a"]]},
    {"query": "crash", "filters": {"authors": ["ann", "bo"], "limit": [5, ""]}},
    {"query": "crash", "filters": [{"authors": [["ann"], ""]}, ""]},
]


def own_answer(tmp_path: Path, args: dict[str, Any]) -> list[Any]:
    (tmp_path / "tools.json").write_text(json.dumps([SEARCH]))
    tools = load_tools(["tools.json"], base_dir=tmp_path).functions
    text = json.dumps([{"id": "c", "question": "Find crashes", "expect": [{SEARCH["name"]: args}]}])
    (case,) = parse_cases(text, "cases.yml", tools)
    return case.possible_answer


def live_answer(args: dict[str, Any]) -> list[Any]:
    intake = Intake()
    raw = {
        "question": "Find crashes",
        "functions": [SEARCH],
        "ground_truth": [{SEARCH["name"]: args}],
        "contributor": "alice",
    }
    intake.add(raw, Origin(kind="file", ref="x:1"))
    assert not intake.drops, intake.drops
    return intake.items[0].possible_answer


@pytest.mark.parametrize("args", AUTHORED, ids=[json.dumps(a) for a in AUTHORED])
def test_an_own_case_and_a_live_item_hold_the_same_possible_answer(
    tmp_path: Path, args: dict[str, Any]
) -> None:
    assert own_answer(tmp_path, args) == live_answer(args)


def test_an_array_list_of_lists_or_omit_is_options_everywhere(tmp_path: Path) -> None:
    args = {"query": "crash", "tags": [["a"], ""]}
    expected = [{"search_issues": {"query": ["crash"], "tags": [["a"], ""]}}]
    assert own_answer(tmp_path, args) == expected
    assert live_answer(args) == expected


def test_inner_values_of_an_object_follow_their_own_schema() -> None:
    doc = FunctionDoc.model_validate(SEARCH)
    (call,) = expected_calls(
        [{"search_issues": {"query": "x", "filters": {"authors": ["ann", "bo"], "limit": 5}}}],
        [doc],
    )
    assert call["search_issues"]["filters"] == [{"authors": [["ann", "bo"]], "limit": [5]}]


def test_a_list_for_an_array_parameter_is_one_value_unless_all_items_are_options() -> None:
    array = {"type": "array"}
    assert to_options(["a", "b"], array) == [["a", "b"]]
    assert to_options([["a"], ["b"]], array) == [["a"], ["b"]]
    assert to_options([["a"], ""], array) == [["a"], ""]
    assert to_options([], array) == [[]]


def test_option_problems_name_type_enum_and_array_items() -> None:
    assert option_problem(3, {"type": "float"}) is None
    assert option_problem("3", {"type": "integer"}) == "expected type integer"
    assert option_problem("pending", {"type": "string", "enum": ["open"]})
    assert "array item 1" in (
        option_problem([1], {"type": "array", "items": {"type": "string"}}) or ""
    )
    assert option_problem("", {"type": "integer"}) is None


def test_an_option_equal_to_an_enum_value_after_the_checkers_normalisation_is_fine() -> None:
    schema = {"type": "string", "enum": ["new york", "paris"]}
    assert option_problem("New-York", schema) is None
    assert option_problem("Lyon", schema)


def test_call_problems_carry_stable_codes() -> None:
    doc = FunctionDoc.model_validate(SEARCH)
    codes = [p.code for p in call_problems({"tags": [""], "nope": [1], "state": ["x"]}, doc)]
    assert sorted(codes) == ["answer_type_mismatch", "missing_required", "unknown_parameter"]
    only_omit = call_problems({"query": [""]}, doc)
    assert [p.code for p in only_omit] == ["required_omittable"]


@pytest.mark.parametrize(
    ("offered", "calls", "shape"),
    [
        (1, None, "relevance"),
        (3, 0, "irrelevance"),
        (1, 1, "simple"),
        (2, 1, "multiple"),
        (1, 2, "parallel"),
        (2, 3, "parallel_multiple"),
    ],
)
def test_call_shape_is_bfcls_rule(offered: int, calls: int | None, shape: str) -> None:
    assert call_shape(offered, calls) == shape


def test_own_and_live_categories_come_from_the_same_shape(tmp_path: Path) -> None:
    intake = Intake()
    raw = {
        "question": "Find crashes",
        "functions": [SEARCH],
        "ground_truth": [{"search_issues": {"query": "a"}}, {"search_issues": {"query": "b"}}],
        "contributor": "alice",
    }
    intake.add(raw, Origin(kind="file", ref="x:1"))
    (tmp_path / "tools.json").write_text(json.dumps([SEARCH]))
    tools = load_tools(["tools.json"], base_dir=tmp_path).functions
    text = json.dumps(
        [{"id": "c", "question": "q", "expect": raw["ground_truth"]}]  # type: ignore[index]
    )
    (case,) = parse_cases(text, "cases.yml", tools)
    assert case.category == "own_parallel"
    assert categorize(intake.items[0]) == "live_parallel"


def _case(answer: list[Any], category: str = "live_simple") -> TestCase:
    return TestCase(
        id="t",
        category=category,
        question=[[Message(role="user", content="q")]],
        functions=[FunctionDoc.model_validate(SEARCH)],
        possible_answer=answer,
    )


def test_an_answer_passes_when_its_first_options_pass() -> None:
    assert checker_objection(_case([{"search_issues": {"query": ["crash"]}}])) is None


def test_an_answer_passes_when_leaving_the_omittable_parameters_out_passes() -> None:
    # The first option of `state` is outside the schema's type: only omitting it can pass.
    answer = [{"search_issues": {"query": ["crash"], "state": [7, ""]}}]
    assert checker_objection(_case(answer)) is None


def test_an_answer_no_output_can_pass_is_reported_with_the_checkers_reason() -> None:
    answer = [{"search_issues": {"state": ["open"]}}]  # the required `query` is missing
    reason = checker_objection(_case(answer))
    assert reason is not None and "missing_required" in reason


def test_relevance_answers_are_not_checked_as_argument_lists() -> None:
    answer = [{"search_issues": {"query": [5]}}]
    assert checker_objection(_case(answer, "live_relevance")) is None
