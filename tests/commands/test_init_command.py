"""`init`: a starter config and workflow for the tools found, never overwriting by accident."""

import re
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from bfcl_action.cli import main
from bfcl_action.commands.init import ACTION_REPOSITORY, find_python_tools, find_tool_files
from bfcl_action.settings.config import load_config
from bfcl_action.tools import load_tools

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE / "tools", tmp_path / "src" / "tools")
    (tmp_path / "package.json").write_text('{"name": "app", "description": "An app."}')
    (tmp_path / "node_modules").mkdir()
    shutil.copy(EXAMPLE / "tools" / "mcp_tools.json", tmp_path / "node_modules" / "x.json")
    return tmp_path


def test_finds_tool_files_and_ignores_other_json(repo: Path) -> None:
    assert find_tool_files(repo) == [
        ("src/tools/anthropic_tools.yaml", 5),
        ("src/tools/mcp_tools.json", 4),
        ("src/tools/openai_tools.json", 5),
    ]


def test_written_config_is_valid_and_loads_the_found_tools(repo: Path) -> None:
    assert main(["init", "--dir", str(repo)]) == 0
    config = load_config(repo / ".bfcl.yml")
    assert config.tools == [
        "src/tools/anthropic_tools.yaml",
        "src/tools/mcp_tools.json",
        "src/tools/openai_tools.json",
    ]
    assert config.model.name == "gpt-4o-mini"
    assert len(load_tools(config.tools, base_dir=repo).functions) == 14


def test_written_workflow_uses_the_action(repo: Path) -> None:
    main(["init", "--dir", str(repo), "--model", "gpt-4.1-mini"])
    workflow = YAML(typ="safe").load((repo / ".github" / "workflows" / "bfcl.yml").read_text())
    steps = workflow["jobs"]["bfcl"]["steps"]
    assert steps[1]["uses"] == f"{ACTION_REPOSITORY}@v1"
    assert "model" not in steps[1]["with"]  # named once, in .bfcl.yml (model: or models:)
    assert load_config(repo / ".bfcl.yml").model.name == "gpt-4.1-mini"
    assert "pull_request" in workflow["on"]


def test_written_workflow_is_pinned_and_hardened(repo: Path) -> None:
    main(["init", "--dir", str(repo)])
    workflow = YAML(typ="safe").load((repo / ".github" / "workflows" / "bfcl.yml").read_text())
    assert workflow["permissions"] == {"contents": "read"}
    job = workflow["jobs"]["bfcl"]
    assert job["permissions"]["checks"] == "write"
    assert job["permissions"]["pull-requests"] == "write"
    checkout = job["steps"][0]
    assert re.fullmatch(r"actions/checkout@[0-9a-f]{40}", checkout["uses"])
    assert checkout["with"] == {
        "ref": "${{ github.event.pull_request.head.sha || github.sha }}",
        "fetch-depth": 0,
        "persist-credentials": False,
    }


def test_the_quick_start_in_the_docs_and_the_readme_is_what_init_writes(repo: Path) -> None:
    main(["init", "--dir", str(repo)])
    written = (repo / ".github" / "workflows" / "bfcl.yml").read_text()
    root = Path(__file__).parents[2]
    assert (root / "docs" / "workflows" / "quick-start.yml").read_text() == written
    readme = (root / "README.md").read_text()
    quick = readme[readme.index("## Quick start") :]
    block = quick[quick.index("```yaml\n") + len("```yaml\n") :]
    assert block[: block.index("```\n")] == written


