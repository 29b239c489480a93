"""Running `bfcl-action github` as a runner step does: the `INPUT_*` and `GITHUB_*`
variables, an event file, the output and job-summary files, against the local GitHub server;
and git in scratch repositories."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from bfcl_action import cli
from bfcl_action.core.records import RunReport
from tests.support.github_server import GitHubServer

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class ActionRun:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's heredoc form (`name<<DELIM` ... `DELIM`)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        name, _, delim = lines[i].partition("<<")
        end = lines.index(delim, i + 1)
        out[name] = "\n".join(lines[i + 1 : end])
        i = end + 1
    return out


def write_report(path: Path, report: RunReport) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.model_dump_json(), encoding="utf-8")
    return path.name


def run_action(
    server: GitHubServer,
    workdir: Path,
    event_name: str,
    event: dict[str, Any],
    *,
    token: str = "write-token",
    sha: str = "",
    in_process: bool = False,
    workspace: Path | None = None,
    extra_env: dict[str, str] | None = None,
    **inputs: str,
) -> ActionRun:
    """Run the entrypoint; `in_process=True` skips the interpreter start for side checks.

    With `workspace`, the step runs there (`GITHUB_WORKSPACE`, the runner's default working
    directory) and `working-directory` is `workdir` relative to it, as in a monorepo."""
    workdir.mkdir(parents=True, exist_ok=True)
    event_path = workdir / "event.json"
    event_path.write_text(json.dumps(event), encoding="utf-8")
    output, summary = workdir / "github_output", workdir / "step_summary"
    output.write_text("")
    summary.write_text("")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "HOME": str(workdir),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": "octo/app",
        "GITHUB_API_URL": server.url,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_SHA": sha or "f" * 40,
        "GITHUB_RUN_ID": "4242",
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "BFCL_GITHUB_THROTTLE": "0",
        "BFCL_GITHUB_RETRY_WAIT_CAP": "5",
        "INPUT_GITHUB_TOKEN": token,
        "INPUT_WORKING_DIRECTORY": str(workdir),
    }
    if workspace is not None:
        env["GITHUB_WORKSPACE"] = str(workspace)
        env["INPUT_WORKING_DIRECTORY"] = workdir.relative_to(workspace).as_posix()
    for name, value in inputs.items():
        env["INPUT_" + name.upper()] = value
    env.update(extra_env or {})
    if in_process:
        stdout, stderr = io.StringIO(), io.StringIO()
        with (
            mock.patch.dict(os.environ, env),
            contextlib.redirect_stdout(stdout),
            contextlib.redirect_stderr(stderr),
        ):
            code = cli.main(["github"])
        return ActionRun(
            code,
            stdout.getvalue(),
            stderr.getvalue(),
            parse_outputs(output.read_text()),
            summary.read_text(),
        )
    proc = subprocess.run(
        [sys.executable, "-m", "bfcl_action.cli", "github"],
        cwd=workspace or workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return ActionRun(
        proc.returncode,
        proc.stdout,
        proc.stderr,
        parse_outputs(output.read_text()),
        summary.read_text(),
    )


def git(workdir: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=workdir,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


TOOLS = """[
  {"type": "function", "function": {"name": "get_value", "description": "Get a value.",
    "parameters": {"type": "object", "properties": {"x": {"type": "integer",
      "description": "the key"}}, "required": ["x"]}}}
]
"""


def write_tools(workdir: Path) -> None:
    """A repository's own tool file and the .bfcl.yml naming it."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "tools.json").write_text(TOOLS)
    (workdir / ".bfcl.yml").write_text("tools:\n  - tools.json\n")


def open_pr(server: GitHubServer) -> int:
    server.commit("octo/app", "feature", "change a tool description")
    return int(server.open_pull("octo/app", "feature")["number"])
