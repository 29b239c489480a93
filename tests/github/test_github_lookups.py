"""A pull-request run makes its GitHub reads (repository, merge-base and its check run, the
comment author, the sticky comment) while the model answers (`bfcl_action.github.lookups`),
with the outcome of reading them after: a failed read is the same warning, a failed
evaluation leaves no thread and no GitHub write behind, and a comment another run posted
meanwhile is edited, not duplicated. The Action's entrypoint against the local GitHub and
OpenAI-compatible servers."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

from github import Auth, Github

from bfcl_action.cases.suites import build_cases
from bfcl_action.github.comment import comment_marker
from bfcl_action.github.context import DEFAULT_CHECK_NAME
from bfcl_action.settings.config import load_config
from tests.support.action import ActionRun, git, run_action
from tests.support.example_app import EXAMPLE, expected_calls, scripted_model
from tests.support.github_server import GitHubServer
from tests.support.openai_server import OpenAIServer

READS = {
    "repository": r"^/repos/octo/app$",
    "merge-base": r"/compare/",
    "check runs": r"/check-runs$",
    "author": r"^/user$",
    "comments": r"/issues/\d+/comments$",
}


def pull_request(server: GitHubServer, tmp_path: Path) -> tuple[Path, int, Any]:
    """The example app on main, a PR that rewords a tool; its workdir, number, and the
    scripted model's responder."""
    workdir = tmp_path / "repo"
    shutil.copytree(EXAMPLE, workdir, ignore=shutil.ignore_patterns("replay"))
    git(workdir, "init", "-q")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "main")
    server.commit("octo/app", "main", "main", sha=git(workdir, "rev-parse", "HEAD"))
    (workdir / "README.md").write_text("changed\n")
    git(workdir, "commit", "-q", "-am", "a change")
    server.commit("octo/app", "feature", sha=git(workdir, "rev-parse", "HEAD"))
    number = int(server.open_pull("octo/app", "feature")["number"])
    cases = build_cases(load_config(workdir / ".bfcl.yml"), base_dir=workdir)
    return workdir, number, scripted_model(expected_calls(cases))


def run_pr(
    server: GitHubServer, workdir: Path, number: int, model: OpenAIServer, **inputs: Any
) -> ActionRun:
    return run_action(
        server,
        workdir,
        "pull_request",
        server.pull_event("octo/app", number),
        sha="e" * 40,
        model="gpt-4o-mini",
        base_url=model.base_url,
        api_key="sk-local-test",
        **inputs,
    )


def seen(server: GitHubServer) -> set[str]:
    return {name for name, path in READS.items() if server.calls("GET", path)}


def test_the_github_reads_are_made_while_the_model_answers(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    workdir, number, respond = pull_request(github_server, tmp_path)
    at_each_request: list[set[str]] = []

    def noting(body: dict[str, Any]) -> Any:
        at_each_request.append(seen(github_server))
        return respond(body)

    with OpenAIServer(latency=0.3) as model:
        model.responder = noting
        run = run_pr(github_server, workdir, number, model)
    assert run.code == 0, run.stderr
    assert len(at_each_request) > 8  # more rounds than one at the default concurrency
    assert at_each_request[-1] == set(READS)  # every read done before the last question
    assert len(github_server.comments_on("octo/app", number)) == 1


def test_a_read_that_fails_during_the_model_calls_is_the_same_warning_after_them(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    workdir, number, respond = pull_request(github_server, tmp_path)
    github_server.fail("GET", r"/compare/", 404, "Not Found")
    with OpenAIServer(latency=0.05) as model:
        model.responder = respond
        run = run_pr(github_server, workdir, number, model)
    assert run.code == 0, run.stderr
    assert "Traceback" not in run.stderr
    warnings = [line for line in run.stdout.splitlines() if line.startswith("::warning")]
    assert warnings == [
        "::warning title=bfcl-action::could not read the merge-base check run: 404 Not Found"
    ]
    assert "could not read the merge-base check run: 404 Not Found" in run.summary
    assert "no baseline yet" in run.summary
    [comment] = github_server.comments_on("octo/app", number)  # the rest is still posted
    assert "no baseline yet" in comment["body"]
    assert run.outputs["check-run-id"]


def test_a_failed_evaluation_stops_the_reads_and_leaves_no_thread_or_write(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    workdir, number, respond = pull_request(github_server, tmp_path)
    # the merge-base read is waiting out a rate limit when the model refuses the key
    github_server.secondary_rate_limit("GET", r"/compare/", retry_after=3)
    with OpenAIServer() as model:
        model.api_key = "sk-the-right-one"
        model.responder = respond
        run = run_pr(github_server, workdir, number, model, in_process=True)
    assert run.code == 2, run.stderr
    assert "rejected the API key" in run.stderr and "Traceback" not in run.stderr
    assert not [t for t in threading.enumerate() if t.name.startswith("bfcl-github-lookups")]
    assert github_server.writes() == []
    assert not github_server.calls("GET", READS["comments"])  # reads not begun were dropped


def test_a_comment_another_run_posted_during_the_model_calls_is_edited_not_duplicated(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    workdir, number, respond = pull_request(github_server, tmp_path)
    other_run = Github(auth=Auth.Token("write-token"), base_url=github_server.url)
    posted: list[int] = []

    def racing(body: dict[str, Any]) -> Any:
        deadline = time.monotonic() + 10
        while not posted and time.monotonic() < deadline:
            if github_server.calls("GET", READS["comments"]):  # searched, found none
                issue = other_run.get_repo("octo/app").get_issue(number)
                marker = comment_marker(DEFAULT_CHECK_NAME)
                posted.append(issue.create_comment(f"{marker}\nfrom another run").id)
            else:
                time.sleep(0.01)
        return respond(body)

    with OpenAIServer() as model:
        model.responder = racing
        run = run_pr(github_server, workdir, number, model)
    assert run.code == 0, run.stderr
    [comment] = github_server.comments_on("octo/app", number)
    assert comment["id"] == posted[0] and "from another run" not in comment["body"]
