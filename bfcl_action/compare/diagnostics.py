"""Per-tool diagnostics: what each of your tools' cases say about its definition.

The point of evaluating your own tools is to feed the results back into their design (the
BFCL write-up's lesson): a tool whose `city` parameter is mostly given a wrong value needs a
better parameter description; a tool the model avoids for a neighbour needs a sharper
description; a tool called on questions it cannot answer is too broad. So for each own tool
this module counts the cases that offer it and expect it, the pass rate on both runs over
the cases expecting it that both answered, and the dominant failure per parameter:

- `wrong value` / `wrong type` / `missing`: the call to the tool was made, one argument was off
  (type by the JSON kind of the value against the expected options', strings compared after
  BFCL's normalisation);
- `unexpected`: an argument the answer does not allow;
- `chose instead`: the case expected this tool and the model called another one;
- `not called`: the case expected this tool and the model made no call at all;
- `false call`: a case expecting no call (irrelevance) where the model called this tool.

It also states the PR's irrelevance/relevance trade-off: false calls (cases expecting no call
where the model called) against missed calls (cases expecting a call where it made none).
Pure functions over case results; the base side may be a digest (pass bits only), so base
numbers that need the model's calls are None there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from bfcl_action.checker.normalize import normalize_text
from bfcl_action.core.categories import CATEGORIES, Checker, Group
from bfcl_action.core.records import CaseResult
from bfcl_action.results.digest import FAIL, INFRA, PASS

DISTRACTORS = "own_distractors"
"""The derived suite whose cases offer pool functions beside yours."""

ArgumentFault = Literal["wrong value", "wrong type", "missing", "unexpected"]


class ParameterFaults(BaseModel):
    """How often each kind of argument fault hit one parameter in head's failing cases."""

    parameter: str
    counts: dict[str, int] = Field(default_factory=dict)

    @property
    def dominant(self) -> tuple[str, int]:
        kind = max(sorted(self.counts), key=lambda k: self.counts[k])
        return kind, self.counts[kind]


class ToolDiagnostic(BaseModel):
    """One own tool: where it is offered and expected, how its cases fare, what goes wrong."""

    name: str
    offered: int
    """Head's own cases that offer the tool."""
    expected: int
    """Head's own cases whose answer calls the tool."""
    compared: int = 0
    """Cases expecting the tool that both runs answered (the pass rates' denominator)."""
    base_passed: int | None = None
    head_passed: int = 0
    chose_instead: dict[str, int] = Field(default_factory=dict)
    """Functions the model called instead, when a case expected this tool (head)."""
    picked_over: dict[str, int] = Field(default_factory=dict)
    """Expected functions this tool was called in place of (head): the other side of
    `chose_instead`, so a too-broad description shows on the tool that has it."""
    not_called: int = 0
    false_calls: int = 0
    """Cases expecting no call where the model called this tool (head)."""
    parameters: list[ParameterFaults] = Field(default_factory=list)

    @property
    def failures(self) -> int:
        faults = sum(sum(p.counts.values()) for p in self.parameters)
        wrong = sum(self.chose_instead.values()) + sum(self.picked_over.values())
        return faults + wrong + self.not_called + self.false_calls

    def dominant_failure(self) -> str | None:
        """The single most frequent problem, as a short phrase (None when nothing failed)."""
        options: list[tuple[int, str]] = []
        for p in self.parameters:
            kind, n = p.dominant
            options.append((n, f"{p.parameter}: {kind}"))
        if self.chose_instead:
            other = max(sorted(self.chose_instead), key=lambda k: self.chose_instead[k])
            options.append((sum(self.chose_instead.values()), f"chose {other} instead"))
        if self.picked_over:
            other = max(sorted(self.picked_over), key=lambda k: self.picked_over[k])
            options.append((sum(self.picked_over.values()), f"called instead of {other}"))
        if self.not_called:
            options.append((self.not_called, "not called"))
        if self.false_calls:
            options.append((self.false_calls, "called when it should not be"))
        if not options:
            return None
        n, text = max(options, key=lambda o: o[0])
        return f"{text} ({n})"


