"""The response cache across runs: what a run reports it asked and reused, the age limit,
fresh (scheduled) runs, and the serving model changing behind a name."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from bfcl_action.compare.runs import compare_runs
from bfcl_action.model.cache import FILE_NAME
from bfcl_action.report import render_comment
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from tests.support.openai_server import OpenAIServer
from tests.support.runner import make_case, options, script, toy_judge

CASES = [
    make_case(f"simple_python_{i}", script("add", a=i), answer=[{"add": {"a": [i]}}])
    for i in range(5)
]


def _run(server: OpenAIServer, cache: Path, **kw: object):  # type: ignore[no-untyped-def]
    run = RunOptions(backend=options(server), cache_dir=cache, **kw)  # type: ignore[arg-type]
    report, _ = run_evaluation(CASES, run, judge=toy_judge)
    return report


def test_a_second_run_asks_nothing_and_says_what_it_reused(
    server: OpenAIServer, tmp_path: Path
) -> None:
    first = _run(server, tmp_path)
    sent = len(server.requests)
    second = _run(server, tmp_path)
    assert len(server.requests) == sent
    assert first.requests is not None and second.requests is not None
    assert (first.requests.asked, first.requests.reused) == (5, 0)
    assert (second.requests.asked, second.requests.reused, second.requests.cache) == (0, 5, "on")


def test_answers_older_than_the_age_limit_are_asked_again(
    server: OpenAIServer, tmp_path: Path
) -> None:
    _run(server, tmp_path)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute(
            "UPDATE responses SET created = ? WHERE case_id = ?",
            (time.time() - 8 * 86400, "simple_python_0"),
        )
    again = _run(server, tmp_path)
    assert again.requests is not None
    assert (again.requests.asked, again.requests.reused) == (1, 4)
    limited = _run(server, tmp_path, cache_max_age_s=0.0)
    assert limited.requests is not None and limited.requests.asked == 5


def test_a_fresh_run_reuses_nothing_yet_feeds_the_next_run(
    server: OpenAIServer, tmp_path: Path
) -> None:
    _run(server, tmp_path)
    fresh = _run(server, tmp_path, cache_read=False)
    assert fresh.requests is not None
    assert (fresh.requests.asked, fresh.requests.reused, fresh.requests.cache) == (5, 0, "fresh")
    assert "every answer asked afresh" in render_comment(compare_runs(None, fresh))


def test_a_changed_serving_model_is_called_out_with_the_fix(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.served_model, server.system_fingerprint = "add-model-2026-01", "fp_old"
    base = _run(server, tmp_path)
    extra = make_case("simple_python_9", script("add", a=9), answer=[{"add": {"a": [9]}}])
    server.served_model, server.system_fingerprint = "add-model-2026-06", "fp_new"
    run = RunOptions(backend=options(server), cache_dir=tmp_path)
    head, _ = run_evaluation([*CASES, extra], run, judge=toy_judge)
    assert head.requests is not None
    assert head.requests.drift() == (
        ["add-model-2026-06 · fp_new"],
        ["add-model-2026-01 · fp_old"],
    )
    text = render_comment(compare_runs(base, head))
    assert "Model requests: **1 asked**, 5 reused from cache" in text
    assert "**The model behind `test-model` changed.**" in text
    assert "`add-model-2026-06 · fp_new`" in text and "response-cache: false" in text
    assert base.requests is not None and base.requests.drift() is None


def test_a_fresh_cache_answers_only_what_this_run_wrote(tmp_path: Path) -> None:
    from bfcl_action.model.cache import ResponseCache
    from bfcl_action.model.types import ChatResponse

    old = ResponseCache(tmp_path)
    old.put("k-old", case_id="a", model="m", answer=ChatResponse(content="old"))
    old.close()
    fresh = ResponseCache(tmp_path, read=False)
    assert fresh.get("k-old") is None and "k-old" not in fresh
    fresh.put("k-new", case_id="b", model="m", answer=ChatResponse(content="new"))  # batch
    assert "k-new" in fresh and fresh.get("k-new") is not None
    fresh.close()


def _ctx(event: str, **inputs: str):  # type: ignore[no-untyped-def]
    from bfcl_action.github.context import ActionContext

    env = {"GITHUB_EVENT_NAME": event, "BFCL_RESPONSE_CACHE_DIR": "/tmp/restored"}
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return ActionContext.from_env(env)


def test_the_action_reuses_the_restored_cache_on_pushes_and_prs() -> None:
    from bfcl_action.github.evaluate import run_overrides

    overrides = run_overrides(_ctx("push", response_cache_max_age="3"), None)
    assert str(overrides.cache_dir) == "/tmp/restored"
    assert (overrides.fresh, overrides.cache_max_age_days, overrides.no_cache) == (None, 3.0, False)


def test_scheduled_runs_never_reuse_cached_answers() -> None:
    from bfcl_action.github.evaluate import run_overrides

    for event in ("schedule", "workflow_dispatch"):
        overrides = run_overrides(_ctx(event), None)
        assert overrides.fresh is True and str(overrides.cache_dir) == "/tmp/restored"


def test_the_response_cache_input_turns_the_cache_off() -> None:
    from bfcl_action.github.evaluate import run_overrides

    assert run_overrides(_ctx("push", response_cache="false"), None).no_cache is True
