"""The import-linter contracts (pyproject.toml, run by `nox -s lint`) can fail, and cover
every module: a new top-level module must be placed in the layering before it lands."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = {c["id"]: c for c in CONFIG["tool"]["importlinter"]["contracts"]}
FRONT_ENDS = {"bfcl_action.cli", "bfcl_action.commands", "bfcl_action.github"}
BOTTOM = {"bfcl_action.checker", "bfcl_action.decode", "bfcl_action.records"}
ALLOWED_BELOW_CHECKER = {"bfcl_action.errors", "bfcl_action.categories"}


def top_level_modules() -> set[str]:
    package = ROOT / "bfcl_action"
    names = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    names |= {p.parent.name for p in package.glob("*/__init__.py")}
    return {f"bfcl_action.{n}" for n in names}


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


def test_every_core_module_is_forbidden_to_import_the_front_ends() -> None:
    sources = set(CONTRACTS["core-below-front-ends"]["source_modules"])
    assert top_level_modules() - FRONT_ENDS - {"bfcl_action.__main__"} <= sources


def test_the_checker_may_import_nothing_above_it() -> None:
    forbidden = set(CONTRACTS["checker-bottom"]["forbidden_modules"])
    assert top_level_modules() - BOTTOM - ALLOWED_BELOW_CHECKER <= forbidden


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
    done = lint_imports(copy_of_project, "checker-bottom", "core-below-front-ends")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout


def test_an_upward_import_in_the_checker_breaks_lint(copy_of_project: Path) -> None:
    verdict = copy_of_project / "bfcl_action" / "checker" / "verdict.py"
    original = verdict.read_text(encoding="utf-8")
    verdict.write_text(original + "\nimport bfcl_action.runner.pipeline  # upward\n")
    try:
        done = lint_imports(copy_of_project, "checker-bottom")
    finally:
        verdict.write_text(original)
    assert done.returncode == 1
    assert "BROKEN" in done.stdout
    assert "bfcl_action.checker.verdict -> bfcl_action.runner.pipeline" in done.stdout


def test_a_core_module_importing_a_command_breaks_lint(copy_of_project: Path) -> None:
    scoring = copy_of_project / "bfcl_action" / "scoring.py"
    original = scoring.read_text(encoding="utf-8")
    scoring.write_text(original + "\nfrom bfcl_action.commands import run  # upward\n")
    try:
        done = lint_imports(copy_of_project, "core-below-front-ends")
    finally:
        scoring.write_text(original)
    assert done.returncode == 1
    assert "bfcl_action.scoring -> bfcl_action.commands" in done.stdout


def test_a_stage_importing_a_later_stage_breaks_lint(copy_of_project: Path) -> None:
    """The stage order is a `layers` contract: the report records reaching up to the
    rendering edge (as the history module once did for its chart) fails lint."""
    history = copy_of_project / "bfcl_action" / "history.py"
    original = history.read_text(encoding="utf-8")
    history.write_text(original + "\nfrom bfcl_action.report import charts  # upward\n")
    try:
        done = lint_imports(copy_of_project, "stage-layers")
    finally:
        history.write_text(original)
    assert done.returncode == 1
    assert "bfcl_action.history -> bfcl_action.report" in done.stdout


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
