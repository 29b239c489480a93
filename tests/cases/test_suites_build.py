"""Derived suites and `build_cases`, with small in-memory pools instead of downloads."""

import logging
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from bfcl_action.cases.suites import (
    build_cases,
    compact_entries,
    derive_distractors,
    derive_irrelevance,
    distractor_pool,
)
from bfcl_action.core.errors import DatasetError
from bfcl_action.core.records import FunctionDoc, Message, TestCase
from bfcl_action.dataset.bfcl_format import PoolEntry
from bfcl_action.settings.config import load_config, parse_config
from bfcl_action.tools import load_tools

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


def fn(name: str, description: str = "") -> FunctionDoc:
    return FunctionDoc(name=name, description=description)


def entry(id: str, category: str, question: str, *functions: FunctionDoc) -> TestCase:
    return TestCase(
        id=id,
        category=category,
        question=[[Message(role="user", content=question)]],
        functions=list(functions),
    )


POOL = [
    entry("irrelevance_0", "irrelevance", "Who wrote Hamlet?", fn("get_book_info", "Books.")),
    entry("irrelevance_1", "irrelevance", "What is the forecast for Rome?", fn("x")),
    entry("irrelevance_2", "irrelevance", "How tall is Mount Everest?", fn("calculate_bmi")),
    entry("irrelevance_3", "irrelevance", "Tell me a joke.", fn("send_email", "Send mail.")),
    entry("live_irrelevance_4-0-0", "live_irrelevance", "Best pizza topping?", fn("order_pizza")),
    entry("live_irrelevance_5-0-0", "live_irrelevance", "Translate hello to French.", fn("t")),
    entry(
        "simple_python_0",
        "simple_python",
        "Stock price of AAPL?",
        *[fn(f"finance_tool_{i}", f"Finance helper number {i}.") for i in range(20)],
        fn("get_weather_forecast", "Daily weather forecast for a city."),
        fn("weather.get_forecast", "Forecast."),
    ),
]
ENTRIES = compact_entries(POOL)


class FixtureSource:
    """A `CaseSource` over in-memory cases: one 'dataset' named fixture@1."""

    def __init__(self, cases: Sequence[TestCase]) -> None:
        self.cases = list(cases)
        self.loaded: list[tuple[str, tuple[str, ...] | None]] = []

    def categories(self, spec: str) -> list[str]:
        return sorted({c.category for c in self.cases})

    def load(self, spec: str, categories: Sequence[str] | None = None) -> list[TestCase]:
        self.loaded.append((spec, tuple(categories) if categories else None))
        return [c for c in self.cases if categories is None or c.category in categories]

    def pool_entries(self, spec: str, categories: Sequence[str]) -> list[PoolEntry]:
        return compact_entries(self.load(spec, categories))


@pytest.fixture(scope="module")
def tools() -> list[FunctionDoc]:
    return load_tools(["tools/*"], base_dir=EXAMPLE).functions


def test_irrelevance_drops_questions_close_to_a_tool(tools) -> None:
    cases = derive_irrelevance(tools, ENTRIES, count=50, seed=0, max_similarity=90)
    ids = [c.id for c in cases]
    assert "own_irrelevance__irrelevance_1" not in ids  # "forecast": a tool word
    assert "own_irrelevance__irrelevance_0" in ids


def test_irrelevance_cases_offer_every_tool_and_expect_no_call(tools) -> None:
    (case,) = derive_irrelevance(tools, ENTRIES[:1], count=1, seed=0, max_similarity=90)
    assert case.category == "own_irrelevance"
    assert case.possible_answer == []
    assert [f.name for f in case.functions] == [t.name for t in tools]
    assert case.question[0][0].content == "Who wrote Hamlet?"


def test_irrelevance_excluded_ids_are_never_drawn(tools) -> None:
    cases = derive_irrelevance(
        tools, ENTRIES, count=50, seed=0, max_similarity=90, exclude_ids=["irrelevance_0"]
    )
    assert "own_irrelevance__irrelevance_0" not in [c.id for c in cases]


