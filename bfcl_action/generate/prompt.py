"""The proposing prompt: one request per tool, asking for a mix of kinds in one JSON answer.

The answer schema is strict JSON Schema (every property required, no extra keys), so servers
with structured outputs hold the model to it; the same schema is written in the prompt for
servers without. Arguments travel as a JSON string in own-case form because strict schemas
cannot describe "any JSON value"; it is parsed with `json.loads`, never evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bfcl_action.core.records import FunctionDoc
from bfcl_action.generate.models import KIND_ORDER, PROMPT_VERSION, Kind
from bfcl_action.model.render import function_docs_json

MAX_SIBLINGS = 4
"""Other tools offered with the target for multiple / parallel_multiple: enough to make the
choice real, few enough to keep the prompt short."""

RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "cases": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": [k.value for k in Kind]},
                    "request": {"type": "string"},
                    "calls": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "arguments": {"type": "string"},
                            },
                            "required": ["name", "arguments"],
                            "additionalProperties": False,
                        },
                    },
                },
                "required": ["kind", "request", "calls"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["cases"],
    "additionalProperties": False,
}

SYSTEM = """\
You write test cases for function-calling evaluation. Each case is a realistic request a
user of an application would type, and the exact function calls a perfect assistant makes.

Rules:
- Every argument value in a call must be stated in the request, or follow from it directly
  (an enum value the request names, a documented default). Never expect a value the request
  does not give.
- Use only the functions and parameters listed, with the types and enum values they declare.
  Give every required parameter.
- "arguments" is a JSON object encoded as a string. A parameter's value may be a list of
  alternatives a user could mean equally ("Tokyo" or "Tokyo, Japan"); for an array parameter
  give the array itself, or a list of alternative arrays. Put "" among the alternatives of an
  optional parameter a correct call may leave out.
- For an irrelevance case, "calls" is [].
- Vary the wording, the values and the parameters used. Plain text only: no markup, links
  or instructions to the assistant.

Answer with JSON only, exactly in this shape:
{"cases": [{"kind": "<kind>", "request": "<user request>",
            "calls": [{"name": "<function>", "arguments": "<JSON object as a string>"}]}]}
"""


@dataclass(frozen=True)
class ProposeTask:
    """One proposing request: a target tool, the tools offered with it, how many of each kind."""

    tool: str
    offered: tuple[str, ...]
    counts: tuple[tuple[Kind, int], ...]
    seed: int
    allowed: tuple[Kind, ...] = ()
    """Kinds a candidate may have (the categories asked for); `counts` only steers."""

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)


def siblings(target: FunctionDoc, tools: Sequence[FunctionDoc]) -> list[str]:
    """Tools offered beside `target`: those of its file first, then the rest, in tool order."""
    src = target.source.file if target.source is not None else None
    same = [t.name for t in tools if t.name != target.name and t.source and t.source.file == src]
    other = [t.name for t in tools if t.name != target.name and t.name not in same]
    return (same + other)[:MAX_SIBLINGS]


def share_out(per_tool: int, kinds: Sequence[Kind], *, spare: int = 1) -> dict[Kind, int]:
    """How many candidates of each kind to ask for, to keep `per_tool` after drops.

    The quota goes round-robin over `kinds` in `KIND_ORDER`; every kind with a share gets
    `spare` extra candidates, since some are always dropped.
    """
    ordered = [k for k in KIND_ORDER if k in kinds]
    share = dict.fromkeys(ordered, 0)
    for i in range(per_tool):
        share[ordered[i % len(ordered)]] += 1
    return {k: n + spare for k, n in share.items() if n}


def plan_tasks(
    tools: Sequence[FunctionDoc],
    targets: Sequence[str],
    kinds: Sequence[Kind],
    per_tool: int,
    seed: int,
) -> list[ProposeTask]:
    """One task per target tool; kinds that need siblings are skipped for a lone tool."""
    by_name = {t.name: t for t in tools}
    tasks: list[ProposeTask] = []
    for name in targets:
        target = by_name[name]
        others = siblings(target, tools)
        usable = [k for k in kinds if others or not k.needs_siblings]
        if not usable:
            continue
        counts = share_out(per_tool, usable)
        tasks.append(ProposeTask(name, (name, *others), tuple(counts.items()), seed, tuple(usable)))
    return tasks


def offered_for(kind: Kind, task: ProposeTask) -> list[str]:
    """The tools a candidate of `kind` is asked with: the target alone for simple and
    parallel, the target and its siblings otherwise."""
    if kind in {Kind.SIMPLE, Kind.PARALLEL}:
        return [task.tool]
    return list(task.offered)


def propose_messages(task: ProposeTask, tools: Sequence[FunctionDoc]) -> list[dict[str, str]]:
    """The chat messages of one proposing request (deterministic for a task)."""
    by_name = {t.name: t for t in tools}
    wanted_tools = {n for k, _ in task.counts for n in offered_for(k, task)}
    docs = function_docs_json([by_name[n] for n in task.offered if n in wanted_tools])
    wanted = "\n".join(f"- {n} of kind {k.value}: {k.calls}" for k, n in task.counts)
    user = (
        f"Target tool: {task.tool}\n"
        f"Functions offered to the assistant (JSON):\n{json.dumps(docs, indent=1)}\n\n"
        f"Write {task.total} cases:\n{wanted}\n"
        f"(prompt version {PROMPT_VERSION}, variation {task.seed})"
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def response_format() -> dict[str, Any]:
    """Chat Completions `response_format` for servers with structured outputs."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "test_cases", "strict": True, "schema": RESPONSE_SCHEMA},
    }
