"""The irrelevance suite never asks a question the tools answer, whatever its language."""

from __future__ import annotations

from pathlib import Path

import pytest

from bfcl_action.cases.relevance import bigrams, may_answer, tool_text
from bfcl_action.cases.suites import compact_entries, derive_irrelevance
from bfcl_action.core.records import FunctionDoc, Message, TestCase
from bfcl_action.tools import load_tools
from bfcl_action.tools.validate import ToolLimits

AMAP = Path(__file__).resolve().parents[2].parent / "shared" / "real_tools" / "mcp-amap-zh"

WEATHER_ZH = FunctionDoc(
    name="maps_weather",
    description="根据城市名称或者标准adcode查询指定城市的天气",
    parameters={
        "type": "dict",
        "properties": {"city": {"type": "string", "description": "城市名称或者adcode"}},
        "required": ["city"],
    },
)
ROUTE = FunctionDoc(
    name="plan_trip",
    description="Plan a trip.",
    parameters={
        "type": "dict",
        "properties": {"mode": {"type": "string", "enum": ["步行", "驾车"]}},
        "required": ["mode"],
    },
)


def case(case_id: str, text: str) -> TestCase:
    return TestCase(
        id=case_id,
        category="live_irrelevance",
        question=[[Message(role="user", content=text)]],
        functions=[],
        possible_answer=[],
    )


@pytest.mark.parametrize(
    "question",
    [
        "广州和北京的天气如何？",  # shares the tool's language: character bigrams
        "获取武汉的天气",
        "How hot is it now in Riga?",  # another language and other words: a shared concept
        "How does it feel now in Tel Aviv, in farenheits?",
        "¿Qué tiempo hace en Madrid?",
    ],
)
def test_a_question_the_weather_tool_answers_in_any_language_is_caught(question: str) -> None:
    assert may_answer(question, WEATHER_ZH)


@pytest.mark.parametrize("question", ["马斯克是谁", "如何安装mbox?", "Tell me a joke", "Olá!"])
def test_unrelated_questions_stay_askable(question: str) -> None:
    assert not may_answer(question, WEATHER_ZH)


def test_enum_values_and_parameter_descriptions_speak_for_the_tool() -> None:
    assert "步行" in tool_text(ROUTE) and "城市名称或者adcode" in tool_text(WEATHER_ZH)
    assert may_answer("我想步行去公园", ROUTE)


def test_one_common_bigram_is_not_enough() -> None:
    assert "查询" not in bigrams("查询一下")  # a stop bigram
    assert not may_answer("帮我查询一下快递", WEATHER_ZH)


def test_the_derived_suite_drops_the_answerable_pool_questions() -> None:
    pool = [
        case("p1", "广州和北京的天气如何？"),
        case("p2", "马斯克是谁"),
        case("p3", "How hot is it now in Riga?"),
        case("p4", "Tell me a joke"),
    ]
    picked = derive_irrelevance(
        [WEATHER_ZH], compact_entries(pool), count=10, seed=0, max_similarity=90.0
    )
    assert sorted(c.id for c in picked) == ["own_irrelevance__p2", "own_irrelevance__p4"]


@pytest.mark.skipif(not AMAP.is_dir(), reason="../shared/real_tools is absent")
def test_the_chinese_amap_tools_catch_what_they_answer_from_the_live_pool() -> None:
    """BFCL Live irrelevance questions (bfcl-eval 2026.3.23) that Amap's MCP tools answer,
    and some they do not."""
    tools = load_tools(
        ["amap_tools.json"], base_dir=AMAP, limits=ToolLimits(provider="generic")
    ).functions
    answered = [
        "广州和北京的天气如何？",
        "获取武汉的天气",
        "天气如何？",
        "5A景区",
        "Find a bakery that sells sourdough bread in Chicago.",
        "Find me some attractions to visit",
        "Is there anything interesting to do near LAX on the 7th of march 2023?",
    ]
    unrelated = ["马斯克是谁", "神舟八号的宇航员是谁", "spacex是什么", "Tell me a joke", "help me"]
    assert all(any(may_answer(q, t) for t in tools) for q in answered)
    assert not any(any(may_answer(q, t) for t in tools) for q in unrelated)
