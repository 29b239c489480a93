"""Multiple (one call of several offered functions) and parallel (order-free) matching."""

from __future__ import annotations

from bfcl_action.checker import check_calls
from bfcl_action.core.records import Call, ExpectedCall
from tests.support.checker_cases import INTEGER, STRING, call, case, fn

DOCS = [fn("weather", ("city",), city=STRING, days=INTEGER), fn("time", ("zone",), zone=STRING)]


def parallel(calls: list[Call], answer: list[ExpectedCall]) -> tuple[bool, str | None]:
    verdict = check_calls(case("parallel_multiple", DOCS, answer), calls)
    return verdict.valid, verdict.error_type


def multiple(calls: list[Call], answer: list[ExpectedCall]) -> tuple[bool, str | None]:
    verdict = check_calls(case("multiple", DOCS, answer), calls)
    return verdict.valid, verdict.error_type


PARIS = {"weather": {"city": ["Paris"], "days": [3, ""]}}
ROME = {"weather": {"city": ["Rome"], "days": [3, ""]}}
UTC = {"time": {"zone": ["UTC"]}}


def test_multiple_checks_the_call_against_the_answers_function() -> None:
    assert multiple([call("time", zone="utc")], [UTC]) == (True, None)


def test_multiple_with_other_offered_function_is_wrong_func_name() -> None:
    result = multiple([call("weather", city="Paris")], [UTC])
    assert result == (False, "simple_function_checker:wrong_func_name")


def test_multiple_with_two_calls_is_wrong_count() -> None:
    result = multiple([call("time", zone="UTC"), call("time", zone="UTC")], [UTC])
    assert result == (False, "multiple_function_checker:wrong_count")


def test_parallel_accepts_calls_in_any_order() -> None:
    calls = [call("time", zone="UTC"), call("weather", city="Rome"), call("weather", city="Paris")]
    assert parallel(calls, [PARIS, ROME, UTC]) == (True, None)


def test_parallel_needs_the_same_number_of_calls() -> None:
    result = parallel([call("weather", city="Paris")], [PARIS, ROME])
    assert result == (False, "parallel_function_checker_no_order:wrong_count")


def test_parallel_reports_the_first_answer_without_a_match() -> None:
    result = parallel([call("weather", city="Paris"), call("weather", city="Oslo")], [PARIS, ROME])
    assert result == (False, "parallel_function_checker_no_order:cannot_find_match")


def test_parallel_error_lists_why_each_candidate_failed() -> None:
    calls = [call("weather", city="Paris"), call("weather", city="Oslo")]
    verdict = check_calls(case("parallel", DOCS, [PARIS, ROME]), calls)
    assert any("value_error:string" in line for line in verdict.error)


def test_parallel_matching_is_greedy_in_answer_order() -> None:
    # The first answer takes the first call that fits (days may be left out), leaving a call
    # the second answer (which needs days=3) cannot use; a full matching would exist.
    answers: list[ExpectedCall] = [
        {"weather": {"city": ["Paris"], "days": [3, ""]}},
        {"weather": {"city": ["Paris"], "days": [3]}},
    ]
    calls = [call("weather", city="Paris", days=3), call("weather", city="Paris")]
    result = parallel(calls, answers)
    assert result == (False, "parallel_function_checker_no_order:cannot_find_match")


def test_parallel_greedy_succeeds_when_the_order_allows() -> None:
    answers: list[ExpectedCall] = [
        {"weather": {"city": ["Paris"], "days": [3, ""]}},
        {"weather": {"city": ["Paris"], "days": [3]}},
    ]
    calls = [call("weather", city="Paris"), call("weather", city="Paris", days=3)]
    assert parallel(calls, answers) == (True, None)


def test_no_calls_for_no_answers_is_valid_in_parallel() -> None:
    assert parallel([], []) == (True, None)


def test_answer_for_an_undocumented_function_is_an_invalid_case() -> None:
    result = parallel([call("nope", a=1)], [{"nope": {"a": [1]}}])
    assert result == (False, "checker:invalid_case")
