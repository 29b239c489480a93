"""Batch runs: the same answers by the Batch API, through the same cache and checker.

Every test talks to the local OpenAI-compatible server's files and batches endpoints through
the openai SDK (tests/support/openai_batches.py), with the run's real pipeline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import RunReport
from bfcl_action.model.batch import STATE_FILE, BatchSettings
from bfcl_action.multiturn.cases import load_conversation_cases
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from tests.support.batch import FAST, cases, run
from tests.support.openai_batches import BatchPlan
from tests.support.openai_server import OpenAIServer
from tests.support.runner import options


def verdicts(report: RunReport) -> dict[str, tuple[bool, str | None]]:
    return {r.id: (r.valid, r.infra_error) for r in report.results}


def test_a_batch_run_gives_the_real_time_verdicts_without_a_real_time_request(
    server: OpenAIServer, tmp_path: Path
) -> None:
    realtime = run(server, tmp_path / "rt", None)
    server.reset_log()
    batched = run(server, tmp_path / "b", BatchSettings(**FAST))
    assert verdicts(batched) == verdicts(realtime)
    assert [r.model_output for r in batched.results] == [r.model_output for r in realtime.results]
    assert server.count == 0  # no chat request: every answer came through the batch
    assert server.batches.answered_lines == 4
    assert len(server.batches.created) == 1
    assert any("batch: 4 requests submitted" in n for n in batched.notes)


def test_the_batch_input_is_what_a_real_time_run_sends(
    server: OpenAIServer, tmp_path: Path
) -> None:
    run(server, tmp_path / "rt", None)
    sent = [json.dumps(b, sort_keys=True) for b in server.requests]
    run(server, tmp_path / "b", BatchSettings(**FAST))
    [batch] = server.batches.batches.values()
    lines = server.batches.contents[batch["input_file_id"]].decode().splitlines()
    bodies = [json.dumps(json.loads(line)["body"], sort_keys=True) for line in lines]
    assert sorted(bodies) == sorted(sent)
    assert {json.loads(line)["url"] for line in lines} == {"/v1/chat/completions"}
    assert batch["endpoint"] == "/v1/chat/completions"


def test_a_rerun_after_a_batch_asks_nothing(server: OpenAIServer, tmp_path: Path) -> None:
    run(server, tmp_path, BatchSettings(**FAST))
    server.reset_log()
    again = run(server, tmp_path, BatchSettings(**FAST))
    assert server.count == 0
    assert len(server.batches.created) == 1  # nothing new submitted
    assert all(r.infra_error is None for r in again.results)


def test_a_batch_still_running_at_the_wait_limit_is_resumed_not_resubmitted(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.batches.plan.append(BatchPlan(polls=3))
    first = run(server, tmp_path, BatchSettings(wait_s=0.0, **FAST))
    assert len(server.batches.created) == 1
    assert all("pending in batch" in (r.infra_error or "") for r in first.results)
    assert server.count == 0  # pending answers are never bought twice in real time
    state = json.loads((tmp_path / STATE_FILE).read_text())
    assert [b["id"] for b in state["batches"]] == server.batches.created

    second = run(server, tmp_path, BatchSettings(wait_s=60.0, **FAST))
    assert len(server.batches.created) == 1  # resumed, not resubmitted
    assert server.count == 0
    assert all(r.infra_error is None for r in second.results)
    assert any("4 resumed" in n for n in second.notes)
    assert json.loads((tmp_path / STATE_FILE).read_text()) == {"batches": []}


@pytest.mark.parametrize("outcome", ["failed", "expired", "cancelled"])
def test_requests_a_batch_did_not_answer_fall_back_to_real_time(
    server: OpenAIServer, tmp_path: Path, outcome: str
) -> None:
    server.batches.plan.append(BatchPlan(outcome=outcome, answered_before_expiry=1))
    report = run(server, tmp_path, BatchSettings(**FAST))
    assert all(r.infra_error is None for r in report.results)
    answered_by_batch = 0 if outcome == "failed" else 1
    assert server.count == 4 - answered_by_batch
    assert any("had no answer (asked in real time)" in n for n in report.notes)


def test_with_error_fallback_unanswered_requests_are_infrastructure_errors(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.batches.plan.append(BatchPlan(outcome="expired", answered_before_expiry=2))
    report = run(server, tmp_path, BatchSettings(on_failure="error", **FAST))
    errors = [r.infra_error for r in report.results if r.infra_error]
    assert len(errors) == 2
    assert all("batch_expired" in e for e in errors)
    assert server.count == 0


def test_a_partially_failed_batch_keeps_its_answers_and_retries_only_the_failed_lines(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.batches.plan.append(BatchPlan(fail=["no scripted call"]))
    report = run(server, tmp_path, BatchSettings(**FAST))
    assert server.count == 1
    assert "no scripted call" in json.dumps(server.requests[0])
    assert all(r.infra_error is None for r in report.results)


def test_multi_turn_cases_stay_real_time_and_say_so(server: OpenAIServer, tmp_path: Path) -> None:
    example = Path(__file__).parents[2] / "examples" / "notes-app" / "cases.multi_turn.jsonl"
    [conversation, *_] = load_conversation_cases(example)
    report, _ = run_evaluation(
        [*cases(), conversation],
        RunOptions(
            backend=options(server),
            cache_dir=tmp_path,
            batch=BatchSettings(**FAST),
            retry_base_delay=0.01,
        ),
    )
    assert server.batches.answered_lines == 4  # the single-turn cases only
    assert server.count >= 1  # the conversation's steps went in real time
    assert any("multi-turn cases were asked in real time" in n for n in report.notes)


def test_a_replay_model_cannot_batch(tmp_path: Path) -> None:
    replay = tmp_path / "recorded"
    replay.mkdir()
    line = json.dumps({"id": "simple_python_0", "result": []})
    (replay / "BFCL_v4_simple_python_result.json").write_text(line + "\n")
    with pytest.raises(ConfigError, match="batch"):
        run_evaluation(
            cases(),
            RunOptions(
                backend=options_replay(replay),
                cache_dir=tmp_path / "c",
                batch=BatchSettings(**FAST),
            ),
        )


def options_replay(path: Path) -> Any:
    from bfcl_action.core.records import Mode
    from bfcl_action.model.options import BackendOptions

    return BackendOptions(model=f"replay:{path}", mode=Mode.FC)


def test_the_local_batch_api_rejects_what_openai_rejects(server: OpenAIServer) -> None:
    import openai

    client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError):
        client.batches.create(
            input_file_id="file-x",
            endpoint="/v1/chat/completions",
            completion_window="1h",  # type: ignore[arg-type]
        )
    with pytest.raises(openai.NotFoundError):
        client.batches.create(
            input_file_id="file-missing", endpoint="/v1/chat/completions", completion_window="24h"
        )
    line = {"custom_id": "a", "method": "POST", "url": "/v1/embeddings", "body": {"model": "m"}}
    data = (json.dumps(line) + "\n" + json.dumps(line) + "\n").encode()
    uploaded = client.files.create(file=("in.jsonl", data), purpose="batch")
    batch = client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    for _ in range(3):
        batch = client.batches.retrieve(batch.id)
    assert batch.status == "failed"
    assert batch.errors is not None
    codes = {e.code for e in batch.errors.data or []}
    assert {"duplicate_custom_id", "mismatched_endpoint"} <= codes


def test_bfcl_action_run_batch_end_to_end(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bfcl_action.cli import main
    from tests.support.runner import LIVE, weather_responder

    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(LIVE))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-printed")
    server.responder = weather_responder

    def run(out: str, *extra: str) -> RunReport:
        code = main(
            [
                "run", "--dataset", "live@2026-W48", "--model", "test-model",
                "--base-url", server.base_url, "--cache", str(tmp_path / out / "cache"),
                "--output", str(tmp_path / out / "run.json"), "--quiet", *extra,
            ]
        )  # fmt: skip
        assert code == 0
        return RunReport.model_validate_json((tmp_path / out / "run.json").read_text())

    realtime = run("rt")
    asked_in_real_time = server.count  # identical requests of a run are asked once
    server.reset_log()
    batched = run("batch", "--batch", "--batch-wait", "60")
    assert server.count == 0
    assert server.batches.answered_lines == asked_in_real_time > 0
    assert verdicts(batched) == verdicts(realtime)
    assert batched.fingerprint == realtime.fingerprint  # a batch run is comparable


def test_batch_with_no_cache_is_a_clear_error(
    server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bfcl_action.cli import main

    code = main(
        ["run", "--dataset", "live@2026-W48", "--model", "m", "--base-url", server.base_url,
         "--no-cache", "--batch", "--output", str(tmp_path / "r.json")]
    )  # fmt: skip
    assert code != 0
    assert "batch" in capsys.readouterr().err


def test_batch_answers_are_this_runs_answers_not_reuse(
    server: OpenAIServer, tmp_path: Path
) -> None:
    batched = run(server, tmp_path, BatchSettings(**FAST))
    assert all(r.batch and not r.reused for r in batched.results)
    again = run(server, tmp_path, BatchSettings(**FAST))  # now they are an earlier run's
    assert all(r.reused for r in again.results)
