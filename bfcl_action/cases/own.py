"""Own test cases: a small YAML format a team writes next to its tools.

```yaml
cases:
  - id: weather_tokyo                 # unique across all case files
    question: What's the weather in Tokyo right now?   # or `messages: [{role, content}]`
    tools: [get_current_weather]      # optional subset by name; default: all tools
    expect:                           # BFCL possible-answer form or plain values (authoring.py)
      - get_current_weather: {city: [Tokyo, "Tokyo, Japan"], unit: [celsius, ""]}
    category: own_simple              # optional; inferred otherwise
```

`expect: []` means no call is expected (irrelevance); `expect: any` means some call is
expected, whatever it is (relevance). The category is inferred from the number of tools
offered and calls expected (see `infer_category`). A case whose `expect` cannot pass against
its own tools' schemas is rejected at load time, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bfcl_action.cases.authoring import call_options, call_problems, call_shape, checker_objection
from bfcl_action.core.categories import did_you_mean
from bfcl_action.core.errors import InputError
from bfcl_action.core.records import (
    CASE_ID_PATTERN,
    ExpectedCall,
    FunctionDoc,
    Message,
    SourceLocation,
    TestCase,
)
from bfcl_action.safety.budget import read_text, repository_root
from bfcl_action.safety.globs import expand_globs
from bfcl_action.tools.issues import CaseValidationError, ToolIssue, describe
from bfcl_action.tools.load import display_name, unmatched_issue
from bfcl_action.tools.source import Document, JsonPath, parse_text, path_label

OWN_DATASET = "own"
ANY_CALL = "any"
ID_PATTERN = CASE_ID_PATTERN
ROLES = {"system", "user", "assistant", "tool", "developer"}
CASE_KEYS = {
    "id",
    "question",
    "messages",
    "tools",
    "expect",
    "category",
    "description",
    "execute",
    "provenance",
}
"""`execute` (an executable check) is validated by `bfcl_action.multiturn.executable`;
`provenance` (who drafted a case and which checks it passed, written by `bfcl-action
generate`) is kept for the reader of the file and ignored by the evaluation."""
GIVEN_CATEGORIES = {
    "simple": "own_simple",
    "multiple": "own_multiple",
    "parallel": "own_parallel",
    "parallel_multiple": "own_parallel_multiple",
    "irrelevance": "own_irrelevance",
    "relevance": "own_relevance",
}


def infer_category(n_tools: int, expect: list[ExpectedCall] | None) -> str:
    """The own category of a case from the tools offered and the calls expected.

    `None` expect means "any call" (relevance); the shape rule is `authoring.call_shape`,
    the one Live curation uses too.
    """
    return "own_" + call_shape(n_tools, None if expect is None else len(expect))


class _CaseReader:
    def __init__(self, doc: Document, tools: Sequence[FunctionDoc]) -> None:
        self.doc = doc
        self.tools = {t.name: t for t in tools}
        self.order = [t.name for t in tools]
        self.issues: list[ToolIssue] = []
        self.case_id: str | None = None
        self.base: JsonPath = ()

    def add(
        self,
        path: JsonPath,
        message: str,
        *,
        expected: str | None = None,
        found: str | None = None,
        key: bool = False,
    ) -> None:
        line, col = self.doc.where(path, key=key) or (None, None)
        field = path_label(path[len(self.base) :])
        self.issues.append(
            ToolIssue(
                file=self.doc.file,
                line=line,
                column=col,
                case=self.case_id,
                field=field or None,
                message=message,
                expected=expected,
                found=found,
            )
        )

    # ------------------------------------------------------------------ file

    def read(self) -> list[TestCase]:
        data = self.doc.data
        root: JsonPath = ()
        if isinstance(data, dict) and isinstance(data.get("cases"), list):
            root, data = ("cases",), data["cases"]
        if data is None:
            return []
        if not isinstance(data, list):
            self.add(
                root,
                "not a case file",
                expected="a list of cases or {cases: [...]}",
                found=describe(data),
            )
            return []
        out: list[TestCase] = []
        for index, entry in enumerate(data):
            case = self.read_case(entry, (*root, index))
            if case is not None:
                out.append(case)
        return out

    # ------------------------------------------------------------------ case

    def read_case(self, entry: Any, path: JsonPath) -> TestCase | None:
        self.base = path
        self.case_id = None
        before = len(self.issues)
        if not isinstance(entry, dict):
            self.add(path, "invalid case", expected="a mapping", found=describe(entry))
            return None
        case_id = entry.get("id")
        if not isinstance(case_id, str) or not ID_PATTERN.fullmatch(case_id):
            self.add(
                (*path, "id"),
                "missing or invalid case id",
                expected="letters, digits and _ . : @ -",
                found=describe(case_id) if "id" in entry else "no id",
            )
        else:
            self.case_id = case_id
        for key in entry:
            if key not in CASE_KEYS:
                self.add(
                    (*path, key),
                    "unknown key",
                    expected="one of " + ", ".join(sorted(CASE_KEYS)),
                    found=repr(key),
                    key=True,
                )
        question = self.read_question(entry, path)
        offered = self.read_tools(entry, path)
        expect = self.read_expect(entry, path, offered)
        category = self.read_category(entry, path, len(offered), expect)
        if len(self.issues) > before or question is None or category is None:
            return None
        line, col = self.doc.where(path) or (None, None)
        case = TestCase(
            id=str(case_id),
            category=category,
            question=[question],
            functions=[self.tools[n].model_copy(deep=True) for n in offered],
            possible_answer=expect or [],
            dataset=OWN_DATASET,
            suite=category,
            source=SourceLocation(file=self.doc.file, line=line, column=col),
        )
        if "execute" in entry:
            executable = self.read_execute(case, entry["execute"], path)
            if executable is None:
                return None
            case = executable
        reason = checker_objection(case)
        if reason:
            self.add((*path, "expect"), f"expect cannot pass the checker: {reason}")
            return None
        return case

    def read_execute(self, case: TestCase, raw: Any, path: JsonPath) -> TestCase | None:
        from bfcl_action.multiturn.executable import exec_spec

        with_spec = case.model_copy(update={"execute": raw})
        try:
            exec_spec(with_spec)
        except InputError as exc:
            self.add((*path, "execute"), exc.message.split(": ", 1)[-1])
            return None
        return with_spec

    def read_question(self, entry: dict[str, Any], path: JsonPath) -> list[Message] | None:
        has_q, has_m = "question" in entry, "messages" in entry
        if has_q == has_m:
            self.add(
                path,
                "a case needs exactly one of question and messages",
                expected="question: <text> or messages: [{role, content}, ...]",
                found="both" if has_q else "neither",
            )
            return None
        if has_q:
            text = entry["question"]
            if not isinstance(text, str) or not text.strip():
                self.add(
                    (*path, "question"),
                    "invalid question",
                    expected="non-empty text",
                    found=describe(text),
                )
                return None
            return [Message(role="user", content=text)]
        messages = entry["messages"]
        if not isinstance(messages, list) or not messages:
            self.add(
                (*path, "messages"),
                "invalid messages",
                expected="a non-empty list of {role, content}",
                found=describe(messages),
            )
            return None
        out: list[Message] = []
        for i, msg in enumerate(messages):
            where = (*path, "messages", i)
            if not isinstance(msg, dict) or not isinstance(msg.get("content", ""), str):
                self.add(where, "invalid message", expected="{role, content}", found=describe(msg))
                continue
            role = msg.get("role")
            if role not in ROLES:
                self.add(
                    (*where, "role"),
                    "invalid role",
                    expected="one of " + ", ".join(sorted(ROLES)),
                    found=describe(role),
                )
                continue
            out.append(Message.model_validate(msg))
        if out and not any(m.role == "user" for m in out):
            self.add((*path, "messages"), "no user message", expected="at least one user message")
        return out if len(out) == len(messages) else None

    def read_tools(self, entry: dict[str, Any], path: JsonPath) -> list[str]:
        if "tools" not in entry:
            return list(self.order)
        names = entry["tools"]
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names:
            self.add(
                (*path, "tools"),
                "invalid tools",
                expected="a non-empty list of tool names",
                found=describe(names),
            )
            return []
        out: list[str] = []
        for i, name in enumerate(names):
            if name not in self.tools:
                self.add((*path, "tools", i), self.no_such_tool(name))
            elif name not in out:
                out.append(name)
        return out

    # ---------------------------------------------------------------- expect

    def read_expect(
        self, entry: dict[str, Any], path: JsonPath, offered: list[str]
    ) -> list[ExpectedCall] | None:
        where = (*path, "expect")
        if "expect" not in entry:
            self.add(path, "missing expect", expected="calls, [] (no call) or 'any' (some call)")
            return []
        raw = entry["expect"]
        if raw == ANY_CALL:
            return None
        calls: list[tuple[JsonPath, str, Any]] = []
        if isinstance(raw, dict):
            calls = [((*where, name), name, args) for name, args in raw.items()]
        elif isinstance(raw, list):
            for i, item in enumerate(raw):
                if not isinstance(item, dict) or len(item) != 1:
                    self.add(
                        (*where, i),
                        "invalid expected call",
                        expected="{function_name: {param: value-or-options}}",
                        found=describe(item),
                    )
                    continue
                ((name, args),) = item.items()
                calls.append(((*where, i, name), name, args))
        else:
            self.add(
                where,
                "invalid expect",
                expected="a list of calls, [] or 'any'",
                found=describe(raw),
            )
            return []
        out: list[ExpectedCall] = []
        for call_path, name, args in calls:
            expected = self.read_call(call_path, name, args, offered)
            if expected is not None:
                out.append({name: expected})
        return out

    def no_such_tool(self, name: Any) -> str:
        """A tool name no tool file defines, with the closest names that exist."""
        if not isinstance(name, str):
            return f"expected a tool name, found {describe(name)}"
        return f"no tool named {name!r} in the tool files" + did_you_mean(name, self.order)

    def read_call(
        self, path: JsonPath, name: str, args: Any, offered: list[str]
    ) -> dict[str, list[Any]] | None:
        if name not in self.tools:
            self.add(path, self.no_such_tool(name), key=True)
            return None
        if name not in offered:
            self.add(
                path,
                f"expected a call to {name!r}, which this case's `tools` leave out",
                expected="one of " + ", ".join(offered) if offered else None,
                found=repr(name),
                key=True,
            )
            return None
        if args is None:
            args = {}
        if not isinstance(args, dict):
            self.add(path, "invalid arguments", expected="a mapping", found=describe(args))
            return None
        function = self.tools[name]
        options = call_options(args, function)
        unknown: set[str] = set()
        for problem in call_problems(options, function):
            if problem.code == "unknown_parameter" and problem.param is not None:
                unknown.add(problem.param)
            self.add(
                (*path, problem.param) if problem.param is not None else path,
                problem.message,
                expected=problem.expected,
                found=problem.found,
                key=problem.key,
            )
        return {p: o for p, o in options.items() if p not in unknown}

    def read_category(
        self,
        entry: dict[str, Any],
        path: JsonPath,
        n_tools: int,
        expect: list[ExpectedCall] | None,
    ) -> str | None:
        inferred = infer_category(n_tools, expect)
        if "category" not in entry:
            return inferred
        given = entry["category"]
        name = GIVEN_CATEGORIES.get(given, given) if isinstance(given, str) else None
        allowed = sorted(set(GIVEN_CATEGORIES.values()))
        if name not in allowed:
            self.add(
                (*path, "category"),
                "invalid category",
                expected="one of " + ", ".join(allowed),
                found=describe(given),
            )
            return None
        assert name is not None
        problem = _category_mismatch(name, n_tools, expect)
        if problem:
            self.add((*path, "category"), problem, expected=f"category {inferred}", found=name)
            return None
        return name


def _category_mismatch(name: str, n_tools: int, expect: list[ExpectedCall] | None) -> str | None:
    calls = None if expect is None else len(expect)
    if name == "own_relevance":
        return None if calls != 0 else "relevance expects some call, but expect is []"
    if name == "own_irrelevance":
        return None if calls == 0 else "irrelevance expects no call; use expect: []"
    if calls is None or calls == 0:
        return f"{name} expects calls, but expect is {'any' if calls is None else '[]'}"
    if name in {"own_simple", "own_multiple"} and calls != 1:
        return f"{name} checks exactly one call, but expect has {calls}"
    return None


def read_cases(
    doc: Document, tools: Sequence[FunctionDoc]
) -> tuple[list[TestCase], list[ToolIssue]]:
    """Cases of one parsed file and every problem found in it."""
    reader = _CaseReader(doc, tools)
    cases = reader.read()
    return cases, reader.issues


def parse_cases(text: str, file: str, tools: Sequence[FunctionDoc]) -> list[TestCase]:
    """Cases from YAML text; raises `CaseValidationError` listing every problem."""
    return _finish([(file, text)], tools)


def load_cases(
    patterns: Sequence[str],
    *,
    base_dir: Path,
    tools: Sequence[FunctionDoc],
    origins: Sequence[SourceLocation] = (),
) -> list[TestCase]:
    """Cases of every file matched by `patterns` (relative to `base_dir`), ids unique.

    Raises `CaseValidationError` with every problem of every file, rejected cases included.
    """
    root = repository_root(base_dir)
    try:
        files, unmatched = expand_globs(patterns, base_dir, root=root)
    except InputError as exc:
        issue = ToolIssue(file=exc.file or ".bfcl.yml", message=exc.message)
        raise CaseValidationError([issue]) from None
    early = [
        unmatched_issue(p, patterns, origins, key="cases", what="case file") for p in unmatched
    ]
    sources = []
    for path in files:
        name = display_name(path, base_dir)
        try:
            sources.append((name, read_text(path, root=root, display=name)))
        except InputError as exc:
            early.append(ToolIssue(file=name, message=exc.message))
    return _finish(sources, tools, early)


def _finish(
    sources: list[tuple[str, str]],
    tools: Sequence[FunctionDoc],
    early: list[ToolIssue] | None = None,
) -> list[TestCase]:
    issues = list(early or [])
    cases: list[TestCase] = []
    seen: dict[str, TestCase] = {}
    for name, text in sources:
        try:
            doc = parse_text(text, name)
        except InputError as exc:
            issues.append(
                ToolIssue(file=name, line=exc.line, column=exc.column, message=exc.message)
            )
            continue
        found_cases, found = read_cases(doc, tools)
        issues.extend(found)
        for case in found_cases:
            first = seen.get(case.id)
            if first is not None:
                src = case.source or SourceLocation(file=name)
                fsrc = first.source or SourceLocation(file=name)
                issues.append(
                    ToolIssue(
                        file=src.file,
                        line=src.line,
                        column=src.column,
                        case=case.id,
                        field="id",
                        message=f"duplicate case id (first at {fsrc.file}:{fsrc.line})",
                        expected="an id unique across all case files",
                        found=repr(case.id),
                    )
                )
                continue
            seen[case.id] = case
            cases.append(case)
    if issues:
        raise CaseValidationError(issues)
    return cases


__all__ = [
    "ANY_CALL",
    "OWN_DATASET",
    "infer_category",
    "load_cases",
    "parse_cases",
    "read_cases",
]