def test_irrelevance_sample_is_fixed_by_the_seed(tools) -> None:
    def draw(seed: int) -> list[str]:
        return [
            c.id for c in derive_irrelevance(tools, ENTRIES, count=3, seed=seed, max_similarity=90)
        ]

    assert draw(1) == draw(1)
    assert len(draw(1)) == 3
    assert {tuple(draw(s)) for s in range(8)} != {tuple(draw(1))}


def test_distractors_exclude_near_duplicates_of_the_tools_the_case_offers(simple_case) -> None:
    functions = distractor_pool(POOL)
    (case,) = derive_distractors([simple_case], functions, ks=[64], seed=0, max_similarity=85)
    names = [f.name for f in case.functions]
    assert "get_weather_forecast" not in names
    assert "weather.get_forecast" not in names
    assert "finance_tool_3" in names


def test_the_distractor_pool_does_not_depend_on_your_tools() -> None:
    assert "get_weather_forecast" in [f.name for f in distractor_pool(POOL)]


@pytest.fixture(scope="module")
def simple_case(tools) -> TestCase:
    forecast = next(t for t in tools if t.name == "get_forecast")
    return TestCase(
        id="fc",
        category="own_simple",
        question=[[Message(role="user", content="Forecast for Oslo")]],
        functions=[forecast],
        possible_answer=[{"get_forecast": {"city": ["Oslo"]}}],
        dataset="own",
        suite="own_simple",
    )


def test_distractor_cases_keep_the_answer_and_add_k_functions(tools, simple_case) -> None:
    functions = distractor_pool(POOL)
    cases = derive_distractors([simple_case], functions, ks=[0, 4, 16], seed=0)
    assert [(c.id, c.suite, len(c.functions)) for c in cases] == [
        ("own_distractors_k0__fc", "own_distractors_k0", 1),
        ("own_distractors_k4__fc", "own_distractors_k4", 5),
        ("own_distractors_k16__fc", "own_distractors_k16", 17),
    ]
    for case in cases:
        assert case.category == "own_distractors"
        assert case.possible_answer == simple_case.possible_answer
        assert "get_forecast" in [f.name for f in case.functions]


def test_distractor_sets_are_nested_so_the_curve_measures_k(tools, simple_case) -> None:
    functions = distractor_pool(POOL)
    k4, k16 = derive_distractors([simple_case], functions, ks=[4, 16], seed=5)
    assert {f.name for f in k4.functions} <= {f.name for f in k16.functions}


def test_distractors_are_deterministic_by_seed(tools, simple_case) -> None:
    functions = distractor_pool(POOL)

    def names(seed: int) -> list[str]:
        (case,) = derive_distractors([simple_case], functions, ks=[8], seed=seed)
        return [f.name for f in case.functions]

    assert names(3) == names(3)
    assert names(3) != names(4)


def test_build_cases_adds_derived_and_official_suites_from_the_source(tmp_path: Path) -> None:
    config = load_config(EXAMPLE / ".bfcl.yml")
    config.derived.irrelevance.pools = ["fixture@1"]
    config.derived.distractors.pools = ["fixture@1"]
    config.suites.official = ["hallucination"]
    source = FixtureSource(POOL)
    cases = build_cases(config, base_dir=EXAMPLE, source=source)
    labels = {c.label() for c in cases}
    assert {"own_simple", "own_irrelevance", "own_distractors_k16", "irrelevance"} <= labels
    assert ("bfcl@2026.3.23", ("irrelevance", "live_irrelevance")) in source.loaded
    assert len({c.id for c in cases}) == len(cases)


def test_build_cases_is_deterministic() -> None:
    config = load_config(EXAMPLE / ".bfcl.yml")
    first = build_cases(config, base_dir=EXAMPLE)
    again = build_cases(config, base_dir=EXAMPLE)
    assert [c.model_dump() for c in first] == [c.model_dump() for c in again]


