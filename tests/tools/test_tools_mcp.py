"""MCP servers as a tool source: real servers written with the `mcp` SDK (stdio and
streamable HTTP on 127.0.0.1), the budgets, the fence and the errors at the config line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bfcl_action.core.errors import ConfigError
from bfcl_action.settings.config import load_config
from bfcl_action.tools import ToolValidationError
from bfcl_action.tools.configured import load_configured

pytest.importorskip("mcp")

TOOLS = '''
@app.tool()
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return city


@app.tool()
def get_time(zone: str = "UTC") -> str:
    """The time in a time zone."""
    return zone
'''
STDIO = (
    "from mcp.server.mcpserver import MCPServer\napp = MCPServer('t')\n"
    + TOOLS
    + ("\nif __name__ == '__main__':\n    app.run()\n")
)


def repo(tmp_path: Path, server: str, entry: str) -> Path:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "server.py").write_text(server)
    (tmp_path / ".bfcl.yml").write_text(f"tools:\n  - tools.json\n  - mcp: {entry}\n")
    (tmp_path / "tools.json").write_text(
        json.dumps([{"name": "local_tool", "description": "A tool from a file."}])
    )
    return tmp_path / ".bfcl.yml"


def load(config_path: Path, **kwargs: object):  # type: ignore[no-untyped-def]
    config = load_config(config_path)
    return load_configured(
        config.tools,
        base_dir=config_path.parent,
        limits=config.tool_limits,
        origins=config.origins("tools"),
        **kwargs,  # type: ignore[arg-type]
    )


def stdio_entry(**extra: object) -> str:
    return json.dumps({"command": [sys.executable, "server.py"], **extra})


def test_a_stdio_server_tools_load_beside_the_files_and_point_at_their_source(
    tmp_path: Path,
) -> None:
    tools = load(repo(tmp_path, STDIO, stdio_entry()))
    assert [f.name for f in tools.functions] == ["local_tool", "get_weather", "get_time"]
    assert tools.servers == [f"mcp: {sys.executable} server.py"]
    assert tools.files == ["tools.json"]
    weather = tools.by_name()["get_weather"]
    assert weather.parameters["required"] == ["city"]
    assert weather.source is not None and weather.source.file == "server.py"
    assert STDIO.splitlines()[weather.source.line - 1].strip().startswith('"""Current weather')  # type: ignore[operator]


def test_a_server_that_dies_is_an_error_at_its_config_line_with_its_stderr(
    tmp_path: Path,
) -> None:
    server = "import sys\nsys.stderr.write('boom: no database\\n')\nsys.exit(3)\n"
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, server, stdio_entry()))
    [issue] = err.value.issues
    assert (Path(issue.file).name, issue.line) == (".bfcl.yml", 3)
    assert "boom: no database" in issue.message and "Traceback" not in issue.message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the jail is Linux-only")
def test_a_wrapper_that_forks_the_server_is_told_to_start_the_program_itself(
    tmp_path: Path,
) -> None:
    """`npx`, `uv run` and shell scripts fork the real server: the jail refuses that, and the
    error says so instead of leaving the user with a shell's "Cannot fork"."""
    entry = json.dumps({"command": ["sh", "-c", f"{sys.executable} server.py; exit 1"]})
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, STDIO, entry))
    [issue] = err.value.issues
    assert (Path(issue.file).name, issue.line) == (".bfcl.yml", 3)
    assert "fork" in issue.message.lower()
    assert "start the server's own program" in issue.message
    assert "npx, uvx, uv run" in issue.message


def test_a_server_failing_for_its_own_reason_gets_no_jail_hint(tmp_path: Path) -> None:
    server = "import sys\nsys.stderr.write('boom: no database\\n')\nsys.exit(3)\n"
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, server, stdio_entry()))
    assert "the jail refuses" not in err.value.issues[0].message


def test_a_server_that_never_answers_stops_at_its_startup_timeout(tmp_path: Path) -> None:
    server = "import time\ntime.sleep(60)\n"
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, server, stdio_entry(startup_timeout_s=2)))
    assert "no tools/list within 2 s" in err.value.issues[0].message


def test_a_server_listing_more_tools_than_its_budget_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, STDIO, stdio_entry(max_tools=1)))
    assert "over 1 tools (max_tools)" in err.value.issues[0].message


def test_problems_in_a_server_tool_are_reported_at_its_config_entry(tmp_path: Path) -> None:
    server = STDIO.replace("def get_time", "def get_weather_again").replace(
        '"""The time in a time zone."""', '"""' + "d" * 1100 + '"""'
    )
    config = repo(tmp_path, server, stdio_entry())
    text = config.read_text() + "tool_limits: {provider: openai}\n"
    config.write_text(text)
    tools = load(config)
    [left_out] = tools.left_out
    where = (Path(left_out.file).name, left_out.line, left_out.tool)
    assert where == (".bfcl.yml", 3, "get_weather_again")
    assert left_out.field is not None and left_out.field.startswith("mcp: ")


PROBE = """
import os as _os
_SEEN = " ".join(sorted(_os.environ))
_LEAK = any("sk-never-passed" in v for v in _os.environ.values())


@app.tool(description="Sees: " + _SEEN + (" LEAKED" if _LEAK else ""))
def environment_names() -> str:
    return _SEEN
"""


