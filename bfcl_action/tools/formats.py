"""Which tool-definition format a file and each of its entries are written in.

Teams already have their tools in one of a few shapes; we read them all rather than ask for a
new one:

| format              | one tool looks like                                              |
|---------------------|------------------------------------------------------------------|
| `openai_chat`       | `{"type": "function", "function": {"name", "description", "parameters"}}` |
| `openai_responses`  | `{"type": "function", "name", "description", "parameters"}`       |
| `openai_functions`  | `{"name", "description", "parameters"}` (legacy `functions=`)     |
| `mcp`               | `{"name", "description", "inputSchema"}` (MCP `tools/list`)       |
| `anthropic`         | `{"name", "description", "input_schema"}`                         |
| `bfcl`              | `{"name", "description", "parameters": {"type": "dict", ...}}`    |
| `gemini`            | `{"functionDeclarations": [{"name", "description", "parameters"}]}` |
| `vscode`            | `package.json`: `contributes.languageModelTools[]`                |
| `dify`              | `identity.name`, `description.llm`, `parameters: [...]`           |
| `name_keyed`       | `{NAME: {"description", "parameters"}}`, `{NAME: {docstring, arguments}}` |
| `openapi`          | an OpenAPI 3.x description: one tool per operation (`tools/openapi.py`) |

Gemini's types are upper-case (`OBJECT`, `STRING`); VS Code's description is
`modelDescription`; name-keyed maps are how SWE-agent and Google's MCP Toolbox write them.

A file holds a list of tools, one tool, `{"tools": [...]}` (a request fragment or an MCP
`tools/list` result), a full MCP JSON-RPC response (`{"result": {"tools": [...]}}`), a map of
tools keyed by name, or JSON Lines of tools (how BFCL ships its function docs). Formats may be
mixed in one file. A file of none of these whose only tool list sits deeper (an eval config's
`providers[0].config.tools`) is read from there, with a warning saying where.

Parameters may also be written as a list (`[{name, type, description, required}]`, Dify's and
SWE-agent's way) or as bare properties without the `type`/`properties` wrapper (read with a
warning); both become an object schema here, so the checks after this see one shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import PurePath
from typing import Any

from bfcl_action.tools.issues import Severity, ToolIssue, describe
from bfcl_action.tools.openapi import is_openapi, operations
from bfcl_action.tools.source import Document, JsonPath, path_label


class ToolFormat(StrEnum):
    OPENAI_CHAT = "openai_chat"
    OPENAI_RESPONSES = "openai_responses"
    OPENAI_FUNCTIONS = "openai_functions"
    MCP = "mcp"
    ANTHROPIC = "anthropic"
    BFCL = "bfcl"
    GEMINI = "gemini"
    VSCODE = "vscode"
    DIFY = "dify"
    NAME_KEYED = "name_keyed"
    OPENAPI = "openapi"
    PYTHON = "python"
    """Functions of a Python module (`tools: - python: ...`, `bfcl_action.tools.pyschema`)."""


BFCL_TYPES = frozenset(
    {"dict", "float", "tuple", "any", "list", "bool", "int", "str", "double", "long"}
    | {"String", "char", "Boolean", "byte", "short", "Bigint", "Number", "Array", "ArrayList"}
    | {"Set", "Queue", "Stack", "HashMap", "Hashtable"}
)
"""Type names only BFCL's dialect uses (its Python names and, in its Java and JavaScript
function docs, those languages' type names); their presence marks a `bfcl` function doc."""

FROM_FILE: Any = object()
"""`RawTool.schema` when the schema is read from the file at `schema_path` as it is."""

SCHEMA_KEYS = frozenset(
    {"type", "properties", "$ref", "allOf", "anyOf", "oneOf", "not", "enum", "const", "items"}
)
"""Keys that make a mapping a JSON Schema node rather than bare properties."""

GEMINI_BUILTINS = frozenset(
    {"googleSearch", "google_search", "googleSearchRetrieval", "codeExecution", "urlContext"}
)


