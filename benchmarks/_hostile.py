"""Hostile contributions (issue 18's list) and valid ones to mix them with."""

from __future__ import annotations

from typing import Any

CITIES = ["Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Perth", "Dakar", "Hanoi", "Sofia", "Accra"]


def _weather(description: str = "Get the current weather for a city.") -> dict[str, Any]:
    return {
        "name": "get_weather",
        "description": description,
        "parameters": {
            "type": "dict",
            "properties": {"city": {"type": "string"}, "day": {"type": "integer"}},
            "required": ["city"],
        },
    }


def valid_contributions(n: int) -> list[dict[str, Any]]:
    """`n` distinct valid tests (each expects a different call)."""
    return [
        {
            "question": f"What's the weather in {CITIES[i % len(CITIES)]} on day {i}?",
            "functions": [_weather()],
            "ground_truth": [{"get_weather": {"city": CITIES[i % len(CITIES)], "day": i}}],
            "contributor": f"valid-{i % 7}",
        }
        for i in range(n)
    ]


def _hostile(name: str, parameters: dict[str, Any], description: str = "hostile") -> dict[str, Any]:
    return {
        "question": f"Hostile input: {name}",
        "functions": [{"name": "h", "description": description, "parameters": parameters}],
        "ground_truth": [],
        "contributor": "mallory",
        "source": name,
    }


def hostile_contributions() -> list[dict[str, Any]]:
    """Nesting 200, a `$ref` cycle, a 2^40 `$ref` fan-out, a 10,000-value enum, a 5 MB
    description and 3,000 properties."""
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(200):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    cycle = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/A"}}}},
    }
    defs: dict[str, Any] = {
        f"L{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"}, "b": {"$ref": f"#/$defs/L{i + 1}"}},
        }
        for i in range(40)
    }
    defs["L40"] = {"type": "string"}
    fan = {"type": "object", "properties": {"root": {"$ref": "#/$defs/L0"}}, "$defs": defs}
    enum = {
        "type": "object",
        "properties": {"e": {"type": "string", "enum": [f"v{i}" for i in range(10_000)]}},
    }
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(3_000)}}
    return [
        _hostile("nesting-200", deep),
        _hostile("ref-cycle", cycle),
        _hostile("ref-fan-out-2^40", fan),
        _hostile("enum-10000", enum),
        _hostile("description-5MB", {"type": "object", "properties": {}}, "d" * 5_000_000),
        _hostile("properties-3000", wide),
    ]
