"""An MCP server's `tools/list`, read with the official `mcp` SDK as the client.

Imported only when a config names an MCP source (`bfcl_action.tools.configured`): the SDK
adds about a second of imports and is an optional extra (`pip install bfcl-action[mcp]`).

What a server gets and may do, because a pull request can change its code:
- stdio: started in the config's directory inside the tool jail by `stdio_launch` (no
  network socket, no new process, reads of the repository and the interpreter only, writes
  to a scratch directory only), with an environment holding only `env:` and the SDK's
  defaults (PATH, HOME, LOGNAME, SHELL, TERM, USER): the run's keys were moved out of
  `os.environ` at start-up (`bfcl_action.safety.credentials`) and are never passed;
- HTTP: only a loopback address, unless the workflow allowed the host (the executable-checks
  fence, `bfcl_action.safety.http_tools.resolve_endpoint`); redirects are not followed;
- time: start, `initialize` and the whole listing within `startup_timeout_s`;
- size: at most `max_pages` pages, `max_tools` tools and `max_bytes` of definitions, else an
  error naming the budget. The server's stderr is kept (bounded) for the error message.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from bfcl_action.core.errors import InputError
from bfcl_action.safety.escape import log_line
from bfcl_action.tools.servers import McpServer

STDERR_TAIL = 600


class McpSourceError(InputError):
    """An MCP server could not be started or listed within its budgets."""


def stdio_launch(server: McpServer, cwd: Path, scratch: Path) -> Any:
    """The SDK's launch parameters for a stdio server: the command runs inside the tool jail
    (`bfcl_action.safety.jail.jail_command`: rlimits, no capabilities, Landlock reads of
    the config's directory, the program's and the interpreter's folders and system
    libraries, writes to `scratch` only, seccomp without network sockets or new processes),
    started in the config's directory with only `env:` (plus `TMPDIR=scratch` and the SDK's
    harmless defaults) in its environment."""
    from mcp import StdioServerParameters

    from bfcl_action.safety.jail import CommandLimits, jail_command

    assert server.command is not None
    limits = CommandLimits(start_timeout_s=server.startup_timeout_s)
    try:
        argv = jail_command(server.command, cwd=str(cwd), limits=limits, write_dir=str(scratch))
    except RuntimeError as exc:  # JailStartError: no such program
        raise McpSourceError(str(exc)) from None
    return StdioServerParameters(
        command=argv[0],
        args=argv[1:],
        env={"TMPDIR": str(scratch), **server.env},
        cwd=str(cwd),
    )


def list_tools(
    server: McpServer, *, cwd: Path, allow_hosts: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """Every tool the server lists (`name`, `description`, `inputSchema`, ...), as JSON data.

    Raises `McpSourceError` (what failed, and the tail of the server's stderr) when the
    server does not start, answer or fit its budgets."""
    try:
        import anyio
    except ImportError:  # pragma: no cover - anyio comes with openai
        raise McpSourceError("anyio is missing") from None
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise McpSourceError(
            "the config names an MCP server, but the MCP SDK is not installed: "
            "pip install 'bfcl-action[mcp]'"
        ) from None
    with (
        tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog,
        tempfile.TemporaryDirectory(prefix="bfcl-mcp-") as scratch,
    ):
        try:
            return anyio.run(_list, server, cwd, allow_hosts, errlog, Path(scratch))
        except McpSourceError as exc:
            raise McpSourceError(exc.message + _stderr_tail(errlog)) from None
        except TimeoutError:
            raise McpSourceError(
                f"no tools/list within {server.startup_timeout_s:g} s (startup_timeout_s)"
                + _stderr_tail(errlog)
            ) from None
        except Exception as exc:  # the SDK's and the transport's errors, whatever their type
            raise McpSourceError(
                f"the server failed: {log_line(_first_cause(exc), 300)}" + _stderr_tail(errlog)
            ) from None


def _first_cause(exc: BaseException) -> str:
    """The innermost message of an exception group (anyio task groups wrap errors)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def _stderr_tail(errlog: TextIO) -> str:
    try:
        errlog.seek(0, 2)
        size = errlog.tell()
        errlog.seek(max(0, size - 4 * STDERR_TAIL))
        text = errlog.read()[-STDERR_TAIL:].strip()
    except (OSError, ValueError):
        return ""
    if not text:
        return ""
    hint = f" ({JAIL_HINT})" if JAIL_REFUSAL.search(text) else ""
    return f"; its stderr ends: {log_line(text, STDERR_TAIL)}{hint}"


JAIL_REFUSAL = re.compile(
    r"\bfork\b|\bspawn\w*\b.*\b(EPERM|EACCES)\b|Operation not permitted|os error 1\b", re.I
)
"""What a server's stderr says when the jail refused it something: a new process (a wrapper
forking the real server), a socket or a write outside its scratch directory."""
JAIL_HINT = (
    "the jail refuses new processes, network sockets and writes outside TMPDIR: "
    "start the server's own program, e.g. [node, dist/index.js] or [python, -m, my_server], "
    "not a wrapper that starts it (npx, uvx, uv run, a shell script)"
)


async def _list(
    server: McpServer, cwd: Path, allow_hosts: Sequence[str], errlog: TextIO, scratch: Path
) -> list[dict[str, Any]]:
    import anyio

    with anyio.fail_after(server.startup_timeout_s):
        if server.command is not None:
            from mcp.client.stdio import stdio_client

            launch = stdio_launch(server, cwd, scratch)
            async with stdio_client(launch, errlog=errlog) as (read, write):
                return await _session_tools(server, read, write)
        return await _http_tools(server, allow_hosts)


async def _http_tools(server: McpServer, allow_hosts: Sequence[str]) -> list[dict[str, Any]]:
    import httpx2 as httpx  # the SDK's HTTP client
    from mcp.client.streamable_http import streamable_http_client

    from bfcl_action.safety.http_tools import EndpointRefused, resolve_endpoint

    assert server.url is not None
    try:
        resolve_endpoint(server.url, allow_hosts)
    except EndpointRefused as exc:
        raise McpSourceError(f"endpoint refused: {exc}") from None
    async with (
        httpx.AsyncClient(follow_redirects=False, timeout=server.startup_timeout_s) as client,
        streamable_http_client(server.url, http_client=client) as streams,
    ):
        return await _session_tools(server, streams[0], streams[1])


async def _session_tools(server: McpServer, read: Any, write: Any) -> list[dict[str, Any]]:
    from mcp import ClientSession
    from mcp.types import PaginatedRequestParams

    tools: list[dict[str, Any]] = []
    size = 0
    async with ClientSession(read, write) as session:
        await session.initialize()
        cursor: str | None = None
        for _ in range(server.max_pages):
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            for tool in page.tools:
                data = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                data = {k: data[k] for k in ("name", "description", "inputSchema") if k in data}
                size += len(json.dumps(data))
                tools.append(data)
                if len(tools) > server.max_tools:
                    raise McpSourceError(f"lists over {server.max_tools} tools (max_tools)")
                if size > server.max_bytes:
                    raise McpSourceError(
                        f"tool definitions over {server.max_bytes} bytes (max_bytes)"
                    )
            cursor = page.next_cursor
            if not cursor:
                return tools
    raise McpSourceError(f"tools/list goes on past {server.max_pages} pages (max_pages)")


def tools_document(tools: list[dict[str, Any]]) -> str:
    """The listed tools as the text of an MCP `tools/list` result (one tool per few lines),
    so they go through the same parser, checks and normalisation as a tool file."""
    return json.dumps({"tools": tools}, indent=1, ensure_ascii=False)
