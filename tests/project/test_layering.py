"""The import-linter contracts (pyproject.toml, run by `nox -s lint`) can fail, and place
every module: the root holds only the command line and stage packages, every package sits in
the `stage-layers` contract, and docs/design.md draws the same layers."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = {c["id"]: c for c in CONFIG["tool"]["importlinter"]["contracts"]}
LAYERS: list[str] = CONTRACTS["stage-layers"]["layers"]


def layer_names(layer: str) -> set[str]:
    return {name.strip() for name in re.split(r"[:|]", layer)}


def top_level_packages() -> set[str]:
    return {p.parent.name for p in (ROOT / "bfcl_action").glob("*/__init__.py")}


def design_layers() -> list[str]:
    """The first column of the code block under "Packages and layers" in docs/design.md."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("## Packages and layers", 1)[1]
    block = section.split("```", 2)[1]
    rows = [line for line in block.splitlines()[1:] if line.strip()]
    return [re.split(r"\s{2,}", row.strip(), maxsplit=1)[0] for row in rows]


def lint_imports(cwd: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(exe), "--no-logo", "--no-cache", *(f"--contract={c}" for c in contracts)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(cwd), "PATH": str(exe.parent)},
        timeout=120,
    )


PENDING = CONFIG["tool"]["bfcl-action"]["lint"]["pending-import-contracts"]


def test_pending_contracts_are_real_contracts() -> None:
    assert set(PENDING) <= set(CONTRACTS)


@pytest.mark.parametrize("contract", PENDING)
def test_a_pending_contract_is_still_broken_else_it_must_be_enforced(contract: str) -> None:
    done = lint_imports(ROOT, contract)
    assert done.returncode == 1, (
        f"the {contract!r} contract holds now: remove it from "
        "[tool.bfcl-action.lint] pending-import-contracts in pyproject.toml so lint enforces it"
    )


def test_the_root_holds_only_the_command_line_and_packages() -> None:
    """A module at the root would sit outside every layer: it belongs in a stage package."""
    modules = {p.name for p in (ROOT / "bfcl_action").glob("*.py")}
    assert modules == {"__init__.py", "cli.py"}


def test_every_package_is_placed_in_the_stage_layers_once() -> None:
    placed = [name for layer in LAYERS for name in layer_names(layer)]
    assert len(placed) == len(set(placed))
    assert set(placed) == top_level_packages() | {"cli"}


def test_the_design_diagram_draws_the_contracts_layers() -> None:
    assert design_layers() == LAYERS


@pytest.fixture(scope="module")
def copy_of_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layering")
    for package in ("bfcl_action", "curation"):
        shutil.copytree(
            ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_contracts_hold_on_the_copy(copy_of_project: Path) -> None:
    done = lint_imports(copy_of_project, "stage-layers", "checker-bottom")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def with_line(
    root: Path, path: Path, line: str, *contracts: str
) -> subprocess.CompletedProcess[str]:
    """Lint the copy at `root` with `line` appended to `path` (created when new), then undo
    it."""
    original = path.read_text(encoding="utf-8") if path.exists() else None
    path.write_text((original or '"""A new module."""\n') + f"\n{line}\n", encoding="utf-8")
    try:
        return lint_imports(root, *contracts)
    finally:
        if original is None:
            path.unlink()
        else:
            path.write_text(original, encoding="utf-8")


UPWARD = [
    pytest.param(
        "checker/verdict.py",
        "import bfcl_action.runner.pipeline",
        "stage-layers",
        "bfcl_action.checker.verdict -> bfcl_action.runner.pipeline",
        id="the checker reaching up to the runner",
    ),
    pytest.param(
        "checker/verdict.py",
        "from bfcl_action.safety import redact",
        "checker-bottom",
        "bfcl_action.checker.verdict -> bfcl_action.safety.redact",
        id="the checker importing safety (below it, yet it needs only the core)",
    ),
    pytest.param(
        "results/scoring.py",
        "from bfcl_action.commands import run",
        "stage-layers",
        "bfcl_action.results.scoring -> bfcl_action.commands",
        id="a results module importing a command",
    ),
    pytest.param(
        "compare/history.py",
        "from bfcl_action.report import charts",
        "stage-layers",
        "bfcl_action.compare.history -> bfcl_action.report",
        id="the comparison reaching up to the rendering edge (as history once did for its chart)",
    ),
    pytest.param(
        "core/brand_new.py",
        "from bfcl_action.settings import resolve",
        "stage-layers",
        "bfcl_action.core.brand_new -> bfcl_action.settings.resolve",
        id="a new module in core/, held to the core's layer at once (no list to extend)",
    ),
]


@pytest.mark.parametrize(("module", "line", "contract", "edge"), UPWARD)
def test_an_upward_import_breaks_lint(
    copy_of_project: Path, module: str, line: str, contract: str, edge: str
) -> None:
    path = copy_of_project / "bfcl_action" / module
    done = with_line(copy_of_project, path, f"{line}  # upward", contract)
    assert done.returncode == 1
    assert "BROKEN" in done.stdout
    assert edge in done.stdout


def test_no_test_module_imports_another_test_module() -> None:
    """Shared helpers live in tests/support/, shared fixtures in tests/conftest.py."""
    import ast

    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if any(n.split(".")[-1].startswith("test_") for n in names if n.startswith("tests")):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
