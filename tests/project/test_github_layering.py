"""The Action (`bfcl_action/github/`) calls the core; it never re-enters a front-end."""

from __future__ import annotations

import ast
from pathlib import Path

GITHUB = Path(__file__).resolve().parents[2] / "bfcl_action" / "github"


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_github_never_imports_the_command_line() -> None:
    for path in sorted(GITHUB.glob("*.py")):
        upward = {
            m
            for m in imported_modules(path)
            if m == "bfcl_action.cli" or m.startswith(("bfcl_action.commands", "bfcl_action.cli."))
        }
        assert not upward, f"{path.name} imports {sorted(upward)}"


def test_pull_request_and_scheduled_activities_share_publish_not_each_other() -> None:
    assert "bfcl_action.github.activities" not in imported_modules(GITHUB / "scheduled.py")
    assert "bfcl_action.github.publish" in imported_modules(GITHUB / "scheduled.py")
    assert "bfcl_action.github.publish" in imported_modules(GITHUB / "activities.py")
    publish = imported_modules(GITHUB / "publish.py")
    assert not {"bfcl_action.github.activities", "bfcl_action.github.scheduled"} & publish
