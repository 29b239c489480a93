"""Executable checks of own single-turn cases: the model's call runs and its result is compared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.multiturn import ExecutionOptions
from bfcl_action.multiturn.executable import check_executable, structurally_equal
from bfcl_action.safety.sandbox import SandboxLimits

EXAMPLE = Path(__file__).parents[2] / "examples" / "notes-app"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "multiturn"
FAST = ExecutionOptions(limits=SandboxLimits(call_timeout_s=1.0))


def case(execute: dict[str, Any], expect: list[dict[str, Any]] | None = None) -> TestCase:
    return TestCase.model_validate(
        {
            "id": "exec_case",
            "category": "own_simple",
            "question": [[{"role": "user", "content": "?"}]],
            "possible_answer": expect
            if expect is not None
            else [{"slugify": {"title": ["Weekly Review: Q3"], "separator": ["-", ""]}}],
            "execute": execute,
            "environment_paths": [str(EXAMPLE), str(FIXTURES)],
        }
    )


def fc(name: str, **arguments: Any) -> list[dict[str, str]]:
    return [{name: json.dumps(arguments)}]


def verdict(c: TestCase, output: Any, mode: Mode = Mode.FC) -> tuple[bool, str | None]:
    result = check_executable(c, output, mode=mode, options=FAST)
    return result.valid, result.error_type


SLUG = {"function": "text_tools:slugify"}


def test_a_call_with_the_same_result_passes_where_ast_matching_would_not() -> None:
    assert verdict(case(SLUG), fc("slugify", title="weekly review q3")) == (True, None)


def test_a_call_with_another_result_is_a_wrong_result() -> None:
    assert verdict(case(SLUG), fc("slugify", title="Weekly Review")) == (
        False,
        "executable:wrong_result",
    )


def test_prompt_mode_outputs_are_decoded_then_run() -> None:
    assert verdict(case(SLUG), "[slugify(title='Weekly Review: Q3')]", Mode.PROMPT) == (True, None)


def test_a_fixed_expected_result_is_compared_exactly() -> None:
    spec = {"function": "text_tools:word_count", "result": {"words": 4}}
    c = case(spec, [{"word_count": {"text": ["a b c d"]}}])
    assert verdict(c, fc("word_count", text="milk eggs bread butter")) == (True, None)
    assert verdict(c, fc("word_count", text="milk eggs"))[1] == "executable:wrong_result"


def test_structural_comparison_ignores_values_but_not_shape() -> None:
    assert structurally_equal({"a": [1, "x"]}, {"a": [2, "y"]})
    assert not structurally_equal({"a": [1]}, {"a": [1, 2]})
    assert not structurally_equal({"a": 1}, {"a": True})
    spec = {"function": "text_tools:slugify", "compare": "structural"}
    assert verdict(case(spec), fc("slugify", title="anything else")) == (True, None)


def test_a_named_predicate_decides() -> None:
    spec = {"function": "text_tools:slugify", "compare": "text_tools:same_slug"}
    c = case(spec, [{"slugify": {"title": ["Team Offsite Plan"], "separator": ["_"]}}])
    assert verdict(c, fc("slugify", title="Team Offsite Plan")) == (True, None)


def test_a_hanging_implementation_is_a_timeout() -> None:
    spec = {"function": "hostile_env:slow_add", "result": 3}
    c = case(spec, [{"slow_add": {"a": [1], "b": [2]}}])
    assert verdict(c, fc("slow_add", a=-1, b=2)) == (False, "executable:timeout")
    assert verdict(c, fc("slow_add", a=1, b=2)) == (True, None)


def test_an_exception_in_the_model_call_is_reported_with_its_message() -> None:
    spec = {"function": "hostile_env:failing_add", "result": 3}
    c = case(spec, [{"failing_add": {"a": [1], "b": [2]}}])
    result = check_executable(c, fc("failing_add", a=1, b=2), mode=Mode.FC, options=FAST)
    assert result.error_type == "executable:exception"
    assert result.error == ["failing_add: Error during execution: cannot add 1 and 2"]


def test_the_wrong_number_of_calls_fails_before_running_anything() -> None:
    assert verdict(case(SLUG), []) == (False, "executable:wrong_count")


def test_a_call_without_an_implementation_fails() -> None:
    spec = {"function": {"slugify": "text_tools:slugify"}}
    assert verdict(case(spec), fc("word_count", text="a")) == (
        False,
        "executable:unknown_function",
    )


def test_a_yaml_case_with_a_bad_execute_block_is_rejected_with_its_line() -> None:
    import pytest

    from bfcl_action.cases.own import parse_cases
    from bfcl_action.core.records import FunctionDoc
    from bfcl_action.tools.issues import CaseValidationError

    text = (
        "- id: c1\n  question: slug?\n  expect:\n    - slugify: {title: [a]}\n"
        "  execute: {function: text_tools:slugify, compare: fuzzy}\n"
    )
    tool = FunctionDoc(
        name="slugify",
        parameters={"type": "dict", "properties": {"title": {"type": "string"}}, "required": []},
    )
    with pytest.raises(CaseValidationError, match=r"cases.yml:5:.*compare must be exact"):
        parse_cases(text, "cases.yml", [tool])


def test_an_http_endpoint_can_implement_a_tool() -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if args.get("title") == "boom":
                self.send_response(500)
                self.end_headers()
                self.wfile.write(b"exploded")
                return
            body = json.dumps({"slug": "-".join(args["title"].lower().split())}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/slugify"
        spec = {"function": url, "result": {"slug": "weekly-review"}}
        c = case(spec)
        assert verdict(c, fc("slugify", title="Weekly Review")) == (True, None)
        assert verdict(c, fc("slugify", title="boom")) == (False, "executable:exception")
    finally:
        server.shutdown()
        server.server_close()
