"""Issue 16, vulnerabilities 4 and 5 and the file bugs: PR files that would stall or crash the
Action, and config paths that leave the repository, are answered with an error naming the
file, quickly, without a traceback and without echoing file content."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.bounded import run_bounded

TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City."}},
            "required": ["city"],
        },
    },
}
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{n}: &{n} [{','.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


def repo(tmp_path: Path, config: str, files: dict[str, str] | None = None) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / ".bfcl.yml").write_text(config, encoding="utf-8")
    for name, text in (files or {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def validate(root: Path) -> str:
    result = run_bounded(["validate", "--config", str(root / ".bfcl.yml")], cwd=root)
    assert result.code == 2, result.output[-2000:]
    return result.output


CONFIG = "version: 1\ntools: [tools/*.json]\n"


def test_a_yaml_alias_bomb_in_the_config_is_refused(tmp_path: Path) -> None:
    out = validate(repo(tmp_path, CONFIG + ALIAS_BOMB))
    assert ".bfcl.yml" in out


def test_a_yaml_alias_bomb_in_a_tool_file_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path, "version: 1\ntools: [tools/*.yml]\n", {"tools/t.yml": ALIAS_BOMB})
    out = validate(root)
    assert "tools/t.yml" in out and "aliases" in out


def test_a_yaml_alias_bomb_in_a_case_file_is_refused(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        CONFIG + "cases: [cases/*.yml]\n",
        {"tools/t.json": json.dumps([TOOL]), "cases/c.yml": "cases:\n  - " + ALIAS_BOMB},
    )
    assert "cases/c.yml" in validate(root)


def test_defs_doubling_at_every_level_is_refused(tmp_path: Path) -> None:
    defs = {"d0": {"type": "string", "description": "leaf"}}
    for level in range(1, 23):
        ref = {"$ref": f"#/$defs/d{level - 1}"}
        defs[f"d{level}"] = {"type": "object", "properties": {"x": ref, "y": ref}}
    tool = {
        "type": "function",
        "function": {
            "name": "bomb",
            "description": "Bomb.",
            "parameters": {
                "type": "object",
                "$defs": defs,
                "properties": {"p": {"$ref": "#/$defs/d22"}},
            },
        },
    }
    root = repo(tmp_path, CONFIG, {"tools/t.json": json.dumps([tool])})
    assert "$ref/$defs" in validate(root)


def test_symlinked_directory_loops_are_detected(tmp_path: Path) -> None:
    root = repo(
        tmp_path, 'version: 1\ntools: ["**/*.json"]\n', {"tools/t.json": json.dumps([TOOL])}
    )
    (root / "tools" / "a").symlink_to("..")
    (root / "tools" / "b").symlink_to("..")
    result = run_bounded(["validate", "--config", str(root / ".bfcl.yml")], cwd=root)
    assert result.code == 0, result.output


def test_a_huge_tool_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    root = repo(tmp_path, CONFIG)
    (root / "tools").mkdir()
    with open(root / "tools" / "big.json", "wb") as fh:
        fh.truncate(100 * 1024 * 1024)
    out = validate(root)
    assert "tools/big.json" in out and "limit" in out


@pytest.mark.parametrize("pattern", ["/etc/passwd", "../../x/*.json", "/**/*.json"])
def test_config_paths_outside_the_repository_are_errors(tmp_path: Path, pattern: str) -> None:
    inner = tmp_path / "repo"
    inner.mkdir()
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "t.json").write_text(json.dumps([TOOL]), encoding="utf-8")
    out = validate(repo(inner, f'version: 1\ntools: ["{pattern}"]\n'))
    assert "root:" not in out


def test_a_case_file_linked_outside_is_an_error_without_its_content(tmp_path: Path) -> None:
    root = repo(tmp_path, CONFIG + "cases: [cases/*.yml]\n", {"tools/t.json": json.dumps([TOOL])})
    (root / "cases").mkdir()
    (root / "cases" / "c.yml").symlink_to("/etc/passwd")
    out = validate(root)
    assert "leaves the repository" in out
    assert "root:x" not in out and "/bin/" not in out


def test_a_300_level_schema_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    schema: dict[str, object] = {"type": "string", "description": "leaf"}
    for _ in range(300):
        schema = {"type": "object", "description": "d", "properties": {"x": schema}}
    tool = {
        "type": "function",
        "function": {"name": "deep", "description": "D.", "parameters": schema},
    }
    root = repo(tmp_path, CONFIG, {"tools/t.json": json.dumps([tool])})
    assert "tools/t.json" in validate(root)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("tools/t.json", "[" * 20000 + "]" * 20000),
        ("tools/t.yml", "a:\n" + "".join("  " * i + "- \n" for i in range(1, 2000))),
        ("tools/f.yml", "a: " + "[" * 20000 + "]" * 20000 + "\n"),
        (
            "tools/i.json",
            '[{"type": "function", "function": {"name": "n", "x": ' + "9" * 5000 + "}}]",
        ),
        ("tools/i.yml", "x: " + "9" * 5000 + "\n"),
    ],
)
def test_deep_or_huge_tool_files_are_errors_naming_the_file(
    tmp_path: Path, name: str, text: str
) -> None:
    root = repo(tmp_path, "version: 1\ntools: [tools/*.json, tools/*.yml]\n", {name: text})
    assert name in validate(root)


def test_a_huge_integer_in_the_config_is_an_error(tmp_path: Path) -> None:
    out = validate(repo(tmp_path, CONFIG + "sample: " + "9" * 5000 + "\n"))
    assert ".bfcl.yml" in out


def test_a_20k_deep_config_is_an_error(tmp_path: Path) -> None:
    out = validate(repo(tmp_path, CONFIG + "x: " + "[" * 20000 + "]" * 20000 + "\n"))
    assert ".bfcl.yml" in out


def test_symlinks_inside_the_repository_still_work(tmp_path: Path) -> None:
    root = repo(tmp_path, CONFIG, {"shared/t.json": json.dumps([TOOL])})
    (root / "tools").mkdir()
    os.symlink(root / "shared" / "t.json", root / "tools" / "t.json")
    result = run_bounded(["validate", "--config", str(root / ".bfcl.yml")], cwd=root)
    assert result.code == 0, result.output