class CallBalance(BaseModel):
    """The irrelevance vs relevance trade-off: calls made when none was wanted, against calls
    not made when one was. Base counts are None when the base kept no per-case calls."""

    no_call_cases: int = 0
    """Cases (compared on both runs) whose answer is no call."""
    false_calls_base: int | None = None
    false_calls_head: int = 0
    call_cases: int = 0
    """Cases (compared on both runs) whose answer is at least one call."""
    missed_calls_base: int | None = None
    missed_calls_head: int = 0

    def trade_off(self) -> str | None:
        """What moved, in words: None when neither count moved (or there is no base)."""
        if self.false_calls_base is None or self.missed_calls_base is None:
            return None
        false = self.false_calls_head - self.false_calls_base
        missed = self.missed_calls_head - self.missed_calls_base
        if false < 0 < missed:
            return "fewer false calls but more missed calls: the tools now look narrower"
        if missed < 0 < false:
            return "fewer missed calls but more false calls: the tools now look broader"
        if false > 0 or missed > 0:
            return (
                "more false calls and missed calls"
                if false > 0 and missed > 0
                else ("more false calls" if false > 0 else "more missed calls")
            )
        if false < 0 or missed < 0:
            return "fewer false or missed calls"
        return None


def _own(result: CaseResult) -> bool:
    category = CATEGORIES.get(result.category)
    return category is not None and category.group is Group.OWN


def _expects_no_call(result: CaseResult) -> bool:
    category = CATEGORIES.get(result.category)
    return category is not None and category.checker is Checker.IRRELEVANCE


def _expects_a_call(result: CaseResult) -> bool:
    category = CATEGORIES.get(result.category)
    return category is not None and category.checker in (Checker.AST, Checker.RELEVANCE)


def _called(result: CaseResult) -> list[str]:
    return [c.name for c in result.decoded or []]


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _same(value: Any, option: Any) -> bool:
    if isinstance(value, str) and isinstance(option, str):
        return normalize_text(value) == normalize_text(option)
    return bool(value == option) and _kind(value) == _kind(option)


def argument_faults(arguments: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, str]:
    """Per parameter, what is wrong with one call's arguments against one expected call's
    options (`{"city": ["Paris", "paris"], "unit": ["", "c"]}`; `""` allows omission)."""
    faults: dict[str, str] = {}
    for param, allowed in options.items():
        values = allowed if isinstance(allowed, list) else [allowed]
        if param not in arguments:
            if "" not in values:
                faults[param] = "missing"
            continue
        given = arguments[param]
        concrete = [v for v in values if v != ""]
        if any(_same(given, v) for v in concrete):
            continue
        kinds = {_kind(v) for v in concrete}
        faults[param] = "wrong type" if kinds and _kind(given) not in kinds else "wrong value"
    for param in arguments:
        if param not in options:
            faults[param] = "unexpected"
    return faults


def _expected_tools(result: CaseResult) -> list[str]:
    return [name for call in result.expected or [] for name in call]


def _faults(result: CaseResult, tool: str) -> dict[str, str]:
    calls = [c for c in result.decoded or [] if c.name == tool]
    expected = [call[tool] for call in result.expected or [] if tool in call]
    if not calls or not expected:
        return {}
    # the call's best match among the expected calls to this tool: fewest faults
    return min((argument_faults(calls[0].arguments, options) for options in expected), key=len)


def own_tool_names(results: Sequence[CaseResult]) -> list[str]:
    """Your tools as the results show them: every function an own case offers, except the
    pool functions the distractor suite adds (those appear only in distractor cases)."""
    names: dict[str, None] = {}
    for result in results:
        if _own(result) and result.category != DISTRACTORS:
            names.update(dict.fromkeys(result.functions or []))
    return list(names)


