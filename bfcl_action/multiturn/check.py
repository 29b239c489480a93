"""BFCL's multi-turn checker, reimplemented: replay the model's calls and the ground truth on
separate environment instances and compare them turn by turn.

Per turn (rules read from bfcl-eval 2026.3.23, see docs/multi-turn.md):
1. every decoded call of every model step runs on the model's instances; steps that do not
   decode, or decode to no call, are skipped (BFCL counts only real calls);
2. the turn's ground-truth calls run on the ground-truth instances;
3. a turn with ground truth but no model call fails (`multi_turn:empty_turn_model_response`);
   a turn without ground truth is not checked (its calls still changed the model's state);
4. every public attribute of every ground-truth instance must equal the model instance's
   (`multi_turn:instance_state_mismatch`);
5. every ground-truth result of the turn must appear among the model's results of all turns
   so far, in any order, counting duplicates (`multi_turn:execution_response_mismatch`).
A result that is not a list of turns is `multi_turn:inference_error`; a result with fewer turns
than the case (the model ran out of steps) is `multi_turn:force_terminated`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import BfclActionError
from bfcl_action.core.records import Call, CaseResult, Mode, TestCase
from bfcl_action.decode import decode_step
from bfcl_action.multiturn.conversation import Conversation, conversation_of
from bfcl_action.safety.redact import shorten
from bfcl_action.safety.sandbox import Sandbox, SandboxError, SandboxLimits

EMPTY_TURN = "multi_turn:empty_turn_model_response"
STATE_MISMATCH = "multi_turn:instance_state_mismatch"
RESPONSE_MISMATCH = "multi_turn:execution_response_mismatch"
FORCE_TERMINATED = "multi_turn:force_terminated"
INFERENCE_ERROR = "multi_turn:inference_error"
INVALID_CASE = "multi_turn:invalid_case"
ENVIRONMENT_ERROR = "multi_turn:environment_error"

MODEL, TRUTH = "model", "truth"


@dataclass(frozen=True)
class ExecutionOptions:
    """Where and how environments run: limits, host interpreter, extra import roots."""

    limits: SandboxLimits = field(default_factory=SandboxLimits)
    python: str | None = None
    paths: tuple[str, ...] = ()
    http_allow: tuple[str, ...] = ()
    """Non-loopback hosts (`HOST` or `HOST:PORT`) executable checks may POST to."""

    def sandbox(self, extra_paths: Sequence[str] = ()) -> Sandbox:
        paths = [Path(p) for p in (*extra_paths, *self.paths)]
        return Sandbox(limits=self.limits, python=self.python, paths=paths)


def decode_turns(model_output: list[Any], mode: Mode) -> list[list[list[Call]]]:
    """Turns of steps of calls, with steps that carry no call dropped."""
    turns: list[list[list[Call]]] = []
    for turn in model_output:
        steps = turn if isinstance(turn, list) else [turn]
        decoded = [decode_step(step, mode) for step in steps]
        turns.append([calls for calls in decoded if calls])
    return turns


def case_result(
    case: TestCase,
    valid: bool,
    error_type: str | None,
    errors: list[str],
    output: Any,
    decoded: list[Call] | None,
    infra: str | None = None,
) -> CaseResult:
    """A multi-turn or executable case's verdict as a `CaseResult`."""
    return CaseResult(
        id=case.id,
        category=case.category,
        suite=case.suite,
        valid=valid,
        error_type=error_type,
        error=errors,
        model_output=output,
        decoded=decoded,
        infra_error=infra,
    )


def check_conversation(
    case: TestCase,
    model_output: Any,
    *,
    mode: Mode,
    options: ExecutionOptions | None = None,
) -> CaseResult:
    """Verdict on a multi-turn result (a list of turns, each a list of step outputs)."""
    options = options or ExecutionOptions()
    try:
        conversation = conversation_of(case)
    except BfclActionError as exc:
        return case_result(
            case, False, INVALID_CASE, [exc.message], model_output, None, exc.message
        )
    if not isinstance(model_output, list):
        message = "the model result is not a list of turns (inference failed)"
        return case_result(case, False, INFERENCE_ERROR, [message], model_output, None)
    if len(model_output) != len(conversation.ground_truth):
        message = (
            f"force-terminated: the result has {len(model_output)} turns, the case "
            f"{len(conversation.ground_truth)}"
        )
        return case_result(case, False, FORCE_TERMINATED, [message], model_output, None)
    turns = decode_turns(model_output, mode)
    flat = [call for turn in turns for step in turn for call in step]
    try:
        verdict = judge_turns(conversation, turns, options)
    except SandboxError as exc:  # the sandbox failed, not the model: an infrastructure error
        return case_result(
            case, False, ENVIRONMENT_ERROR, [exc.message], model_output, flat, exc.message
        )
    return case_result(case, verdict.valid, verdict.error_type, verdict.errors, model_output, flat)


@dataclass
class TurnVerdict:
    valid: bool = True
    error_type: str | None = None
    errors: list[str] = field(default_factory=list)
    turn: int | None = None


def judge_turns(
    conversation: Conversation,
    turns: Sequence[Sequence[Sequence[Call]]],
    options: ExecutionOptions,
) -> TurnVerdict:
    """Execute and compare turn by turn; stops at the first failing turn, as BFCL does."""
    with options.sandbox(conversation.paths) as sandbox:
        sandbox.init(MODEL, conversation.environments, long_context=conversation.long_context)
        sandbox.init(TRUTH, conversation.environments, long_context=conversation.long_context)
        model_results: list[str] = []
        for index, (steps, truth) in enumerate(zip(turns, conversation.ground_truth, strict=True)):
            for step in steps:
                for call in step:
                    model_results.append(sandbox.call(MODEL, call.name, (), dict(call.arguments)))
            truth_results = [sandbox.call(TRUTH, c.name, c.args, c.kwargs) for c in truth]
            if truth and not steps:
                return TurnVerdict(
                    False, EMPTY_TURN, [f"turn {index}: the model made no call"], index
                )
            if not truth:
                continue
            state = sandbox.compare(MODEL, TRUTH)
            if not state.get("valid"):
                return TurnVerdict(False, STATE_MISMATCH, _state_errors(index, state), index)
            missing = missing_results(truth_results, model_results)
            if missing:
                errors = [
                    f"turn {index}: results of the ground truth missing from the model's "
                    f"results so far: {_clip(missing)}",
                    *(f"expected call: {c.text()}" for c in truth),
                ]
                return TurnVerdict(False, RESPONSE_MISMATCH, errors, index)
    return TurnVerdict()


def missing_results(expected: Sequence[str], found: Sequence[str]) -> list[str]:
    """Items of `expected` not in `found`, as a multiset (each found item matches once)."""
    pool = list(found)
    missing: list[str] = []
    for item in expected:
        try:
            pool.remove(item)
        except ValueError:
            missing.append(item)
    return missing


def _state_errors(index: int, state: dict[str, Any]) -> list[str]:
    if "error" in state:
        return [f"turn {index}: cannot compare states: {state['error']}"]
    name = state.get("instance", "")
    errors = [f"turn {index}: the state of {name} differs from the ground truth's"]
    for attr, diff in (state.get("differences") or {}).items():
        errors.append(
            f"{name}.{attr}: model {diff.get('model')}, expected {diff.get('ground_truth')}"
        )
    return errors


def _clip(items: list[str], limit: int = 400) -> str:
    return shorten("; ".join(items), limit + 3, "...")
