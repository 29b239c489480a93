"""BFCL v4's agentic checker: the last text step must contain an expected answer as a word."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.checker.agentic import (
    ANSWER_NOT_FOUND,
    INFERENCE_ERROR,
    NO_LAST_MESSAGE,
    check_agentic,
    check_answer_text,
    standardize,
)
from bfcl_action.core.records import Mode

CALL_FC: Any = [{"search_engine_query": '{"keywords": "tea"}'}]
CALL_PROMPT = "[search_engine_query(keywords='tea')]"


def test_the_answer_passes_whatever_its_case_and_punctuation() -> None:
    output = [[CALL_FC, "{'answer': 'ZHANG-YI.MING', 'context': 'Forbes'}"]]
    assert check_agentic(output, ["Zhang Yiming"], Mode.FC).valid is False  # the space stays
    assert check_agentic([[CALL_FC, "It is Zhang Yiming."]], ["Zhang Yiming"], Mode.FC).valid
    assert check_agentic([[CALL_FC, "zhang_yiming (forbes)"]], ["zhangyiming"], Mode.FC).valid


def test_an_answer_inside_a_longer_word_does_not_count() -> None:
    verdict = check_agentic([["I am 350 years old"]], ["35"], Mode.FC)
    assert (verdict.valid, verdict.error_type) == (False, ANSWER_NOT_FOUND)


def test_the_last_text_step_is_the_answer_not_an_earlier_one() -> None:
    output = [["35", CALL_FC, "I do not know"]]
    assert check_agentic(output, ["35"], Mode.FC).error_type == ANSWER_NOT_FOUND
    assert check_agentic([["I do not know", CALL_FC, "35"]], ["35"], Mode.FC).valid


def test_a_call_as_the_last_step_leaves_an_earlier_text_as_the_answer() -> None:
    assert check_agentic([["35", CALL_FC]], ["35"], Mode.FC).valid


def test_no_text_step_is_no_last_message() -> None:
    assert check_agentic([[CALL_FC]], ["35"], Mode.FC).error_type == NO_LAST_MESSAGE
    assert check_agentic([[CALL_PROMPT]], ["35"], Mode.PROMPT).error_type == NO_LAST_MESSAGE
    assert check_agentic([[CALL_FC, ""]], ["35"], Mode.FC).error_type == NO_LAST_MESSAGE


def test_prompt_text_that_decodes_to_calls_is_not_the_answer() -> None:
    output = [["35", CALL_PROMPT]]
    assert check_agentic(output, ["35"], Mode.PROMPT).valid
    assert check_agentic([[CALL_PROMPT]], ["tea"], Mode.PROMPT).error_type == NO_LAST_MESSAGE


@pytest.mark.parametrize("output", ["35", [["35"], ["35"]], [], None, {"a": 1}])
def test_a_result_that_is_not_one_conversation_is_an_inference_error(output: Any) -> None:
    assert check_agentic(output, ["35"], Mode.FC).error_type == INFERENCE_ERROR


def test_standardize_drops_bfcls_punctuation_and_reads_quotes_as_double() -> None:
    assert standardize("A,b./c-d_e*f^g(h)i 'j'") == 'abcdefghi "j"'


@given(st.text(max_size=200), st.text(min_size=1, max_size=20))
def test_expected_texts_are_matched_literally_never_as_patterns(text: str, option: str) -> None:
    verdict = check_answer_text(text, [option])
    if verdict.valid:
        assert standardize(option) in standardize(text)


def test_regex_characters_in_an_answer_are_literal() -> None:
    assert check_answer_text("the answer is a+b", ["a+b"]).valid
    assert not check_answer_text("the answer is aab", ["a+b"]).valid
