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

A file holds a list of tools, one tool, `{"tools": [...]}` (a request fragment or an MCP
`tools/list` result), a full MCP JSON-RPC response (`{"result": {"tools": [...]}}`), or
JSON Lines of tools (how BFCL ships its function docs). Formats may be mixed in one file.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bfcl_action.tools.issues import Severity, ToolIssue, describe
from bfcl_action.tools.source import Document, JsonPath


class ToolFormat(StrEnum):
    OPENAI_CHAT = "openai_chat"
    OPENAI_RESPONSES = "openai_responses"
    OPENAI_FUNCTIONS = "openai_functions"
    MCP = "mcp"
    ANTHROPIC = "anthropic"
    BFCL = "bfcl"


BFCL_TYPES = frozenset(
    {"dict", "float", "tuple", "any", "list", "bool", "int", "str", "double", "long"}
    | {"String", "char", "Boolean", "byte", "short", "Bigint", "Number", "Array", "ArrayList"}
    | {"Set", "Queue", "Stack", "HashMap", "Hashtable"}
)
"""Type names only BFCL's dialect uses (its Python names and, in its Java and JavaScript
function docs, those languages' type names); their presence marks a `bfcl` function doc."""


@dataclass(frozen=True)
class RawTool:
    """Where one tool sits in a document and how to read its fields.

    Paths are relative to the document root: `name_path` and `description_path` point at the
    values, `schema_path` at the parameter schema (which may be absent in the file).
    """

    format: ToolFormat
    path: JsonPath
    name_path: JsonPath
    description_path: JsonPath
    schema_path: JsonPath

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


def detect_tool(entry: Any, path: JsonPath) -> RawTool | str | None:
    """The format of one entry, a reason string if it is not a tool, None for built-ins.

    Built-in tools (OpenAI `web_search`, Anthropic `bash_20250124`, ...) have no schema we can
    evaluate against; they are skipped, not rejected.
    """
    if not isinstance(entry, dict):
        return "expected a tool definition object"
    kind = entry.get("type")
    if kind == "function" and isinstance(entry.get("function"), dict):
        inner = (*path, "function")
        return RawTool(
            ToolFormat.OPENAI_CHAT,
            path,
            (*inner, "name"),
            (*inner, "description"),
            (*inner, "parameters"),
        )
    if "inputSchema" in entry:
        fmt, key = ToolFormat.MCP, "inputSchema"
    elif "input_schema" in entry:
        fmt, key = ToolFormat.ANTHROPIC, "input_schema"
    elif kind == "function":
        fmt, key = ToolFormat.OPENAI_RESPONSES, "parameters"
    elif isinstance(kind, str) and kind != "function":
        return None
    elif "name" in entry and ("parameters" in entry or "description" in entry):
        params = entry.get("parameters")
        fmt = ToolFormat.BFCL if _uses_bfcl_types(params) else ToolFormat.OPENAI_FUNCTIONS
        key = "parameters"
    else:
        return "not a recognised tool definition"
    return RawTool(fmt, path, (*path, "name"), (*path, "description"), (*path, key))


def find_tools(doc: Document) -> tuple[list[RawTool], list[ToolIssue]]:
    """Every tool entry of a document, plus issues for entries that are not tools."""
    issues: list[ToolIssue] = []
    data = doc.data
    base: JsonPath = ()
    if isinstance(data, dict):
        result = data.get("result")
        if "jsonrpc" in data and isinstance(result, dict) and isinstance(result.get("tools"), list):
            base = ("result", "tools")
        else:
            for key in ("tools", "functions", "function"):
                if isinstance(data.get(key), list):
                    base = (key,)
                    break
    container: Any = data
    for part in base:
        container = container[part]
    if isinstance(container, dict):
        entries: list[tuple[JsonPath, Any]] = [(base, container)]
    elif isinstance(container, list):
        entries = [((*base, i), e) for i, e in enumerate(container)]
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

    tools: list[RawTool] = []
    for path, entry in entries:
        detected = detect_tool(entry, path)
        if isinstance(detected, RawTool):
            tools.append(detected)
            continue
        line, col = doc.where(path) or (None, None)
        if detected is None:
            issues.append(
                ToolIssue(
                    file=doc.file,
                    line=line,
                    column=col,
                    tool=str(entry.get("name", entry.get("type"))),
                    field="type",
                    message=f"built-in tool type {entry.get('type')!r} has no schema; skipped",
                    severity=Severity.WARNING,
                )
            )
            continue
        found = f"object with keys {_keys(entry)}" if isinstance(entry, dict) else describe(entry)
        issues.append(
            ToolIssue(
                file=doc.file,
                line=line,
                column=col,
                message=detected,
                expected=(
                    "an OpenAI, MCP (inputSchema), Anthropic (input_schema) or BFCL tool definition"
                ),
                found=found,
            )
        )
    return tools, issues
