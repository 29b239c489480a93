"""`bfcl-action run` and `merge` end to end: local server, Live fixture data, real checker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.cli import main
from bfcl_action.core.records import RunReport
from tests.support.openai_server import OpenAIServer
from tests.support.runner import run_cli, weather_responder


def report(path: Path) -> RunReport:
    return RunReport.model_validate_json(path.read_text())


def verdicts(r: RunReport) -> dict[str, bool]:
    return {x.id: x.valid for x in r.results}


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_run_scores_every_case_with_the_checker(
    env: OpenAIServer, tmp_path: Path, mode: str
) -> None:
    assert run_cli(env, tmp_path, "--mode", mode) == 0
    r = report(tmp_path / "run.json")
    assert r.mode.value == mode
    assert r.datasets == ["live@2026-W48"]
    simple = [x for x in r.results if x.category == "live_simple"]
    assert simple and all(x.valid for x in simple)
    assert all(x.infra_error is None for x in r.results)
    assert r.fingerprint and r.case_set


def test_run_says_where_it_wrote_the_report(
    env: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(env, tmp_path, "--results-dir", str(tmp_path / "results")) == 0
    out = capsys.readouterr().out
    assert f"wrote the run report to {tmp_path / 'run.json'}" in out
    assert f"BFCL result files to {tmp_path / 'results'}/" in out


def test_api_key_is_never_written_or_printed(
    env: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(env, tmp_path, "--results-dir", str(tmp_path / "results"))
    captured = capsys.readouterr()
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file() and p.suffix == ".json"]
    assert all("sk-never-printed" not in text for text in [captured.out, captured.err, *written])
    assert env.headers[0]["authorization"] == "Bearer sk-never-printed"


def test_api_key_can_come_from_another_variable(
    env: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.setenv("MY_KEY", "sk-other")
    assert run_cli(env, tmp_path, "--api-key-env", "MY_KEY") == 0
    assert env.headers[0]["authorization"] == "Bearer sk-other"


def test_missing_api_key_is_a_user_error_naming_the_variable(
    env: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    args = ["run", "--dataset", "live@2026-W48", "--model", "m", "--output", str(tmp_path / "r")]
    assert main(args) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err


def test_a_local_server_needs_no_api_key(
    env: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    assert run_cli(env, tmp_path) == 0
    assert "bfcl-action: OPENAI_API_KEY is not set; sending no API key" in capsys.readouterr().err


def test_results_dir_holds_bfcl_files_that_replay_to_the_same_verdicts(
    env: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_cli(env, tmp_path, "--results-dir", str(tmp_path / "results"))
    files = sorted(p.name for p in (tmp_path / "results").rglob("*_result.json"))
    assert "BFCL_v4_live_simple_result.json" in files
    monkeypatch.delenv("OPENAI_API_KEY")
    env.reset_log()
    replay = f"replay:{tmp_path / 'results'}"
    assert run_cli(env, tmp_path, "--model", replay, out="replayed.json") == 0
    assert env.count == 0
    assert verdicts(report(tmp_path / "replayed.json")) == verdicts(report(tmp_path / "run.json"))


def test_replay_of_a_run_report_gives_the_same_verdicts(env: OpenAIServer, tmp_path: Path) -> None:
    run_cli(env, tmp_path, "--mode", "prompt")
    env.reset_log()
    assert run_cli(env, tmp_path, "--model", f"replay:{tmp_path / 'run.json'}", out="re.json") == 0
    replayed = report(tmp_path / "re.json")
    assert env.count == 0
    assert replayed.mode.value == "prompt"
    assert verdicts(replayed) == verdicts(report(tmp_path / "run.json"))


def test_infrastructure_errors_are_excluded_and_fail_the_run_past_the_limit(
    env: OpenAIServer, tmp_path: Path
) -> None:
    env.fail("city 1 ", ["500"] * 10)
    code = run_cli(env, tmp_path, "--max-retries", "1", "--max-infra-error-rate", "0.1")
    r = report(tmp_path / "run.json")
    [broken] = [x for x in r.results if x.infra_error]
    assert broken.id == "live_simple_1-0-1"
    score = r.categories["live@2026-W48/live_simple"]
    assert (score.infra_errors, score.correct, score.total) == (1, 2, 2)
    assert code == 1
    env.fail("city 1 ", ["500"] * 10)
    assert run_cli(env, tmp_path, "--max-retries", "1", "--max-infra-error-rate", "0.5") == 0


def test_repeat_reports_mean_accuracy_pass_all_and_unstable_cases(
    env: OpenAIServer, tmp_path: Path
) -> None:
    calls: dict[str, int] = {}

    def flaky(body: dict[str, Any]) -> dict[str, Any]:
        text = body["messages"][-1]["content"]
        calls[text] = calls.get(text, 0) + 1
        if "city 0 " in text and calls[text] == 2:
            return {"content": "no idea"}
        return weather_responder(body)

    env.responder = flaky
    assert run_cli(env, tmp_path, "--repeat", "3", "--no-cache", "--categories", "live_simple") == 0
    r = report(tmp_path / "run.json")
    assert all(x.samples is not None and len(x.samples) == 3 for x in r.results)
    assert r.summary["repeat_pass_all"] == pytest.approx(2 / 3, abs=1e-3)
    assert r.summary["repeat_mean_accuracy"] == pytest.approx(8 / 9, abs=1e-3)
    assert any("unstable" in n and "live_simple_0-0-0" in n for n in r.notes)


def test_plain_progress_lines_in_ci(
    env: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(env, tmp_path)
    assert "bfcl-action run: finished" in capsys.readouterr().err


def test_shards_merge_into_the_unsharded_report(env: OpenAIServer, tmp_path: Path) -> None:
    run_cli(env, tmp_path, out="full.json")
    for i in (1, 2):
        run_cli(env, tmp_path, "--shard", f"{i}/2", out=f"s{i}.json")
    merged = tmp_path / "merged.json"
    assert (
        main(
            ["merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "--output", str(merged)]
        )
        == 0
    )
    full, joined = report(tmp_path / "full.json"), report(merged)
    assert verdicts(joined) == verdicts(full)
    assert joined.fingerprint == full.fingerprint
    assert joined.case_set == full.case_set


def test_merge_refuses_a_missing_shard(
    env: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(env, tmp_path, "--shard", "1/3", out="s1.json")
    run_cli(env, tmp_path, "--shard", "3/3", out="s3.json")
    code = main(
        [
            "merge",
            str(tmp_path / "s1.json"),
            str(tmp_path / "s3.json"),
            "--output",
            str(tmp_path / "m.json"),
        ]
    )
    assert code == 2
    assert "missing shard(s) 2/3" in capsys.readouterr().err


def test_merge_refuses_overlapping_reports(
    env: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(env, tmp_path, out="a.json")
    run_cli(env, tmp_path, out="b.json")
    code = main(
        [
            "merge",
            str(tmp_path / "a.json"),
            str(tmp_path / "b.json"),
            "--output",
            str(tmp_path / "m.json"),
        ]
    )
    assert code == 2
    assert "appears in both" in capsys.readouterr().err


def test_merge_refuses_reports_with_different_fingerprints(
    env: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_cli(env, tmp_path, "--shard", "1/2", out="s1.json")
    run_cli(env, tmp_path, "--shard", "2/2", "--temperature", "0.5", out="s2.json")
    code = main(
        [
            "merge",
            str(tmp_path / "s1.json"),
            str(tmp_path / "s2.json"),
            "--output",
            str(tmp_path / "m.json"),
        ]
    )
    assert code == 2
    assert "fingerprint" in capsys.readouterr().err


def test_run_report_json_lists_stats_in_notes(env: OpenAIServer, tmp_path: Path) -> None:
    run_cli(env, tmp_path)
    run_cli(env, tmp_path, out="again.json")
    notes = json.loads((tmp_path / "again.json").read_text())["notes"]
    assert any(n.startswith("requests 0, cache hits") for n in notes)


EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


def test_config_suites_run_with_a_replayed_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    code = main(
        [
            "run",
            "--config",
            str(EXAMPLE / ".bfcl.yml"),
            "--model",
            f"replay:{EXAMPLE / 'replay' / 'head'}",
            "--output",
            str(tmp_path / "own.json"),
        ]
    )
    r = report(tmp_path / "own.json")
    assert code == 0
    assert {x.category for x in r.results} >= {"own_simple", "own_irrelevance"}
    assert r.datasets == ["own:examples/weather-app/.bfcl.yml"]  # its path in the repository


def test_config_model_section_supplies_defaults_the_command_line_overrides(
    env: OpenAIServer, tmp_path: Path
) -> None:
    config = tmp_path / ".bfcl.yml"
    config.write_text(
        "version: 1\nmodel:\n  name: from-config\n  temperature: 0.3\n  mode: prompt\n"
        "suites:\n  live: [live_simple]\n"
    )
    args = ["run", "--config", str(config), "--base-url", env.base_url]
    args += ["--output", str(tmp_path / "r.json"), "--no-cache", "--temperature", "0.2"]
    assert main(args) == 0
    body = env.requests[0]
    assert body["model"] == "from-config"
    assert body["temperature"] == 0.2
    assert "tools" not in body


def test_results_dir_is_rescored_by_the_score_command_to_the_same_verdicts(
    env: OpenAIServer, tmp_path: Path
) -> None:
    run_cli(env, tmp_path, "--results-dir", str(tmp_path / "results"))
    code = main(
        [
            "score",
            "--dataset",
            "live@2026-W48",
            "--results",
            str(tmp_path / "results"),
            "--model-name",
            "test-model",
            "--mode",
            "fc",
            "--no-underscore-to-dot",
            "--output",
            str(tmp_path / "scored.json"),
        ]
    )
    assert code == 0
    assert verdicts(report(tmp_path / "scored.json")) == verdicts(report(tmp_path / "run.json"))


def test_result_files_of_a_dot_rejecting_model_use_api_names_and_rescore_the_same(
    env: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = "gpt-4o-mini-2024-07-18"
    run_cli(env, tmp_path, "--model", model, "--results-dir", str(tmp_path / "results"))
    [simple] = (tmp_path / "results").rglob("BFCL_v4_live_simple_result.json")
    assert '"weather_get_forecast"' in simple.read_text()
    args = ["score", "--dataset", "live@2026-W48", "--results", str(tmp_path / "results")]
    args += ["--model-name", model, "--output", str(tmp_path / "scored.json")]
    assert main(args) == 0
    assert verdicts(report(tmp_path / "scored.json")) == verdicts(report(tmp_path / "run.json"))
    monkeypatch.delenv("OPENAI_API_KEY")
    replay = ["--model", f"replay:{tmp_path / 'results'}"]
    assert run_cli(env, tmp_path, *replay, out="replayed.json") == 0
    assert verdicts(report(tmp_path / "replayed.json")) == verdicts(report(tmp_path / "run.json"))


def test_ids_and_sample_narrow_the_run(env: OpenAIServer, tmp_path: Path) -> None:
    assert run_cli(env, tmp_path, "--ids", "^live_simple_[01]-") == 0
    assert sorted(verdicts(report(tmp_path / "run.json"))) == [
        "live_simple_0-0-0",
        "live_simple_1-0-1",
    ]
    assert run_cli(env, tmp_path, "--sample", "2", "--seed", "3", out="s.json") == 0
    assert len(report(tmp_path / "s.json").results) == 2


def test_temperature_omit_sends_no_temperature(env: OpenAIServer, tmp_path: Path) -> None:
    # Reasoning models (o-series, gpt-5) refuse any temperature but their default.
    assert run_cli(env, tmp_path, "--temperature", "omit", "--no-cache") == 0
    assert env.requests and all("temperature" not in body for body in env.requests)
    assert report(tmp_path / "run.json").settings["temperature"] == "server default"


def test_sampling_settings_are_sent_and_recorded(env: OpenAIServer, tmp_path: Path) -> None:
    extra = ("--temperature", "0.7", "--top-p", "0.9", "--request-seed", "7", "--no-cache")
    assert run_cli(env, tmp_path, *extra) == 0
    sent = {(b["temperature"], b["top_p"], b["seed"]) for b in env.requests}
    assert sent == {(0.7, 0.9, 7)}
    settings = report(tmp_path / "run.json").settings
    assert (settings["temperature"], settings["top_p"], settings["seed"]) == (0.7, 0.9, 7)


def test_config_model_settings_reach_the_requests(env: OpenAIServer, tmp_path: Path) -> None:
    config = tmp_path / ".bfcl.yml"
    config.write_text(
        "version: 1\nsuites:\n  live: [live_simple]\n"
        "model:\n  name: from-config\n  temperature: omit\n  top_p: 0.5\n  seed: 3\n"
    )
    args = ["run", "--config", str(config), "--base-url", env.base_url]
    assert main([*args, "--output", str(tmp_path / "r.json"), "--no-cache"]) == 0
    assert env.requests
    for body in env.requests:
        assert "temperature" not in body
        assert (body["top_p"], body["seed"]) == (0.5, 3)


@pytest.mark.parametrize(("value", "why"), [("hot", "a number or `omit`"), ("-1", "a number >= 0")])
def test_a_bad_temperature_is_refused_by_the_command_line(
    env: OpenAIServer,
    tmp_path: Path,
    value: str,
    why: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli(env, tmp_path, f"--temperature={value}")
    assert exited.value.code == 2
    assert why in capsys.readouterr().err
    assert not env.requests