def test_refuses_to_overwrite_without_force(repo: Path, capsys) -> None:
    (repo / ".bfcl.yml").write_text("seed: 1\n")
    assert main(["init", "--dir", str(repo)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (repo / ".bfcl.yml").read_text() == "seed: 1\n"
    assert main(["init", "--dir", str(repo), "--force"]) == 0
    assert load_config(repo / ".bfcl.yml").tools


def test_config_without_tools_found_is_still_valid(tmp_path: Path) -> None:
    assert main(["init", "--dir", str(tmp_path)]) == 0
    assert load_config(tmp_path / ".bfcl.yml").tools == []


def test_scheduled_adds_the_weekly_workflow_and_keeps_existing_files(repo: Path) -> None:
    (repo / ".bfcl.yml").write_text("seed: 1\n")
    assert main(["init", "--dir", str(repo), "--scheduled"]) == 0
    assert (repo / ".bfcl.yml").read_text() == "seed: 1\n"
    workflow = YAML(typ="safe").load(
        (repo / ".github" / "workflows" / "bfcl-scheduled.yml").read_text()
    )
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"}
    job = workflow["jobs"]["bfcl"]
    assert job["permissions"]["issues"] == "write"
    [action] = [s for s in job["steps"] if s.get("uses") == f"{ACTION_REPOSITORY}@v1"]
    assert action["with"]["history"] == "artifact"
    [upload] = [s for s in job["steps"] if "upload-artifact" in s.get("uses", "")]
    assert upload["if"] == "always()"  # the history survives a failed evaluation


def test_the_scheduled_workflow_in_the_docs_is_what_init_writes() -> None:
    from bfcl_action.commands.init import render_scheduled_workflow

    docs = Path(__file__).parents[2] / "docs" / "workflows" / "scheduled.yml"
    assert docs.read_text() == render_scheduled_workflow()


def test_init_fits_the_repository_it_finds(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A repository on `master` with case files already in cases/: the workflow stores
    baselines on pushes to master, the config lists the cases, and the next steps say what
    to do, in order."""
    import git

    from bfcl_action.cases.suites import build_cases

    shutil.copytree(EXAMPLE / "cases", repo / "cases")
    git.Repo.init(repo, initial_branch="master")
    assert main(["init", "--dir", str(repo)]) == 0
    workflow = YAML(typ="safe").load((repo / ".github" / "workflows" / "bfcl.yml").read_text())
    assert workflow["on"]["push"]["branches"] == ["master"]
    config = load_config(repo / ".bfcl.yml")
    assert config.cases == ["cases/*.yml"]
    assert any(
        c.category == "own_simple"
        for c in build_cases(config, base_dir=repo, derived=False, external=False)
    )
    out = capsys.readouterr().out
    steps = out[out.index("next:") :]
    assert "1. bfcl-action validate" in steps
    assert "your cases in cases/*.yml are listed" in steps
    assert "4. commit and push to master" in steps


def test_init_without_tool_files_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "! no tool definitions were found" in out
    assert "bfcl-action generate --per-tool 3" in out
    assert "push to main" in out


@pytest.mark.parametrize(
    "name",
    [
        "t\nmodels: [{name: evil, api_key_env: OPENAI_API_KEY}]\n#.json",
        "t\u2028models: [{name: evil}]  #.json",
        "true.json  # x\nmodels: [{name: evil}]\n.json",
        'q".json',
    ],
)
def test_a_crafted_tool_file_name_cannot_add_a_models_entry(tmp_path: Path, name: str) -> None:
    """Issue 23 item 9: `init` emits file names as YAML scalars, never concatenated."""
    import subprocess
    import sys

    shutil.copy(EXAMPLE / "tools" / "openai_tools.json", tmp_path / name)
    script = Path(sys.executable).parent / "bfcl-action"
    subprocess.run(
        [str(script) if script.exists() else "bfcl-action", "init", "--dir", str(tmp_path)],
        check=True,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    data = YAML(typ="safe").load((tmp_path / ".bfcl.yml").read_text())
    assert "models" not in data
    assert data["tools"] == [name]
    assert data["model"]["name"] == "gpt-4o-mini"


SHOP_TOOLS = '''"""Tools of a shopping assistant."""


def search_products(query: str, max_price: float | None = None) -> list[str]:
    """Search the catalogue for products matching a free-text query.

    Args:
        query: What the customer is looking for.
        max_price: Highest price in euros, if the customer named one.
    """
    return []


async def track_order(order_id: str) -> str:
    """Where an order is and when it arrives."""
    return order_id


def undocumented(x: int) -> int:
    return x


def _helper() -> None:
    """Private: not a tool."""
'''


def shop(root: Path) -> Path:
    (root / "agent").mkdir(parents=True)
    (root / "agent" / "tools.py").write_text(SHOP_TOOLS)
    (root / "agent" / "utils.py").write_text('def slug(x: str) -> str:\n    """A slug."""\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_tools.py").write_text('def test_x() -> None:\n    """A test."""\n')
    (root / "bad name").mkdir()
    (root / "bad name" / "tools.py").write_text('def f() -> None:\n    """Not importable."""\n')
    return root


def test_init_lists_python_tool_functions_it_finds_without_importing_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Teams keep tools as Python functions too: `init` reads `tools.py` modules with `ast`
    (documented public functions only) and lists them as a `python:` source that loads."""
    shop(tmp_path)
    assert find_python_tools(tmp_path) == [("agent.tools", ["search_products", "track_order"])]
    assert main(["init", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "no tool definitions were found" not in out
    data = YAML(typ="safe").load((tmp_path / ".bfcl.yml").read_text())
    assert data["tools"] == [
        {"python": {"module": "agent.tools", "names": ["search_products", "track_order"]}}
    ]
    config = load_config(tmp_path / ".bfcl.yml")
    assert config.tools  # the entry validates as a python source


def test_a_module_that_exhausts_the_parser_is_skipped(tmp_path: Path) -> None:
    """A hostile `tools.py` (200,000 unary minuses overflow Python's parser) is not a tool
    module, and `init` still lists the others."""
    shop(tmp_path)
    (tmp_path / "hostile_tools.py").write_text("x = " + "-" * 200_000 + "1\n")
    assert find_python_tools(tmp_path) == [("agent.tools", ["search_products", "track_order"])]