def diagnose_tools(
    head: Sequence[CaseResult],
    base_outcomes: Mapping[str, str] | None,
    tools_named: Sequence[str] | None = None,
) -> list[ToolDiagnostic]:
    """Per own tool (`tools_named`, default `own_tool_names(head)`), from head's results and
    the base's per-case outcomes (PASS / FAIL / INFRA by case id; None without a baseline)."""
    mine = set(own_tool_names(head) if tools_named is None else tools_named)
    own = [r for r in head if _own(r) and not r.infra_error]
    tools: dict[str, ToolDiagnostic] = {}
    params: dict[str, dict[str, Counter[str]]] = {}
    for result in own:
        offered = list(dict.fromkeys(result.functions or []))
        expected = set(_expected_tools(result))
        called = _called(result)
        base = base_outcomes.get(result.id) if base_outcomes is not None else None
        paired = base_outcomes is None or base in (PASS, FAIL)
        for other in called:
            if other in mine and other not in expected and expected and not result.valid:
                tool = tools.setdefault(other, ToolDiagnostic(name=other, offered=0, expected=0))
                for wanted in sorted(expected - set(called)) or sorted(expected):
                    tool.picked_over[wanted] = tool.picked_over.get(wanted, 0) + 1
                    break
        for name in offered:
            if name not in mine:
                continue
            tool = tools.setdefault(name, ToolDiagnostic(name=name, offered=0, expected=0))
            tool.offered += 1
            tool.expected += name in expected
            if paired and name in expected:
                tool.compared += 1
                tool.head_passed += result.valid
                if base_outcomes is not None:
                    tool.base_passed = (tool.base_passed or 0) + (base == PASS)
            if result.valid:
                continue
            if name in expected and name not in called:
                if called:
                    for other in called:
                        if other not in expected:
                            tool.chose_instead[other] = tool.chose_instead.get(other, 0) + 1
                            break
                    else:
                        tool.not_called += 1
                else:
                    tool.not_called += 1
            elif name in expected:
                for param, fault in _faults(result, name).items():
                    params.setdefault(name, {}).setdefault(param, Counter())[fault] += 1
            elif _expects_no_call(result) and name in called:
                tool.false_calls += 1
    for name, by_param in params.items():
        tools[name].parameters = [
            ParameterFaults(parameter=p, counts=dict(sorted(c.items())))
            for p, c in sorted(by_param.items())
        ]
    if base_outcomes is not None:
        for tool in tools.values():
            if tool.compared == 0:
                tool.base_passed = None
    return sorted(tools.values(), key=lambda t: (-t.failures, t.name))


def call_balance(
    head: Sequence[CaseResult],
    base: Sequence[CaseResult] | None,
    base_outcomes: Mapping[str, str] | None,
) -> CallBalance:
    """False calls and missed calls over the own cases both runs answered.

    A no-call case fails exactly when the model called, so the base's false calls come from
    its pass bits alone; missed calls need the base's decoded calls (`base` results)."""
    base_by_id = {r.id: r for r in base or []}
    balance = CallBalance()
    missed_base = 0 if base is not None or base_outcomes is None else None
    false_base = 0 if base_outcomes is not None else None
    for result in head:
        if not _own(result) or result.infra_error:
            continue
        outcome = base_outcomes.get(result.id) if base_outcomes is not None else None
        if base_outcomes is not None and outcome in (None, INFRA):
            continue
        if _expects_no_call(result):
            balance.no_call_cases += 1
            balance.false_calls_head += bool(_called(result))
            if false_base is not None:
                false_base += outcome == FAIL
        elif _expects_a_call(result):
            balance.call_cases += 1
            balance.missed_calls_head += not _called(result)
            if missed_base is not None and base is not None:
                other = base_by_id.get(result.id)
                missed_base += other is not None and not _called(other)
    balance.false_calls_base = false_base
    balance.missed_calls_base = missed_base if base_outcomes is not None else None
    return balance
