"""Could a tool set answer a question? Embeddings-free signals in any language, for the
irrelevance suite (`suites.derive_irrelevance` drops a pool question any signal fires on).

Latin words (`suites.closeness`) miss two kinds of answerable questions:
- a question in a script without spaces (Chinese, Japanese), whose words are never split:
  `character_overlap` compares character bigrams of the question with those of the tool's
  name, description, parameter descriptions and enum values;
- a question in another language than the tools, or in other words ("How hot is it in
  Riga?" beside a tool described as 查询指定城市的天气): `shared_concepts` tags both sides
  with small multilingual concept lists (weather, places, routes, ...) and a shared concept
  makes the question possibly answerable.

Dropping a question that was in fact irrelevant costs one pool question among a thousand;
keeping one the tools answer marks a correct call wrong, so every signal errs on dropping.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from bfcl_action.core.records import FunctionDoc

CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
WORD = re.compile(r"[^\W\d_]+")

_STOP_BIGRAMS = """
的是 是的 一个 什么 我们 你们 他们 可以 用户 根据 返回 输入 信息 支持 进行 这个 那个 如何 怎么
请帮 帮我 我想 需要 使用 用于 功能 结果 以及 或者 其中 如果 时候 一下 以下 没有 就是 这样 查询
获取 指定 相关 包括 提供 通过 参数 格式 类型 数据 可选 必填 例如 比如 之间
"""
STOP_BIGRAMS = frozenset(_STOP_BIGRAMS.split())
"""Bigrams of Chinese tool descriptions and questions that say nothing about the subject."""

CONCEPTS: dict[str, frozenset[str]] = {
    name: frozenset(terms.split())
    for name, terms in {
        "weather": "weather forecast temperature hot cold warm rain rainy snow snowing sunny "
        "humidity wind windy fahrenheit farenheit farenheits celsius degrees climate storm "
        "天气 气温 温度 下雨 降雨 降水 预报 晴 雪 台风 날씨 기온 天気 気温 clima tiempo wetter "
        "météo meteo погода",
        "places": "restaurant restaurants bakery cafe coffee shop shops store stores hotel "
        "hotels attraction attractions near nearby cinema museum museums park bar bars poi "
        "landmark sights sightseeing 餐厅 饭店 周边 附近 景区 景点 酒店 商店 咖啡 美食 "
        "名胜 地标 맛집 근처 レストラン 近く",
        "route": "route routes directions direction navigate navigation drive driving walk "
        "walking bike biking bicycle cycling transit bus subway metro train commute "
        "路线 路径 导航 驾车 开车 步行 骑行 公交 地铁 通勤 出行 길찾기 経路",
        "taxi": "taxi cab uber lyft ride 打车 出租车 叫车 택시 タクシー",
        "distance": "distance far miles kilometers km 距离 多远 거리 距離",
        "geocode": "address addresses coordinates coordinate latitude longitude geocode "
        "地址 坐标 经纬度 经度 纬度 주소 住所",
        "location": "location locate ip 位置 定位 위치 位置情報",
        "map": "map maps 地图 지도 地図",
    }.items()
}
"""Concept -> its words in a few languages (Latin words match whole words, others match as
text). Small on purpose: a concept is listed only where tool sets meet it often."""


def _latin_words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text.replace("_", " ").replace(".", " "))
    words = {w.casefold() for w in WORD.findall(CJK_RUN.sub(" ", spaced))}
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3}


def bigrams(text: str) -> set[str]:
    """Character bigrams of the CJK runs of `text` (a one-character run counts as itself)."""
    out: set[str] = set()
    for run in CJK_RUN.findall(text):
        out |= {run} if len(run) == 1 else {run[i : i + 2] for i in range(len(run) - 1)}
    return out - STOP_BIGRAMS


def _schema_texts(schema: Any, depth: int = 0) -> Iterable[str]:
    if not isinstance(schema, dict) or depth > 6:
        return
    for key, value in schema.items():
        if key == "description" and isinstance(value, str):
            yield value
        elif key == "enum" and isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))
        elif key == "properties" and isinstance(value, dict):
            for name, sub in value.items():
                yield str(name)
                yield from _schema_texts(sub, depth + 1)
        elif key in ("items", "additionalProperties"):
            yield from _schema_texts(value, depth + 1)


def tool_text(fn: FunctionDoc) -> str:
    """Everything a tool says about itself: name, description, parameter names and
    descriptions, enum values."""
    return " ".join([fn.name, fn.description, *_schema_texts(fn.parameters)])


def concepts(text: str) -> set[str]:
    words = _latin_words(text)
    found = set()
    for name, terms in CONCEPTS.items():
        for term in terms:
            if (term in words) if term.isascii() else (term in text):
                found.add(name)
                break
    return found


def shared_concepts(question: str, tools_text: str) -> set[str]:
    return concepts(question) & concepts(tools_text)


def character_overlap(question: str, tool_bigrams: set[str], *, needed: int = 2) -> bool:
    """At least `needed` distinctive CJK bigrams in common (one is often a coincidence)."""
    return len(bigrams(question) & tool_bigrams) >= needed


def may_answer(question: str, tool: FunctionDoc) -> bool:
    """Whether a question may be one `tool` answers, in any language."""
    text = tool_text(tool)
    return bool(shared_concepts(question, text)) or character_overlap(question, bigrams(text))
