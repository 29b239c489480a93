"""Calls as the environments receive them: a method name, positional and keyword arguments.

Model calls come from `bfcl_action.decode` (keyword arguments only, as BFCL keeps them).
Ground-truth calls are BFCL's call strings (`cd(folder='document')`, `sort('a.pdf')`): they
are parsed with `ast` and every argument must be a literal (`ast.literal_eval`); nothing is
evaluated. Positional arguments are kept, since the official ground truth uses them.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bfcl_action.core.errors import InputError
from bfcl_action.core.records import Call, FunctionDoc


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_call(cls, call: Call) -> ToolCall:
        return cls(call.name, (), dict(call.arguments))

    def text(self) -> str:
        """The call as Python source (for messages and reports)."""
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def parse_call_text(text: str) -> ToolCall:
    """One call string with literal arguments; raises `InputError` for anything else."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise InputError(f"not a call: {text!r} ({exc.msg})", field="ground_truth") from None
    if not isinstance(node, ast.Call):
        raise InputError(f"not a call: {text!r}", field="ground_truth")
    name = _dotted(node.func)
    if not name:
        raise InputError(f"cannot read the function name of {text!r}", field="ground_truth")
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise InputError(
            f"ground-truth arguments must be literals: {text!r}", field="ground_truth"
        ) from None
    if any(k.arg is None for k in node.keywords):
        raise InputError(f"**kwargs is not supported: {text!r}", field="ground_truth")
    return ToolCall(name, args, kwargs)


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def with_keywords(call: ToolCall, functions: Sequence[FunctionDoc]) -> ToolCall:
    """Positional arguments named by the function doc's parameter order (for replays: BFCL
    keeps only keyword arguments of model output, so a replayed answer must name them)."""
    if not call.args:
        return call
    doc = next((f for f in functions if f.name == call.name), None)
    names = list((doc.parameters.get("properties") or {}) if doc else {})
    if len(names) < len(call.args):
        raise InputError(
            f"{call.text()}: more positional arguments than documented parameters",
            field="ground_truth",
        )
    kwargs = dict(zip(names, call.args, strict=False))
    kwargs.update(call.kwargs)
    return ToolCall(call.name, (), kwargs)