def test_the_server_environment_holds_only_what_the_config_names(tmp_path: Path) -> None:
    server = STDIO.replace("\nif __name__", PROBE + "\nif __name__")
    entry = stdio_entry(env={"MODE": "offline"})
    os.environ["BFCL_TEST_API_KEY"] = "sk-never-passed"
    try:
        tools = load(repo(tmp_path, server, entry))
    finally:
        del os.environ["BFCL_TEST_API_KEY"]
    seen = tools.by_name()["environment_names"].description.removeprefix("Sees: ").split()
    assert "MODE" in seen and "TMPDIR" in seen
    assert "BFCL_TEST_API_KEY" not in seen and "LEAKED" not in seen


def test_a_stdio_server_runs_inside_the_jail(tmp_path: Path) -> None:
    """No network socket for a stdio server, and no write outside its scratch directory."""
    probe = """
import errno as _errno, socket as _socket


def _attempt(action):
    try:
        action()
        return "allowed"
    except OSError as exc:
        return _errno.errorcode.get(exc.errno, str(exc.errno))


_NET = _attempt(lambda: _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM))
_WRITE = _attempt(lambda: open("written-by-server.txt", "w"))


@app.tool(description=f"network {_NET} write {_WRITE}")
def probe() -> str:
    return ""
"""
    server = STDIO.replace("\nif __name__", probe + "\nif __name__")
    tools = load(repo(tmp_path, server, stdio_entry()))
    assert tools.by_name()["probe"].description == "network EPERM write EACCES"
    assert not (tmp_path / "written-by-server.txt").exists()


def test_a_secret_looking_env_name_is_refused_in_the_config(tmp_path: Path) -> None:
    config = repo(tmp_path, STDIO, stdio_entry(env={"OPENAI_API_KEY": "x"}))
    with pytest.raises(ConfigError, match="looks like a secret"):
        load_config(config)


def test_an_entry_needs_exactly_one_transport(tmp_path: Path) -> None:
    config = repo(tmp_path, STDIO, '{"url": "http://127.0.0.1:1/mcp", "command": ["x"]}')
    with pytest.raises(ConfigError, match="exactly one of"):
        load_config(config)


def test_a_non_loopback_url_is_refused_unless_the_workflow_allows_it(tmp_path: Path) -> None:
    with pytest.raises(ToolValidationError) as err:
        load(repo(tmp_path, STDIO, '{"url": "http://10.255.255.1:8080/mcp"}'))
    message = err.value.issues[0].message
    assert "not a loopback address" in message and "exec-allow-hosts" in message


HTTP = (
    "import socket, sys\nimport uvicorn\nfrom mcp.server.mcpserver import MCPServer\n"
    "app = MCPServer('t')\n"
    + TOOLS
    + textwrap.dedent(
        """
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)  # connections wait in the backlog until uvicorn serves
        print(sock.getsockname()[1], flush=True)
        config = uvicorn.Config(app.streamable_http_app(), log_level="error")
        uvicorn.Server(config).run(sockets=[sock])
        """
    )
)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "http_server.py"
    script.write_text(HTTP)
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_streamable_http_server_on_loopback_loads(tmp_path: Path, http_server: str) -> None:
    tools = load(repo(tmp_path / "r", STDIO, json.dumps({"url": http_server})))
    assert [f.name for f in tools.functions] == ["local_tool", "get_weather", "get_time"]
    located = tools.by_name()["get_weather"].source
    assert located is not None and located.file == "server.py"  # found by its text


def test_a_config_of_tool_files_never_imports_the_mcp_sdk(tmp_path: Path) -> None:
    (tmp_path / ".bfcl.yml").write_text("tools: [tools.json]\n")
    (tmp_path / "tools.json").write_text(json.dumps([{"name": "t", "description": "T."}]))
    probe = (
        "import sys\nfrom bfcl_action.cli import main\n"
        "code = main(['validate', '--config', sys.argv[1]])\n"
        "print('MCP' if 'mcp' in sys.modules else 'none', code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / ".bfcl.yml")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "none 0"


@pytest.mark.parametrize(
    ("config", "code"),
    [
        ("tools:\n  - tools/*.json\n  - mcp: {command: [python, server.py]}\n", 0),
        ("tools: [tools/*.json]\n", 1),
        ("tools: [unclosed\n", 1),
    ],
)
def test_the_action_installs_the_mcp_client_only_for_a_config_naming_a_server(
    tmp_path: Path, config: str, code: int
) -> None:
    """What action.yml's install step runs before choosing to install requirements-mcp.lock."""
    (tmp_path / ".bfcl.yml").write_text(config)
    done = subprocess.run(
        [sys.executable, "-m", "bfcl_action.tools.servers", str(tmp_path / ".bfcl.yml")],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stderr) == (code, "")


def test_the_mcp_example_in_the_docs_is_a_valid_config() -> None:
    import re

    from bfcl_action.settings.config import parse_config
    from bfcl_action.tools.servers import McpEntry

    doc = (Path(__file__).parents[2] / "docs" / "own-tools.md").read_text()
    [block] = re.findall(r"```yml\n(tools:\n  - mcp:.*?)```", doc, flags=re.S)
    config = parse_config(block, "docs/own-tools.md")
    servers = [e.mcp for e in config.tools if isinstance(e, McpEntry)]
    assert [s.command for s in servers] == [["python", "server.py"], None]
    assert config.tool_globs == ["tools/extra/*.json"]


def test_init_proposes_the_mcp_server_a_repository_is(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "t"\ndependencies = ["mcp>=1.2"]\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "server.py").write_text(STDIO)
    (tmp_path / "src" / "util.py").write_text("X = 1\n")
    done = subprocess.run(
        [str(Path(sys.executable).with_name("bfcl-action")), "init", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    config = load_config(tmp_path / ".bfcl.yml")
    [entry] = config.tools
    assert not isinstance(entry, str) and entry.mcp.command == ["python", "src/server.py"]
