"""The dotted-name rule: FC APIs that reject `.` get `a.b` offered, and expected, as `a_b`."""

from __future__ import annotations

import pytest

from bfcl_action.checker import check_calls, expected_name, needs_underscore_to_dot
from bfcl_action.core.records import Mode
from tests.support.checker_cases import STRING, call, case, fn

DOTTED = case("simple_python", [fn("math.hypot", x=STRING)], [{"math.hypot": {"x": ["1"]}}])


def test_dotted_name_matches_as_is_by_default() -> None:
    assert check_calls(DOTTED, [call("math.hypot", x="1")]).valid


def test_underscore_to_dot_expects_underscores() -> None:
    assert check_calls(DOTTED, [call("math_hypot", x="1")], underscore_to_dot=True).valid


def test_underscore_to_dot_rejects_the_dotted_name() -> None:
    verdict = check_calls(DOTTED, [call("math.hypot", x="1")], underscore_to_dot=True)
    assert verdict.error_type == "simple_function_checker:wrong_func_name"


def test_underscored_call_fails_without_the_option() -> None:
    verdict = check_calls(DOTTED, [call("math_hypot", x="1")])
    assert verdict.error_type == "simple_function_checker:wrong_func_name"


def test_expected_name_leaves_undotted_names_alone() -> None:
    assert expected_name("get_weather", True) == "get_weather"


@pytest.mark.parametrize(
    "model",
    ["gpt-4o-2024-11-20-FC", "claude-sonnet-4-5-20250929-FC", "meetkai_functionary-small-v3.1-FC"],
)
def test_official_fc_models_with_the_flag(model: str) -> None:
    assert needs_underscore_to_dot(model)


@pytest.mark.parametrize("model", ["Qwen/Qwen3-8B-FC", "gorilla-openfunctions-v2"])
def test_official_fc_models_without_the_flag(model: str) -> None:
    assert not needs_underscore_to_dot(model)


@pytest.mark.parametrize(
    "model",
    [
        "gpt-4.1-mini",
        "openai/o4-mini",
        "claude-3-5-haiku-latest",
        "openai_gpt-oss-120b",  # a result folder's spelling of openai/gpt-oss-120b
    ],
)
def test_hosted_api_model_ids_need_the_flag(model: str) -> None:
    assert needs_underscore_to_dot(model)


def test_self_hosted_model_ids_keep_dots() -> None:
    assert not needs_underscore_to_dot("meta-llama/Llama-3.1-8B-Instruct")


def test_prompt_mode_never_needs_the_flag() -> None:
    assert not needs_underscore_to_dot("gpt-4o-2024-11-20", Mode.PROMPT)
