"""The baseline check run is found whatever else runs on the commit.

GitHub Actions gives every job a check run named after the job, completed after the steps'
own runs; the lookup must not be fooled by it, nor by list order.
"""

from __future__ import annotations

from typing import Any

from github import Auth, Github
from github.Repository import Repository

from bfcl_action.github.checks import find_digest_text
from tests.support.github_server import GitHubServer

DIGEST = "<!-- bfcl-action:digest v1 {} -->"


def repo_of(server: GitHubServer) -> Repository:
    gh = Github(
        auth=Auth.Token("write-token"),
        base_url=server.url,
        seconds_between_requests=0,
        seconds_between_writes=0,
        retry=None,
    )
    return gh.get_repo("octo/app")


def check_run(repo: Repository, sha: str, name: str, summary: str, **kwargs: Any) -> int:
    kwargs.setdefault("status", "completed")
    if kwargs["status"] == "completed":
        kwargs.setdefault("conclusion", "success")
    run = repo.create_check_run(name, sha, output={"title": "t", "summary": summary}, **kwargs)
    return int(run.id)


def test_filter_latest_returns_the_jobs_run_and_filter_all_returns_both(
    github_server: GitHubServer,
) -> None:
    repo = repo_of(github_server)
    sha = repo.get_branch("main").commit.sha
    ours = check_run(repo, sha, "bfcl", DIGEST.format("A"))
    job = github_server.job_check_run("octo/app", sha, "bfcl")["id"]
    commit = repo.get_commit(sha)
    assert [r.id for r in commit.get_check_runs(check_name="bfcl")] == [job]
    assert sorted(r.id for r in commit.get_check_runs(check_name="bfcl", filter="all")) == [
        ours,
        job,
    ]


def test_the_digest_is_found_under_the_jobs_same_named_run(github_server: GitHubServer) -> None:
    repo = repo_of(github_server)
    sha = repo.get_branch("main").commit.sha
    check_run(repo, sha, "bfcl", "scores\n\n" + DIGEST.format("A"))
    github_server.job_check_run("octo/app", sha, "bfcl")
    assert find_digest_text(repo, sha, "bfcl") == "scores\n\n" + DIGEST.format("A")


def test_the_newest_completed_run_wins_not_the_first_listed(github_server: GitHubServer) -> None:
    repo = repo_of(github_server)
    sha = repo.get_branch("main").commit.sha
    check_run(repo, sha, "bfcl-action", DIGEST.format("FIRST"))
    check_run(repo, sha, "bfcl-action", DIGEST.format("SECOND"))
    listed = list(repo.get_commit(sha).get_check_runs(check_name="bfcl-action", filter="all"))
    assert DIGEST.format("FIRST") in listed[0].output.summary  # creation order, oldest first
    assert find_digest_text(repo, sha, "bfcl-action") == DIGEST.format("SECOND")


def test_a_run_that_completes_last_wins_even_if_created_first(
    github_server: GitHubServer,
) -> None:
    repo = repo_of(github_server)
    sha = repo.get_branch("main").commit.sha
    late = check_run(repo, sha, "bfcl-action", DIGEST.format("LATE"), status="in_progress")
    check_run(repo, sha, "bfcl-action", DIGEST.format("EARLY"))
    repo.get_check_run(late).edit(conclusion="success")
    assert find_digest_text(repo, sha, "bfcl-action") == DIGEST.format("LATE")


def test_runs_still_in_progress_and_runs_without_a_digest_are_skipped(
    github_server: GitHubServer,
) -> None:
    repo = repo_of(github_server)
    sha = repo.get_branch("main").commit.sha
    check_run(repo, sha, "bfcl-action", DIGEST.format("A"))
    check_run(repo, sha, "bfcl-action", DIGEST.format("B"), status="in_progress")
    check_run(repo, sha, "bfcl-action", "skipped: no API key", conclusion="neutral")
    assert find_digest_text(repo, sha, "bfcl-action") == DIGEST.format("A")


def test_a_baseline_stored_under_the_old_default_name_is_still_found(
    github_server: GitHubServer,
) -> None:
    """Upgrading from the `bfcl` default keeps the baseline; the job's own `bfcl` run (no
    digest) is not mistaken for it."""
    repo = repo_of(github_server)
    sha = repo.get_branch("main").commit.sha
    check_run(repo, sha, "bfcl", "old\n\n" + DIGEST.format("OLD"))
    github_server.job_check_run("octo/app", sha, "bfcl")
    assert find_digest_text(repo, sha, "bfcl-action") == "old\n\n" + DIGEST.format("OLD")
    check_run(repo, sha, "bfcl-action", DIGEST.format("NEW"))
    assert find_digest_text(repo, sha, "bfcl-action") == DIGEST.format("NEW")
    assert find_digest_text(repo, sha, "my-check") is None
