"""The response cache: reruns are free, edits re-ask exactly what changed, kills lose nothing."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.cache import ResponseCache
from bfcl_action.model.retry import RetryPolicy
from bfcl_action.runner.backends import create_backend
from bfcl_action.runner.execute import CaseOutcome, ExecutionStats, execute
from tests.support.openai_server import OpenAIServer
from tests.support.runner import function, make_case, options


def run(
    srv: OpenAIServer, cases: list[TestCase], cache_dir: Path, repeat: int = 1, **kw: Any
) -> tuple[list[CaseOutcome], ExecutionStats]:
    cache = ResponseCache(cache_dir)
    backend = create_backend(options(srv, **kw), cache=cache, policy=RetryPolicy(base_delay=0.01))

    async def go() -> tuple[list[CaseOutcome], ExecutionStats]:
        try:
            return await execute(
                cases,
                backend,
                repeat=repeat,
                concurrency=4,
            )
        finally:
            await backend.aclose()
            cache.close()

    return asyncio.run(go())


def suite() -> list[TestCase]:
    weather = function("get_weather", "city")
    add = function("add", "a", "b")
    return [
        make_case("simple_python_0", "weather in Paris", [weather]),
        make_case("simple_python_1", "weather in Rome", [weather, add]),
        make_case("simple_python_2", "add 1 and 2", [add]),
        make_case("simple_python_3", "add 3 and 4", [add]),
    ]


def test_rerun_with_unchanged_inputs_makes_zero_requests(
    server: OpenAIServer, tmp_path: Path
) -> None:
    first, _ = run(server, suite(), tmp_path)
    server.reset_log()
    again, stats = run(server, suite(), tmp_path)
    assert server.count == 0
    assert stats.cache_hits == 4
    assert [o.samples[0].answer for o in again] == [o.samples[0].answer for o in first]


def test_changing_one_tool_requeries_exactly_the_cases_presenting_it(
    server: OpenAIServer, tmp_path: Path
) -> None:
    run(server, suite(), tmp_path)
    server.reset_log()
    edited = suite()
    for case in edited:
        for fn in case.functions:
            if fn.name == "get_weather":
                fn.description = "Current weather for a city."
    run(server, edited, tmp_path)
    asked = sorted(r["messages"][0]["content"] for r in server.requests)
    assert asked == ["weather in Paris", "weather in Rome"]


def test_model_mode_and_temperature_are_part_of_the_key(
    server: OpenAIServer, tmp_path: Path
) -> None:
    run(server, suite(), tmp_path)
    server.reset_log()
    run(server, suite(), tmp_path, model="other-model")
    run(server, suite(), tmp_path, temperature=0.7)
    run(server, suite(), tmp_path, mode=Mode.PROMPT)
    assert server.count == 12


def test_failures_are_not_cached_and_a_rerun_retries_them(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.fail("Paris", ["500"] * 7)
    first, _ = run(server, suite(), tmp_path)
    assert first[0].samples[0].infra_error is not None
    server.reset_log()
    again, _ = run(server, suite(), tmp_path)
    assert server.count == 1
    assert again[0].samples[0].answer is not None


def test_repeat_asks_each_sample_and_reuses_sample_zero(
    server: OpenAIServer, tmp_path: Path
) -> None:
    run(server, suite(), tmp_path)
    server.reset_log()
    outcomes, stats = run(server, suite(), tmp_path, repeat=3)
    assert server.count == 8
    assert stats.cache_hits == 4
    assert all(len(o.samples) == 3 for o in outcomes)


def test_cancelled_run_keeps_received_answers_and_resume_asks_only_the_rest(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.latency = 0.05
    cases = [make_case(f"simple_python_{i}", f"question {i}") for i in range(24)]
    cache = ResponseCache(tmp_path)
    backend = create_backend(options(server), cache=cache)

    async def cancel_midway() -> None:
        task = asyncio.create_task(execute(cases, backend, concurrency=2))
        while cache.writes < 6:
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await backend.aclose()

    asyncio.run(cancel_midway())
    kept = len(cache)
    cache.close()
    assert 6 <= kept < 24
    server.reset_log()
    server.latency = 0
    outcomes, stats = run(server, cases, tmp_path)
    # A request the cancelled run sent may reach the server only after the log reset (a
    # slow machine): it is for a question without a cached answer, which the resumed run
    # asks too, so count the distinct questions asked, not the requests.
    asked = {body["messages"][-1]["content"] for body in server.requests}
    assert len(asked) == 24 - kept
    assert stats.cache_hits == kept
    assert all(o.samples[0].answer is not None for o in outcomes)


KILLED_RUN = textwrap.dedent(
    """
    import asyncio, sys
    from bfcl_action.model.cache import ResponseCache
    from bfcl_action.runner.backends import create_backend
    from bfcl_action.runner.execute import execute
    from tests.support.runner import make_case, options

    class Srv:
        base_url = sys.argv[1]

    cases = [make_case(f"simple_python_{i}", f"question {i}") for i in range(40)]
    cache = ResponseCache(sys.argv[2])
    backend = create_backend(options(Srv()), cache=cache)  # type: ignore[arg-type]
    asyncio.run(execute(cases, backend, concurrency=2))
    """
)


def test_killed_process_loses_nothing_already_received(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.latency = 0.05
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN, server.base_url, str(tmp_path)], env=env
    )
    try:
        deadline = time.monotonic() + 30
        while server.count < 12 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    cache = ResponseCache(tmp_path)
    kept = len(cache)
    cache.close()
    assert kept >= 8
    server.reset_log()
    server.latency = 0
    cases = [make_case(f"simple_python_{i}", f"question {i}") for i in range(40)]
    _, stats = run(server, cases, tmp_path)
    assert stats.cache_hits == kept
    assert server.count == 40 - kept


def test_a_damaged_cache_file_is_moved_aside_and_started_afresh(tmp_path: Path) -> None:
    (tmp_path / "responses.sqlite3").write_bytes(b"this is not a database" * 100)
    cache = ResponseCache(tmp_path)
    assert len(cache) == 0
    cache.close()
    assert list(tmp_path.glob("responses.sqlite3.corrupt-*"))