def test_selected_own_categories_limit_what_is_built() -> None:
    config = parse_config("tools: tools/*\ncases: cases/*.yml\nsuites: {own: [own_parallel]}\n")
    cases = build_cases(config, base_dir=EXAMPLE, source=FixtureSource(POOL))
    assert {c.category for c in cases} == {"own_parallel"}


def test_without_derived_only_own_cases_are_built() -> None:
    config = load_config(EXAMPLE / ".bfcl.yml")
    cases = build_cases(config, base_dir=EXAMPLE, derived=False)
    assert all(c.dataset == "own" and "__" not in c.id for c in cases)


class NoLiveSource(FixtureSource):
    def categories(self, spec: str) -> list[str]:
        if spec.startswith("live@"):
            from bfcl_action.core.errors import LiveUnavailable

            raise LiveUnavailable("no Live release found")
        return super().categories(spec)


def test_an_unavailable_default_live_pool_is_left_out_quietly(caplog) -> None:
    config = parse_config("tools: tools/*\ncases: cases/*.yml\n")
    cases = build_cases(config, base_dir=EXAMPLE, source=NoLiveSource(POOL))
    assert any(c.id.startswith("own_irrelevance__") for c in cases)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_an_unavailable_live_pool_the_config_names_is_an_error_naming_it() -> None:
    config = parse_config(
        "tools: tools/*\ncases: cases/*.yml\n"
        "derived:\n  irrelevance:\n    pools: [fixture@1, live@2020-W01]\n",
        file=".bfcl.yml",
    )
    with pytest.raises(DatasetError) as exc:
        build_cases(config, base_dir=EXAMPLE, source=NoLiveSource(POOL))
    text = str(exc.value)
    assert text.startswith(".bfcl.yml:5:")
    assert "derived.irrelevance.pools" in text
    assert "live@2020-W01 is not available here (no Live release found)" in text


class CorruptLiveSource(FixtureSource):
    def categories(self, spec: str) -> list[str]:
        if spec.startswith("live@"):
            from bfcl_action.core.errors import DatasetError

            raise DatasetError("sha256 mismatch for the manifest of bfcl-action-live==2026.50")
        return super().categories(spec)


def test_a_corrupt_live_pool_is_an_error_not_a_skip() -> None:
    from bfcl_action.core.errors import DatasetError

    config = load_config(EXAMPLE / ".bfcl.yml")
    config.derived.irrelevance.pools = ["fixture@1", "live@latest"]
    with pytest.raises(DatasetError, match="sha256 mismatch"):
        build_cases(config, base_dir=EXAMPLE, source=CorruptLiveSource(POOL))


def test_a_glob_matching_nothing_is_reported_at_its_line_in_the_config(tmp_path: Path) -> None:
    from bfcl_action.tools import ToolValidationError

    (tmp_path / ".bfcl.yml").write_text("tools:\n  - tools/*.json\n  - mcp/*.yaml\n")
    (tmp_path / "tools").mkdir()
    shutil.copy(EXAMPLE / "tools" / "openai_tools.json", tmp_path / "tools")
    config = load_config(tmp_path / ".bfcl.yml", ".bfcl.yml")
    with pytest.raises(ToolValidationError) as info:
        build_cases(config, base_dir=tmp_path)
    assert str(info.value).splitlines()[1] == (
        "  .bfcl.yml:3:5: tools[1]: pattern matched no files "
        "(expected at least one tool file, found 'mcp/*.yaml')"
    )


def test_cases_without_tools_are_a_config_error(tmp_path: Path) -> None:
    from bfcl_action.core.errors import ConfigError

    (tmp_path / ".bfcl.yml").write_text("seed: 1\ncases: [cases/*.yml]\n")
    config = load_config(tmp_path / ".bfcl.yml", ".bfcl.yml")
    with pytest.raises(ConfigError) as info:
        build_cases(config, base_dir=tmp_path)
    assert str(info.value) == (
        ".bfcl.yml:2: cases: own cases need tools: add the tool files under `tools`"
    )
