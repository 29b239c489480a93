"""Own YAML cases: forms of `expect`, category inference, and cases rejected at load time."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.cases.authoring import to_options
from bfcl_action.cases.own import infer_category, load_cases, parse_cases
from bfcl_action.tools import load_tools
from bfcl_action.tools.issues import CaseValidationError

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


@pytest.fixture(scope="module")
def tools():
    return load_tools(["tools/*"], base_dir=EXAMPLE).functions


def one(text: str, tools) -> object:
    (case,) = parse_cases(text, "cases.yml", tools)
    return case


def rejected(text: str, tools) -> list[str]:
    with pytest.raises(CaseValidationError) as info:
        parse_cases(text, "cases.yml", tools)
    return [i.render() for i in info.value.issues]


@pytest.mark.parametrize(
    ("n_tools", "expect", "category"),
    [
        (1, [{"f": {}}], "own_simple"),
        (3, [{"f": {}}], "own_multiple"),
        (1, [{"f": {}}, {"f": {}}], "own_parallel"),
        (3, [{"f": {}}, {"g": {}}], "own_parallel_multiple"),
        (3, [], "own_irrelevance"),
        (3, None, "own_relevance"),
    ],
)
def test_category_is_inferred_from_tools_offered_and_calls_expected(
    n_tools, expect, category
) -> None:
    assert infer_category(n_tools, expect) == category


def test_possible_answer_form_is_kept_as_is(tools) -> None:
    case = one(
        """
- id: t
  question: Weather in Tokyo?
  tools: [get_current_weather]
  expect:
    - get_current_weather: {city: [Tokyo, "Tokyo, Japan"], unit: [celsius, ""]}
""",
        tools,
    )
    assert case.category == "own_simple"
    assert case.possible_answer == [
        {"get_current_weather": {"city": ["Tokyo", "Tokyo, Japan"], "unit": ["celsius", ""]}}
    ]
    assert [f.name for f in case.functions] == ["get_current_weather"]
    assert case.question[0][0].model_dump() == {"role": "user", "content": "Weather in Tokyo?"}
    assert (case.source.file, case.source.line) == ("cases.yml", 2)


def test_plain_values_become_single_options_and_lists_stay_values_for_arrays(tools) -> None:
    case = one(
        """
- id: t
  question: Rain in Chicago on 2025-07-04?
  tools: [get_historical_weather]
  expect:
    get_historical_weather: {city: Chicago, date: "2025-07-04", metrics: [precipitation]}
""",
        tools,
    )
    assert case.possible_answer == [
        {
            "get_historical_weather": {
                "city": ["Chicago"],
                "date": ["2025-07-04"],
                "metrics": [["precipitation"]],
            }
        }
    ]


def test_without_tools_every_tool_is_offered_and_the_case_is_multiple(tools) -> None:
    case = one(
        "- id: t\n  question: Convert 10 C to F\n  expect:\n"
        "    - convert_temperature: {value: 10, from_unit: celsius, to_unit: fahrenheit}\n",
        tools,
    )
    assert case.category == "own_multiple"
    assert len(case.functions) == len(tools)


def test_empty_expect_is_irrelevance_and_any_is_relevance(tools) -> None:
    cases = parse_cases(
        "- {id: a, question: Capital of Peru?, expect: []}\n"
        "- {id: b, question: Check the weather for my trip, expect: any}\n",
        "cases.yml",
        tools,
    )
    assert [(c.category, c.possible_answer) for c in cases] == [
        ("own_irrelevance", []),
        ("own_relevance", []),
    ]


def test_messages_are_one_turn_of_chat_messages(tools) -> None:
    case = one(
        """
- id: t
  messages:
    - {role: system, content: Be brief.}
    - {role: user, content: Cancel sub_1.}
  expect: [{unsubscribe_alerts: {subscription_id: sub_1}}]
""",
        tools,
    )
    assert [m.role for m in case.question[0]] == ["system", "user"]


def test_given_category_may_use_the_short_name(tools) -> None:
    case = one(
        "- {id: t, question: hi, category: irrelevance, expect: []}\n",
        tools,
    )
    assert case.category == "own_irrelevance"


def test_expect_that_cannot_pass_its_schema_is_rejected_with_reasons(tools) -> None:
    text = """\
- id: bad
  question: Forecast for Oslo
  tools: [get_forecast]
  expect:
    - get_forecast: {days: "five", unit: kelvin, hours: 3}
