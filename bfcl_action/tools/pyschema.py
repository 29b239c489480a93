"""JSON Schemas of Python functions and pydantic models, for `tools: - python: ...`.

Runs inside the sandbox worker (`bfcl_action.safety.sandbox`, `invoke`), which imports
the repository's module there: only the standard library and pydantic are imported here, and
nothing of bfcl-action above this module.

The schema of a function is what pydantic validates its call against (`validate_call`
semantics): one field per parameter (`*args`, `**kwargs`, `self` and `cls` left out), typed
by its annotation (unannotated: any value), required unless it has a default, described by
its entry in the docstring (Google `Args:`, NumPy `Parameters`, or Sphinx `:param x:`). The
function's description is the docstring before its first section. A pydantic model is its
own `model_json_schema()`, described by its docstring. Pydantic's generated `title`s are
dropped (no provider needs them; they only cost tokens).
"""

from __future__ import annotations

import importlib
import inspect
import re
import typing
from typing import Any

SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?)\s*:?\s*$"
)
GOOGLE_ARG = re.compile(r"^\s{2,}\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
SPHINX_ARG = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
NUMPY_ARG = re.compile(r"^(\w+)\s*(?::.*)?$")


def parse_docstring(text: str) -> tuple[str, dict[str, str]]:
    """(summary, {parameter: description}) of a Google, NumPy or Sphinx docstring."""
    lines = text.splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    for index, line in enumerate(lines):
        sphinx = SPHINX_ARG.match(line)
        if sphinx:
            section, current = "sphinx", sphinx.group(1)
            args[current] = sphinx.group(2).strip()
            continue
        header = SECTION.match(line)
        if header and (line.rstrip().endswith(":") or _underlined(lines, index)):
            section = header.group(1).lower()
            current = None
            continue
        if section is None:
            if not line.strip().startswith(":"):
                summary.append(line)
            continue
        if section not in ("args", "arguments", "parameters", "params", "sphinx"):
            continue
        if line.strip().startswith(":"):  # another Sphinx field (`:returns:`) ends the entry
            current = None
            continue
        if set(line.strip()) == {"-"}:
            continue
        google = GOOGLE_ARG.match(line)
        numpy = NUMPY_ARG.match(line) if not line.startswith(" ") else None
        if google:
            current = google.group(1)
            args[current] = google.group(2).strip()
        elif numpy and section != "sphinx":
            current = numpy.group(1)
            args[current] = ""
        elif current and line.strip():
            args[current] = (args[current] + " " + line.strip()).strip()
    return "\n".join(summary).strip(), args


def _underlined(lines: list[str], index: int) -> bool:
    following = lines[index + 1].strip() if index + 1 < len(lines) else ""
    return bool(following) and set(following) == {"-"}


def _drop_titles(node: Any) -> Any:
    if isinstance(node, list):
        return [_drop_titles(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {k: _drop_titles(v) for k, v in value.items()}
        else:
            out[key] = _drop_titles(value)
    return out


def function_schema(function: Any) -> tuple[str, dict[str, Any]]:
    """(description, parameter schema) of one function, as pydantic would validate a call."""
    from pydantic import Field, create_model

    function = getattr(function, "raw_function", function)  # @validate_call
    summary, described = parse_docstring(inspect.getdoc(function) or "")
    hints = typing.get_type_hints(function, include_extras=True)
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name in ("self", "cls"):
            continue
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (
            annotation,
            Field(default, description=described.get(parameter.name) or None),
        )
    model = create_model(f"{getattr(function, '__name__', 'tool')}_arguments", **fields)
    return summary, _drop_titles(model.model_json_schema())


def schemas_of(module: str, names: list[str]) -> list[dict[str, Any]]:
    """`{name, description, parameters}` for each name of `module` (functions or pydantic
    models), or `{name, error}` for a name that is neither."""
    from pydantic import BaseModel

    loaded = importlib.import_module(module)
    out: list[dict[str, Any]] = []
    for name in names:
        target = getattr(loaded, name, None)
        try:
            if isinstance(target, type) and issubclass(target, BaseModel):
                schema = _drop_titles(target.model_json_schema())
                schema.pop("description", None)  # the tool's description, not a parameter's
                description = inspect.getdoc(target) or ""
                out.append({"name": name, "description": description, "parameters": schema})
            elif callable(target):
                description, schema = function_schema(target)
                out.append({"name": name, "description": description, "parameters": schema})
            else:
                out.append({"name": name, "error": f"{module} has no function or model {name}"})
        except Exception as exc:  # the user's annotations: say which name and why
            out.append({"name": name, "error": f"{type(exc).__name__}: {exc}"[:300]})
    return out
