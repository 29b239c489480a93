"""The workflows the docs show are the ones shipped and written by `init`."""

from __future__ import annotations

import re
from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]


def _yaml(text: str) -> object:
    return YAML(typ="safe").load(text)


def test_the_action_docs_quick_start_is_the_shipped_quick_start_workflow() -> None:
    doc = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    block = re.search(r"## Quick start\n\n```yaml\n(.*?)```", doc, re.DOTALL)
    assert block is not None
    shipped = (ROOT / "docs" / "workflows" / "quick-start.yml").read_text(encoding="utf-8")
    assert _yaml(block.group(1)) == _yaml(shipped)


def test_the_quick_start_asks_for_every_permission_the_init_workflow_asks_for() -> None:
    from bfcl_action.commands.init import render_workflow

    shipped = _yaml((ROOT / "docs" / "workflows" / "quick-start.yml").read_text())
    written = _yaml(render_workflow())
    assert isinstance(shipped, dict) and isinstance(written, dict)
    assert shipped["jobs"]["bfcl"]["permissions"] == written["jobs"]["bfcl"]["permissions"]
    assert shipped["jobs"]["bfcl"]["permissions"]["issues"] == "read"
