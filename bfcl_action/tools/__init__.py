"""Tool definitions from the formats teams already have, validated and normalised to BFCL.

`load_tools(patterns, base_dir=...)` is the entry point: it reads OpenAI Chat / Responses,
MCP `tools/list`, Anthropic and BFCL tool files (JSON, JSON Lines or YAML), reports every
problem with file:line:column, and returns `FunctionDoc`s in BFCL's schema dialect.
"""

from bfcl_action.safety.globs import expand_globs
from bfcl_action.tools.dialect import bfcl_to_json_schema, json_schema_to_bfcl
from bfcl_action.tools.formats import ToolFormat, detect_tool, find_tools
from bfcl_action.tools.issues import Severity, ToolIssue, ToolValidationError
from bfcl_action.tools.load import ToolSet, load_tools, parse_tools, read_tools
from bfcl_action.tools.source import Document, ParseError, load_document, parse_text
from bfcl_action.tools.validate import ToolLimits, check_tool, mapped_name, matches_type

__all__ = [
    "Document",
    "ParseError",
    "Severity",
    "ToolFormat",
    "ToolIssue",
    "ToolLimits",
    "ToolSet",
    "ToolValidationError",
    "bfcl_to_json_schema",
    "check_tool",
    "detect_tool",
    "expand_globs",
    "find_tools",
    "json_schema_to_bfcl",
    "load_document",
    "load_tools",
    "mapped_name",
    "matches_type",
    "parse_text",
    "parse_tools",
    "read_tools",
]
