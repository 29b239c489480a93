"""Tool sources other than files, as `.bfcl.yml` names them under `tools:`.

```yaml
tools:
  - tools/*.json                                      # files (globs), as before
  - mcp: {command: [python, server.py], env: {MODE: offline}}   # an MCP server over stdio
  - mcp: {url: "http://127.0.0.1:8765/mcp"}           # an MCP server over streamable HTTP
```

The models here only describe a source; reading one (`bfcl_action.tools.mcp_client`) happens
when a config names it, so a repository of tool files never imports the MCP SDK.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bfcl_action.safety.credentials import is_secret_name

ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,127}$"


class McpServer(BaseModel):
    """One MCP server whose `tools/list` is the tool set (docs/own-tools.md, MCP servers).

    A stdio server (`command`) starts in the config's directory with an environment holding
    only `env` plus the SDK's harmless defaults (PATH, HOME, ...): never a key. An HTTP server
    (`url`) must be on a loopback address unless the workflow allows its host (the
    `exec-allow-hosts` input / `--exec-allow-host`, never this file)."""

    model_config = ConfigDict(extra="forbid")

    command: list[Annotated[str, Field(min_length=1)]] | None = Field(default=None, min_length=1)
    url: str | None = None
    env: dict[Annotated[str, Field(pattern=ENV_NAME)], str] = Field(default_factory=dict)
    startup_timeout_s: float = Field(default=30.0, gt=0, le=300)
    """Start, `initialize` and every `tools/list` page must finish within this."""
    max_tools: int = Field(default=512, ge=1, le=4096)
    max_pages: int = Field(default=32, ge=1, le=1000)
    """`tools/list` pages followed (`nextCursor`)."""
    max_bytes: int = Field(default=4_000_000, ge=1_000, le=64_000_000)
    """Size of all tool definitions together, as JSON."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of `command` (stdio) or `url` (streamable HTTP)")
        secret = [name for name in self.env if is_secret_name(name)]
        if secret:
            raise ValueError(
                f"env {secret[0]} looks like a secret; a tool server never gets one (tools/list "
                "needs no key: start the server in an offline mode instead)"
            )
        return self

    def label(self) -> str:
        """How messages name this server: `mcp: python server.py` or `mcp: URL`."""
        what = " ".join(self.command) if self.command else str(self.url)
        return f"mcp: {what[:120]}"


class McpEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mcp: McpServer

    def label(self) -> str:
        return self.mcp.label()


MODULE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"


class PythonModule(BaseModel):
    """Functions (or pydantic models) of a module whose signatures and docstrings are the
    tools (`bfcl_action.tools.pyschema`). The module is imported inside the sandbox worker, from
    the config's directory, with no variable of this process in its environment."""

    model_config = ConfigDict(extra="forbid")

    module: str = Field(pattern=MODULE_NAME)
    names: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]] = Field(min_length=1)
    timeout_s: float = Field(default=30.0, gt=0, le=300)
    """Importing the module and building the schemas must finish within this."""


class PythonEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    python: PythonModule

    def label(self) -> str:
        return f"python: {self.python.module}"


SourceEntry = McpEntry | PythonEntry
ToolEntry = str | McpEntry | PythonEntry
"""One item of `tools:`: a glob of tool files, a tool server, or a Python module."""


def split_entries(entries: list[Any]) -> tuple[list[str], list[tuple[int, SourceEntry]]]:
    """Globs, and the other sources with their index in `tools:` (for messages at their
    line)."""
    globs = [e for e in entries if isinstance(e, str)]
    sources = [(i, e) for i, e in enumerate(entries) if isinstance(e, McpEntry | PythonEntry)]
    return globs, sources


def names_mcp_server(config_text: str) -> bool:
    """Whether a `.bfcl.yml`'s `tools:` names an MCP server (read without validating, so
    the Action can decide to install the MCP client before anything else runs)."""
    from bfcl_action.core.errors import InputError
    from bfcl_action.tools.source import parse_yaml

    try:
        data = parse_yaml(config_text, ".bfcl.yml").data
    except InputError:
        return False
    tools = data.get("tools") if isinstance(data, dict) else None
    return isinstance(tools, list) and any(isinstance(t, dict) and "mcp" in t for t in tools)


def main(argv: list[str]) -> int:
    """`python -m bfcl_action.tools.servers CONFIG`: exit 0 iff CONFIG names an MCP server."""
    try:
        with open(argv[0], encoding="utf-8") as handle:
            text = handle.read(1_000_000)
    except (IndexError, OSError, UnicodeDecodeError):
        return 1
    return 0 if names_mcp_server(text) else 1


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
