"""The texts BFCL's format-sensitivity system prompts are assembled from, read from the pinned
wheel as data.

Each of the 26 prompt configurations (`bfcl_action.checker.variants.PROMPT_CONFIGS`) picks a
layout (plain text or markdown), a style (classic or experimental: persona, task, how to write
the calls with or without the `<TOOLCALL>` tag, multi-turn behaviour, the heading of the
function list), an example of the return format and a note on parameter types. bfcl-eval
keeps these texts as string constants in `bfcl_eval/constants/default_prompts.py`; so that a
run sends exactly the prompts bfcl-eval sends without the project carrying a copy of them,
that file is extracted from the sha256-verified wheel like the data files and read here with
`ast`, never imported, into `bfcl_action.checker.variants.PromptTemplates`: only literal
strings, dicts of them, names bound earlier in the file and `+` between strings are
evaluated.

Every template must use only the placeholders the assembly fills (`{persona}`, `{task}`,
...; plain names, no attribute, index, conversion or format spec), so filling one with
`str.format` does what bfcl-eval's own `format` does and nothing more.
"""

from __future__ import annotations

import ast
import string
from typing import Any

from bfcl_action.checker.variants import PromptTemplates
from bfcl_action.core.errors import DatasetError

SOURCE_FILE = "bfcl_eval/constants/default_prompts.py"
"""Where the texts live in the wheel."""

RETURN_FORMATS = ("python", "json", "verbose_xml", "concise_xml")
STYLES = ("classic", "experimental")
LAYOUTS = ("plaintext", "markdown")

LAYOUT_FIELDS = frozenset(
    {"persona", "task", "tool_call_format", "multiturn_behavior", "available_tools"}
)
_STYLE_FIELDS: dict[str, frozenset[str]] = {
    "persona": frozenset(),
    "task": frozenset(),
    "tool_call_no_tag": frozenset({"output_format", "param_types"}),
    "tool_call_with_tag": frozenset({"output_format", "param_types"}),
    "multiturn_behavior": frozenset(),
    "available_tools": frozenset({"format", "functions"}),
}
_CONSTANTS = {
    "output_formats": "OUTPUT_FORMAT_MAPPING",
    "param_types": "PARAM_TYPE_MAPPING",
    "styles": "PROMPT_STYLE_TEMPLATES",
    "layouts": "PROMPT_TEMPLATE_MAPPING",
}


def read_prompt_templates(text: str, *, file: str) -> PromptTemplates:
    """The templates in the text of bfcl-eval's `default_prompts.py`; `DatasetError` naming
    `file`, the line and the constant when one is missing, not literal, or incomplete."""
    try:
        tree = ast.parse(text, filename=file)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise DatasetError(f"not Python source: {exc}", file=file) from None
    bound: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            try:
                bound[node.targets[0].id] = _literal(node.value, bound)
            except ValueError:
                bound.pop(node.targets[0].id, None)
                continue
            lines[node.targets[0].id] = node.lineno
    values: dict[str, Any] = {}
    for field, constant in _CONSTANTS.items():
        if constant not in bound:
            raise DatasetError(f"no literal {constant} in the file", file=file, field=constant)
        values[field] = bound[constant]
    try:
        templates = PromptTemplates.model_validate(values)
    except ValueError as exc:
        raise DatasetError(f"unexpected prompt template shape: {exc}", file=file) from None
    _check(templates, file=file, lines=lines)
    return templates


def _literal(node: ast.expr, bound: dict[str, Any]) -> Any:
    """A string, dict, list or tuple literal, a name bound before, or `str + str`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float | bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in bound:
            return bound[node.id]
        raise ValueError(node.id)
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ValueError("**")
            out[_literal(key, bound)] = _literal(value, bound)
        return out
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item, bound) for item in node.elts]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, bound), _literal(node.right, bound)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    raise ValueError(type(node).__name__)


def placeholders(template: str) -> set[str]:
    """The placeholder names of a `str.format` template; `ValueError` for anything but plain
    names (attribute, index, conversion, format spec, positional)."""
    names: set[str] = set()
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"placeholder {{{name}}} is not a plain name")
        names.add(name)
    return names


def _check(templates: PromptTemplates, *, file: str, lines: dict[str, int]) -> None:
    def need(keys: tuple[str, ...], found: dict[str, Any], constant: str) -> None:
        missing = [k for k in keys if k not in found]
        if missing:
            raise DatasetError(
                f"no entry for {', '.join(missing)}",
                file=file,
                line=lines.get(constant),
                field=constant,
            )

    need(RETURN_FORMATS, templates.output_formats, _CONSTANTS["output_formats"])
    need(RETURN_FORMATS, templates.param_types, _CONSTANTS["param_types"])
    need(STYLES, templates.styles, _CONSTANTS["styles"])
    need(LAYOUTS, templates.layouts, _CONSTANTS["layouts"])
    checks: list[tuple[str, str, frozenset[str]]] = [
        (f"{_CONSTANTS['layouts']}[{name!r}]", text, LAYOUT_FIELDS)
        for name, text in templates.layouts.items()
    ]
    for name, style in templates.styles.items():
        for part, allowed in _STYLE_FIELDS.items():
            where = f"{_CONSTANTS['styles']}[{name!r}][{part!r}]"
            checks.append((where, getattr(style, part), allowed))
    for where, text, allowed in checks:
        constant = where.split("[", 1)[0]
        try:
            unknown = placeholders(text) - allowed
        except ValueError as exc:
            raise DatasetError(str(exc), file=file, line=lines.get(constant), field=where) from None
        if unknown:
            raise DatasetError(
                f"unknown placeholder {', '.join(sorted(unknown))} "
                f"(expected only {', '.join(sorted(allowed)) or 'none'})",
                file=file,
                line=lines.get(constant),
                field=where,
            )