@dataclass(frozen=True)
class RawTool:
    """Where one tool sits in a document and how to read its fields.

    Paths are relative to the document root: `name_path` and `description_path` point at the
    values, `schema_path` at the parameter schema (which may be absent in the file). `name`
    is set when the name is a mapping key rather than a value; `schema` when the file's shape
    is not a JSON Schema (a parameter list, bare properties, Gemini's upper-case types) and
    was rewritten into one; `notes` are warnings about such readings.
    """

    format: ToolFormat
    path: JsonPath
    name_path: JsonPath
    description_path: JsonPath
    schema_path: JsonPath
    name: str | None = None
    schema: Any = field(default=FROM_FILE, compare=False)
    notes: tuple[str, ...] = ()
    description: str | None = None
    """Set when the description is assembled (an OpenAPI operation's summary and text)."""

    @property
    def json_schema_dialect(self) -> bool:
        """False for BFCL docs, whose schemas use BFCL's type names (`dict`, `float`)."""
        return self.format is not ToolFormat.BFCL


def _keys(value: dict[str, Any]) -> str:
    return ", ".join(sorted(value)[:8]) or "none"


def _uses_bfcl_types(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if isinstance(kind, str) and kind in BFCL_TYPES:
        return True
    props = schema.get("properties")
    if isinstance(props, dict) and any(_uses_bfcl_types(p) for p in props.values()):
        return True
    return _uses_bfcl_types(schema.get("items"))


# ---------------------------------------------------------------- schema shapes


def _lower_types(schema: Any) -> Any:
    """Gemini's OpenAPI-style upper-case type names (`OBJECT`, `STRING`) in JSON Schema's
    spelling; `TYPE_UNSPECIFIED` means no type."""
    if isinstance(schema, list):
        return [_lower_types(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            if value.upper() != "TYPE_UNSPECIFIED":
                out[key] = value.lower()
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: _lower_types(v) for k, v in value.items()}
        elif key in {"items", "anyOf", "oneOf", "allOf", "additionalProperties"}:
            out[key] = _lower_types(value)
        else:
            out[key] = value
    return out


PARAMETER_TYPES = {
    "str": "string",
    "text": "string",
    "secret-input": "string",
    "select": "string",
    "file": "string",
    "files": "array",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
    "map": "object",
}
"""Type names of parameter lists (Dify, SWE-agent, MCP Toolbox) -> JSON Schema's."""


def parameter_list_schema(items: list[Any]) -> dict[str, Any] | None:
    """`[{name, type, description, required, enum}]` as an object schema (None if an item
    has no name). Dify's `form: form` parameters are set by the user, not the model: left
    out. `llm_description` wins over `description` (it is what Dify sends the model)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return None
        if item.get("form") not in (None, "llm"):
            continue
        prop: dict[str, Any] = {}
        kind = item.get("type")
        if isinstance(kind, str):
            prop["type"] = PARAMETER_TYPES.get(kind.lower(), kind.lower())
        description = item.get("llm_description") or item.get("description")
        if isinstance(description, str):
            prop["description"] = description
        options = item.get("options")
        if isinstance(item.get("enum"), list):
            prop["enum"] = item["enum"]
        elif isinstance(options, list) and options:
            values = [o.get("value") if isinstance(o, dict) else o for o in options]
            prop["enum"] = [v for v in values if v is not None]
        for key in ("items", "default"):
            if key in item:
                prop[key] = item[key]
        properties[item["name"]] = prop
        if item.get("required") is True:
            required.append(item["name"])
    return {"type": "object", "properties": properties, "required": required}


def _bare_properties(schema: dict[str, Any]) -> bool:
    """`{city: {type: string}, ...}`: properties written without the object wrapper."""
    if not schema or SCHEMA_KEYS & set(schema):
        return False
    return all(isinstance(v, dict) and SCHEMA_KEYS & set(v) for v in schema.values())


def read_schema(raw: Any, *, upper_case: bool = False) -> tuple[Any, tuple[str, ...]]:
    """The parameter schema a tool's file holds, as JSON Schema (`FROM_FILE` when it is one
    already), and warnings about how it was read."""
    if isinstance(raw, list):
        schema = parameter_list_schema(raw)
        return (FROM_FILE, ()) if schema is None else (schema, ())
    if not isinstance(raw, dict):
        return FROM_FILE, ()
    if _bare_properties(raw):
        wrapped = {"type": "object", "properties": raw}
        note = (
            "parameters written without the `type: object` / `properties` wrapper; read as "
            f"the properties {', '.join(list(raw)[:6])}"
        )
        return (_lower_types(wrapped) if upper_case else wrapped), (note,)
    if upper_case:
        return _lower_types(raw), ()
    return FROM_FILE, ()


# ---------------------------------------------------------------- one entry


def _tool(
    fmt: ToolFormat,
    path: JsonPath,
    entry: dict[str, Any],
    description: str,
    schema_key: str,
    *,
    name: str | None = None,
    inner: JsonPath = (),
) -> RawTool:
    base = (*path, *inner)
    node: Any = entry
    for part in inner:
        node = node[part]
    schema, notes = read_schema(node.get(schema_key), upper_case=fmt is ToolFormat.GEMINI)
    return RawTool(
        fmt,
        path,
        (*base, "name"),
        (*base, *description.split(".")),
        (*base, schema_key),
        name=name,
        schema=schema,
        notes=notes,
    )


def detect_tool(entry: Any, path: JsonPath, *, gemini: bool = False) -> RawTool | str | None:
    """The format of one entry, a reason string if it is not a tool, None for built-ins.

    Built-in tools (OpenAI `web_search`, Anthropic `bash_20250124`, Gemini `googleSearch`,
    ...) have no schema we can evaluate against; they are skipped, not rejected.
    """
    if not isinstance(entry, dict):
        return "expected a tool definition object"
    kind = entry.get("type")
    if kind == "function" and isinstance(entry.get("function"), dict):
        return _tool(
            ToolFormat.OPENAI_CHAT, path, entry, "description", "parameters", inner=("function",)
        )
    if gemini:
        key = "parametersJsonSchema" if "parametersJsonSchema" in entry else "parameters"
        return _tool(ToolFormat.GEMINI, path, entry, "description", key)
    if "modelDescription" in entry:
        return _tool(ToolFormat.VSCODE, path, entry, "modelDescription", "inputSchema")
    if "inputSchema" in entry:
        return _tool(ToolFormat.MCP, path, entry, "description", "inputSchema")
    if "input_schema" in entry:
        return _tool(ToolFormat.ANTHROPIC, path, entry, "description", "input_schema")
    if kind == "function":
        return _tool(ToolFormat.OPENAI_RESPONSES, path, entry, "description", "parameters")
    if isinstance(kind, str):
        return None
    if GEMINI_BUILTINS & set(entry):
        return None
    if isinstance(entry.get("identity"), dict) and isinstance(entry["identity"].get("name"), str):
        return RawTool(
            ToolFormat.DIFY,
            path,
            (*path, "identity", "name"),
            (*path, "description", "llm"),
            (*path, "parameters"),
            schema=read_schema(entry.get("parameters") or [])[0],
        )
    if "name" in entry and ("parameters" in entry or "description" in entry):
        params = entry.get("parameters")
        fmt = ToolFormat.BFCL if _uses_bfcl_types(params) else ToolFormat.OPENAI_FUNCTIONS
        return _tool(fmt, path, entry, "description", "parameters")
    return "not a recognised tool definition"


def _keyed_tool(name: str, entry: Any, path: JsonPath) -> RawTool | str | None:
    """One value of a map of tools keyed by name."""
    if not isinstance(entry, dict):
        return "expected a tool definition object"
    if "name" in entry or "function" in entry:
        return detect_tool(entry, path)
    description = next(
        (k for k in ("description", "modelDescription", "docstring") if k in entry),
        "description",
    )
    key = next(
        (k for k in ("parameters", "inputSchema", "input_schema", "arguments") if k in entry),
        "parameters",
    )
    schema, notes = read_schema(entry.get(key))
    if key == "arguments" and schema is FROM_FILE and entry.get(key) is None:
        schema = {"type": "object", "properties": {}}
    return RawTool(
        ToolFormat.NAME_KEYED,
        path,
        (*path, "name"),
        (*path, description),
        (*path, key),
        name=name,
        schema=schema,
        notes=notes,
    )


TOOLISH_KEYS = frozenset(
    {"description", "parameters", "inputSchema", "input_schema", "docstring", "arguments"}
)


def _name_keyed(node: Any) -> bool:
    """A mapping of tool name -> tool body (no `name` inside the bodies)."""
    if not isinstance(node, dict) or not node or "name" in node or "type" in node:
        return False
    return all(
        isinstance(v, dict) and "name" not in v and TOOLISH_KEYS & set(v) for v in node.values()
    )


# ---------------------------------------------------------------- a whole document

FORMAT_SIGNATURES: dict[str, frozenset[str]] = {
    "OpenAI Chat (type, function)": frozenset({"type", "function"}),
    "OpenAI functions (name, description, parameters)": frozenset(
        {"name", "description", "parameters"}
    ),
    "MCP (name, description, inputSchema)": frozenset({"name", "description", "inputSchema"}),
    "Anthropic (name, description, input_schema)": frozenset(
        {"name", "description", "input_schema"}
    ),
    "Gemini (functionDeclarations)": frozenset({"functionDeclarations"}),
    "VS Code (contributes.languageModelTools)": frozenset(
        {"contributes", "modelDescription", "languageModelTools"}
    ),
    "Dify plugin (identity, description.llm, parameters)": frozenset(
        {"identity", "description", "parameters"}
    ),
    "SWE-agent (tools: {NAME: {docstring, arguments}})": frozenset(
        {"tools", "docstring", "arguments", "signature"}
    ),
    "a tools/list result ({tools: [...]})": frozenset({"tools", "nextCursor"}),
    "OpenAPI (openapi, paths)": frozenset({"openapi", "paths", "swagger"}),
}


def _norm(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


def resembles(entry: dict[str, Any]) -> str:
    """The formats whose keys an unrecognised object shares (spelling variants included:
    `input-schema` is `input_schema`), best first; names what they would need."""
    have = {_norm(k) for k in entry}
    scored = []
    for label, keys in FORMAT_SIGNATURES.items():
        shared = [k for k in keys if _norm(k) in have]
        if shared:
            scored.append((len(shared) / len(keys), label))
    scored.sort(key=lambda s: -s[0])
    if not scored:
        return ""
    return "it resembles " + "; ".join(label for _, label in scored[:3])


MAX_NESTED_DEPTH = 6


def _nested_tool_list(data: Any, path: JsonPath = ()) -> JsonPath | None:
    """The first `tools`/`functions` list deeper in a document that is not a tool file itself
    (an eval config's `providers[0].config.tools`), breadth-first within a small depth."""
    queue: list[tuple[JsonPath, Any]] = [(path, data)]
    while queue:
        where, node = queue.pop(0)
        if len(where) > MAX_NESTED_DEPTH:
            continue
        if isinstance(node, dict):
            for key, value in node.items():
                listed = isinstance(value, list) and bool(value)
                if (
                    listed
                    and key in ("tools", "functions", "functionDeclarations")
                    and all(isinstance(detect_tool(v, ()), RawTool) for v in value[:20])
                ):
                    return (*where, key)
                queue.append(((*where, key), value))
        elif isinstance(node, list):
            queue.extend(((*where, i), v) for i, v in enumerate(node[:100]))
    return None


def find_tools(doc: Document) -> tuple[list[RawTool], list[ToolIssue]]:
    """Every tool entry of a document, plus issues for entries that are not tools."""
    issues: list[ToolIssue] = []
    data = doc.data
    base: JsonPath = ()

    def note(path: JsonPath, message: str, severity: Severity = Severity.WARNING) -> None:
        line, col = doc.where(path) or (None, None)
        issues.append(
            ToolIssue(file=doc.file, line=line, column=col, message=message, severity=severity)
        )

    if PurePath(doc.file).name == "package.json":
        return _vscode_tools(doc), issues
    if is_openapi(data):
        return _openapi_tools(data), issues
    if isinstance(data, dict) and "swagger" in data and "paths" in data:
        note((), "Swagger 2.0 is not read: convert it to OpenAPI 3 first", Severity.ERROR)
        return [], issues
    keyed: JsonPath | None = None
    if isinstance(data, dict):
        result = data.get("result")
        if "jsonrpc" in data and isinstance(result, dict) and isinstance(result.get("tools"), list):
            base = ("result", "tools")
        elif _name_keyed(data.get("tools")):
            keyed = ("tools",)
        else:
            for key in ("tools", "functions", "function", "functionDeclarations"):
                if isinstance(data.get(key), list):
                    base = (key,)
                    break
            else:
                if _name_keyed(data):
                    keyed = ()
                elif isinstance(detect_tool(data, ()), str):
                    nested = _nested_tool_list(data)
                    if nested is not None:
                        base = nested
                        note(nested, f"tools read from {path_label(nested)} (nested in the file)")
    if keyed is not None:
        node = data
        for part in keyed:
            node = node[part]
        keyed_tools = []
        for name, body in node.items():
            got = _keyed_tool(str(name), body, (*keyed, name))
            if isinstance(got, RawTool):
                keyed_tools.append(got)
            elif isinstance(got, str):
                note((*keyed, name), f"{got} (tool {name!r})", Severity.ERROR)
        return keyed_tools, issues
    container: Any = data
    for part in base:
        container = container[part]
    if isinstance(container, dict):
        entries: list[tuple[JsonPath, Any, bool]] = [(base, container, False)]
    elif isinstance(container, list):
        gemini = base[-1:] == ("functionDeclarations",)
        entries = [((*base, i), e, gemini) for i, e in enumerate(container)]
    else:
        line, col = doc.where(()) or (None, None)
        issues.append(
            ToolIssue(
                file=doc.file,
                line=line,
                column=col,
                message="not a tool file",
                expected="a list of tools, {tools: [...]}, an MCP tools/list result or a tool",
                found="an empty file" if data is None else type(data).__name__,
            )
        )
        return [], issues
    entries = _expand_gemini(entries)

    tools: list[RawTool] = []
    for path, entry, gemini in entries:
        detected = detect_tool(entry, path, gemini=gemini)
        if isinstance(detected, RawTool):
            tools.append(detected)
            continue
        line, col = doc.where(path) or (None, None)
        if detected is None:
            kind = "built-in tool type" if "type" in entry else "built-in tool"
            label = entry.get("name", entry.get("type")) or next(iter(entry), None)
            issues.append(
                ToolIssue(
                    file=doc.file,
                    line=line,
                    column=col,
                    tool=str(label),
                    field="type",
                    message=f"{kind} {entry.get('type', label)!r} has no schema; skipped",
                    severity=Severity.WARNING,
                )
            )
            continue
        found = f"object with keys {_keys(entry)}" if isinstance(entry, dict) else describe(entry)
        hint = resembles(entry) if isinstance(entry, dict) else ""
        issues.append(
            ToolIssue(
                file=doc.file,
                line=line,
                column=col,
                message=f"{detected}; {hint}" if hint else detected,
                expected=(
                    "an OpenAI, MCP (inputSchema), Anthropic (input_schema), Gemini, VS Code, "
                    "Dify or BFCL tool definition"
                ),
                found=found,
            )
        )
    return tools, issues


def _expand_gemini(
    entries: list[tuple[JsonPath, Any, bool]],
) -> list[tuple[JsonPath, Any, bool]]:
    """Gemini's `tools` list holds groups: `{functionDeclarations: [...]}` beside built-ins
    (`{googleSearch: {}}`); each declaration is one tool."""
    out: list[tuple[JsonPath, Any, bool]] = []
    for path, entry, gemini in entries:
        if isinstance(entry, dict):
            key = next(
                (
                    k
                    for k in ("functionDeclarations", "function_declarations")
                    if isinstance(entry.get(k), list)
                ),
                None,
            )
            if key is not None:
                out.extend(((*path, key, i), e, True) for i, e in enumerate(entry[key]))
                continue
        out.append((path, entry, gemini))
    return out


def _vscode_tools(doc: Document) -> list[RawTool]:
    """A VS Code extension's `contributes.languageModelTools` (a `package.json` without
    them holds no tool: its `name` and `description` are the package's)."""
    data = doc.data
    contributes = data.get("contributes") if isinstance(data, dict) else None
    listed = contributes.get("languageModelTools") if isinstance(contributes, dict) else None
    if not isinstance(listed, list):
        return []
    base: JsonPath = ("contributes", "languageModelTools")
    return [
        _tool(ToolFormat.VSCODE, (*base, i), e, "modelDescription", "inputSchema")
        for i, e in enumerate(listed)
        if isinstance(e, dict)
    ]


def _openapi_tools(data: dict[str, Any]) -> list[RawTool]:
    """One tool per operation of an OpenAPI 3.x description (`bfcl_action.tools.openapi`)."""
    return [
        RawTool(
            ToolFormat.OPENAPI,
            path,
            (*path, "operationId"),
            (*path, "summary"),
            (*path, "parameters"),
            name=name,
            schema=schema,
            notes=tuple(notes),
            description=description,
        )
        for path, name, description, schema, notes in operations(data)
    ]
