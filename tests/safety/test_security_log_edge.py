"""Issue 23 item 4: one log edge for every command, `bfcl-curate` included. The runner also
splits lines on a bare `\\r` (and we treat VT, FF, NEL and the Unicode line and paragraph
separators alike), trims .NET white space (NBSP...) before `::`, and honours `##[` anywhere in
a line. Each test runs the installed console script in a subprocess with a clean environment
and reads every line the way a runner could."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bfcl_action.safety.escape import LINE_BREAKS, neutralize_commands
from tests.support.curation import contribution

ATTACK = "x\r::warning ::cr ##[error]legacy\u2028\u00a0::error::ls\x85\u3000::notice::nel\x0b::vt"


def _script(name: str) -> str:
    path = Path(sys.executable).parent / name
    return str(path) if path.exists() else name


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd)}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


def assert_no_live_command(text: str) -> None:
    """No line, split at any break a log reader may honour, starts a command after any
    white space, and no `##[` survives anywhere."""
    for line in re.split(f"[{LINE_BREAKS}]", text):
        stripped = line.lstrip().lstrip("\u200b\ufeff")
        assert not stripped.startswith("::"), repr(line)
        assert "##[" not in line and "##vso[" not in line, repr(line)
    assert "Traceback" not in text


@pytest.mark.parametrize(
    "text",
    [
        ATTACK,
        "::a",
        " \t::b",
        "\u2007\u202f::c",
        "\ufeff::d",
        "ok\r\n::e",
        "a ##vso[task.setvariable]x",
        "\x0c::f\x1c::g",
    ],
)
def test_neutralize_commands_defuses_every_line_start(text: str) -> None:
    assert_no_live_command(neutralize_commands(text))


def test_neutralize_commands_keeps_our_plain_text() -> None:
    assert neutralize_commands("a :: b\nratio 1::2") == "a :: b\nratio 1::2"


def _project(tmp_path: Path, models: list[str]) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "ping",
                "description": "Ping a host.",
                "parameters": {
                    "type": "object",
                    "properties": {"host": {"type": "string", "description": "Host."}},
                    "required": ["host"],
                },
            },
        }
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    (tmp_path / "cases.yml").write_text(
        "cases:\n  - id: ping_one\n    question: Ping example.org.\n    tools: [ping]\n"
        "    expect:\n      - ping: {host: [example.org]}\n"
    )
    lines = "".join(f"  - {{name: {json.dumps(m)}, label: m{i}}}\n" for i, m in enumerate(models))
    (tmp_path / ".bfcl.yml").write_text(
        "tools: [tools.json]\ncases: [cases.yml]\nmodels:\n" + lines
    )


def test_a_replay_file_name_and_matrix_model_name_print_inert(tmp_path: Path) -> None:
    name = "ans\r::warning ::x ##[error]y\u2028\u00a0::error::z.jsonl"
    (tmp_path / name).write_text(
        json.dumps({"id": "ping_one", "result": [{"ping": json.dumps({"host": "example.org"})}]})
        + "\n"
    )
    _project(tmp_path, [f"replay:{name}", f"replay:{name}"])
    run = _run([_script("bfcl-action"), "run", "--config", ".bfcl.yml", "--output", "r.json",
                "--no-cache"], tmp_path)  # fmt: skip
    assert "ans" in run.stderr + run.stdout  # the name is shown, as text
    assert_no_live_command(run.stdout + run.stderr)


def test_a_tool_exception_text_prints_inert(tmp_path: Path) -> None:
    name = "answers.jsonl"
    (tmp_path / name).write_text(
        json.dumps({"id": "ping_one", "result": [{"ping": json.dumps({"host": "example.org"})}]})
        + "\n"
    )
    _project(tmp_path, [f"replay:{name}"])
    cases = (tmp_path / "cases.yml").read_text() + "    execute:\n      function: hostile:ping\n"
    (tmp_path / "cases.yml").write_text(cases)
    (tmp_path / "hostile.py").write_text(f"def ping(host):\n    raise ValueError({ATTACK!r})\n")
    (tmp_path / ".bfcl.yml").write_text(
        f"tools: [tools.json]\ncases: [cases.yml]\nmodel: {{name: 'replay:{name}'}}\n"
    )
    run = _run([_script("bfcl-action"), "run", "--config", ".bfcl.yml", "--output", "r.json",
                "--no-cache"], tmp_path)  # fmt: skip
    assert "Error during execution: x" in (tmp_path / "r.json").read_text()
    shown = _run(
        [_script("bfcl-action"), "compare", "--head", "r.json", "--markdown", "c.md"], tmp_path
    )
    comment = (tmp_path / "c.md").read_text()
    assert_no_live_command(run.stdout + run.stderr + shown.stdout + shown.stderr + comment)


def test_our_own_workflow_commands_carry_no_legacy_command(tmp_path: Path) -> None:
    """An annotation of ours quoting a tool's exception text (`##[` survives `repr`)."""
    code = (
        "from bfcl_action.safety.logstream import std_streams\n"
        "from bfcl_action.github import outputs\n"
        "with std_streams():\n"
        f"    outputs.warning('tool raised ' + {ATTACK!r}, title='t ##[error]x')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert proc.stdout.startswith("::warning title=")
    assert "##[" not in proc.stdout and proc.stdout.count("\n") == 1


def test_validate_messages_print_inert(tmp_path: Path) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": ATTACK,
                "description": ATTACK,
                "parameters": {"type": "object", "properties": {ATTACK: {"type": "nope"}}},
            },
        }
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    (tmp_path / ".bfcl.yml").write_text(f"tools: [tools.json]\n{json.dumps(ATTACK)}: 1\n")
    run = _run([_script("bfcl-action"), "validate"], tmp_path)
    assert run.returncode != 0
    assert_no_live_command(run.stdout + run.stderr)


def test_a_curate_contribution_licence_and_file_name_print_inert(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    entry = contribution(license="MIT " + ATTACK, contributor="bob ##[error]x")
    (tmp_path / "in" / "ans\r::warning ::f ##[error]g.json").write_text(json.dumps(entry))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    run = _run([_script("bfcl-curate"), "build", "--input", "in", "--live-dir", "live",
                "--reference", "none"], tmp_path)  # fmt: skip
    assert "license" in run.stdout + run.stderr  # the drop is reported
    assert_no_live_command(run.stdout + run.stderr)
