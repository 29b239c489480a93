"""A multi-turn case as the engine sees it: turns, environments, functions per turn, answers.

The data lives in a `TestCase` under BFCL's own field names (extras of the model), so an
official entry and an own case share one format:

- `question`: one list of messages per user turn (empty for a turn that only adds functions);
- `involved_classes`: environment names; `environments`: name -> `module:Class` (own cases;
  official names map to bfcl-eval's classes, see `official_environments`);
- `initial_config`: name -> initial state; `long_context`: load the long variant (official);
- `missed_function`: turn index -> function docs (or names) offered from that turn on
  (BFCL's miss_func); those functions are left out of `functions` until then;
- `ground_truth`: one list of call strings per turn; an empty list means the turn expects no
  call (BFCL's miss_param), so it is not checked.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import ExecutionData, FunctionDoc, Message, Mode, TestCase
from bfcl_action.multiturn.calls import ToolCall, parse_call_text, with_keywords
from bfcl_action.safety.sandbox import EnvironmentSpec

OFFICIAL_MODULE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
OFFICIAL_CLASSES: dict[str, str] = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
"""The official simulated environments (bfcl-eval 2026.3.23): class name -> module."""
STATELESS = frozenset({"MathAPI"})
"""Classes BFCL creates without an initial state."""

ADDED_FUNCTIONS_PROMPT = "I have updated some more functions you can choose from. What about now?"
"""The user message of a turn that only adds functions (BFCL's wording)."""

MAX_STEPS = 20
"""Model steps per turn before the conversation is force-terminated (BFCL's limit)."""


class Conversation(BaseModel):
    """The typed view of a multi-turn case."""

    model_config = ConfigDict(frozen=True)

    id: str
    turns: list[list[Message]]
    environments: list[EnvironmentSpec]
    functions: list[FunctionDoc]
    added_functions: dict[int, list[FunctionDoc]] = Field(default_factory=dict)
    ground_truth: list[list[ToolCall]]
    long_context: bool = False
    paths: list[str] = Field(default_factory=list)
    """Import roots of the environments (own cases: the cases file's directory)."""

    def functions_at(self, turn: int) -> list[FunctionDoc]:
        """Functions offered in `turn` (those added by earlier and this turn included)."""
        offered = list(self.functions)
        for index in sorted(self.added_functions):
            if index <= turn:
                offered.extend(self.added_functions[index])
        return offered


def official_environments() -> dict[str, str]:
    return {name: f"{OFFICIAL_MODULE}.{mod}:{name}" for name, mod in OFFICIAL_CLASSES.items()}


class MultiTurnData(BaseModel):
    """The fields a multi-turn case carries beyond BFCL's single-turn ones (BFCL's entry
    format; own conversations add `environments`), read with `TestCase.metadata_as`."""

    model_config = ConfigDict(extra="ignore")

    involved_classes: list[str]
    environments: dict[str, Any] | None = None
    initial_config: dict[str, Any] | None = None
    ground_truth: list[list[Any]]
    missed_function: dict[str | int, Any] | None = None
    long_context: bool = False


_EXPECTED = {
    "involved_classes": "expected a list of environment names",
    "environments": "expected a mapping of name to 'module:Class'",
    "initial_config": "expected a mapping of environment name to initial state",
    "ground_truth": "expected one list of call strings per turn",
    "missed_function": "expected a mapping of turn index to functions",
}


def conversation_of(case: TestCase) -> Conversation:
    """Validate a case's multi-turn fields; raises `InputError` naming the field."""
    where = case.source.file if case.source else None
    line = case.source.line if case.source else None

    def bad(message: str, field: str) -> InputError:
        return InputError(f"{case.id}: {message}", file=where, line=line, field=field)

    try:
        data = case.metadata_as(MultiTurnData)
    except ValidationError as exc:
        field = str(exc.errors()[0]["loc"][0])
        raise bad(_EXPECTED[field], field) from None
    targets = dict(official_environments())
    own = data.environments or {}
    targets.update({str(k): str(v) for k, v in own.items()})
    config = data.initial_config or {}
    envs = []
    for name in data.involved_classes:
        if name not in targets:
            raise bad(f"no 'module:Class' for environment {name!r}", "environments")
        state = {} if name in STATELESS and name not in own else config.get(name, {})
        if not isinstance(state, dict):
            raise bad(f"initial state of {name!r} must be a mapping", "initial_config")
        envs.append(EnvironmentSpec(name, targets[name], state))

    raw_truth = data.ground_truth
    if len(raw_truth) != len(case.question):
        raise bad(
            f"{len(raw_truth)} ground-truth turns for {len(case.question)} question turns",
            "ground_truth",
        )
    try:
        truth = [[parse_call_text(str(c)) for c in turn] for turn in raw_truth]
    except InputError as exc:
        raise bad(exc.message, "ground_truth") from None

    functions = list(case.functions)
    added: dict[int, list[FunctionDoc]] = {}
    missed = data.missed_function or {}
    for key, items in missed.items():
        try:
            turn = int(key)
        except ValueError:
            raise bad(f"turn index {key!r} is not a number", "missed_function") from None
        docs: list[FunctionDoc] = []
        for item in items or []:
            if isinstance(item, str):
                found = next((f for f in functions if f.name == item), None)
                if found is None:
                    raise bad(
                        f"missed function {item!r} is not among the functions", "missed_function"
                    )
                functions.remove(found)
                docs.append(found)
            else:
                try:
                    docs.append(FunctionDoc.model_validate(item))
                except ValidationError as exc:
                    raise bad(
                        f"bad function doc: {exc.errors()[0]['msg']}", "missed_function"
                    ) from None
        added[turn] = docs
    return Conversation(
        id=case.id,
        turns=case.question,
        environments=envs,
        functions=functions,
        added_functions=added,
        ground_truth=truth,
        long_context=data.long_context,
        paths=case.metadata_as(ExecutionData).environment_paths,
    )


def turn_messages(conversation: Conversation, turn: int) -> list[dict[str, Any]]:
    """The messages that open `turn`; a turn that only adds functions gets BFCL's prompt."""
    messages = conversation.turns[turn]
    if not messages and turn in conversation.added_functions:
        return [{"role": "user", "content": ADDED_FUNCTIONS_PROMPT}]
    return [m.model_dump(mode="json", exclude_none=True) for m in messages]


def ground_truth_output(conversation: Conversation, mode: Mode) -> list[list[Any]]:
    """The ground truth as a model result (one step per turn), for replays and self-checks.

    FC: `[{name: "<json args>"}]` per step; prompt: `[f(a=1), g(b=2)]` text. Positional
    arguments are named from the function docs, since model calls carry keywords only.
    """
    turns: list[list[Any]] = []
    for index, truth in enumerate(conversation.ground_truth):
        offered = conversation.functions_at(index)
        calls = [with_keywords(c, offered) for c in truth]
        if not calls:
            turns.append([])
        elif mode is Mode.FC:
            turns.append([[{c.name: json.dumps(c.kwargs)} for c in calls]])
        else:
            turns.append(["[" + ", ".join(c.text() for c in calls) + "]"])
    return turns
