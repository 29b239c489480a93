"""The `.bfcl.yml` reference in docs/own-tools.md is a valid config that sets every key."""

import re
from pathlib import Path

from pydantic import BaseModel

from bfcl_action.cases import parse_cases
from bfcl_action.config import BfclConfig, parse_config
from bfcl_action.tools import load_tools

DOC = (Path(__file__).parents[1] / "docs" / "own-tools.md").read_text()
EXAMPLE = Path(__file__).parents[1] / "examples" / "weather-app"


def yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", DOC, flags=re.S)


def keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    out = set()
    for name, info in model.model_fields.items():
        out.add(prefix + name)
        sub = info.annotation
        if isinstance(sub, type) and issubclass(sub, BaseModel):
            out |= keys(sub, f"{prefix}{name}.")
    return out


def test_reference_block_parses_and_mentions_every_key() -> None:
    block = yaml_blocks()[0]
    parse_config(block, "docs/own-tools.md")
    for key in keys(BfclConfig):
        assert re.search(rf"^\s*{key.split('.')[-1]}:", block, flags=re.M), key


def test_cases_block_parses_against_the_example_tools() -> None:
    tools = load_tools(["tools/*"], base_dir=EXAMPLE).functions
    cases = parse_cases(yaml_blocks()[1], "docs/own-tools.md", tools)
    assert [c.category for c in cases] == [
        "own_simple",
        "own_multiple",
        "own_irrelevance",
        "own_relevance",
    ]
