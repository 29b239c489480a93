"""The `.bfcl.yml` reference in docs/own-tools.md is a valid config that sets every key."""

import re
from pathlib import Path

from pydantic import BaseModel

from bfcl_action.cases.own import parse_cases
from bfcl_action.settings.config import BfclConfig, parse_config
from bfcl_action.tools import load_tools

DOC = (Path(__file__).parents[2] / "docs" / "own-tools.md").read_text()
EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


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


RUNNER = (Path(__file__).parents[2] / "docs" / "runner.md").read_text()
COMPARE = (Path(__file__).parents[2] / "docs" / "compare.md").read_text()


def _table(doc: str, header: str) -> list[list[str]]:
    block = doc.split(header, 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split("|") for line in block.splitlines()[1:]]
    return [[cell.strip() for cell in row] for row in rows]


def _value(cell: str) -> object:
    text = cell.strip("`")
    try:
        return float(text)
    except ValueError:
        return text


def test_the_runner_settings_table_states_the_code_defaults() -> None:
    """docs/runner.md's table is the one place defaults are written; it equals DEFAULTS."""
    from bfcl_action.settings.resolve import DEFAULTS

    by_flag = {
        "--mode": DEFAULTS.mode.value,
        "--api-key-env": DEFAULTS.api_key_env,
        "--temperature": DEFAULTS.temperature,
        "--repeat": DEFAULTS.repeat,
        "--concurrency": DEFAULTS.concurrency,
        "--timeout": DEFAULTS.timeout_s,
        "--max-retries": DEFAULTS.max_retries,
        "--max-infra-error-rate": DEFAULTS.max_infra_error_rate,
        "--seed": DEFAULTS.seed,
        "--tool-timeout": DEFAULTS.tool_timeout_s,
        "--tool-memory-mb": DEFAULTS.tool_memory_mb,
    }
    rows = {row[1].strip("`"): row[4] for row in _table(RUNNER, "| setting | flag |")}
    for flag, expected in by_flag.items():
        assert _value(rows[flag]) == expected, flag
    for flag in ("--top-p", "--request-seed", "--max-tokens"):
        assert rows[flag] == "not sent"
        assert getattr(DEFAULTS, flag.removeprefix("--").replace("-", "_")) is None


def test_the_reference_config_shows_the_default_model_and_thresholds() -> None:
    """The `.bfcl.yml` reference writes each default as its value, never a different one."""
    from bfcl_action.settings.resolve import DEFAULTS, settings_of_section
    from bfcl_action.settings.thresholds import Thresholds

    config = parse_config(yaml_blocks()[0], "docs/own-tools.md")
    settings = settings_of_section(config.model)
    assert settings.model_dump(exclude={"model"}) == DEFAULTS.model_dump(exclude={"model"})
    defaults = Thresholds()
    t = config.thresholds
    assert (t.max_drop, t.alpha, t.min_score, t.informational) == (
        defaults.max_drop,
        defaults.alpha,
        defaults.min_score,
        defaults.informational,
    )


def test_the_compare_thresholds_table_states_the_code_defaults() -> None:
    from bfcl_action.settings.thresholds import Thresholds

    rows = {row[1].strip("`"): row[4] for row in _table(COMPARE, "| Setting | Flag |") if row[1]}
    defaults = Thresholds()
    assert _value(rows["--max-drop"]) == defaults.max_drop
    assert _value(rows["--alpha"]) == defaults.alpha
    assert rows["--min-score"] == "none" and defaults.min_score is None
    assert rows["--informational"] == "off" and defaults.informational is False
