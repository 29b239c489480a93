"""A run whose single-turn cases go through the (local) Batch API first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bfcl_action.core.records import RunReport, TestCase
from bfcl_action.model.batch import BatchSettings
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from tests.support.openai_server import OpenAIServer
from tests.support.runner import function, make_case, options, script

FAST = {"poll_s": 0.0, "max_poll_s": 0.0}


def cases() -> list[TestCase]:
    add = function("add", "a", "b")
    weather = function("get_weather", "city")
    expected = [{"add": {"a": [1], "b": [2]}}]
    return [
        make_case("simple_python_0", script("add", a=1, b=2), [add], answer=expected),
        make_case("simple_python_1", script("add", a=1, b=3), [add], answer=expected),
        make_case(
            "simple_python_2", script("add", a=1, b=2) + " please", [add, weather], answer=expected
        ),
        make_case("simple_python_3", "no scripted call here", [add], answer=expected),
    ]


def run(srv: OpenAIServer, cache: Path, batch: BatchSettings | None, **kw: Any) -> RunReport:
    report, _ = run_evaluation(
        cases(),
        RunOptions(
            backend=options(srv, **kw),
            cache_dir=cache,
            batch=batch,
            retry_base_delay=0.01,
            max_retries=1,
        ),
    )
    return report
