"""Executable checks for own single-turn cases: run the model's call and compare the result.

A case opts in with an `execute` block (YAML cases, docs/multi-turn.md):

```yaml
execute:
  function: weather_impl:get_current_weather   # or {tool_name: target}; or an http(s) URL
  result: {temp_c: 21}          # optional: the expected value; default: run the expected call
  compare: exact                # exact | structural | module:predicate(model, expected) -> bool
```

The model's calls and, when no `result` is given, the expected call (the first option of
every parameter of the case's `expect`) run in the sandbox (`bfcl_action.safety.sandbox`),
from the repository root; a URL target is POSTed the arguments as JSON instead (loopback
only unless the workflow allows the host: `safety/http_tools.py`). The verdict
replaces the AST check: a call AST matching would reject (another spelling of the same city)
passes when it computes the same result. Error types:
`executable:decoder_failed`, `executable:wrong_count`, `executable:unknown_function`,
`executable:exception` (the model's call raised), `executable:timeout` (it hung or crashed
the worker), `executable:expected_call_failed`, `executable:wrong_result`, and
`executable:sandbox_error` (an infrastructure error: the sandbox could not start, or a tool
exhausted one of its budgets; not the model's failure).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import Call, CaseResult, ExecutionData, Mode, TestCase
from bfcl_action.decode import DecodeError, decode_output
from bfcl_action.multiturn.check import ExecutionOptions, case_result
from bfcl_action.safety.http_tools import http_invoke
from bfcl_action.safety.sandbox import Sandbox, SandboxError

FIELD = "execute"
COMPARATORS = ("exact", "structural")
SANDBOX_ERROR = "executable:sandbox_error"


class ExecSpec(BaseModel):
    """The `execute` block of a case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    function: str | dict[str, str]
    result: Any = None
    has_result: bool = Field(default=False, exclude=True)
    compare: str = "exact"

    def target_for(self, name: str) -> str | None:
        if isinstance(self.function, str):
            return self.function
        return self.function.get(name)


def exec_spec(case: TestCase) -> ExecSpec | None:
    """The case's `execute` block, validated; None if it has none."""
    try:
        raw = case.metadata_as(ExecutionData).execute
    except ValidationError:
        raise InputError(f"{case.id}: expected a mapping", field=FIELD) from None
    if raw is None:
        return None
    try:
        spec = ExecSpec.model_validate({**raw, "has_result": "result" in raw})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{case.id}: {first['msg']}", field=f"{FIELD}.{where}") from None
    if spec.compare not in COMPARATORS and ":" not in spec.compare:
        raise InputError(
            f"{case.id}: compare must be exact, structural or module:predicate, "
            f"found {spec.compare!r}",
            field=f"{FIELD}.compare",
        )
    return spec


def structurally_equal(left: Any, right: Any) -> bool:
    """Same shape: dict keys, list lengths and scalar types match recursively (values may
    differ: a live clock or price compares by structure only)."""
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(
            structurally_equal(left[k], right[k]) for k in left
        )
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            structurally_equal(a, b) for a, b in zip(left, right, strict=True)
        )
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool)
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return True
    return type(left) is type(right)


def expected_call(case: TestCase) -> Call:
    """The case's expected call with the first option of each parameter (`""` = omitted)."""
    answer = case.possible_answer[0]
    name, params = next(iter(answer.items()))
    arguments = {k: options[0] for k, options in params.items() if options and options[0] != ""}
    return Call(name=name, arguments=arguments)


def _run(sandbox: Sandbox, target: str, call: Call, allow: Sequence[str] = ()) -> dict[str, Any]:
    if target.startswith(("http://", "https://")):
        return http_invoke(
            target, call.arguments, timeout=sandbox.limits.call_timeout_s, allow=allow
        )
    return sandbox.invoke(target, (), dict(call.arguments))


def check_executable(
    case: TestCase,
    model_output: Any,
    *,
    mode: Mode,
    options: ExecutionOptions | None = None,
) -> CaseResult:
    """Run the model's call(s) and the expected one in the sandbox and compare; never raises
    for tool misbehaviour (a hang, crash or exception is that case's failure)."""
    options = options or ExecutionOptions()
    try:
        spec = exec_spec(case)
    except InputError as exc:
        return case_result(
            case, False, "executable:invalid_case", [exc.message], model_output, None
        )
    assert spec is not None
    try:
        calls = decode_output(model_output, mode=mode, language=case.language)
    except DecodeError as exc:
        return case_result(
            case, False, "executable:decoder_failed", [exc.message], model_output, None
        )
    expected_calls = len(case.possible_answer) if case.possible_answer else 1
    if len(calls) != expected_calls:
        message = f"expected {expected_calls} call(s), found {len(calls)}"
        return case_result(case, False, "executable:wrong_count", [message], model_output, calls)
    paths = case.metadata_as(ExecutionData).environment_paths
    with options.sandbox(paths) as sandbox:
        for index, call in enumerate(calls):
            try:
                verdict = _check_one(case, spec, sandbox, call, index, options.http_allow)
            except SandboxError as exc:
                return case_result(
                    case, False, SANDBOX_ERROR, [exc.message], model_output, calls, exc.message
                )
            if verdict is not None:
                error_type, errors = verdict
                return case_result(case, False, error_type, errors, model_output, calls)
    return case_result(case, True, None, [], model_output, calls)


def _check_one(
    case: TestCase,
    spec: ExecSpec,
    sandbox: Sandbox,
    call: Call,
    index: int,
    allow: Sequence[str] = (),
) -> tuple[str, list[str]] | None:
    target = spec.target_for(call.name)
    if target is None:
        return "executable:unknown_function", [f"no implementation for {call.name!r}"]
    got = _run(sandbox, target, call, allow)
    if not got.get("ok"):
        return "executable:timeout", [f"{call.name}: {got.get('error')}"]
    if "raised" in got:
        return "executable:exception", [f"{call.name}: {got['raised']}"]
    if spec.has_result and index == 0:
        expected: dict[str, Any] = {"value": spec.result, "repr": repr(spec.result)}
    else:
        if not case.possible_answer:
            return "executable:invalid_case", ["no `result` and no `expect` to compute it"]
        want = expected_call(case) if index == 0 else _nth_expected(case, index)
        want_target = spec.target_for(want.name) or target
        expected = _run(sandbox, want_target, want, allow)
        if not expected.get("ok") or "raised" in expected:
            reason = expected.get("raised") or expected.get("error")
            return "executable:expected_call_failed", [f"expected call failed: {reason}"]
    if not _same(sandbox, spec.compare, got, expected):
        return "executable:wrong_result", [
            f"{call.name}: result {got.get('repr')}, expected {expected.get('repr')} "
            f"(compare: {spec.compare})"
        ]
    return None


def _nth_expected(case: TestCase, index: int) -> Call:
    one = TestCase(
        id=case.id,
        category=case.category,
        question=case.question,
        possible_answer=[case.possible_answer[index]],
    )
    return expected_call(one)


def _same(sandbox: Sandbox, compare: str, got: dict[str, Any], expected: dict[str, Any]) -> bool:
    if got.get("opaque") or expected.get("opaque"):
        return compare == "exact" and got.get("repr") == expected.get("repr")
    if compare == "exact":
        return bool(got.get("value") == expected.get("value"))
    if compare == "structural":
        return structurally_equal(got.get("value"), expected.get("value"))
    answer = sandbox.invoke(compare, (got.get("value"), expected.get("value")))
    return bool(answer.get("ok") and answer.get("value") is True)
