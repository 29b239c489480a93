"""BFCL's AST rules for Python values, one behaviour per test (simple_python cases)."""

from __future__ import annotations

from typing import Any

import pytest

from bfcl_action.checker import CheckVerdict, check_calls
from bfcl_action.core.records import Call
from tests.support.checker_cases import (
    ANY,
    BOOLEAN,
    DICT,
    FLOAT,
    INTEGER,
    STRING,
    array,
    call,
    case,
    fn,
)


def check_one(
    schema: dict[str, Any], options: list[Any], value: Any, *, required: bool = True
) -> CheckVerdict:
    """Check `f(x=value)` against a one-parameter function whose answer lists `options`."""
    doc = fn("f", ("x",) if required else (), x=schema)
    return check_calls(case("simple_python", [doc], [{"f": {"x": options}}]), [call("f", x=value)])


def check_simple(calls: list[Call], **answer: list[Any]) -> CheckVerdict:
    doc = fn("f", ("a",), a=STRING, b=INTEGER)
    return check_calls(case("simple_python", [doc], [{"f": answer}]), calls)


def test_exact_ground_truth_is_valid() -> None:
    assert check_simple([call("f", a="x", b=1)], a=["x"], b=[1]).valid


def test_no_call_is_wrong_count() -> None:
    assert check_simple([], a=["x"]).error_type == "simple_function_checker:wrong_count"


def test_two_calls_are_wrong_count() -> None:
    verdict = check_simple([call("f", a="x"), call("f", a="x")], a=["x"])
    assert verdict.error_type == "simple_function_checker:wrong_count"


def test_other_function_name_is_wrong_func_name() -> None:
    verdict = check_simple([call("g", a="x")], a=["x"])
    assert verdict.error_type == "simple_function_checker:wrong_func_name"


def test_function_name_is_case_sensitive() -> None:
    verdict = check_simple([call("F", a="x")], a=["x"])
    assert verdict.error_type == "simple_function_checker:wrong_func_name"


def test_missing_schema_required_param_is_missing_required() -> None:
    verdict = check_simple([call("f", b=1)], a=["x"], b=[1])
    assert verdict.error_type == "simple_function_checker:missing_required"


def test_param_outside_schema_is_unexpected() -> None:
    verdict = check_simple([call("f", a="x", c=1)], a=["x"])
    assert verdict.error_type == "simple_function_checker:unexpected_param"


def test_schema_param_absent_from_answer_is_unexpected() -> None:
    verdict = check_simple([call("f", a="x", b=1)], a=["x"])
    assert verdict.error_type == "simple_function_checker:unexpected_param"


def test_answer_param_left_out_without_empty_option_is_missing_optional() -> None:
    verdict = check_simple([call("f", a="x")], a=["x"], b=[1])
    assert verdict.error_type == "simple_function_checker:missing_optional"


def test_answer_param_with_empty_option_may_be_left_out() -> None:
    assert check_simple([call("f", a="x")], a=["x"], b=[1, ""]).valid


def test_required_check_comes_before_unexpected_params() -> None:
    verdict = check_simple([call("f", c=1)], a=["x"])
    assert verdict.error_type == "simple_function_checker:missing_required"


def test_first_bad_argument_in_output_order_decides_the_error() -> None:
    verdict = check_simple([call("f", a=5, c=1)], a=["x"])
    assert verdict.error_type == "type_error:simple"


def test_simple_case_is_checked_against_the_first_function_doc() -> None:
    docs = [fn("first", x=STRING), fn("second", x=STRING)]
    verdict = check_calls(
        case("simple_python", docs, [{"second": {"x": ["v"]}}]), [call("second", x="v")]
    )
    assert verdict.error_type == "simple_function_checker:wrong_func_name"


def test_string_for_integer_is_type_error() -> None:
    assert check_one(INTEGER, [5], "5").error_type == "type_error:simple"


def test_bool_is_not_an_integer() -> None:
    assert check_one(INTEGER, [1], True).error_type == "type_error:simple"


def test_integer_is_not_a_bool() -> None:
    assert check_one(BOOLEAN, [True], 1).error_type == "type_error:simple"


def test_whole_float_is_not_an_integer() -> None:
    assert check_one(INTEGER, [3], 3.0).error_type == "type_error:simple"


def test_integer_is_accepted_for_float() -> None:
    assert check_one(FLOAT, [5.0], 5).valid


def test_integer_for_float_still_needs_the_right_value() -> None:
    assert check_one(FLOAT, [5.5], 5).error_type == "value_error:others"


def test_integer_items_are_not_accepted_for_float_items() -> None:
    assert check_one(array("float"), [[1.0, 2.0]], [1, 2]).error_type == "type_error:nested"


def test_numbers_have_no_tolerance() -> None:
    assert check_one(FLOAT, [0.3], 0.1 + 0.2).error_type == "value_error:others"


def test_wrong_number_is_value_error_others() -> None:
    assert check_one(INTEGER, [5], 6).error_type == "value_error:others"


def test_null_passes_when_answer_lists_none_first() -> None:
    assert check_one(STRING, [None, ""], None, required=False).valid


def test_null_fails_when_answer_does_not_list_none() -> None:
    assert check_one(STRING, ["x"], None).error_type == "type_error:simple"


