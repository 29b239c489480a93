"""`bfcl-action check`: verdicts for self-contained cases, one JSON line in, one out.

    bfcl-action check --cases IN.jsonl --output OUT.jsonl

Each input line is `{"id", "category", "functions", "possible_answer", "model_output"}`
plus optional `"model_name"`, `"underscore_to_dot"` and `"mode"`. `model_output` is either
a decoded call list `[{name: {arg: value}}]` (or BFCL FC output `[{name: "<json args>"}]`)
or a string of raw model text. Each output line is `{"id", "valid", "error_type", "error"}`.
A malformed line gets an output line with `error_type` `input_error` and the run goes on.
Use `-` for stdin or stdout.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from json.encoder import encode_basestring
from pathlib import Path
from typing import IO, Any, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from bfcl_action.checker import judge, judge_decoded, needs_underscore_to_dot
from bfcl_action.core.categories import Checker, get_category
from bfcl_action.core.errors import BfclActionError, InputError
from bfcl_action.core.records import ExpectedCall, FunctionDoc, Mode
from bfcl_action.safety.budget import loads_json, within_limits
from bfcl_action.safety.jsonl_memo import MemberMemo

INPUT_ERROR = "input_error"
INTERNAL_ERROR = "internal_error"


class CheckLine(BaseModel):
    """One input line of `check`."""

    model_config = ConfigDict(extra="ignore")

    id: str
    category: str
    functions: list[FunctionDoc] = []
    possible_answer: list[ExpectedCall] | None = None
    """`null` or absent is fine for irrelevance / relevance lines, as BFCL ships them."""
    model_output: Any
    model_name: str | None = None
    underscore_to_dot: bool | None = None
    mode: Mode | None = None


class _LineCase(NamedTuple):
    """The case a line describes, as the checker reads it (`checker.CheckedCase`); a tuple,
    not a `TestCase`, since building a pydantic model per line cost more than parsing it."""

    id: str
    category: str
    functions: list[FunctionDoc]
    possible_answer: list[ExpectedCall]
    answer_texts: tuple[str, ...] = ()


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        help="check model outputs given inline with their cases (JSONL in, JSONL out)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--cases", required=True, help="input JSONL file, or - for stdin")
    parser.add_argument("--output", required=True, help="output JSONL file, or - for stdout")
    parser.set_defaults(func=run)


def _is_decoded(output: Any) -> bool:
    """A call list whose arguments are not JSON text is taken as already decoded (and gets
    BFCL's format check); `[{name: "<json args>"}]` is a raw FC result to decode."""
    if isinstance(output, str):
        return False
    for item in output if isinstance(output, list) else [output]:  # a loop: once per line
        if isinstance(item, dict):
            for value in item.values():
                if isinstance(value, str):
                    return False
    return True


Outcome = tuple[str | None, bool, str | None, Sequence[str]]
"""One output line's values, in order: id (None when the line has none), valid, error type,
error messages."""


def check_line(
    raw: str | bytes, number: int, memo: MemberMemo[list[FunctionDoc]] | None = None
) -> dict[str, Any]:
    """The output object for one input line; never raises. `memo` (one per run) keeps the
    function lists of earlier lines, parsed and validated."""
    entry_id, valid, error_type, error = _outcome(raw, number, memo)
    return {"id": entry_id, "valid": valid, "error_type": error_type, "error": list(error)}


def _outcome(raw: str | bytes, number: int, memo: MemberMemo[list[FunctionDoc]] | None) -> Outcome:
    """`check_line`'s values as a tuple (no dict per line on the way to the output text)."""
    entry_id: str | None = None
    try:
        line = _fast_parse(raw, memo)
        if line is None:
            try:
                data = loads_json(raw)
            except InputError as exc:
                raise InputError(exc.message) from None
            if not isinstance(data, dict):
                raise InputError(f"expected a JSON object, found {type(data).__name__}")
            entry_id = data.get("id") if isinstance(data.get("id"), str) else None
            line = _parse(data)
        entry_id = line.id
        category = get_category(line.category)
        if category.checker is _MULTI_TURN:
            raise InputError(
                f"multi-turn category {line.category!r} cannot be checked per line",
                field="category",
            )
        if line.possible_answer is None and category.checker is _AST:
            raise InputError(
                f"category {line.category!r} is checked against an answer: "
                "expected a list of expected calls, found none",
                field="possible_answer",
            )
        case = _new_case((line.id, line.category, line.functions, line.possible_answer or [], ()))
        mode = line.mode or (_PROMPT if isinstance(line.model_output, str) else _FC)
        u2d = line.underscore_to_dot
        if u2d is None:
            u2d = needs_underscore_to_dot(line.model_name or "", mode)
        # the verdict alone: the output line needs no report record (`CaseResult`)
        if line.mode is None and _is_decoded(line.model_output):
            verdict = judge_decoded(case, line.model_output, underscore_to_dot=u2d).verdict
        else:
            verdict = judge(case, line.model_output, mode=mode, underscore_to_dot=u2d).verdict
    except BfclActionError as exc:
        return entry_id, False, INPUT_ERROR, (f"line {number}: {exc.render()}",)
    except Exception as exc:  # one bad line must not stop the run
        return entry_id, False, INTERNAL_ERROR, (f"line {number}: {type(exc).__name__}: {exc}",)
    return entry_id, verdict.valid, verdict.error_type, verdict.error


_MULTI_TURN, _AST = Checker.MULTI_TURN, Checker.AST
_PROMPT, _FC = Mode.PROMPT, Mode.FC
_new_case = partial(tuple.__new__, _LineCase)
"""`_LineCase` from a tuple of all its fields, in C (the named tuple's own constructor is a
Python function)."""


def _fast_parse(
    raw: str | bytes, memo: MemberMemo[list[FunctionDoc]] | None = None
) -> CheckLine | None:
    """The line parsed by pydantic-core's JSON parser (faster than `json.loads` on these
    lines) and validated, when the parse budget's cheap check (`within_limits`) shows that
    no limit can be reached; None for anything else (over the cheap bounds, not JSON, not a
    valid line), which then takes the general path (`loads_json`, `_parse`) and gets its
    exact error. With a `memo`, a line whose `functions` text was seen before is parsed
    without it (`MemberMemo.cut` says when that means the same, and checks the budget)."""
    try:
        cut = memo.cut(raw) if memo is not None and isinstance(raw, bytes) else None
        if cut is None:
            return _validate_json(raw) if within_limits(raw) else None
        line = _validate_json(cut[0])
        if line.functions:
            return None
        # validated already: passed through as they are (no `__setattr__` round)
        line.__dict__["functions"] = cut[1]
        return line
    except ValueError:  # pydantic's ValidationError included
        return None


_validate_json: Callable[[str | bytes], CheckLine] = CheckLine.__pydantic_validator__.validate_json
"""`CheckLine.model_validate_json` without its Python wrapper: pydantic-core's JSON parser
reading straight into the model, called once per line."""


def _functions(value: Any) -> list[FunctionDoc]:
    """A parsed `functions` value validated as the `CheckLine` field is (the memo's)."""
    line = {"id": "", "category": "", "functions": value, "model_output": None}
    return CheckLine.model_validate(line).functions


def _parse(data: dict[str, Any]) -> CheckLine:
    try:
        return CheckLine.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or None
        raise InputError(first["msg"], field=where) from None


_READ_BUFFER = 1 << 20


@contextmanager
def _open(name: str, mode: str) -> Iterator[IO[Any]]:
    """Input is read as bytes (a line that is not UTF-8 is that line's `input_error`, not
    the end of the run); output is text."""
    if name == "-":
        yield getattr(sys.stdin, "buffer", sys.stdin) if "r" in mode else sys.stdout
        return
    try:
        if "b" in mode:  # a large buffer: lines are read one by one, often kilobytes each
            handle: IO[Any] = Path(name).open(mode, buffering=_READ_BUFFER)  # noqa: SIM115
        else:
            handle = Path(name).open(mode, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror}", file=name) from None
    with handle:
        yield handle


def output_text(outcome: Outcome) -> str:
    """The output line of `outcome`: `json.dumps(check_line(...), ensure_ascii=False)` and a
    newline, the same text, put together with the string encoder `json.dumps` itself uses."""
    entry_id, valid, error_type, error = outcome
    shown_id = "null" if entry_id is None else encode_basestring(entry_id)
    shown_type = "null" if error_type is None else encode_basestring(error_type)
    return (
        f'{{"id": {shown_id}, "valid": {"true" if valid else "false"}, '
        f'"error_type": {shown_type}, "error": [{", ".join(map(encode_basestring, error))}]}}\n'
    )


_BATCH = 512
"""Output lines written at once."""
_MALFORMED = frozenset({INPUT_ERROR, INTERNAL_ERROR})


def run(args: argparse.Namespace) -> int:
    counts = {"valid": 0, "invalid": 0, "malformed": 0}
    memo = MemberMemo("functions", _functions)
    with _open(args.cases, "rb") as source, _open(args.output, "w") as sink:
        batch: list[str] = []
        for number, raw in enumerate(source, start=1):
            if not raw or raw.isspace():
                continue
            outcome = _outcome(raw, number, memo)
            batch.append(output_text(outcome))
            if len(batch) == _BATCH:
                sink.write("".join(batch))
                batch.clear()
            if outcome[2] in _MALFORMED:
                counts["malformed"] += 1
            else:
                counts["valid" if outcome[1] else "invalid"] += 1
        sink.write("".join(batch))
    print(
        f"checked {sum(counts.values())} lines: {counts['valid']} valid, "
        f"{counts['invalid']} invalid, {counts['malformed']} malformed",
        file=sys.stderr,
    )
    return 0
