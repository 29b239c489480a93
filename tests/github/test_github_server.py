"""The local GitHub server behaves like GitHub for what PyGithub calls (tests/support)."""

from __future__ import annotations

from typing import Any

import github
import pytest
from github import Auth, Github, GithubException

from tests.support.github_server import GitHubServer


def client(server: GitHubServer, token: str = "write-token", **kwargs: Any) -> Github:
    """PyGithub without its default throttle (0.25 s between requests, 1 s between writes)."""
    kwargs.setdefault("retry", None)
    return Github(
        auth=Auth.Token(token),
        base_url=server.url,
        seconds_between_requests=0,
        seconds_between_writes=0,
        **kwargs,
    )


def test_pull_request_reports_head_and_base_shas(github_server: GitHubServer) -> None:
    head = github_server.commit("octo/app", "feature")
    pr = github_server.open_pull("octo/app", "feature")
    pull = client(github_server).get_repo("octo/app").get_pull(pr["number"])
    assert pull.head.sha == head
    assert pull.base.sha == github_server.repo("octo/app").branches["main"]
    assert pull.base.repo.full_name == "octo/app"


def test_compare_gives_the_merge_base_of_diverged_branches(github_server: GitHubServer) -> None:
    fork_point = github_server.repo("octo/app").branches["main"]
    github_server.commit("octo/app", "feature")
    github_server.commit("octo/app", "main")
    head = github_server.commit("octo/app", "feature")
    repo = client(github_server).get_repo("octo/app")
    comparison = repo.compare("main", head)
    assert comparison.merge_base_commit.sha == fork_point
    assert comparison.status == "diverged"
    assert (comparison.ahead_by, comparison.behind_by) == (2, 1)


def test_issue_comments_paginate_with_link_headers(github_server: GitHubServer) -> None:
    github_server.commit("octo/app", "feature")
    number = github_server.open_pull("octo/app", "feature")["number"]
    gh = client(github_server, per_page=2)
    issue = gh.get_repo("octo/app").get_issue(number)
    for i in range(5):
        issue.create_comment(f"comment {i}")
    bodies = [c.body for c in issue.get_comments()]
    assert bodies == [f"comment {i}" for i in range(5)]
    assert len(github_server.calls("GET", r"/issues/\d+/comments$")) == 3


def test_comment_edit_changes_the_body_in_place(github_server: GitHubServer) -> None:
    issue = client(github_server).get_repo("octo/app").create_issue("t")
    comment = issue.create_comment("one")
    comment.edit("two")
    assert [c["body"] for c in github_server.comments_on("octo/app", issue.number)] == ["two"]


def test_comment_over_65536_chars_is_rejected_as_too_long(github_server: GitHubServer) -> None:
    issue = client(github_server).get_repo("octo/app").create_issue("t")
    with pytest.raises(GithubException) as err:
        issue.create_comment("x" * 65_537)
    assert err.value.status == 422
    assert "body is too long" in str(err.value.data)


def test_read_only_token_gets_403_on_writes_but_can_read(github_server: GitHubServer) -> None:
    repo = client(github_server, "read-token").get_repo("octo/app")
    with pytest.raises(GithubException) as err:
        repo.create_issue("t")
    assert err.value.status == 403
    assert repo.default_branch == "main"


def test_unknown_token_gets_401(github_server: GitHubServer) -> None:
    with pytest.raises(GithubException) as err:
        client(github_server, "nope").get_repo("octo/app")
    assert err.value.status == 401


def test_app_tokens_cannot_read_the_authenticated_user(github_server: GitHubServer) -> None:
    with pytest.raises(GithubException) as err:
        _ = client(github_server).get_user().login
    assert err.value.status == 403
    github_server.add_token("pat", "alice", kind="user")
    assert client(github_server, "pat").get_user().login == "alice"


def test_check_run_lifecycle_with_annotations_appended_per_update(
    github_server: GitHubServer,
) -> None:
    sha = github_server.commit("octo/app", "feature")
    repo = client(github_server).get_repo("octo/app")
    ann = {
        "path": "tools.json",
        "start_line": 3,
        "end_line": 3,
        "annotation_level": "failure",
        "message": "m",
    }
    run = repo.create_check_run(
        "bfcl",
        sha,
        status="in_progress",
        output={"title": "t", "summary": "s", "annotations": [ann] * 50},
    )
    run.edit(output={"title": "t", "summary": "s2", "annotations": [ann] * 7}, conclusion="failure")
    listed = list(repo.get_commit(sha).get_check_runs(check_name="bfcl"))
    assert [r.id for r in listed] == [run.id]
    assert listed[0].conclusion == "failure"
    assert listed[0].output.summary == "s2"
    assert listed[0].output.annotations_count == 57
    assert len(list(run.get_annotations())) == 57