def test_explicit_empty_string_matches_the_omission_marker() -> None:
    assert check_one(STRING, ["x", ""], "", required=False).valid


def test_string_compare_ignores_case_spaces_and_some_punctuation() -> None:
    assert check_one(STRING, ["New York, NY"], "new-york ny.").valid


def test_string_compare_maps_single_to_double_quotes() -> None:
    assert check_one(STRING, ['say "hi"'], "say 'hi'").valid


def test_string_compare_keeps_other_punctuation() -> None:
    assert check_one(STRING, ["a:b"], "ab").error_type == "value_error:string"


def test_string_compare_keeps_accents() -> None:
    assert check_one(STRING, ["cafe"], "café").error_type == "value_error:string"


def test_any_type_is_checked_as_string() -> None:
    assert check_one(ANY, ["Some Value"], "somevalue").valid


def test_variable_answer_accepts_value_of_the_options_type() -> None:
    assert check_one(DICT, ["config"], "config").valid


def test_variable_answer_compares_exactly_without_normalising() -> None:
    assert check_one(DICT, ["config"], "Config").error_type == "value_error:others"


def test_list_items_are_normalised_and_ordered() -> None:
    assert check_one(array("string"), [["New York", "LA"]], ["new york", "la"]).valid


def test_list_in_other_order_is_value_error() -> None:
    verdict = check_one(array("string"), [["a", "b"]], ["b", "a"])
    assert verdict.error_type == "value_error:list/tuple"


def test_list_with_wrong_item_type_is_nested_type_error() -> None:
    assert check_one(array("integer"), [[1, 2]], [1, "2"]).error_type == "type_error:nested"


def test_tuple_value_counts_as_list_for_tuple_type() -> None:
    schema = {"type": "tuple", "items": {"type": "integer"}}
    assert check_one(schema, [[1, 2]], (1, 2)).valid


def test_empty_list_matches_an_empty_string_option() -> None:
    assert check_one(array("string"), [["a"], ""], [], required=False).valid


def test_dict_values_are_normalised() -> None:
    options = [{"city": ["New York"], "days": [3]}]
    assert check_one(DICT, options, {"city": "new york", "days": 3}).valid


def test_dict_with_unknown_key_is_dict_key_error() -> None:
    options = [{"city": ["Paris"]}]
    assert check_one(DICT, options, {"city": "Paris", "x": 1}).error_type == "value_error:dict_key"


def test_dict_with_wrong_value_is_dict_value_error() -> None:
    options = [{"city": ["Paris"]}]
    assert check_one(DICT, options, {"city": "Rome"}).error_type == "value_error:dict_value"


def test_dict_missing_a_required_key_is_dict_key_error() -> None:
    options = [{"city": ["Paris"], "days": [3]}]
    assert check_one(DICT, options, {"city": "Paris"}).error_type == "value_error:dict_key"


def test_dict_key_with_empty_option_may_be_left_out() -> None:
    options = [{"city": ["Paris"], "days": [3, ""]}]
    assert check_one(DICT, options, {"city": "Paris"}).valid


def test_dict_missing_key_wins_over_wrong_value() -> None:
    options = [{"city": ["Paris"], "days": [3]}]
    assert check_one(DICT, options, {"city": "Rome"}).error_type == "value_error:dict_key"


def test_nested_dict_values_use_plain_equality() -> None:
    options = [{"inner": [{"a": "X"}]}]
    assert check_one(DICT, options, {"inner": {"a": "x"}}).error_type == "value_error:dict_value"


def test_dict_given_where_only_omission_is_allowed_is_unclear() -> None:
    verdict = check_one(DICT, [""], {"a": 1}, required=False)
    assert verdict.error_type == "dict_checker:unclear"


def test_list_of_dicts_matches_position_by_position() -> None:
    options = [[{"n": ["a"]}, {"n": ["b"]}]]
    assert check_one(array("dict"), options, [{"n": "A"}, {"n": "B"}]).valid


def test_list_of_dicts_of_other_length_is_count_error() -> None:
    options = [[{"n": ["a"]}, {"n": ["b"]}]]
    verdict = check_one(array("dict"), options, [{"n": "a"}])
    assert verdict.error_type == "value_error:list_dict_count"


def test_list_of_dicts_in_other_order_is_dict_value_error() -> None:
    options = [[{"n": ["a"]}, {"n": ["b"]}]]
    verdict = check_one(array("dict"), options, [{"n": "b"}, {"n": "a"}])
    assert verdict.error_type == "value_error:dict_value"


@pytest.mark.parametrize("value", [1, "x", [1]])
def test_dict_schema_rejects_non_dicts(value: Any) -> None:
    assert check_one(DICT, [{"a": [1]}], value).error_type == "type_error:simple"


def test_error_message_says_expected_and_got() -> None:
    verdict = check_one(INTEGER, [5], 6)
    assert "6" in verdict.error[0] and "[5]" in verdict.error[0]


def test_empty_string_item_against_empty_string_option_in_list_of_dicts_is_unclear() -> None:
    verdict = check_one(array("dict"), ["", ["", {"a": [1]}]], ["", {"a": 1}], required=False)
    assert verdict.error_type == "dict_checker:unclear"


def test_integer_items_pass_when_the_option_list_starts_with_an_integer() -> None:
    assert check_one(array("float"), [[1, 2.5]], [1, 2.5]).valid
