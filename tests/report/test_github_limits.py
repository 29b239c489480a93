"""GitHub's size limits, each in the unit GitHub counts, and the local server enforcing them."""

from __future__ import annotations

import pytest
from github import Auth, Github, GithubException
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.github.checks import Annotation, publish_check_run, summary_with_digest
from bfcl_action.github.comment import comment_marker, with_marker
from bfcl_action.report import github_limits as limits
from tests.support.github_server import GitHubServer

CJK = "函数调用回归测试天气预报"


def repo_of(server: GitHubServer) -> object:
    gh = Github(
        auth=Auth.Token("write-token"),
        base_url=server.url,
        seconds_between_requests=0,
        seconds_between_writes=0,
        retry=None,
    )
    return gh.get_repo("octo/app")


def test_check_output_is_counted_in_bytes_and_comments_in_characters() -> None:
    assert (limits.CHECK_OUTPUT.size, limits.CHECK_OUTPUT.unit) == (65_535, "bytes")
    assert (limits.ANNOTATION_MESSAGE.size, limits.ANNOTATION_MESSAGE.unit) == (65_536, "bytes")
    assert (limits.COMMENT_BODY.size, limits.COMMENT_BODY.unit) == (65_536, "chars")
    assert (limits.JOB_SUMMARY.size, limits.JOB_SUMMARY.unit) == (1_048_576, "bytes")


@given(st.text(), st.integers(min_value=0, max_value=200), st.sampled_from(["", "…", " (cut)"]))
def test_fit_bytes_stays_within_the_limit_on_a_character_boundary(
    text: str, limit: int, note: str
) -> None:
    fitted = limits.fit_bytes(text, limit, note)
    assert limits.utf8_len(fitted) <= limit or limits.utf8_len(text) <= limit
    if limits.utf8_len(text) <= limit:
        assert fitted == text
    elif len(note.encode()) < limit:
        assert fitted.endswith(note)
        assert text.startswith(fitted[: len(fitted) - len(note)])


def test_a_cjk_summary_that_fits_by_characters_is_cut_by_bytes() -> None:
    digest = "<!-- bfcl-action:digest v1 QUJD -->"
    markdown = CJK * 5_000  # 60,000 characters, 180,000 bytes
    text = summary_with_digest(markdown, digest)
    assert limits.utf8_len(text) <= 65_535
    assert text.endswith(digest)
    assert "truncated" in text


def test_comment_is_cut_by_characters_so_cjk_keeps_its_full_length() -> None:
    text = with_marker(CJK * 7_000, "bfcl-action")
    assert len(text) == 65_536
    assert text.startswith(comment_marker("bfcl-action"))
    assert text.endswith("job summary._\n")


def test_the_server_rejects_a_summary_over_65535_bytes_like_github(
    github_server: GitHubServer,
) -> None:
    sha = github_server.commit("octo/app", "feature")
    repo = repo_of(github_server)
    summary = CJK * 2_000  # 24,000 characters, 72,000 bytes
    with pytest.raises(GithubException) as err:
        repo.create_check_run(  # type: ignore[attr-defined]
            "bfcl-action", sha, output={"title": "t", "summary": summary}
        )
    assert err.value.status == 422
    assert "exceeds a maximum bytesize of 65535" in str(err.value.data)


def test_publish_check_run_fits_a_cjk_summary_and_long_annotations(
    github_server: GitHubServer,
) -> None:
    sha = github_server.commit("octo/app", "feature")
    note = Annotation(path="tools.json", title=CJK * 30, message=CJK * 3_000)
    run = publish_check_run(
        repo_of(github_server),  # type: ignore[arg-type]
        sha,
        "bfcl-action",
        conclusion="failure",
        title=CJK * 40,
        summary=CJK * 2_000,
        annotations=[note],
    )
    [stored] = github_server.check_runs_on("octo/app", sha)
    assert stored["id"] == run.id
    assert limits.utf8_len(stored["output"]["summary"]) <= 65_535
    assert len(stored["output"]["title"]) <= 255
    [posted] = github_server.annotations_of("octo/app", run.id)
    assert limits.utf8_len(posted["message"]) <= 64 * 1024
    assert len(posted["title"]) <= 255
