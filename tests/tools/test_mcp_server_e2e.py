"""An MCP server as the tool source, end to end: a real server written with the `mcp` SDK
(its FastMCP API, `MCPServer` since mcp 2), started over stdio from a scratch git repository.

`validate` lists its tools; a push to main runs the Action against a local model; a branch
rewording one tool's docstring makes `impact` name that tool, the PR's run asks exactly the
cases that offer it, the comment shows the word diff; the server never sees a key.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cases.suites import build_cases
from bfcl_action.settings.config import load_config
from tests.support.action import ROOT, git, run_action
from tests.support.github_server import GitHubServer
from tests.support.openai_server import OpenAIServer

pytest.importorskip("mcp")


KEY = "sk-local-mcp-secret-4242"
SERVER = '''\
"""A tiny travel server."""
import os

from mcp.server.mcpserver import MCPServer

app = MCPServer("travel")


@app.tool()
def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather for a city, in celsius or fahrenheit."""
    return f"sunny in {city}"


@app.tool()
def convert_currency(amount: float, to: str) -> str:
    """Convert an amount of euros into another currency (ISO code)."""
    return f"{amount} EUR in {to}"


@app.tool()
def book_table(restaurant: str, people: int) -> str:
    """Book a table at a restaurant for a number of people."""
    return "booked"


SEEN = " ".join(sorted(os.environ))
LEAKED = any(KEY_MARK in value for value in os.environ.values())


@app.tool(description="Variables this server sees: " + SEEN + (" LEAKED" if LEAKED else ""))
def environment_names() -> str:
    return SEEN


if __name__ == "__main__":
    app.run()
