"""Issue 23 item 11 (the parts outside the jail): names and ids are matched whole (`\\Z`, not
`$`, which accepts a trailing newline), multi-turn case ids are validated like single-turn
ones, and numbers from inputs are read strictly (`max-drop=2_0` is not 20)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import CASE_ID_PATTERN
from bfcl_action.github.evaluate import parse_thresholds
from bfcl_action.safety.numbers import integer, number
from bfcl_action.tools.validate import MAPPED_NAME_PATTERN, NAME_PATTERN

EXAMPLE = Path(__file__).parents[2] / "examples" / "notes-app"


@pytest.mark.parametrize("pattern", [NAME_PATTERN, MAPPED_NAME_PATTERN, CASE_ID_PATTERN])
def test_a_trailing_newline_is_not_part_of_a_name(pattern: object) -> None:
    import re

    assert isinstance(pattern, re.Pattern)
    assert pattern.fullmatch("lookup")
    assert not pattern.fullmatch("lookup\n")
    assert not pattern.match("lookup\n")  # even where a caller uses `match`


def _script() -> str:
    path = Path(sys.executable).parent / "bfcl-action"
    return str(path) if path.exists() else "bfcl-action"


def test_validate_refuses_a_tool_named_with_a_trailing_newline(tmp_path: Path) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup\n",
                "description": "Look a word up.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    (tmp_path / ".bfcl.yml").write_text("tools: [tools.json]\n")
    run = subprocess.run(
        [_script(), "validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    assert run.returncode != 0
    assert "illegal tool name" in run.stderr


@pytest.mark.parametrize("bad_id", ["note\r::warning ::x", "a ##[error]b", "id\n", ""])
def test_multi_turn_case_ids_are_validated_with_file_and_line(tmp_path: Path, bad_id: str) -> None:
    good = (EXAMPLE / "cases.multi_turn.jsonl").read_text().splitlines()[0]
    bad = json.loads(good)
    bad["id"] = bad_id
    (tmp_path / "notes_api.functions.json").write_text(
        (EXAMPLE / "notes_api.functions.json").read_text()
    )
    (tmp_path / "cases.jsonl").write_text(good + "\n" + json.dumps(bad) + "\n")
    (tmp_path / ".bfcl.yml").write_text("version: 1\nmulti_turn: [cases.jsonl]\n")
    run = subprocess.run(
        [_script(), "validate"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    assert run.returncode == 2
    assert "cases.jsonl:2: id: expected a case id" in run.stderr


@pytest.mark.parametrize("text", ["2_0", "1_000", "٣", " 2", "inf", "nan", "0x10", "1e999", ""])
def test_numbers_from_inputs_are_read_strictly(text: str) -> None:
    with pytest.raises(ValueError):
        number(text)
    with pytest.raises(ValueError):
        integer(text)


def test_plain_numbers_still_read() -> None:
    assert number("2") == 2.0 and number("0.05") == 0.05 and number("-1.5e-3") == -0.0015
    assert integer("12") == 12 and integer("-3") == -3


def test_the_thresholds_input_refuses_max_drop_2_0() -> None:
    with pytest.raises(ConfigError, match="max-drop: expected a number"):
        parse_thresholds("max-drop=2_0")
    assert parse_thresholds("max-drop=2").max_drop == 2.0


def test_the_command_line_refuses_max_drop_2_0(tmp_path: Path) -> None:
    run = subprocess.run(
        [_script(), "compare", "--head", "x.json", "--max-drop", "2_0"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )
    assert run.returncode == 2
    assert "--max-drop" in run.stderr and "2_0" in run.stderr
