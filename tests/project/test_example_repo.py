"""The bundled example repository is realistic and consistent: its tools load, its cases
cover every own category, and its replay outputs show a regression caused by the PR."""

import json
from pathlib import Path

import pytest

from bfcl_action.cases.suites import build_cases
from bfcl_action.checker import check_case
from bfcl_action.compare.impact import changed_requests, options_for, tool_changes
from bfcl_action.core.records import Mode
from bfcl_action.results.results_io import read_results
from bfcl_action.settings.config import load_config
from bfcl_action.tools import load_tools

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


@pytest.fixture(scope="module")
def cases():
    return build_cases(load_config(EXAMPLE / ".bfcl.yml"), base_dir=EXAMPLE)


def failures(cases, run: str) -> list[str]:
    outputs = {e.id: e.result for e in read_results(EXAMPLE / "replay" / run)}
    assert set(outputs) == {c.id for c in cases}
    return [c.id for c in cases if not check_case(c, outputs[c.id], mode=Mode.FC).valid]


def test_example_has_10_to_20_tools_in_at_least_two_formats() -> None:
    tools = load_tools(["tools/*"], base_dir=EXAMPLE)
    assert 10 <= len(tools.functions) <= 20
    assert len(set(tools.formats.values())) >= 2
    assert tools.warnings == []


def test_example_covers_every_own_category(cases) -> None:
    assert {c.category for c in cases} == {
        "own_simple",
        "own_multiple",
        "own_parallel",
        "own_parallel_multiple",
        "own_irrelevance",
        "own_relevance",
        "own_distractors",
    }


def test_head_regresses_exactly_where_the_changed_description_misleads(cases) -> None:
    base, head = failures(cases, "base"), failures(cases, "head")
    assert set(base) <= set(head)
    assert sorted(set(head) - set(base)) == [
        "multi_current_mumbai_humidity",
        "multi_current_nyc_f",
        "multi_current_paris",
        "multi_current_rome_f",
        "multi_current_sydney_wind",
        "multi_current_toronto_snow",
        "pm_current_and_air_beijing",
    ]


def test_the_pr_changed_only_the_get_forecast_description(cases) -> None:
    config = load_config(EXAMPLE / ".bfcl.yml")
    base = load_tools(config.tools, base_dir=EXAMPLE / "baseline")
    head = load_tools(config.tools, base_dir=EXAMPLE)
    changes = tool_changes(base.functions, head.functions)
    assert (changes.changed, changes.added, changes.removed) == (["get_forecast"], [], [])
    base_cases = build_cases(config, base_dir=EXAMPLE, tools=base)
    options = options_for(config.model)
    impacted = {c.id for c in changed_requests(cases, options, base_cases, options)}
    assert {"multi_current_paris", "pm_current_and_air_beijing"} <= impacted
    assert "current_tokyo" not in impacted


def test_replay_files_are_bfcl_result_lines() -> None:
    path = EXAMPLE / "replay" / "head" / "own" / "BFCL_v4_own_simple_result.json"
    first = json.loads(path.read_text().splitlines()[0])
    assert set(first) >= {"id", "result"}
    assert isinstance(first["result"], list)