def test_check_run_rejects_51_annotations_and_long_summaries(github_server: GitHubServer) -> None:
    sha = github_server.commit("octo/app", "feature")
    repo = client(github_server).get_repo("octo/app")
    ann = {
        "path": "a",
        "start_line": 1,
        "end_line": 1,
        "annotation_level": "notice",
        "message": "m",
    }
    for output in (
        {"title": "t", "summary": "s", "annotations": [ann] * 51},
        {"title": "t", "summary": "x" * 65_536},
    ):
        with pytest.raises(GithubException) as err:
            repo.create_check_run("bfcl", sha, output=output)
        assert err.value.status == 422


def test_statuses_are_listed_newest_first_and_combined(github_server: GitHubServer) -> None:
    sha = github_server.commit("octo/app", "feature")
    commit = client(github_server).get_repo("octo/app").get_commit(sha)
    commit.create_status("pending", context="bfcl/simple")
    commit.create_status("success", context="bfcl/simple", description="90%")
    assert [s.state for s in commit.get_statuses()] == ["success", "pending"]
    assert commit.get_combined_status().state == "success"


def test_issues_are_listed_by_label_and_closed(github_server: GitHubServer) -> None:
    repo = client(github_server).get_repo("octo/app")
    alert = repo.create_issue("alert", labels=["bfcl-alert"])
    repo.create_issue("other")
    assert [i.number for i in repo.get_issues(labels=["bfcl-alert"])] == [alert.number]
    alert.edit(state="closed")
    assert list(repo.get_issues(labels=["bfcl-alert"])) == []
    assert [i.number for i in repo.get_issues(state="closed")] == [alert.number]


def test_pulls_can_be_created_from_a_new_branch_listed_and_updated(
    github_server: GitHubServer,
) -> None:
    repo = client(github_server).get_repo("octo/app")
    main = repo.get_branch("main").commit.sha
    repo.create_git_ref("refs/heads/live-2026-w48", main)
    github_server.commit("octo/app", "live-2026-w48")
    pr = repo.create_pull(title="Live", body="b", head="live-2026-w48", base="main")
    assert [p.number for p in repo.get_pulls(head="octo:live-2026-w48")] == [pr.number]
    pr.edit(body="updated")
    assert repo.get_pull(pr.number).body == "updated"
    with pytest.raises(GithubException) as err:
        repo.create_pull(title="again", body="", head="live-2026-w48", base="main")
    assert err.value.status == 422


def test_fork_pull_request_has_a_fork_head_repo(github_server: GitHubServer) -> None:
    github_server.fork("octo/app", "mallory/app")
    sha = github_server.commit("mallory/app", "patch")
    pr = github_server.open_pull("octo/app", "patch", head_repo="mallory/app")
    event = github_server.pull_event("octo/app", pr["number"])
    assert event["pull_request"]["head"]["repo"]["fork"] is True
    assert event["pull_request"]["head"]["sha"] == sha
    pull = client(github_server).get_repo("octo/app").get_pull(pr["number"])
    assert pull.head.repo.full_name == "mallory/app"


def test_injected_fault_replies_once_then_recovers(github_server: GitHubServer) -> None:
    github_server.fail("GET", r"^/repos/octo/app$", 404, "Not Found")
    gh = client(github_server)
    with pytest.raises(GithubException) as err:
        gh.get_repo("octo/app")
    assert err.value.status == 404
    assert gh.get_repo("octo/app").full_name == "octo/app"


def test_secondary_rate_limit_is_retried_after_retry_after(github_server: GitHubServer) -> None:
    github_server.secondary_rate_limit("POST", r"/issues$", retry_after=0)
    gh = client(github_server, retry=github.GithubRetry(total=3, secondary_rate_wait=0))
    issue = gh.get_repo("octo/app").create_issue("after limit")
    assert issue.title == "after limit"
    assert [r.status for r in github_server.calls("POST", r"/issues$")] == [403, 201]
