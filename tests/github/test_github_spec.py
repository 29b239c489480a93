"""The local GitHub server is held to GitHub's REST description (`@octokit/openapi`, pinned,
vendored as a subset): every exchange a test makes is checked when its server stops, and the
checker itself catches each kind of drift."""

from __future__ import annotations

import json

import pytest
from github import Auth, Github

from tests.support.github_openapi import (
    OPERATIONS,
    SUBSET,
    TARBALL_SHA256,
    VERSION,
    vendored_validator,
)
from tests.support.github_server import GitHubServer, running_github_server

CHECK_RUNS = "/repos/octo/app/check-runs"


def test_the_vendored_subset_is_the_pinned_release_and_covers_every_route() -> None:
    subset = json.loads(SUBSET.read_text(encoding="utf-8"))
    assert subset["info"]["x-subset-of"] == {
        "package": "@octokit/openapi",
        "version": VERSION,
        "sha256": TARBALL_SHA256,
    }
    assert {(m, t) for t, ops in subset["paths"].items() for m in ops} == set(OPERATIONS)


def test_an_operation_github_does_not_have_is_drift() -> None:
    [problem] = vendored_validator().problems("GET", "/repos/octo/app/no-such-thing", None, 200, {})
    assert "no such operation" in problem


def test_a_reply_of_the_wrong_type_is_drift() -> None:
    problems = vendored_validator().problems(
        "GET", "/repos/octo/app/check-runs/7", None, 200, {"id": "seven", "head_sha": 1}
    )
    assert any("'seven' is not of type 'integer'" in p for p in problems)
    assert any("'name' is a required property" in p for p in problems)


def test_accepting_a_request_github_rejects_is_drift() -> None:
    too_many = [
        {"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "m"}
    ] * 51
    request = {
        "name": "x",
        "head_sha": "a" * 40,
        "output": {"title": "t", "summary": "s", "annotations": too_many},
    }
    validator = vendored_validator()
    accepted = validator.problems("POST", CHECK_RUNS, request, 201, None)
    assert any("request body GitHub rejects" in p and "maxItems: 50" in p for p in accepted)
    assert validator.problems("POST", CHECK_RUNS, request, 422, {"message": "Invalid"}) == []


def test_an_undocumented_success_status_is_drift() -> None:
    [problem] = vendored_validator().problems("GET", "/repos/octo/app", None, 202, {})
    assert "status 202 is not documented" in problem


def test_a_server_that_drifts_fails_the_test_that_used_it() -> None:
    server = GitHubServer()
    with pytest.raises(AssertionError, match="drifted from GitHub's REST description"), server:
        server.add_repo("octo/app")
        server.add_token("write-token")
        server._route("GET", "/repos/{owner}/{repo}/made-up", lambda ctx: {"ok": True})
        gh = Github(auth=Auth.Token("write-token"), base_url=server.url, retry=None)
        gh.requester.requestJsonAndCheck("GET", f"{server.url}/repos/octo/app/made-up")


def test_replies_carry_every_required_field_of_the_description() -> None:
    with running_github_server() as server:
        gh = Github(
            auth=Auth.Token("write-token"),
            base_url=server.url,
            seconds_between_requests=0,
            seconds_between_writes=0,
        )
        repo = gh.get_repo("octo/app")
        [record] = server.calls("GET", r"^/repos/octo/app$")
        assert record.response["full_name"] == "octo/app"  # what the server models, kept
        assert "archive_url" in record.response  # what it does not, filled to GitHub's shape
        assert repo.full_name == "octo/app"
        assert server.spec_problems() == []
