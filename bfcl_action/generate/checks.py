"""Checks that need no model: hostile text, format (through the own-case reader), kind.

The format check builds the candidate exactly as a person would write it in a case file and
reads it with `bfcl_action.cases.own.read_cases`, the reader `validate` uses: what it rejects is
never written, and what it accepts is the case `validate` will load (the answer passes our
checker against the case's tools). A rejection is named by `bfcl_action.cases.authoring`'s problem
codes where it has one (the same codes curation counts), else by the reader's issue.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from bfcl_action.cases.authoring import call_options, call_problems
from bfcl_action.cases.own import read_cases
from bfcl_action.core.records import FunctionDoc
from bfcl_action.generate.models import Candidate, Drop, DropReason, Kind
from bfcl_action.safety.redact import SECRET_SHAPES, has_secret_shape, redact
from bfcl_action.tools.issues import ToolIssue
from bfcl_action.tools.source import Document

CANDIDATE_FILE = "<candidate>"

_HOSTILE = [
    (re.compile(r"[\x00-\x08\x0b-\x1f\x7f]"), "control character"),
    (re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]"), "invisible or bidi character"),
    (re.compile(r"::[a-z][a-z-]*(?:\s|::)", re.IGNORECASE), "workflow command"),
    (re.compile(r"<[ \t]*/?[ \t]*[a-z!][^<>]*>", re.IGNORECASE), "HTML or XML tag"),
    (re.compile(r"(?:^|\s)@[A-Za-z0-9][A-Za-z0-9-]*\b(?!\.)"), "@mention"),
    (re.compile(r"\b(?:javascript|data|vbscript):", re.IGNORECASE), "script URL"),
    (re.compile(r"```|\]\(|!\["), "Markdown markup"),
    (
        re.compile(
            r"\b(?:ignore|disregard|forget)\b.{0,30}\b(?:previous|prior|above|earlier|all)\b"
            r".{0,20}\b(?:instructions?|prompts?|rules)\b|\bsystem prompt\b",
            re.IGNORECASE,
        ),
        "instructions to the model",
    ),
    (SECRET_SHAPES, "credential-like string"),
]
"""Linear patterns only (tests/safety/test_security_written_files.py feeds 200 KB adversarial
strings): a tag ends at the next `<` or `>`, a key shape never backtracks over its run."""


def strings_of(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from strings_of(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from strings_of(inner)


def hostile_text(candidate: Candidate) -> Drop | None:
    """A drop when the request or an expected value carries text that must never reach a
    case file, a log or a PR comment (markup, workflow commands, injected instructions,
    invisible characters, credentials)."""
    for text in [candidate.request, *strings_of(candidate.expect)]:
        if has_secret_shape(text) or redact(text) != text:
            # never quoted anywhere (the review file lists the drop without its request)
            return Drop(candidate.tool, DropReason.HOSTILE_TEXT, "credential-like string")
        for pattern, what in _HOSTILE:
            if pattern.search(text):
                return Drop(candidate.tool, DropReason.HOSTILE_TEXT, what, candidate.request)
    return None


def own_case_entry(candidate: Candidate, case_id: str) -> dict[str, Any]:
    """The candidate as an own-case mapping (what the cases file will hold)."""
    return {
        "id": case_id,
        "question": candidate.request,
        "tools": list(candidate.offered),
        "expect": candidate.expect,
        "category": candidate.kind.value,
    }


_BY_CODE = {
    "unknown_parameter": DropReason.UNKNOWN_ARGUMENT,
    "missing_required": DropReason.MISSING_REQUIRED,
    "required_omittable": DropReason.MISSING_REQUIRED,
    "empty_options": DropReason.INVALID,
}


def _authoring_reason(
    candidate: Candidate, tools: Sequence[FunctionDoc]
) -> tuple[DropReason, str] | None:
    """The first problem `authoring` finds in the candidate's calls, as a drop reason."""
    by_name = {t.name: t for t in tools}
    for call in candidate.expect:
        for name, args in call.items():
            function = by_name.get(name)
            if function is None or name not in candidate.offered:
                return DropReason.UNKNOWN_FUNCTION, f"{name!r} is not an offered function"
            for problem in call_problems(call_options(args, function), function):
                detail = (
                    f"{name}.{problem.param}: {problem.message}"
                    if problem.param
                    else (problem.message)
                )
                if problem.code == "answer_type_mismatch":
                    enum = "enum" in problem.message
                    kind = DropReason.OUTSIDE_ENUM if enum else DropReason.MISTYPED_ARGUMENT
                    return kind, detail
                return _BY_CODE.get(problem.code, DropReason.INVALID), detail
    return None


def _reason(issue: ToolIssue) -> DropReason:
    message = issue.message
    if issue.field == "category" or "checks exactly one call" in message:
        return DropReason.WRONG_KIND
    if message.startswith("no tool named") or "`tools` leave out" in message:
        return DropReason.UNKNOWN_FUNCTION
    if "is not in" in message and "schema" in message:
        return DropReason.UNKNOWN_ARGUMENT
    if "enum" in message:
        return DropReason.OUTSIDE_ENUM
    if "expected type" in message:
        return DropReason.MISTYPED_ARGUMENT
    if "required parameter" in message:
        return DropReason.MISSING_REQUIRED
    if "cannot pass the checker" in message:
        return DropReason.UNPASSABLE
    return DropReason.INVALID


def _issue_text(issue: ToolIssue) -> str:
    parts = [p for p in (issue.field, issue.message) if p]
    text = ": ".join(parts)
    if issue.found:
        text += f" (found {issue.found})"
    return text


def format_check(candidate: Candidate, tools: Sequence[FunctionDoc]) -> Drop | None:
    """Read the candidate with the own-case reader; on success `candidate.case` is set."""
    doc = Document(CANDIDATE_FILE, {"cases": [own_case_entry(candidate, "candidate")]})
    cases, issues = read_cases(doc, tools)
    if issues or len(cases) != 1:
        named = _authoring_reason(candidate, tools)
        if named is not None:
            return Drop(candidate.tool, named[0], named[1], candidate.request)
        first = issues[0] if issues else ToolIssue(file=CANDIDATE_FILE, message="not read")
        return Drop(candidate.tool, _reason(first), _issue_text(first), candidate.request)
    candidate.case = cases[0]
    return kind_check(candidate)


def kind_check(candidate: Candidate) -> Drop | None:
    """Calls that fit the kind asked for: the target tool called (except irrelevance), the
    same function for parallel, two functions for parallel_multiple."""
    names = [next(iter(call)) for call in candidate.expect]

    def wrong(detail: str) -> Drop:
        return Drop(candidate.tool, DropReason.WRONG_KIND, detail, candidate.request)

    if candidate.kind is Kind.IRRELEVANCE:
        return None if not names else wrong("an irrelevance case expects no call")
    if candidate.tool not in names:
        return wrong(f"does not call the target tool {candidate.tool}")
    if candidate.kind is Kind.PARALLEL and len(set(names)) != 1:
        return wrong("parallel calls one function several times")
    if candidate.kind is Kind.PARALLEL_MULTIPLE and len(set(names)) < 2:
        return wrong("parallel_multiple calls at least two different functions")
    return None
