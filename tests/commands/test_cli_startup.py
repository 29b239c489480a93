"""`bfcl-action --version`, `--help` and `check` import only what they use: no model client,
no PyGithub, no templates. (Start time itself is measured by `nox -s bench`:
benchmarks/startup.py.)"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bfcl_action.cli import COMMANDS, command_of, module_of

HEAVY = {"openai", "github", "jinja2", "git", "rich", "httpx"}
"""Top-level modules of the model client, PyGithub, the templates, GitPython and their kin."""

PROBE = """
import json, sys
from bfcl_action.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def imported_by(*argv: str, prelude: str = "") -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", prelude + PROBE, *argv], capture_output=True, text=True, check=True
    )
    last = done.stdout.strip().splitlines()[-1]
    result = json.loads(last)
    assert result["code"] in (0, None), done.stderr
    return set(result["modules"])


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["check", "--help"]])
def test_light_invocations_import_no_heavy_dependency(argv: list[str]) -> None:
    assert imported_by(*argv) & HEAVY == set()


def test_checking_a_line_imports_no_heavy_dependency(tmp_path: Path) -> None:
    line = {
        "id": "t1",
        "category": "simple_python",
        "functions": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}],
        "possible_answer": [{"f": {}}],
        "model_output": "[f()]",
    }
    cases = tmp_path / "in.jsonl"
    cases.write_text(json.dumps(line) + "\n")
    out = tmp_path / "out.jsonl"
    assert imported_by("check", "--cases", str(cases), "--output", str(out)) & HEAVY == set()
    assert json.loads(out.read_text())["valid"] is True


def test_the_probe_sees_what_was_imported() -> None:
    assert "jinja2" in imported_by("--version", prelude="import jinja2\n")
    assert "bfcl_action" in imported_by("--version")


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_commands_help_in_the_table_is_what_its_module_registers(name: str) -> None:
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(module_of(name)).register(sub)
    (action,) = sub._choices_actions
    assert (action.dest, action.help) == (name, COMMANDS[name])


def test_the_command_is_the_first_word_that_is_not_an_option() -> None:
    assert command_of(["check", "--cases", "x"]) == "check"
    assert command_of(["--version"]) == ""
    assert command_of(["chek"]) == ""


def test_every_command_module_is_in_the_table() -> None:
    folder = Path(__file__).parents[2] / "bfcl_action" / "commands"
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    assert modules == {module_of(name).rsplit(".", 1)[1] for name in COMMANDS}


def test_a_run_asking_a_model_imports_no_openai_sdk(tmp_path: Path) -> None:
    """Chat requests go out on httpx2 with the SDK's headers; the SDK (about 1 s to import)
    is for the Batch API and failures only."""
    from tests.support.openai_server import OpenAIServer
    from tests.support.runner import LIVE, weather_responder

    with OpenAIServer() as server:
        server.responder = weather_responder
        args = ["run", "--dataset", "live@2026-W48", "--model", "test-model"]
        args += ["--base-url", server.base_url, "--cache", str(tmp_path / "cache")]
        args += ["--output", str(tmp_path / "run.json")]
        prelude = f"import os\nos.environ['BFCL_ACTION_LIVE_DIR'] = {str(LIVE)!r}\n"
        prelude += "os.environ['OPENAI_API_KEY'] = 'sk-test'\n"
        modules = imported_by(*args, prelude=prelude)
        assert server.requests, "the run asked the model"
    assert "openai" not in modules and "httpx2" in modules
