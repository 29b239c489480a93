"""Shared pieces of the runner tests: the local server fixture, case builders, a toy judge."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bfcl_action.cli import main
from bfcl_action.core.records import CaseResult, Mode, TestCase
from bfcl_action.model.options import BackendOptions
from tests.support.openai_server import OpenAIServer


def script(name: str, **arguments: Any) -> str:
    """A question the local server answers with one call of `name(**arguments)`."""
    return "SCRIPT:" + json.dumps({"tool_calls": [{"name": name, "arguments": arguments}]})


def function(name: str, *params: str, description: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "description": description or f"{name} does things",
        "parameters": {
            "type": "dict",
            "properties": {p: {"type": "integer", "description": p} for p in params},
            "required": list(params),
        },
    }


def make_case(
    case_id: str,
    question: str,
    functions: list[dict[str, Any]] | None = None,
    *,
    category: str = "simple_python",
    answer: list[dict[str, Any]] | None = None,
) -> TestCase:
    return TestCase.model_validate(
        {
            "id": case_id,
            "category": category,
            "question": [[{"role": "user", "content": question}]],
            "functions": functions if functions is not None else [function("add", "a", "b")],
            "possible_answer": answer or [],
        }
    )


def options(server: OpenAIServer, mode: Mode = Mode.FC, **kw: Any) -> BackendOptions:
    values: dict[str, Any] = {
        "model": "test-model",
        "mode": mode,
        "base_url": server.base_url,
        "api_key": "sk-test-secret",
        "timeout": 0.5,
        "concurrency": 4,
    }
    values.update(kw)
    return BackendOptions(**values)


def toy_judge(case: TestCase, output: Any, mode: Mode) -> CaseResult:
    """Valid when the output names the first expected function (stands in for the checker)."""
    expected = next(iter(case.possible_answer[0])) if case.possible_answer else None
    if isinstance(output, list):
        names = [next(iter(call)) for call in output if isinstance(call, dict) and call]
    else:
        names = [expected] if expected and f"{expected}(" in str(output) else []
    valid = expected in names if expected else not names
    return CaseResult(id=case.id, category=case.category, suite=case.suite, valid=valid)


QUESTION = re.compile(r"Weather in city (\d+) for (\d+) days\?")
LIVE = Path(__file__).resolve().parents[1] / "fixtures" / "dataset" / "live"


def weather_responder(body: dict[str, Any]) -> dict[str, Any]:
    text = body["messages"][-1]["content"]
    match = QUESTION.search(text)
    if not match:
        return {"content": "I can only answer weather questions."}
    city, days = match.group(1), int(match.group(2))
    if body.get("tools"):
        name = body["tools"][0]["function"]["name"]
        return {"tool_calls": [{"name": name, "arguments": {"city": f"city {city}", "days": days}}]}
    return {"content": f"[weather.get_forecast(city='city {city}', days={days})]"}


def run_cli(srv: OpenAIServer, tmp: Path, *extra: str, out: str = "run.json") -> int:
    return main(
        [
            "run",
            "--dataset",
            "live@2026-W48",
            "--model",
            "test-model",
            "--base-url",
            srv.base_url,
            "--cache",
            str(tmp / "cache"),
            "--output",
            str(tmp / out),
            "--timeout",
            "2",
            *extra,
        ]
    )
