"""End to end: `python -m bfcl_action.cli github` as the composite action runs it.

Each test runs the entrypoint in a subprocess with the variables a runner sets
(GITHUB_EVENT_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_API_URL, ...) and the
`INPUT_*` variables action.yml passes, against the local GitHub server. The evaluation is a
finished run report (the `report` input), so no model is called.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from bfcl_action.core.records import RunReport
from bfcl_action.github.comment import comment_marker
from bfcl_action.github.context import DEFAULT_CHECK_NAME, ActionContext
from bfcl_action.results.digest import make_digest
from bfcl_action.runner import evaluation
from tests.support.action import (
    ROOT,
    ActionRun,
    git,
    open_pr,
    run_action,
    write_report,
    write_tools,
)
from tests.support.github_server import GitHubServer
from tests.support.reports import make_report, make_result

PASSING = "1" * 20
REGRESSED = "1" * 10 + "0" * 8 + "11"


def push_baseline(server: GitHubServer, tmp_path: Path, outcomes: str = PASSING) -> ActionRun:
    sha = server.repo("octo/app").branches["main"]
    report = write_report(tmp_path / "base.json", make_report({"simple_python": outcomes}))
    return run_action(
        server, tmp_path, "push", server.push_event("octo/app", "main"), sha=sha, report=report
    )


def store_baseline(server: GitHubServer, outcomes: str = PASSING) -> None:
    """What a push run leaves behind: a check run on main carrying the digest."""
    from github import Auth, Github

    gh = Github(
        auth=Auth.Token("write-token"),
        base_url=server.url,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )
    sha = server.repo("octo/app").branches["main"]
    digest = make_digest(make_report({"simple_python": outcomes}))
    gh.get_repo("octo/app").create_check_run(
        DEFAULT_CHECK_NAME,
        sha,
        status="completed",
        conclusion="success",
        output={"title": "baseline", "summary": f"scores\n\n{digest}"},
    )


def run_pr(
    server: GitHubServer,
    tmp_path: Path,
    number: int,
    outcomes: str,
    *,
    in_process: bool = False,
    token: str = "write-token",
    workspace: Path | None = None,
    extra_env: dict[str, str] | None = None,
    **inputs: str,
) -> ActionRun:
    report = write_report(tmp_path / "head.json", make_report({"simple_python": outcomes}))
    event = server.pull_event("octo/app", number)
    return run_action(
        server,
        tmp_path,
        "pull_request",
        event,
        sha="e" * 40,  # the merge commit: results must not land on it
        token=token,
        in_process=in_process,
        workspace=workspace,
        report=report,
        **inputs,
    )


def test_push_publishes_a_check_run_carrying_the_digest(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    run = push_baseline(github_server, tmp_path)
    assert run.code == 0, run.stderr
    main_sha = github_server.repo("octo/app").branches["main"]
    [check] = github_server.check_runs_on("octo/app", main_sha)
    assert check["name"] == DEFAULT_CHECK_NAME
    assert check["conclusion"] == "success"
    assert "<!-- bfcl-action:digest v1 " in check["output"]["summary"]
    assert run.outputs["verdict"] == "no_baseline"
    assert run.outputs["score"] == "100.00"
    assert json.loads(run.outputs["categories"]) == {"simple_python": 100.0}
    assert run.outputs["check-run-id"] == str(check["id"])
    assert "simple_python" in run.summary
    assert github_server.calls("POST", r"/issues/\d+/comments") == []


def test_pr_regression_comments_checks_the_head_sha_and_fails_last(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    store_baseline(github_server)
    number = open_pr(github_server)
    head_sha = github_server.repo("octo/app").branches["feature"]
    write_tools(tmp_path / "pr")

    run = run_pr(github_server, tmp_path / "pr", number, REGRESSED, statuses="true")

    assert run.code == 1, run.stderr
    assert run.outputs["verdict"] == "regression"
    [comment] = github_server.comments_on("octo/app", number)
    assert comment["body"].startswith(comment_marker(DEFAULT_CHECK_NAME))
    assert "merge-base" in comment["body"]
    assert run.outputs["comment-id"] == str(comment["id"])
    [check] = github_server.check_runs_on("octo/app", head_sha)
    assert check["conclusion"] == "failure"
    assert github_server.check_runs_on("octo/app", "e" * 40) == []
    [note] = github_server.annotations_of("octo/app", check["id"])
    assert (note["path"], note["start_line"], note["annotation_level"]) == (
        "tools.json",
        2,
        "failure",
    )
    assert "get_value" in note["title"]
    statuses = github_server.latest_statuses("octo/app", head_sha)
    assert statuses[f"{DEFAULT_CHECK_NAME}/simple_python"]["state"] == "failure"
    assert "regression" in run.summary


def test_annotations_name_repository_root_paths_under_a_working_directory(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    store_baseline(github_server)
    number = open_pr(github_server)
    head_sha = github_server.repo("octo/app").branches["feature"]
    app = tmp_path / "examples" / "weather-app"
    write_tools(app)

    run = run_pr(github_server, app, number, REGRESSED, workspace=tmp_path)

    assert run.outputs["verdict"] == "regression", run.stderr
    [check] = github_server.check_runs_on("octo/app", head_sha)
    [note] = github_server.annotations_of("octo/app", check["id"])
    assert (note["path"], note["start_line"]) == ("examples/weather-app/tools.json", 2)


def test_next_push_to_the_pr_updates_the_same_comment(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    store_baseline(github_server)
    number = open_pr(github_server)
    first = run_pr(github_server, tmp_path / "pr1", number, REGRESSED)
    github_server.commit("octo/app", "feature", "fix the description")

    second = run_pr(github_server, tmp_path / "pr2", number, PASSING)

    comments = github_server.comments_on("octo/app", number)
    assert len(comments) == 1
    assert second.outputs["comment-id"] == first.outputs["comment-id"]
    assert "regression" not in comments[0]["body"].split("\n")[1].lower()
    assert second.code == 0
    assert len(github_server.calls("POST", r"/issues/\d+/comments$")) == 1
    assert len(github_server.calls("PATCH", r"/issues/comments/\d+$")) == 1


def test_sticky_comment_ignores_markers_in_other_authors_comments(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    number = open_pr(github_server)
    github_server.add_token("alice-token", "alice", kind="user")
    gh_issue_comment(
        github_server, number, "alice-token", comment_marker(DEFAULT_CHECK_NAME) + "\nmine"
    )

    run_pr(github_server, tmp_path, number, PASSING, in_process=True)

    bodies = {c["user"]["login"]: c["body"] for c in github_server.comments_on("octo/app", number)}
    assert bodies["alice"].endswith("mine")
    assert "github-actions[bot]" in bodies


def test_two_check_names_keep_two_comments(github_server: GitHubServer, tmp_path: Path) -> None:
    number = open_pr(github_server)
    for folder, name in (("a", "bfcl-small"), ("b", "bfcl-large"), ("c", "bfcl-small")):
        run_pr(github_server, tmp_path / folder, number, PASSING, check_name=name, in_process=True)
    assert len(github_server.comments_on("octo/app", number)) == 2


def test_comments_on_later_pages_are_found(github_server: GitHubServer, tmp_path: Path) -> None:
    number = open_pr(github_server)
    first = run_pr(github_server, tmp_path / "a", number, PASSING, in_process=True)
    for i in range(120):
        gh_issue_comment(github_server, number, "write-token", f"chatter {i}")
    second = run_pr(github_server, tmp_path / "b", number, PASSING, in_process=True)
    assert second.outputs["comment-id"] == first.outputs["comment-id"]
    assert len(github_server.comments_on("octo/app", number)) == 121


def test_pr_without_baseline_says_so_plainly(github_server: GitHubServer, tmp_path: Path) -> None:
    number = open_pr(github_server)
    run = run_pr(github_server, tmp_path, number, REGRESSED)
    assert run.code == 0, run.stderr
    assert run.outputs["verdict"] == "no_baseline"
    [comment] = github_server.comments_on("octo/app", number)
    assert "no baseline yet" in comment["body"]


def test_baseline_file_is_used_when_the_merge_base_has_no_check_run(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    number = open_pr(github_server)
    write_report(tmp_path / "baseline.json", make_report({"simple_python": PASSING}))
    run = run_pr(
        github_server, tmp_path, number, REGRESSED, baseline_file="baseline.json", in_process=True
    )
    assert run.outputs["verdict"] == "regression"
    assert "baseline.json" in github_server.comments_on("octo/app", number)[0]["body"]


def test_fork_pr_without_key_skips_with_a_notice(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    github_server.fork("octo/app", "mallory/app")
    github_server.commit("mallory/app", "patch")
    number = github_server.open_pull("octo/app", "patch", head_repo="mallory/app")["number"]
    event = github_server.pull_event("octo/app", number)

    run = run_action(
        github_server, tmp_path, "pull_request", event, token="read-token", model="gpt-4o-mini"
    )

    assert run.code == 0, run.stderr
    assert run.outputs["verdict"] == "skipped"
    assert "::notice" in run.stdout and "fork" in run.stdout
    assert "fork" in run.summary
    assert github_server.writes() == []


def test_same_repo_pr_without_key_leaves_a_neutral_check_run(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    number = open_pr(github_server)
    head_sha = github_server.repo("octo/app").branches["feature"]
    event = github_server.pull_event("octo/app", number)
    run = run_action(
        github_server, tmp_path, "pull_request", event, model="gpt-4o-mini", in_process=True
    )
    assert run.code == 0
    assert run.outputs["verdict"] == "skipped"
    [check] = github_server.check_runs_on("octo/app", head_sha)
    assert check["conclusion"] == "neutral"


def test_read_only_token_writes_the_comment_to_a_file(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    number = open_pr(github_server)
    run = run_pr(github_server, tmp_path, number, PASSING, token="read-token")

    assert run.code == 0, run.stderr
    folder = Path(run.outputs["comment-file"])
    assert (folder / "body.md").read_text().startswith("## ") or (folder / "body.md").stat().st_size
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["pull_request"] == number
    assert meta["conclusion"] == "success"
    assert "::warning" in run.stdout
    assert "403" in run.summary
    assert "simple_python" in run.summary
    assert github_server.comments_on("octo/app", number) == []


def test_workflow_run_posts_the_artifact_on_the_pr_found_through_the_api(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    github_server.fork("octo/app", "mallory/app")
    head_sha = github_server.commit("mallory/app", "patch")
    number = github_server.open_pull("octo/app", "patch", head_repo="mallory/app")["number"]
    report = write_report(tmp_path / "head.json", make_report({"simple_python": PASSING}))
    pr_run = run_action(
        github_server,
        tmp_path / "pr",
        "pull_request",
        github_server.pull_event("octo/app", number),
        token="read-token",
        report=str(tmp_path / report),
    )
    artifact = Path(pr_run.outputs["comment-file"])
    body = artifact / "body.md"
    body.write_text(body.read_text() + "\nping @octo/admins")
    event = github_server.fork_workflow_run_event("octo/app", head_sha, "mallory/app")

    run = run_action(
        github_server, tmp_path / "poster", "workflow_run", event, comment_artifact=str(artifact)
    )

    assert run.code == 0, run.stdout + run.stderr
    [comment] = github_server.comments_on("octo/app", number)
    assert comment["body"].startswith(comment_marker(DEFAULT_CHECK_NAME))
    assert "@octo/admins" not in comment["body"]
    assert run.outputs["comment-id"] == str(comment["id"])
    [check] = github_server.check_runs_on("octo/app", head_sha)
    assert check["conclusion"] == "neutral"  # a fork's artifact never claims success
    assert "bfcl-action:digest" not in check["output"]["summary"]  # no planted baselines


def test_github_errors_still_leave_the_report_in_summary_and_outputs(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    store_baseline(github_server)
    number = open_pr(github_server)
    github_server.fail(
        "POST",
        r"/issues/\d+/comments$",
        422,
        "Validation Failed",
        errors=[
            {
                "resource": "IssueComment",
                "code": "custom",
                "field": "body",
                "message": "body is too long (maximum is 65536 characters)",
            }
        ],
    )
    github_server.fail("POST", r"/check-runs$", 404, "Not Found")
    github_server.fail(
        "POST", r"/statuses/", 403, "Resource not accessible by integration", times=5
    )
    github_server.secondary_rate_limit("GET", r"/compare/", retry_after=1)

    run = run_pr(github_server, tmp_path / "pr", number, REGRESSED, statuses="true")

    assert run.code == 1
    assert run.outputs["verdict"] == "regression"
    assert run.outputs["score"] == "60.00"
    assert "merge-base" in run.summary  # the rate-limited compare call was retried
    assert "body is too long" in run.summary
    assert "check run" in run.summary and "404" in run.summary
    warnings = [line for line in run.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 3
    assert [c.status for c in github_server.calls("GET", r"/compare/")] == [403, 200]
    assert Path(run.outputs["comment-file"], "body.md").is_file()


def test_untrusted_text_cannot_start_a_workflow_command(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    number = open_pr(github_server)
    github_server.fail("POST", r"/issues/\d+/comments$", 403, "no\n::error::pwned")
    run = run_pr(github_server, tmp_path, number, PASSING, in_process=True)
    assert not any(line.startswith("::error") for line in run.stdout.splitlines())
    assert not re.search(r"^::error", run.summary, re.M)


def gh_issue_comment(server: GitHubServer, number: int, token: str, body: str) -> None:
    from github import Auth, Github

    gh = Github(
        auth=Auth.Token(token),
        base_url=server.url,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )
    gh.get_repo("octo/app").get_issue(number).create_comment(body)


def test_the_example_repository_end_to_end_with_the_replay_model(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """The real pipeline: own tools and cases, the runner with recorded answers, compare.

    The checkout is a git repository whose commits the server knows, so the comment can
    name the tool definition the PR changed (`get_forecast`).
    """
    example = ROOT / "examples" / "weather-app"
    if not (example / ".bfcl.yml").is_file():
        pytest.skip("examples/weather-app is not in this tree")
    workdir = tmp_path / "repo"
    shutil.copytree(example, workdir)
    for tool_file in (workdir / "baseline" / "tools").iterdir():  # main: the old tools
        shutil.copy(tool_file, workdir / "tools" / tool_file.name)
    # Same model name on both sides (else the runs are incomparable): main's answers first.
    shutil.copytree(workdir / "replay" / "base", workdir / "answers")
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "main")
    main_sha = github_server.commit(
        "octo/app", "main", "main", sha=git(workdir, "rev-parse", "HEAD")
    )
    push = run_action(
        github_server,
        workdir,
        "push",
        github_server.push_event("octo/app", "main"),
        sha=main_sha,
        model="replay:answers",
    )
    assert push.code == 0, push.stderr
    for tool_file in (example / "tools").iterdir():  # the PR: the rewritten description
        shutil.copy(tool_file, workdir / "tools" / tool_file.name)
    shutil.rmtree(workdir / "answers")
    shutil.copytree(workdir / "replay" / "head", workdir / "answers")
    git(workdir, "commit", "-q", "-am", "reword get_forecast")
    head_sha = github_server.commit("octo/app", "feature", sha=git(workdir, "rev-parse", "HEAD"))
    number = int(github_server.open_pull("octo/app", "feature")["number"])

    pr = run_action(
        github_server,
        workdir,
        "pull_request",
        github_server.pull_event("octo/app", number),
        sha="e" * 40,
        model="replay:answers",
    )

    assert pr.code == 1, pr.stderr
    assert pr.outputs["verdict"] == "regression"
    assert json.loads(pr.outputs["categories"])["own_multiple"] == 50.0
    [comment] = github_server.comments_on("octo/app", number)
    assert "own_multiple" in comment["body"]
    assert "involved in newly failing cases" in comment["body"]
    assert "get_forecast" in comment["body"]
    [check] = github_server.check_runs_on("octo/app", head_sha)
    notes = github_server.annotations_of("octo/app", check["id"])
    assert any(n["title"].startswith("get_forecast") for n in notes)
    assert all(n["path"].startswith("tools/") for n in notes if n["annotation_level"] == "failure")


def test_a_shard_job_runs_its_shard_and_publishes_nothing(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    example = ROOT / "examples" / "weather-app"
    if not (example / ".bfcl.yml").is_file():
        pytest.skip("examples/weather-app is not in this tree")
    workdir = tmp_path / "repo"
    shutil.copytree(example, workdir)
    number = open_pr(github_server)

    run = run_action(
        github_server,
        workdir,
        "pull_request",
        github_server.pull_event("octo/app", number),
        model="replay:replay/head",
        shard="1/2",
        in_process=True,
    )

    assert run.code == 0, run.stderr
    assert run.outputs["verdict"] == "shard"
    report = RunReport.model_validate_json(Path(run.outputs["report-path"]).read_text())
    assert report.shard == "1/2"
    assert github_server.writes() == []


def test_on_regression_mode_comments_only_once_something_regressed(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    store_baseline(github_server)
    number = open_pr(github_server)
    quiet = run_pr(
        github_server, tmp_path / "a", number, PASSING, comment="on-regression", in_process=True
    )
    assert github_server.comments_on("octo/app", number) == []
    assert quiet.outputs["comment-file"] == ""
    run_pr(
        github_server, tmp_path / "b", number, REGRESSED, comment="on-regression", in_process=True
    )
    fixed = run_pr(
        github_server, tmp_path / "c", number, PASSING, comment="on-regression", in_process=True
    )
    [comment] = github_server.comments_on("octo/app", number)
    assert fixed.outputs["comment-id"] == str(comment["id"])  # the fix is reported too


def test_a_rate_limited_comment_is_waited_out_and_posted_once(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    number = open_pr(github_server)
    github_server.secondary_rate_limit("POST", r"/issues/\d+/comments$", retry_after=1)
    run = run_pr(github_server, tmp_path, number, PASSING, in_process=True)
    assert run.code == 0
    assert len(github_server.comments_on("octo/app", number)) == 1
    assert [c.status for c in github_server.calls("POST", r"/issues/\d+/comments$")] == [403, 201]
    assert "::warning" not in run.stdout


def _counting_parses() -> tuple[list[str], Any]:
    """Patch `.bfcl.yml` parsing to count it (every loader goes through `parse_config`)."""
    import bfcl_action.settings.config as config_module

    calls: list[str] = []
    real = config_module.parse_config

    def counted(text: str, file: str = ".bfcl.yml") -> Any:
        calls.append(file)
        return real(text, file)

    return calls, mock.patch.object(config_module, "parse_config", counted)


def _example_checkout(github_server: GitHubServer, tmp_path: Path) -> tuple[Path, int]:
    example = ROOT / "examples" / "weather-app"
    if not (example / ".bfcl.yml").is_file():
        pytest.skip("examples/weather-app is not in this tree")
    workdir = tmp_path / "repo"
    shutil.copytree(example, workdir)
    return workdir, open_pr(github_server)


def test_the_action_parses_bfcl_yml_once_per_process(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """A pull-request run (own cases, run, thresholds, tool annotations, changed tools) and
    a push run each read `.bfcl.yml` once."""
    workdir, number = _example_checkout(github_server, tmp_path)
    calls, patch = _counting_parses()
    with patch:
        pr = run_action(
            github_server,
            workdir,
            "pull_request",
            github_server.pull_event("octo/app", number),
            model="replay:replay/head",
            in_process=True,
        )
        assert pr.code in (0, 1), pr.stderr
        assert calls == [".bfcl.yml"]
        calls.clear()
        push = run_action(
            github_server,
            workdir,
            "push",
            github_server.push_event("octo/app", "main"),
            model="replay:replay/head",
            in_process=True,
        )
    assert push.code == 0, push.stderr
    assert calls == [".bfcl.yml"]


def test_the_action_never_writes_the_api_key_into_the_environment(tmp_path: Path) -> None:
    """The key goes from the input to the backend as a value, not through os.environ."""
    from pydantic import SecretStr

    from bfcl_action.github.context import Inputs
    from bfcl_action.github.evaluate import Engine

    example = ROOT / "examples" / "weather-app"
    if not (example / ".bfcl.yml").is_file():
        pytest.skip("examples/weather-app is not in this tree")
    workdir = tmp_path / "repo"
    shutil.copytree(example, workdir)
    secret = "sk-test-never-in-environ"
    ctx = ActionContext(
        inputs=Inputs(
            working_directory=str(workdir), model="replay:replay/head", api_key=SecretStr(secret)
        )
    )
    given: list[str | None] = []
    real = evaluation.evaluate_models

    def spy(*args: Any, **kwargs: Any) -> Any:
        given.append(kwargs["api_keys"][""])
        assert secret not in os.environ.values()
        return real(*args, **kwargs)

    before = dict(os.environ)
    with mock.patch.object(evaluation, "evaluate_models", spy):
        [(_run, report)] = Engine().run_models(ctx, tmp_path / "report.json")
    assert given == [secret]
    assert dict(os.environ) == before
    assert secret not in (tmp_path / "report.json").read_text()
    assert report.results


CJK_QUESTION = "请查询东京明天的天气预报，并用摄氏度告诉我最高气温和最低气温。"
CJK_ANSWER = "东京明天晴，最高气温二十三摄氏度，最低气温十五摄氏度，适合出行。" * 3


def cjk_report(failing: int, total: int) -> RunReport:
    """`total` cases whose first `failing` fail with model text in Chinese."""
    results = [
        make_result(
            f"simple_python_{i}",
            "simple_python",
            "0" if i < failing else "1",
            question=f"{CJK_QUESTION}（第{i}题）",
            got=f"{CJK_ANSWER}（第{i}题）",
            error=f"参数 'x' 的值无效：应为 1，得到「{CJK_ANSWER}」",
        )
        for i in range(total)
    ]
    return make_report({}, results=results)


def test_push_then_pr_finds_the_baseline_under_the_jobs_own_check_run_and_fits_cjk(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    """The issue's proof: the job is named like the check (`bfcl`), so GitHub's own run of
    the job sits on the merge-base next to ours and completes after it; the PR regresses
    300 cases whose texts are Chinese (3 bytes a character)."""
    main_sha = github_server.repo("octo/app").branches["main"]
    base = write_report(tmp_path / "push" / "base.json", cjk_report(0, 320))
    pushed = run_action(
        github_server,
        tmp_path / "push",
        "push",
        github_server.push_event("octo/app", "main"),
        sha=main_sha,
        report=base,
        check_name="bfcl",
    )
    assert pushed.code == 0, pushed.stderr
    github_server.job_check_run("octo/app", main_sha, "bfcl")  # the job ends after the step
    number = open_pr(github_server)
    head_sha = github_server.repo("octo/app").branches["feature"]
    head = write_report(tmp_path / "pr" / "head.json", cjk_report(300, 320))

    run = run_action(
        github_server,
        tmp_path / "pr",
        "pull_request",
        github_server.pull_event("octo/app", number),
        sha="e" * 40,
        report=head,
        check_name="bfcl",
    )

    assert run.code == 1, run.stdout + run.stderr
    assert run.outputs["verdict"] == "regression"
    assert "could not" not in run.summary, run.summary
    [comment] = github_server.comments_on("octo/app", number)
    [where] = [line for line in comment["body"].splitlines() if line.startswith("> baseline:")]
    assert "merge-base commit" in where and main_sha[:12] in where
    assert CJK_QUESTION[:10] in comment["body"]
    [check] = github_server.check_runs_on("octo/app", head_sha)
    assert run.outputs["check-run-id"] == str(check["id"])
    assert check["conclusion"] == "failure"
    summary = check["output"]["summary"]
    assert CJK_ANSWER[:10] in summary
    assert len(summary.encode("utf-8")) <= 65_535 < len(run.summary.encode("utf-8"))
    assert "<!-- bfcl-action:digest v1 " in summary
    rejected = [c for c in github_server.calls("POST", r"/check-runs$") if c.status != 201]
    assert rejected == []