'''.replace("KEY_MARK", repr("sk-local-mcp"))
CASES = """\
- id: weather_rome
  question: What's the weather in Rome?
  tools: [get_weather]
  expect:
    - get_weather: {city: Rome, unit: [celsius, ""]}
- id: yen_100
  question: How many yen are 100 euros?
  tools: [convert_currency]
  expect:
    - convert_currency: {amount: 100, to: JPY}
- id: table_for_four
  question: Book a table for 4 at Da Mario.
  tools: [book_table, get_weather]
  expect:
    - book_table: {restaurant: Da Mario, people: 4}
- id: dollars_all_tools
  question: Convert 20 euros to USD.
  expect:
    - convert_currency: {amount: 20, to: USD}
"""
REWORDED = "Convert an amount of euros into another currency (ISO 4217 code, e.g. JPY)."


def _config() -> str:
    command = json.dumps([sys.executable, "server.py"])
    return textwrap.dedent(
        f"""\
        tools:
          - mcp:
              command: {command}
              env: {{MODE: offline}}
        cases: [cases.yml]
        suites: {{own: [own_simple, own_multiple, own_irrelevance]}}
        derived:
          irrelevance: {{count: 4, pools: [pool.jsonl]}}
        model: {{name: gpt-4o-mini, mode: fc, temperature: 0}}
        tool_limits: {{provider: generic}}
        """
    )


def _answers(body: dict[str, Any]) -> dict[str, Any]:
    """A model that answers the own questions right and makes no call otherwise."""
    question = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    calls = {
        "What's the weather in Rome?": ("get_weather", {"city": "Rome"}),
        "How many yen are 100 euros?": ("convert_currency", {"amount": 100, "to": "JPY"}),
        "Book a table for 4 at Da Mario.": ("book_table", {"restaurant": "Da Mario", "people": 4}),
        "Convert 20 euros to USD.": ("convert_currency", {"amount": 20, "to": "USD"}),
    }
    if question in calls:
        name, args = calls[question]
        return {"tool_calls": [{"name": name, "arguments": args}]}
    return {"content": "I cannot help with that."}


def _cli(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed console script, with a key in the environment (it must not reach
    the server)."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(workdir),
        "OPENAI_API_KEY": KEY,
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [str(Path(sys.executable).with_name("bfcl-action")), *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_an_mcp_server_is_validated_run_and_its_reworded_tool_impacts_only_its_cases(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "repo"
    workdir.mkdir()
    (workdir / "server.py").write_text(SERVER)
    (workdir / "cases.yml").write_text(CASES)
    shutil.copy(ROOT / "examples" / "weather-app" / "pools" / "pool.jsonl", workdir)
    (workdir / ".bfcl.yml").write_text(_config())
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "main")
    main_sha = git(workdir, "rev-parse", "HEAD")
    github_server.commit("octo/app", "main", "main", sha=main_sha)

    checked = _cli(workdir, "validate")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "4 tools (mcp 4)" in checked.stdout and "Traceback" not in checked.stderr
    tools = {
        f.name: f
        for f in build_cases(load_config(workdir / ".bfcl.yml"), base_dir=workdir)[0].functions
    }
    assert tools["get_weather"].source is not None
    docstring = '    """Current weather for a city, in celsius or fahrenheit."""'
    line = SERVER.splitlines().index(docstring) + 1  # where the annotation points
    assert (tools["get_weather"].source.file, tools["get_weather"].source.line) == (
        "server.py",
        line,
    )

    cache = tmp_path / "cache"
    with OpenAIServer() as model:
        model.responder = _answers
        inputs = {
            "model": "gpt-4o-mini",
            "base_url": model.base_url,
            "api_key": KEY,
            "extra_env": {"BFCL_RESPONSE_CACHE_DIR": str(cache)},
        }
        push = run_action(
            github_server,
            workdir,
            "push",
            github_server.push_event("octo/app", "main"),
            sha=main_sha,
            **inputs,
        )
        assert push.code == 0, push.stderr
        first = len(model.requests)
        assert first > 0

        git(workdir, "checkout", "-q", "-b", "feature")
        server = (workdir / "server.py").read_text()
        (workdir / "server.py").write_text(
            server.replace("Convert an amount of euros into another currency (ISO code).", REWORDED)
        )
        git(workdir, "commit", "-q", "-am", "reword convert_currency")
        head_sha = git(workdir, "rev-parse", "HEAD")
        github_server.commit("octo/app", "feature", sha=head_sha)
        number = int(github_server.open_pull("octo/app", "feature")["number"])

        impact = _cli(workdir, "impact", "--base-ref", main_sha, "--json")
        assert impact.returncode == 0, impact.stderr
        predicted = json.loads(impact.stdout)
        pr = run_action(
            github_server,
            workdir,
            "pull_request",
            github_server.pull_event("octo/app", number),
            sha="e" * 40,
            **inputs,
        )
        asked = len(model.requests) - first
        asked_questions = [
            next(m["content"] for m in reversed(r["messages"]) if m["role"] == "user")
            for r in model.requests[first:]
        ]
        offering_functions = [
            sorted(t["function"]["name"] for t in r.get("tools") or [])
            for r in model.requests[first:]
        ]
        seen_by_server = [
            t["function"]["description"]
            for r in model.requests
            for t in r.get("tools") or []
            if t["function"]["name"] == "environment_names"
        ]

    assert pr.code == 0, pr.stderr
    assert predicted["changes"]["changed"] == ["convert_currency"]
    head_cases = build_cases(load_config(workdir / ".bfcl.yml"), base_dir=workdir)
    offering = {c.id for c in head_cases if "convert_currency" in [f.name for f in c.functions]}
    assert set(predicted["impacted"]) == offering
    assert "yen_100" in offering and "weather_rome" not in offering
    assert asked == predicted["requests"] > 0
    assert all("convert_currency" in names for names in offering_functions)
    assert "What's the weather in Rome?" not in asked_questions

    [comment] = github_server.comments_on("octo/app", number)
    body = comment["body"]
    assert "convert_currency" in body
    assert "ISO ~~code).~~ **4217 code, e.g. JPY).**" in body  # the word diff

    # what the server saw, as it described itself at each start the runs asked about
    assert seen_by_server
    for description in seen_by_server:
        names = description.removeprefix("Variables this server sees: ").split()
        assert "MODE" in names and "LEAKED" not in names
        assert not any(name.endswith(("_API_KEY", "_TOKEN")) for name in names)