"""
    assert rejected(text, tools) == [
        "cases.yml:5:21: case bad: expect[0].get_forecast: required parameter 'city' of "
        "get_forecast is missing, so no answer can pass (expected city: <value or options>)",
        "cases.yml:5:28: case bad: expect[0].get_forecast.days: option 1 cannot pass: "
        "expected type integer (found 'five' (string))",
        "cases.yml:5:42: case bad: expect[0].get_forecast.unit: option 1 cannot pass: not one "
        "of the enum values 'celsius', 'fahrenheit' (found 'kelvin' (string))",
        "cases.yml:5:50: case bad: expect[0].get_forecast.hours: parameter is not in "
        "get_forecast's schema (expected one of city, days, unit, found 'hours')",
    ]


def test_call_to_a_tool_the_case_does_not_offer_is_rejected(tools) -> None:
    text = "- id: t\n  question: q\n  tools: [get_forecast]\n  expect:\n    - get_uv_index: {}\n"
    assert rejected(text, tools) == [
        "cases.yml:5:7: case t: expect[0].get_uv_index: expected a call to 'get_uv_index', "
        "which this case's `tools` leave out (expected one of get_forecast, found 'get_uv_index')"
    ]


def test_call_to_a_tool_no_file_defines_names_it_with_the_closest(tools) -> None:
    text = "- id: t\n  question: q\n  tools: [get_forcast]\n  expect:\n    - get_forcast: {}\n"
    assert rejected(text, tools) == [
        "cases.yml:3:11: case t: tools[0]: no tool named 'get_forcast' in the tool files; "
        "did you mean 'get_forecast' or 'get_marine_forecast'?",
        "cases.yml:5:7: case t: expect[0].get_forcast: no tool named 'get_forcast' in the tool "
        "files; did you mean 'get_forecast' or 'get_marine_forecast'?",
    ]


def test_category_contradicting_expect_is_rejected(tools) -> None:
    text = (
        "- id: t\n  question: q\n  category: simple\n  expect:\n"
        "    - get_pollen_count: {city: Oslo}\n    - get_pollen_count: {city: Bergen}\n"
    )
    assert rejected(text, tools) == [
        "cases.yml:3:13: case t: category: own_simple checks exactly one call, but expect has "
        "2 (expected category own_parallel_multiple, found own_simple)"
    ]


def test_structural_mistakes_are_all_reported(tools) -> None:
    text = """\
- question: no id
  expect: []
- id: both
  question: a
  messages: [{role: user, content: b}]
  expect: []
- id: typo
  question: q
  expcet: []
  tools: [get_wether]
"""
    assert rejected(text, tools) == [
        "cases.yml:1:3: id: missing or invalid case id (expected letters, digits and _ . : @ -,"
        " found no id)",
        "cases.yml:3:3: case both: a case needs exactly one of question and messages "
        "(expected question: <text> or messages: [{role, content}, ...], found both)",
        "cases.yml:7:3: case typo: missing expect (expected calls, [] (no call) or 'any' "
        "(some call))",
        "cases.yml:9:3: case typo: expcet: unknown key (expected one of category, description,"
        " execute, expect, id, messages, provenance, question, tools, found 'expcet')",
        "cases.yml:10:11: case typo: tools[0]: no tool named 'get_wether' in the tool files; "
        "did you mean 'get_weather_alerts' or 'get_current_weather' or 'get_historical_weather'?",
    ]


def test_duplicate_ids_across_files_are_rejected(tools, tmp_path: Path) -> None:
    (tmp_path / "a.yml").write_text("- {id: same, question: q, expect: []}\n")
    (tmp_path / "b.yml").write_text("\n- {id: same, question: r, expect: []}\n")
    with pytest.raises(CaseValidationError) as info:
        load_cases(["*.yml"], base_dir=tmp_path, tools=tools)
    assert [i.render() for i in info.value.issues] == [
        "b.yml:2:3: case same: id: duplicate case id (first at a.yml:1) "
        "(expected an id unique across all case files, found 'same')"
    ]


def test_example_cases_cover_every_own_category(tools) -> None:
    cases = load_cases(["cases/*.yml"], base_dir=EXAMPLE, tools=tools)
    assert {c.category for c in cases} == {
        "own_simple",
        "own_multiple",
        "own_parallel",
        "own_parallel_multiple",
        "own_irrelevance",
        "own_relevance",
    }


def test_checker_verifies_the_first_options_pass(tools) -> None:
    from bfcl_action.cases.authoring import checker_objection as checker_rejects

    case = one(
        "- {id: t, question: Pollen in Oslo, tools: [get_pollen_count],"
        " expect: [{get_pollen_count: {city: Oslo}}]}\n",
        tools,
    )
    assert checker_rejects(case) is None
    broken = case.model_copy(update={"functions": []})
    assert checker_rejects(broken)  # the checker's reason, e.g. no function doc for the call


scalars = st.one_of(st.text(max_size=5), st.integers(), st.booleans(), st.none())


@given(scalars)
def test_a_plain_scalar_is_one_option(value) -> None:
    assert to_options(value, {"type": "string"}) == [value]


@given(st.lists(scalars, min_size=1, max_size=4))
def test_a_list_is_options_except_for_array_parameters(values) -> None:
    assert to_options(values, {"type": "string"}) == values
    if not all(v == "" for v in values):
        assert to_options(values, {"type": "array"}) == [values]
