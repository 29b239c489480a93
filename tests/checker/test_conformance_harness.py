"""The conformance harness itself: generation is deterministic and renders what models write.

These tests need neither bfcl-eval nor our checker; the comparison runs in `nox -s conformance`.
"""

from __future__ import annotations

import ast
import json

from bfcl_action.core.records import Language, TestCase
from tests.conformance import run
from tests.conformance.generate import (
    case_samples,
    java_src,
    js_src,
    python_text,
    truth_calls,
)


def _case(**kw: object) -> TestCase:
    base: dict[str, object] = {
        "id": "simple_python_0",
        "category": "simple_python",
        "question": [[{"role": "user", "content": "q"}]],
        "functions": [
            {
                "name": "geo.area",
                "parameters": {
                    "type": "dict",
                    "properties": {
                        "base": {"type": "integer"},
                        "unit": {"type": "string"},
                        "opts": {"type": "dict", "properties": {}},
                    },
                    "required": ["base"],
                },
            }
        ],
        "possible_answer": [
            {"geo.area": {"base": [10], "unit": ["", "cm"], "opts": [{"k": ["v", "w"]}]}}
        ],
    }
    base.update(kw)
    return TestCase.model_validate(base)


def test_same_seed_gives_the_same_samples() -> None:
    case = _case()
    assert case_samples(case, 3) == case_samples(case, 3)


def test_another_seed_changes_some_mutations() -> None:
    case = _case()
    keys = lambda seed: [(s.key, repr(s.output)) for s in case_samples(case, seed)]  # noqa: E731
    assert keys(0) != keys(1)


def test_truth_takes_first_option_and_resolves_dict_options() -> None:
    assert truth_calls(_case()) == [{"geo.area": {"base": 10, "unit": "cm", "opts": {"k": "v"}}}]


def test_minimal_truth_drops_omittable_parameters() -> None:
    assert truth_calls(_case(), minimal=True) == [{"geo.area": {"base": 10, "opts": {"k": "v"}}}]


def test_truth_is_rendered_in_all_three_representations() -> None:
    reps = {s.rep for s in case_samples(_case()) if s.kind == "truth"}
    assert reps == {"decoded", "prompt", "fc"}


def test_python_text_parses_as_a_list_of_calls() -> None:
    text = python_text(truth_calls(_case()))
    tree = ast.parse(text, mode="eval")
    assert isinstance(tree.body, ast.List)
    assert isinstance(tree.body.elts[0], ast.Call)


def test_fc_rendering_holds_json_arguments() -> None:
    fc = next(s for s in case_samples(_case()) if s.kind == "truth" and s.rep == "fc")
    assert json.loads(fc.output[0]["geo.area"]) == {"base": 10, "unit": "cm", "opts": {"k": "v"}}


def test_java_values_are_written_as_java_source() -> None:
    assert java_src(5, "long") == "5L"
    assert java_src(1.5, "float") == "1.5f"
    assert java_src(True, "boolean") == "true"
    assert java_src([1, 2], "Array", "integer") == "new int[]{1, 2}"
    assert java_src(["a"], "ArrayList", "String") == 'new ArrayList<>(Arrays.asList("a"))'


def test_java_source_expressions_in_answers_stay_unquoted() -> None:
    assert java_src('new Foo("a", 1)', "any") == 'new Foo("a", 1)'


def test_javascript_values_are_written_as_javascript_source() -> None:
    assert js_src(7, "Bigint") == "7n"
    assert js_src({"a": [1, "x"]}, "dict") == '{"a": [1, "x"]}'


def test_java_decoded_values_are_strings_of_source_text() -> None:
    case = _case(
        id="simple_java_0",
        category="simple_java",
        language=Language.JAVA,
        functions=[
            {
                "name": "A.b",
                "parameters": {
                    "type": "dict",
                    "properties": {"n": {"type": "long"}, "s": {"type": "String"}},
                    "required": ["n"],
                },
            }
        ],
        possible_answer=[{"A.b": {"n": [5], "s": ["x"]}}],
    )
    truth = next(s for s in case_samples(case) if s.kind == "truth" and s.rep == "decoded")
    assert truth.output == [{"A.b": {"n": "5L", "s": "x"}}]


def test_irrelevance_cases_get_calls_and_prose() -> None:
    case = _case(id="irrelevance_0", category="irrelevance", possible_answer=[])
    kinds = {s.kind for s in case_samples(case)}
    assert {"irr_call", "irr_empty_list", "prose_plain"} <= kinds


def test_every_deviation_has_a_reason() -> None:
    for dev in run.load_deviations():
        assert dev.reason.strip(), dev


def test_deviation_globs_match_case_kind_and_representation() -> None:
    dev = run.Deviation(id="simple_java_*", kind="text_*", rep="prompt", reason="r")
    assert dev.covers("simple_java_3", "text_fence", "prompt")
    assert not dev.covers("simple_java_3", "text_fence", "decoded")


def test_docs_list_exactly_the_deviations_of_the_data_file() -> None:
    section = run.deviations_markdown(run.load_deviations())
    assert section in run.DOCS_FILE.read_text(encoding="utf-8")


def test_unexplained_keeps_only_valid_disagreements_without_deviation() -> None:
    report = {
        "disagreements": [
            {"valid_differs": True, "deviation": None},
            {"valid_differs": True, "deviation": "known"},
            {"valid_differs": False, "deviation": None},
        ]
    }
    assert run.unexplained(report) == [{"valid_differs": True, "deviation": None}]
