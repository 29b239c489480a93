"""Real tool files from public repositories load as their providers read them.

The files live in `../shared/real_tools/` beside the repository (never in it: their licences
and sizes are theirs); `manifest.json` says how many tools each really holds. Skipped when the
directory is absent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.settings.config import BfclConfig
from bfcl_action.tools import load_tools
from bfcl_action.tools.validate import ToolLimits

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "real_tools"
MANIFEST: list[dict[str, Any]] = (
    json.loads((REAL / "manifest.json").read_text(encoding="utf-8"))["entries"]
    if (REAL / "manifest.json").is_file()
    else []
)
needs_real = pytest.mark.skipif(not MANIFEST, reason="../shared/real_tools is absent")
SUPPORTED = [e for e in MANIFEST if e["supported"]]
CLI = Path(sys.executable).with_name("bfcl-action")


def entry(name: str) -> dict[str, Any]:
    return next(e for e in MANIFEST if e["name"] == name)


@needs_real
@pytest.mark.parametrize("item", SUPPORTED, ids=[e["name"] for e in SUPPORTED])
def test_every_supported_real_file_loads_with_all_its_tools(item: dict[str, Any]) -> None:
    tools = load_tools([item["tools_glob"]], base_dir=REAL / item["name"])
    assert len(tools.functions) == item["expected_tools"]
    assert not tools.left_out


NEWLY_READ = [e for e in MANIFEST if not e["supported"]]


@needs_real
@pytest.mark.parametrize("item", NEWLY_READ, ids=[e["name"] for e in NEWLY_READ])
def test_the_formerly_unread_real_files_load_too(item: dict[str, Any]) -> None:
    """Gemini, VS Code, Dify, SWE-agent and a tool list nested in an eval config."""
    tools = load_tools([item["tools_glob"]], base_dir=REAL / item["name"])
    assert len(tools.functions) == item["expected_tools"]


@needs_real
def test_openai_limits_leave_out_only_the_tool_that_breaks_them() -> None:
    item = entry("github-mcp-toolsnaps")
    tools = load_tools(
        [item["tools_glob"]],
        base_dir=REAL / item["name"],
        limits=ToolLimits(provider="openai"),
    )
    [issue] = tools.left_out
    assert issue.tool == "pull_request_review_write" and "1024 characters" in issue.render()
    assert "this tool is left out" in issue.render()
    names = {f.name for f in tools.functions}
    assert len(names) == item["expected_tools"] - 1
    assert "pull_request_review_write" not in names


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ({}, "openai"),
        ({"base_url": "https://api.openai.com/v1"}, "openai"),
        ({"base_url": "http://127.0.0.1:8000/v1"}, "generic"),
    ],
)
def test_the_provider_profile_follows_the_configured_endpoint(
    model: dict[str, str], provider: str
) -> None:
    assert BfclConfig.model_validate({"model": model}).tool_limits.provider == provider


def test_a_set_profile_wins_over_the_endpoint() -> None:
    config = BfclConfig.model_validate(
        {"model": {"base_url": "http://127.0.0.1:8000/v1"}, "tool_limits": {"provider": "openai"}}
    )
    assert config.tool_limits.provider == "openai"


def test_one_openai_model_in_a_matrix_applies_openai_limits() -> None:
    config = BfclConfig.model_validate(
        {
            "model": {"base_url": "http://127.0.0.1:8000/v1"},
            "models": [{"name": "local"}, {"name": "gpt", "base_url": "https://api.openai.com/v1"}],
        }
    )
    assert config.tool_limits.provider == "openai"


def clean_env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8"}


@needs_real
@pytest.mark.parametrize("item", MANIFEST, ids=[e["name"] for e in MANIFEST])
def test_validate_never_prints_a_traceback_on_a_real_file(
    item: dict[str, Any], tmp_path: Path
) -> None:
    """What a user runs: the console script on a repository holding the file (a scratch copy)."""
    repo = tmp_path / "repo"
    shutil.copytree(REAL / item["name"], repo)
    (repo / ".bfcl.yml").write_text(
        f"tools: [{json.dumps(item['tools_glob'])}]\nmodel: {{base_url: http://127.0.0.1:9/v1}}\n"
    )
    done = subprocess.run(
        [str(CLI), "validate", "--config", str(repo / ".bfcl.yml")],
        capture_output=True,
        text=True,
        env=clean_env(tmp_path),
        cwd=repo,
        timeout=120,
    )
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(re.findall(rf"^{item['expected_tools']} tools? \(", done.stdout, re.M)) == 1


@needs_real
def test_validate_against_openai_names_the_left_out_tool_and_loads_the_rest(
    tmp_path: Path,
) -> None:
    item = entry("github-mcp-toolsnaps")
    repo = tmp_path / "repo"
    shutil.copytree(REAL / item["name"], repo)
    (repo / ".bfcl.yml").write_text(f"tools: [{json.dumps(item['tools_glob'])}]\n")
    done = subprocess.run(
        [str(CLI), "validate", "--config", str(repo / ".bfcl.yml")],
        capture_output=True,
        text=True,
        env=clean_env(tmp_path),
        cwd=repo,
        timeout=120,
    )
    assert done.returncode == 2
    assert "tool pull_request_review_write: description: description too long" in done.stdout
    assert re.search(rf"^{item['expected_tools'] - 1} tools? \(", done.stdout, re.M)
    assert "defines no tool" not in done.stdout
