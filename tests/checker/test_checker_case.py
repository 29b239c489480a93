"""`check_case` and `judge`: raw model output in (FC calls or prompt text), a verdict out."""

from __future__ import annotations

import pytest

from bfcl_action.checker import check_case, judge
from bfcl_action.core.records import Language, Mode
from tests.support.checker_cases import INTEGER, STRING, call, case, fn

WEATHER = case(
    "simple_python",
    [fn("get_weather", ("city",), city=STRING, days=INTEGER)],
    [{"get_weather": {"city": ["Paris"], "days": [3, ""]}}],
)
IRRELEVANT = case("irrelevance", [fn("get_weather", city=STRING)], [])
RELEVANT = case("live_relevance", [fn("get_weather", city=STRING)], [])


def test_fc_output_with_json_arguments_is_decoded_and_checked() -> None:
    result = check_case(WEATHER, [{"get_weather": '{"city": "paris"}'}], mode=Mode.FC)
    assert result.valid
    assert result.decoded == [call("get_weather", city="paris")]


def test_prompt_text_is_decoded_and_checked() -> None:
    result = check_case(WEATHER, "[get_weather(city='Paris', days=3)]", mode=Mode.PROMPT)
    assert result.valid


def test_prompt_text_with_a_wrong_value_fails_with_its_error_type() -> None:
    result = check_case(WEATHER, "[get_weather(city='Rome')]", mode=Mode.PROMPT)
    assert (result.valid, result.error_type) == (False, "value_error:string")


def test_undecodable_prompt_text_is_decoder_failed() -> None:
    result = check_case(WEATHER, "I think it is sunny in Paris.", mode=Mode.PROMPT)
    assert result.error_type == "ast_decoder:decoder_failed"


def test_fc_prose_is_not_a_call() -> None:
    result = check_case(WEATHER, "It is sunny.", mode=Mode.FC)
    assert not result.valid and (result.error_type or "").startswith("ast_decoder:")


def test_already_decoded_calls_are_checked_as_given() -> None:
    result = check_case(WEATHER, [call("get_weather", city="Paris")], mode=Mode.FC)
    assert result.valid


def test_result_carries_case_identity_and_raw_output() -> None:
    result = check_case(WEATHER, "[get_weather(city='Rome')]", mode=Mode.PROMPT)
    assert (result.id, result.category, result.model_output) == (
        "simple_python_0",
        "simple_python",
        "[get_weather(city='Rome')]",
    )
    assert result.error


def test_irrelevance_prose_is_correct() -> None:
    assert check_case(IRRELEVANT, "I cannot help with that.", mode=Mode.PROMPT).valid


def test_irrelevance_empty_call_list_is_correct() -> None:
    assert check_case(IRRELEVANT, "[]", mode=Mode.PROMPT).valid


def test_irrelevance_call_is_decoder_success() -> None:
    result = check_case(IRRELEVANT, "[get_weather(city='Paris')]", mode=Mode.PROMPT)
    assert result.error_type == "irrelevance_error:decoder_success"


def test_irrelevance_fc_call_is_decoder_success() -> None:
    result = check_case(IRRELEVANT, [{"get_weather": '{"city": "x"}'}], mode=Mode.FC)
    assert result.error_type == "irrelevance_error:decoder_success"


def test_relevance_any_call_is_correct() -> None:
    assert check_case(RELEVANT, "[get_weather(city='Mars')]", mode=Mode.PROMPT).valid


def test_relevance_prose_is_decoder_failed() -> None:
    result = check_case(RELEVANT, "No idea.", mode=Mode.PROMPT)
    assert result.error_type == "relevance_error:decoder_failed"


def test_multi_turn_categories_are_not_checked_here() -> None:
    multi = case("multi_turn_base", [], [])
    result = check_case(multi, [], mode=Mode.FC)
    assert result.error_type == "checker:unsupported_category"


def test_java_prompt_values_reach_the_checker_as_source_text() -> None:
    java = case(
        "simple_java",
        [fn("Calc.add", ("a", "b"), a={"type": "integer"}, b={"type": "long"})],
        [{"Calc.add": {"a": [5], "b": [7]}}],
        Language.JAVA,
    )
    assert check_case(java, "Calc.add(a=5, b=7L)", mode=Mode.PROMPT).valid


def test_javascript_prompt_values_reach_the_checker_as_source_text() -> None:
    js = case(
        "simple_javascript",
        [fn("add", ("a",), a={"type": "array", "items": {"type": "integer"}})],
        [{"add": {"a": [[1, 2]]}}],
        Language.JAVASCRIPT,
    )
    assert check_case(js, "add(a=[1, 2])", mode=Mode.PROMPT).valid


@pytest.mark.parametrize(
    ("output", "mode"),
    [
        ("[get_weather(city='Rome')]", Mode.PROMPT),
        ("[get_weather(city='Paris', days=3)]", Mode.PROMPT),
        ("I think it is sunny.", Mode.PROMPT),
        ([{"get_weather": '{"city": "paris"}'}], Mode.FC),
        ([{"get_weather": "not json"}], Mode.FC),
    ],
)
def test_judge_is_check_case_without_the_report_record(output: object, mode: Mode) -> None:
    verdict, decoded = judge(WEATHER, output, mode=mode)
    result = check_case(WEATHER, output, mode=mode)
    assert (verdict.valid, verdict.error_type, list(verdict.error)) == (
        result.valid,
        result.error_type,
        result.error,
    )
    assert decoded == result.decoded


def test_judge_never_raises_on_an_unusable_case() -> None:
    broken = case("simple_python", [], [{"get_weather": {"city": ["Paris"]}}])
    verdict, _ = judge(broken, "[get_weather(city='Paris')]", mode=Mode.PROMPT)
    assert (verdict.valid, verdict.error_type) == (False, "checker:invalid_case")
