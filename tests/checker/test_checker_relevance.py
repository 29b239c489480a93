"""Irrelevance (no call expected) and relevance (some call expected)."""

from __future__ import annotations

from bfcl_action.checker import check_calls
from tests.support.checker_cases import STRING, call, case, fn

DOCS = [fn("search", ("q",), q=STRING)]


def test_irrelevance_without_calls_is_valid() -> None:
    assert check_calls(case("irrelevance", DOCS, []), []).valid


def test_irrelevance_with_a_call_is_decoder_success() -> None:
    verdict = check_calls(case("live_irrelevance", DOCS, []), [call("search", q="x")])
    assert verdict.error_type == "irrelevance_error:decoder_success"


def test_irrelevance_error_names_the_calls() -> None:
    verdict = check_calls(case("irrelevance", DOCS, []), [call("search", q="x")])
    assert "search" in verdict.error[0]


def test_relevance_with_any_call_is_valid_whatever_its_arguments() -> None:
    assert check_calls(case("live_relevance", DOCS, []), [call("other", bogus=1)]).valid


def test_relevance_without_calls_is_decoder_failed() -> None:
    verdict = check_calls(case("live_relevance", DOCS, []), [])
    assert verdict.error_type == "relevance_error:decoder_failed"
