"""`impact` is exact: the cases it predicts are exactly the cases a cached run asks again.

The base run fills a response cache; the head run (after one edit) shares it. For many edits
(each tool's description, a parameter's description, an own case's question, a setting) the
set `changed_requests` predicts equals the set of cases the head run did not find in the
cache, over own, derived and official suites.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest

from bfcl_action.cases.suites import DatasetSource, build_cases
from bfcl_action.compare.impact import changed_requests
from bfcl_action.core.records import FunctionDoc, Message, TestCase
from bfcl_action.model.options import BackendOptions
from bfcl_action.runner.pipeline import RunOptions, collect_answers
from bfcl_action.settings.config import BfclConfig, load_config
from bfcl_action.tools import load_tools
from bfcl_action.tools.load import ToolSet
from tests.support.openai_server import OpenAIServer
from tests.support.runner import options

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


class WithOfficial(DatasetSource):
    """The example's pools plus a small 'official' simple_python set."""

    OFFICIAL: ClassVar[list[TestCase]] = [
        TestCase(
            id=f"simple_python_{i}",
            category="simple_python",
            question=[[Message(role="user", content=f"Add {i} and 2")]],
            functions=[FunctionDoc(name="add", description="Add two numbers.")],
            possible_answer=[{"add": {"a": [i], "b": [2]}}],
        )
        for i in range(4)
    ]

    def categories(self, spec: str) -> list[str]:
        return ["simple_python"] if spec.startswith("bfcl@") else super().categories(spec)

    def load(self, spec: str, categories: Sequence[str] | None = None) -> list[TestCase]:
        if spec.startswith("bfcl@"):
            return list(self.OFFICIAL)
        return super().load(spec, categories)


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def config() -> BfclConfig:
    config = load_config(EXAMPLE / ".bfcl.yml")
    config.suites.official = ["simple_python"]
    return config


@pytest.fixture(scope="module")
def base_tools(config: BfclConfig) -> ToolSet:
    return load_tools(config.tools, base_dir=EXAMPLE)


def _cases(config: BfclConfig, tools: ToolSet) -> list[TestCase]:
    return build_cases(config, base_dir=EXAMPLE, source=WithOfficial(EXAMPLE), tools=tools)


def _asked(cases: list[TestCase], backend: BackendOptions, cache: Path) -> set[str]:
    """Run `cases` against the shared cache; the ids of cases any sample was not cached for."""
    outcomes, _ = asyncio.run(collect_answers(cases, RunOptions(backend=backend, cache_dir=cache)))
    return {o.case.id for o in outcomes if not all(s.cached for s in o.samples)}


def _describe(name: str, text: str) -> Callable[[FunctionDoc], FunctionDoc]:
    def edit(fn: FunctionDoc) -> FunctionDoc:
        return fn.model_copy(update={"description": text}) if fn.name == name else fn

    return edit


def _param(name: str) -> Callable[[FunctionDoc], FunctionDoc]:
    def edit(fn: FunctionDoc) -> FunctionDoc:
        if fn.name != name or not fn.parameters.get("properties"):
            return fn
        params = fn.model_copy(deep=True).parameters
        first = sorted(params["properties"])[0]
        params["properties"][first]["description"] = "Re-described by the PR."
        return fn.model_copy(update={"parameters": params})

    return edit


def test_predicted_cases_are_exactly_the_cache_misses(
    server: OpenAIServer, config: BfclConfig, base_tools: ToolSet, tmp_path: Path
) -> None:
    backend = options(server)
    cache = tmp_path / "cache"
    base_cases = _cases(config, base_tools)
    assert _asked(base_cases, backend, cache) == {c.id for c in base_cases}
    names = [f.name for f in base_tools.functions]
    edits: list[tuple[str, Callable[[FunctionDoc], FunctionDoc]]] = [
        *((f"describe {n}", _describe(n, f"Reworded: {n}.")) for n in names[::2]),
        *((f"parameter of {n}", _param(n)) for n in names[::3]),
        ("describe get_forecast with a pool word", _describe("get_forecast", "Moons of planets.")),
    ]
    seen_sizes = set()
    for label, edit in edits:
        head_tools = replace(base_tools, functions=[edit(f) for f in base_tools.functions])
        head_cases = _cases(config, head_tools)
        predicted = {c.id for c in changed_requests(head_cases, backend, base_cases, backend)}
        assert predicted == _asked(head_cases, backend, cache), label
        seen_sizes.add(len(predicted))
        # the head's answers are now cached too; the next edit is judged against base only
        assert _asked(base_cases, backend, cache) == set()
    assert len(seen_sizes) >= 3  # the edits touch different numbers of cases


def test_a_changed_question_or_setting_is_predicted_exactly(
    server: OpenAIServer, config: BfclConfig, base_tools: ToolSet, tmp_path: Path
) -> None:
    backend = options(server)
    cache = tmp_path / "cache"
    base_cases = _cases(config, base_tools)
    _asked(base_cases, backend, cache)
    reworded = [
        c.model_copy(update={"question": [[Message(role="user", content="Rain in Oslo?")]]})
        if c.id == "current_tokyo"
        else c
        for c in base_cases
    ]
    predicted = {c.id for c in changed_requests(reworded, backend, base_cases, backend)}
    assert predicted == _asked(reworded, backend, cache) == {"current_tokyo"}
    warmer = replace(backend, temperature=0.5)
    predicted = {c.id for c in changed_requests(base_cases, warmer, base_cases, backend)}
    assert predicted == _asked(base_cases, warmer, cache) == {c.id for c in base_cases}


def test_nothing_changed_means_nothing_asked(
    server: OpenAIServer, config: BfclConfig, base_tools: ToolSet, tmp_path: Path
) -> None:
    backend = options(server)
    cases = _cases(config, base_tools)
    _asked(cases, backend, tmp_path)
    assert changed_requests(cases, backend, cases, backend) == []
    assert _asked(cases, backend, tmp_path) == set()
