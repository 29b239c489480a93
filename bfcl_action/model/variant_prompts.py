"""The system prompt of one format-sensitivity case: BFCL's texts for its configuration
(`bfcl_action.dataset.prompt_templates`, read from the pinned wheel) around the offered
functions written in the configuration's function-doc format.

Assembly, as bfcl-eval does it (behaviour read, code our own):
- the style gives persona, task, the call instruction (with or without the `<TOOLCALL>` tag,
  filled with the return format's example and its note on parameter types), the multi-turn
  behaviour and the heading of the function list (filled with the doc format's name and the
  docs); the layout (plain text or markdown) puts the five pieces together;
- the functions are the case's functions with the language note (`render.with_language_notes`),
  written as indented JSON, as XML (`<function name=...>` with `<desc>` and `<params>`, one
  `<param>` per property, nested properties inside it), or as Python-style docstrings
  (`# Function: name`, `Args:` with `name (type): description` lines).

Quirks kept so the text is byte-for-byte bfcl-eval's: the language note is added twice
(`forms.case_request`: bfcl-eval adds it when it loads the entry's own category and again
when it loads the entry as a format-sensitivity case); commas inside an XML `<param>`
opening tag are removed (also inside a default value); enum values are written as a Python
list; defaults as Python reprs; XML text is not escaped; a parameter list absent from the
schema means every parameter is required (XML).
"""

from __future__ import annotations

import json
from typing import Any

from bfcl_action.checker.variants import PromptConfig, PromptTemplates

DOC_FORMATS = ("python", "xml", "json")


def variant_system_prompt(
    templates: PromptTemplates, config: PromptConfig, functions: list[dict[str, Any]]
) -> str:
    """The system prompt for `config` offering `functions` (BFCL function dicts, language
    notes already added)."""
    style = templates.styles[config.style]
    fmt = config.return_format.value
    instruction = style.tool_call_with_tag if config.tool_call_tag else style.tool_call_no_tag
    tool_call_format = instruction.format(
        output_format=templates.output_formats[fmt], param_types=templates.param_types[fmt]
    )
    available_tools = style.available_tools.format(
        format=config.function_doc_format,
        functions=function_doc_text(functions, config.function_doc_format),
    )
    return templates.layouts[config.prompt_format].format(
        persona=style.persona,
        task=style.task,
        tool_call_format=tool_call_format,
        multiturn_behavior=style.multiturn_behavior,
        available_tools=available_tools,
    )


def function_doc_text(functions: list[dict[str, Any]], doc_format: str) -> str:
    """The functions in one of the three doc formats (`python`, `xml`, `json`)."""
    if doc_format == "json":
        return json.dumps(functions, indent=4)
    if doc_format == "xml":
        return "\n".join(_xml_function(fn) for fn in functions)
    if doc_format == "python":
        # each docstring is followed by an empty part, and the parts are joined by a blank line
        return "\n\n".join(part for fn in functions for part in (_python_function(fn), "\n"))
    raise ValueError(f"unknown function-doc format {doc_format!r}")


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# --- XML ------------------------------------------------------------------------------------


def _xml_function(fn: dict[str, Any]) -> str:
    schema = _mapping(fn.get("parameters"))
    required = schema.get("required")
    params = "".join(
        _xml_param(name, _mapping(meta), required, 2)
        for name, meta in _mapping(schema.get("properties")).items()
    )
    return (
        f'<function name="{fn.get("name", "")}">\n'
        f"  <desc>{fn.get('description', '')}</desc>\n"
        f"  <params>\n{params}  </params>\n"
        "</function>\n"
    )


def _xml_param(name: str, meta: dict[str, Any], required: Any, level: int) -> str:
    indent = "  " * level
    kind = meta.get("type", "string")
    description = _with_enum(meta)
    is_required = "true" if required is None or name in required else "false"
    items = meta.get("items")
    if isinstance(items, dict) and "type" in items:
        kind = f"{kind}[{items['type']}]"
    elif "additionalProperties" in meta:
        kind = f"{kind}[{_mapping(meta['additionalProperties']).get('type', 'string')}]"
    attributes = f'name="{name}" type="{kind}" required="{is_required}"'
    if "default" in meta:
        attributes += f' default="{meta["default"]!r}"'
    out = [f"{indent}<param {attributes.replace(',', '')}>\n"]
    out.append(f"{indent}  <desc>{description}</desc>\n")
    if "properties" in meta:
        out.append(f"{indent}  <params>\n")
        out.extend(
            _xml_param(child, _mapping(child_meta), meta.get("required"), level + 2)
            for child, child_meta in _mapping(meta["properties"]).items()
        )
        out.append(f"{indent}  </params>\n")
    out.append(f"{indent}</param>\n")
    return "".join(out)


def _with_enum(meta: dict[str, Any]) -> str:
    description = str(meta.get("description", ""))
    if "enum" in meta:
        description += f" Enum values: {meta['enum']}."
    return description


# --- Python docstrings ----------------------------------------------------------------------

_PY_TYPES = {"string": "str", "number": "float", "integer": "int", "boolean": "bool"}


def _py_type(meta: dict[str, Any]) -> str:
    kind = meta.get("type", "string")
    if not isinstance(kind, str):
        return str(kind)
    if kind in _PY_TYPES:
        return _PY_TYPES[kind]
    if kind in {"array", "list", "tuple"} and "items" in meta:
        return f"list[{_py_type(_mapping(meta['items']))}]"
    if kind in {"object", "dict"}:
        if "additionalProperties" in meta:
            return f"dict[str, {_py_type(_mapping(meta['additionalProperties']))}]"
        return "dict"
    return kind


def _python_param(name: str, meta: dict[str, Any], depth: int) -> list[str]:
    indent = " " * (8 + 4 * depth)
    default = f", default={meta['default']!r}" if "default" in meta else ""
    lines = [f"{indent}{name} ({_py_type(meta)}{default}): {_with_enum(meta)}\n"]
    for child, child_meta in _mapping(meta.get("properties")).items():
        lines.extend(_python_param(child, _mapping(child_meta), depth + 1))
    return lines


def _python_function(fn: dict[str, Any]) -> str:
    lines = [
        f"# Function: {fn.get('name', '')}\n",
        '    """\n',
        f"    {fn.get('description', '')}\n\n",
    ]
    properties = _mapping(_mapping(fn.get("parameters")).get("properties"))
    if properties:
        lines.append("    Args:\n")
        for name, meta in properties.items():
            lines.extend(_python_param(name, _mapping(meta), 0))
    lines.append('    """\n')
    return "".join(lines)
