"""Issue 23 items 6 and 7: every field read from a model server or a state file is validated.
A bad field is an infrastructure error for the request it concerns, with a clear message;
never a traceback, never a lost run. Batch answers are accepted only for the `custom_id`s
the batch was recorded with. Against the local OpenAI-compatible server (tests/support/)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.cost import run_cost
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import RunReport
from bfcl_action.model.batch import STATE_FILE, BatchSettings
from bfcl_action.model.providers import openai as openai_provider
from bfcl_action.settings.config import load_config
from tests.support.batch import FAST, run
from tests.support.openai_batches import BatchPlan
from tests.support.openai_server import OpenAIServer


@pytest.mark.parametrize(
    ("usage", "field"),
    [
        ({"prompt_tokens": "12", "completion_tokens": 5}, "usage.prompt_tokens"),
        ({"prompt_tokens": -5, "completion_tokens": 5}, "usage.prompt_tokens"),
        ({"prompt_tokens": 10, "completion_tokens": 1e308}, "usage.completion_tokens"),
        (
            {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": [1]}},
            "usage.prompt_tokens_details.cached_tokens",
        ),
        ("lots", "usage"),
    ],
)
def test_a_bad_usage_field_is_an_infrastructure_error_of_that_request(
    server: OpenAIServer, tmp_path: Path, usage: Any, field: str
) -> None:
    server.usage = usage
    server.validate_against_spec = False  # a broken server, on purpose
    report = run(server, tmp_path, None)
    assert report.results
    for result in report.results:
        assert result.infra_error is not None
        assert f"malformed {field}" in result.infra_error
    assert run_cost(report.results).input_tokens == 0  # the cost step runs on them


def test_good_usage_still_counts(server: OpenAIServer, tmp_path: Path) -> None:
    report = run(server, tmp_path, None)
    assert all(r.infra_error is None for r in report.results)
    assert run_cost(report.results).input_tokens == 10 * len(report.results)


def test_a_response_body_over_the_cap_fails_that_request(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openai_provider, "MAX_RESPONSE_BYTES", 200)
    report = run(server, tmp_path, None)
    assert all("byte cap" in (r.infra_error or "") for r in report.results)


@pytest.mark.parametrize("price", [".inf", ".nan", "-1", "1e400"])
def test_a_price_that_is_not_a_finite_non_negative_number_is_refused_at_its_line(
    tmp_path: Path, price: str
) -> None:
    config = tmp_path / ".bfcl.yml"
    config.write_text(f"pricing:\n  m:\n    input: {price}\n    output: 1\n")
    with pytest.raises(ConfigError, match=r"\.bfcl\.yml:3.*pricing\.m\.input"):
        load_config(config)


def _keys(cache: Path) -> list[str]:
    with sqlite3.connect(cache / "responses.sqlite3") as db:
        return [row[0] for row in db.execute("SELECT key FROM responses")]


def test_a_batch_cannot_plant_answers_for_requests_it_never_held(
    server: OpenAIServer, tmp_path: Path
) -> None:
    """Model `other`'s provider answers the batch and adds lines under model `victim`'s
    cache keys; a later `victim` run must not find them."""
    victim = run(server, tmp_path / "probe", None, model="victim")
    victim_keys = _keys(tmp_path / "probe")
    assert len(victim_keys) == len(victim.results)
    poisoned = {
        "status_code": 200,
        "body": {
            "choices": [{"message": {"role": "assistant", "content": "PLANTED"}}],
        },
    }
    server.batches.plan.append(
        BatchPlan(planted=[{"custom_id": k, "response": poisoned} for k in victim_keys])
    )
    shared = tmp_path / "shared"
    other = run(server, shared, BatchSettings(**FAST), model="other")
    assert any(f"{len(victim_keys)} answers ignored" in n for n in other.notes)
    assert not set(victim_keys) & set(_keys(shared))
    server.reset_log()
    again = run(server, shared, None, model="victim")
    assert server.count == len(again.results)  # asked afresh, nothing planted was reused
    assert all("PLANTED" not in json.dumps(r.model_output) for r in again.results)


@pytest.mark.parametrize(
    "errors", [{"data": [42]}, {"data": "boom"}, [1, 2], {"data": [{"code": {"x": 1}}]}]
)
def test_a_malformed_errors_field_of_a_failed_batch_never_crashes_the_run(
    server: OpenAIServer, tmp_path: Path, errors: Any
) -> None:
    server.batches.plan.append(BatchPlan(outcome="failed", errors=errors))
    server.validate_against_spec = False
    report = run(server, tmp_path, BatchSettings(on_failure="error", **FAST))
    assert report.results
    assert all("malformed errors field" in (r.infra_error or "") for r in report.results)


@pytest.mark.parametrize(
    "state",
    [
        '{"batches": 7}',
        '{"batches": [{"id": "batch_1", "created": "yesterday", "keys": 5}]}',
        '{"batches": [{"id": 3}]}',
        "[1, 2]",
        "not json",
    ],
)
def test_a_malformed_batches_json_is_set_aside_not_a_crash(
    server: OpenAIServer, tmp_path: Path, state: str
) -> None:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / STATE_FILE).write_text(state)
    report: RunReport = run(server, tmp_path, BatchSettings(**FAST))
    assert all(r.infra_error is None for r in report.results)
    assert json.loads((tmp_path / STATE_FILE).read_text()) == {"batches": []}
