"""Issue 28 (the jail half): a command such as a stdio MCP server lives inside the jail.

asyncio needs `socketpair` (its self-pipe), `eventfd` and `epoll` at start; the jail allows
those while `socket` itself (so every network connection) stays refused. `jail.start_jailed`
starts a command with pipes; `jail.jail_command` gives the argument vector for a spawner of
its own (the official `mcp` SDK's stdio client)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from bfcl_action.safety.jail import (
    CommandLimits,
    JailStartError,
    jail_command,
    start_jailed,
)

LINUX = sys.platform.startswith("linux") and os.uname().machine in ("x86_64", "aarch64")
pytestmark = pytest.mark.skipif(not LINUX, reason="the jail's layers are Linux-only")

ASYNC_PROGRAM = """\
import asyncio, errno, json, os, socket, sys


def attempt(action):
    try:
        action()
        return "allowed"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


def write_outside():
    with open(sys.argv[1], "w") as fh:
        fh.write("escaped")


def write_scratch():
    with open(os.path.join(os.environ["TMPDIR"], "scratch"), "w") as fh:
        fh.write("ok")


async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    line = await reader.readline()
    answer = {
        "echo": json.loads(line)["ping"],
        "threads": await asyncio.to_thread(lambda: "from a thread"),
        "inet": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        "inet6": attempt(lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM)),
        "unix": attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
        "fork": attempt(os.fork),
        "outside": attempt(write_outside),
        "scratch": attempt(write_scratch),
        "environ": sorted(set(os.environ) - {"LC_CTYPE"}),  # Python's locale coercion
    }
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()


asyncio.run(main())
"""


def test_an_asyncio_program_runs_in_the_jail_with_the_network_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "server.py").write_text(ASYNC_PROGRAM)
    outside = tmp_path / "escaped.txt"
    with start_jailed(
        ["python", "server.py", str(outside)],
        cwd=str(repo),
        env={"MODE": "offline"},
        limits=CommandLimits(start_timeout_s=60),
    ) as running:
        assert running.jail["syscalls"] == "filter installed"
        running.stdin.write(b'{"ping": "pong"}\n')
        running.stdin.flush()
        answer = json.loads(running.stdout.readline())
    assert answer == {
        "echo": "pong",
        "threads": "from a thread",
        "inet": "EPERM",
        "inet6": "EPERM",
        "unix": "EPERM",
        "fork": "EPERM",
        "outside": "EACCES" if running.jail["filesystem"].startswith("landlock") else "allowed",
        "scratch": "allowed",
        "environ": ["MODE", "TMPDIR"],
    }
    assert not outside.exists()


def test_a_missing_program_is_a_start_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(JailStartError, match="no-such-server"):
        start_jailed(["no-such-server"], cwd=str(tmp_path), env={})
    with pytest.raises(JailStartError, match="not an executable"):
        start_jailed([str(tmp_path / "missing")], cwd=str(tmp_path), env={})


def test_the_lifetime_limit_ends_a_command(tmp_path: Path) -> None:
    (tmp_path / "sleeper.py").write_text("import time\ntime.sleep(60)\n")
    running = start_jailed(
        [sys.executable, "sleeper.py"],
        cwd=str(tmp_path),
        env={},
        limits=CommandLimits(wall_s=1.0, start_timeout_s=60),
    )
    try:
        assert running.proc.wait(timeout=30) < 0  # ended by a signal (alarm or the timer)
    finally:
        running.close()
    assert not Path(running.workdir).exists()


MCP_SERVER = """\
import errno, socket

try:
    from mcp.server.fastmcp import FastMCP as Server
except ImportError:  # mcp 2.x renamed it
    from mcp.server.mcpserver import MCPServer as Server

server = Server("jailed")


@server.tool()
def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b


@server.tool()
def reach_network() -> str:
    \"\"\"Try to open a TCP socket.\"\"\"
    try:
        socket.create_connection(("127.0.0.1", 9), timeout=1)
        return "connected"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc))


if __name__ == "__main__":
    server.run("stdio")
"""


def test_a_real_mcp_stdio_server_lives_in_the_jail(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "server.py").write_text(MCP_SERVER)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    argv = jail_command([sys.executable, "server.py"], cwd=str(repo), write_dir=str(scratch))

    async def session() -> tuple[list[str], str, str]:
        params = StdioServerParameters(
            command=argv[0], args=argv[1:], cwd=str(repo), env={"MODE": "offline"}
        )
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await asyncio.wait_for(client.initialize(), 60)
                tools = await client.list_tools()
                added = await client.call_tool("add", {"a": 2, "b": 3})
                reached = await client.call_tool("reach_network", {})
        texts = [getattr(c, "text", "") for c in (*added.content, *reached.content)]
        return sorted(t.name for t in tools.tools), texts[0], texts[1]

    names, added, reached = asyncio.run(session())
    assert names == ["add", "reach_network"]
    assert added == "5"
    assert reached == "EPERM"


def test_a_relative_program_is_found_from_the_commands_directory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "bin").mkdir(parents=True)
    tool = repo / "bin" / "answer"
    tool.write_text(f"#!{sys.executable}\nprint('forty-two', flush=True)\n")
    tool.chmod(0o755)
    with start_jailed(["bin/answer"], cwd=str(repo), env={}) as running:
        assert running.stdout.readline() == b"forty-two\n"


def test_a_launch_slower_than_the_start_up_timeout_is_a_start_error(tmp_path: Path) -> None:
    with pytest.raises(JailStartError, match="did not start within"):
        start_jailed(
            [sys.executable, "-c", "pass"],
            cwd=str(tmp_path),
            env={},
            limits=CommandLimits(start_timeout_s=0.001),
        )
