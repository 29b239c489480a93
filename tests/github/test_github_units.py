"""The GitHub edge's pieces, one behaviour each (no subprocess)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from github import GithubException

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode
from bfcl_action.github import outputs
from bfcl_action.github.checks import Annotation, publish_check_run, summary_with_digest
from bfcl_action.github.client import describe_error, make_github
from bfcl_action.github.comment import (
    COMMENT_LIMIT,
    comment_marker,
    resolve_author,
    upsert_comment,
    with_marker,
)
from bfcl_action.github.context import ActionContext, CommentMode, parse_inputs
from bfcl_action.github.evaluate import needs_api_key, parse_thresholds, read_config, run_settings
from bfcl_action.settings.thresholds import Thresholds
from tests.support.github_server import GitHubServer


def context(server: GitHubServer, token: str = "write-token", **env: str) -> ActionContext:
    return ActionContext.from_env(
        {
            "GITHUB_API_URL": server.url,
            "GITHUB_REPOSITORY": "octo/app",
            "INPUT_GITHUB_TOKEN": token,
            "BFCL_GITHUB_THROTTLE": "0",
            "BFCL_GITHUB_RETRY_WAIT_CAP": "3",
            **env,
        }
    )


# ------------------------------------------------------------------ context
def test_pull_request_head_sha_wins_over_github_sha(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(
        '{"pull_request": {"number": 7, "head": {"sha": "abc", "ref": "f", "repo": '
        '{"full_name": "m/app"}}, "base": {"sha": "def", "ref": "main", "repo": '
        '{"full_name": "octo/app"}}}}'
    )
    ctx = ActionContext.from_env(
        {
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_SHA": "merge",
            "GITHUB_EVENT_NAME": "pull_request",
        }
    )
    assert ctx.head_sha == "abc"
    assert ctx.pull_request is not None and ctx.pull_request.is_fork


def test_inputs_accept_the_hyphenated_javascript_spelling() -> None:
    inputs = parse_inputs({"INPUT_CHECK-NAME": "mine", "INPUT_FAIL_ON_REGRESSION": "false"})
    assert inputs.check_name == "mine"
    assert inputs.fail_on_regression is False


def test_empty_inputs_keep_their_defaults() -> None:
    inputs = parse_inputs({"INPUT_CHECK_NAME": "", "INPUT_COMMENT": "", "INPUT_STATUSES": ""})
    assert (inputs.check_name, inputs.comment, inputs.statuses) == (
        "bfcl-action",
        CommentMode.STICKY,
        False,
    )


def test_a_bad_boolean_input_names_the_input() -> None:
    with pytest.raises(ConfigError, match="statuses"):
        parse_inputs({"INPUT_STATUSES": "maybe"})


def test_thresholds_input_overrides_and_adds_per_suite_limits() -> None:
    base = Thresholds(alpha=0.1)
    t = base.with_overrides(
        parse_thresholds("max-drop=3 max-drop:simple_python=5, min-score:own=90")
    )
    assert (t.max_drop, t.alpha) == (3.0, 0.1)
    assert t.categories["simple_python"].max_drop == 5.0
    assert t.categories["own"].min_score == 90.0


def test_thresholds_input_sets_a_per_suite_alpha() -> None:
    t = Thresholds().with_overrides(parse_thresholds("alpha:simple_python=0.2"))
    assert t.alpha_for("simple_python", "simple_python") == 0.2
    assert t.alpha_for("multiple", "multiple") == 0.05


def test_a_bad_thresholds_token_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="thresholds"):
        parse_thresholds("drop=3")


# ------------------------------------------------------------------ outputs
def test_outputs_use_a_delimiter_the_value_cannot_contain(tmp_path: Path) -> None:
    path = tmp_path / "out"
    outputs.write_outputs(path, {"categories": "a\nverdict=pass\n", "score": "1"})
    text = path.read_text()
    assert text.startswith("categories<<ghadelimiter_")
    assert "\nscore<<" in text and "\nverdict=pass\n" in text


def test_workflow_command_messages_are_escaped() -> None:
    line = outputs.workflow_command("warning", "50% done\n::error::x", title="a:b,c")
    assert line == "::warning title=a%3Ab%2Cc::50%25 done%0A::error::x"


def test_neutralized_log_lines_cannot_start_a_command() -> None:
    assert outputs.neutralize_log("ok\n::error::pwned") == "ok\n:\u200d:error::pwned"
    assert outputs.neutralize_log("  ##[error]x") == "  #\u200d#[error]x"


def test_job_summary_is_cut_to_one_mebibyte(tmp_path: Path) -> None:
    path = tmp_path / "summary"
    outputs.append_summary(path, "é" * 700_000)
    assert len(path.read_bytes()) <= outputs.SUMMARY_LIMIT
    assert "truncated" in path.read_text()


# ------------------------------------------------------------------ comment and check run
def test_an_oversized_comment_is_cut_below_the_limit_with_its_marker() -> None:
    text = with_marker("x" * 70_000, "bfcl")
    assert len(text) <= COMMENT_LIMIT
    assert text.startswith(comment_marker("bfcl"))


def test_marker_keeps_odd_check_names_harmless() -> None:
    marker = comment_marker("a --> <b>")
    assert marker.count("-->") == 1 and marker.endswith(" -->")
    assert "<b>" not in marker


def test_app_token_falls_back_to_the_actions_bot(github_server: GitHubServer) -> None:
    gh = make_github(context(github_server))
    assert resolve_author(gh) == "github-actions[bot]"
    github_server.add_token("pat", "alice", kind="user")
    assert resolve_author(make_github(context(github_server, "pat"))) == "alice"


def test_upsert_creates_then_edits(github_server: GitHubServer) -> None:
    repo = make_github(context(github_server)).get_repo("octo/app")
    number = repo.create_issue("t").number
    first, created = upsert_comment(repo, number, "one", "bfcl", "github-actions[bot]")
    second, created_again = upsert_comment(repo, number, "two", "bfcl", "github-actions[bot]")
    assert (created, created_again) == (True, False)
    assert first.id == second.id
    assert github_server.comments_on("octo/app", number)[0]["body"].endswith("two")


def test_annotations_go_in_batches_of_50(github_server: GitHubServer) -> None:
    sha = github_server.commit("octo/app", "feature")
    repo = make_github(context(github_server)).get_repo("octo/app")
    notes = [Annotation(path="tools.json", start_line=i + 1, message=f"m{i}") for i in range(120)]
    run = publish_check_run(
        repo, sha, "bfcl", conclusion="failure", title="t", summary="s", annotations=notes
    )
    assert len(github_server.annotations_of("octo/app", run.id)) == 120
    assert len(github_server.calls("POST", r"/check-runs$")) == 1
    assert len(github_server.calls("PATCH", r"/check-runs/\d+$")) == 2


def test_summary_is_cut_but_the_digest_survives() -> None:
    digest = "<!-- bfcl-action:digest v1 QUJD -->"
    text = summary_with_digest("y" * 70_000, digest)
    assert len(text) <= 65_535
    assert text.endswith(digest)


# ------------------------------------------------------------------ retries
def test_secondary_rate_limit_waits_for_retry_after(github_server: GitHubServer) -> None:
    github_server.secondary_rate_limit("GET", r"^/repos/octo/app$", retry_after=1)
    gh = make_github(context(github_server))
    started = time.monotonic()
    assert gh.get_repo("octo/app").full_name == "octo/app"
    assert time.monotonic() - started >= 1
    assert [r.status for r in github_server.calls("GET", r"^/repos/octo/app$")] == [403, 200]


def test_retry_after_beyond_the_cap_fails_fast(github_server: GitHubServer) -> None:
    github_server.secondary_rate_limit("GET", r"^/repos/octo/app$", retry_after=600, times=9)
    gh = make_github(context(github_server))
    started = time.monotonic()
    with pytest.raises(Exception) as err:
        gh.get_repo("octo/app")
    assert time.monotonic() - started < 10
    assert "403" in describe_error(err.value) or "rate limit" in describe_error(err.value)


def test_plain_403_is_not_retried(github_server: GitHubServer) -> None:
    repo = make_github(context(github_server, "read-token")).get_repo("octo/app")
    with pytest.raises(GithubException) as err:
        repo.create_issue("t")
    assert describe_error(err.value) == "403 Resource not accessible by integration"
    assert len(github_server.calls("POST", r"/issues$")) == 1


# ------------------------------------------------------------------ inputs -> run settings
def test_evaluation_inputs_become_run_settings(tmp_path: Path) -> None:
    (tmp_path / ".bfcl.yml").write_text("tools: []\n")
    ctx = ActionContext.from_env(
        {
            "INPUT_WORKING_DIRECTORY": str(tmp_path),
            "INPUT_MODEL": "gpt-4o-mini",
            "INPUT_BASE_URL": "http://127.0.0.1:9/v1",
            "INPUT_MODE": "prompt",
            "INPUT_CATEGORIES": "simple_python, multiple",
            "INPUT_SUITES": "bfcl@2026.3.23 live@latest",
            "INPUT_SAMPLE": "40",
            "INPUT_SHARD": "2/4",
            "INPUT_CONCURRENCY": "3",
            "INPUT_ENV_PYTHON": "python3",
            "INPUT_TOOL_TIMEOUT": "2.5",
        }
    )
    settings = run_settings(ctx, read_config(ctx))
    assert (settings.model, settings.base_url, settings.mode) == (
        "gpt-4o-mini",
        "http://127.0.0.1:9/v1",
        Mode.PROMPT,
    )
    assert settings.categories == ("simple_python", "multiple")
    assert settings.datasets == ("bfcl@2026.3.23", "live@latest")
    assert (settings.sample, settings.shard, settings.concurrency) == (40, "2/4", 3)
    assert (settings.env_python, settings.tool_timeout_s) == ("python3", 2.5)
    assert settings.config == tmp_path / ".bfcl.yml"


def test_a_non_numeric_input_is_an_error_naming_the_input(tmp_path: Path) -> None:
    ctx = ActionContext.from_env(
        {"INPUT_WORKING_DIRECTORY": str(tmp_path), "INPUT_MODEL": "m", "INPUT_SAMPLE": "ten"}
    )
    with pytest.raises(ConfigError, match=r"sample.*expected an integer"):
        run_settings(ctx, read_config(ctx))


def test_a_replay_model_needs_no_api_key() -> None:
    assert not needs_api_key(ActionContext.from_env({"INPUT_MODEL": "replay:answers.jsonl"}))
    assert needs_api_key(ActionContext.from_env({"INPUT_MODEL": "gpt-4o-mini"}))


def test_shard_reports_given_by_glob_are_merged(tmp_path: Path) -> None:
    from bfcl_action.github.evaluate import load_reports
    from tests.support.reports import make_report

    for i, outcomes in ((1, "1101"), (2, "0111")):
        part = make_report({f"suite{i}": outcomes}).model_copy(update={"shard": f"{i}/2"})
        folder = tmp_path / "shards" / f"bfcl-shard-{i}"
        folder.mkdir(parents=True)
        (folder / "report.json").write_text(part.model_dump_json())
    ctx = ActionContext.from_env(
        {"INPUT_WORKING_DIRECTORY": str(tmp_path), "INPUT_REPORT": "shards/*/report.json"}
    )
    merged = load_reports(ctx)
    assert len(merged.results) == 8
    assert not needs_api_key(ctx)


def test_a_tool_called_exactly_as_expected_is_not_blamed_for_a_failing_case() -> None:
    """A parallel case fails on one tool: the other, called right, gets no annotation."""
    from bfcl_action.core.records import Call, CaseResult
    from bfcl_action.github.evaluate import involved_names

    result = CaseResult(
        id="pm_current_and_air_beijing",
        category="own_parallel_multiple",
        valid=False,
        decoded=[
            Call("get_forecast", {"city": "Beijing"}),
            Call("get_air_quality", {"city": "Beijing"}),
        ],
        expected=[
            {"get_current_weather": {"city": ["Beijing"], "unit": ["", "celsius"]}},
            {"get_air_quality": {"city": ["Beijing", "Beijing, China"]}},
        ],
    )
    assert involved_names(result, []) == {"get_forecast", "get_current_weather"}
    wrong = result.model_copy(update={"decoded": [Call("get_air_quality", {"city": "Oslo"})]})
    assert involved_names(wrong, []) == {"get_air_quality", "get_current_weather"}
