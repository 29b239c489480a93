"""One glob rule for the working tree and for paths committed at a ref."""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest

from bfcl_action.compare.git_files import tools_at_ref
from bfcl_action.compare.impact import tool_changes
from bfcl_action.safety.globs import expand_globs, glob_files, glob_match
from bfcl_action.tools import load_tools

TREE = [
    "tools/a.json",
    "tools/b.yaml",
    "tools/.draft.json",
    "tools/sub/c.json",
    "tools/sub/deep/d.json",
    "tools/.hidden/e.json",
    ".git/f.json",
    "top.json",
    "Tools/g.json",
]

PATTERNS = [
    "tools/*.json",
    "tools/*",
    "tools/**/*.json",
    "**/*.json",
    "**",
    "tools/.*.json",
    "tools/.hidden/*.json",
    "tools/sub/*/*.json",
    "tools/?.json",
    "tools/[ab].*",
    "*.json",
    "./tools/a.json",
    "tools/a.json",
    "nothing/*.json",
]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel in TREE:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    return tmp_path


@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_working_tree_and_a_path_list_answer_alike(tree: Path, pattern: str) -> None:
    on_disk = {p.relative_to(tree).as_posix() for p in glob_files(pattern, tree)}
    assert on_disk == {rel for rel in TREE if glob_match(rel, pattern)}


def test_star_and_double_star_skip_dotfiles_and_dot_directories(tree: Path) -> None:
    names = [p.relative_to(tree).as_posix() for p in glob_files("**/*.json", tree)]
    assert names == [
        "Tools/g.json",
        "tools/a.json",
        "tools/sub/c.json",
        "tools/sub/deep/d.json",
        "top.json",
    ]


def test_a_pattern_naming_a_dot_segment_matches_it() -> None:
    assert glob_match("tools/.draft.json", "tools/.*.json")
    assert glob_match(".github/tools/a.json", ".github/tools/*.json")
    assert not glob_match("tools/.draft.json", "tools/*.json")


def test_matching_is_case_sensitive_and_anchored() -> None:
    assert not glob_match("Tools/g.json", "tools/*.json")
    assert not glob_match("baseline/tools/a.json", "tools/*.json")
    assert glob_match("baseline/tools/a.json", "**/tools/*.json")


def test_leading_literal_segments_may_leave_the_base_directory(tree: Path) -> None:
    inner = tree / "tools" / "sub"
    assert glob_files("../*.json", inner) == [inner / ".." / "a.json"]


def test_expand_globs_reports_patterns_that_match_nothing_and_honours_exclude(
    tree: Path,
) -> None:
    files, unmatched = expand_globs(
        ["tools/*.json", "missing/*.json", "tools/**/*.json"], tree, exclude=["tools/sub/**"]
    )
    assert [p.relative_to(tree).as_posix() for p in files] == ["tools/a.json"]
    assert unmatched == ["missing/*.json"]


def test_a_committed_dotfile_tool_is_not_reported_as_removed(tmp_path: Path) -> None:
    """The bug: `impact` matched `tools/.draft.json` at the base ref while the working tree's
    expander skipped it, so an unchanged repository reported the draft's tool as removed."""
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    draft = {"type": "function", "function": {"name": "draft_tool", "parameters": {}}}
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "tools.json").write_text(json.dumps([tool]))
    (tmp_path / "tools" / ".draft.json").write_text(json.dumps([draft]))
    repo = git.Repo.init(tmp_path)
    repo.git.add(A=True)
    repo.index.commit("base", author=git.Actor("t", "t@example.com"))
    base = tools_at_ref(tmp_path, "HEAD", ["tools/*.json"])
    head = load_tools(["tools/*.json"], base_dir=tmp_path)
    assert [f.name for f in base.functions] == [f.name for f in head.functions] == ["get_weather"]
    assert not tool_changes(base.functions, head.functions)
