"""Issue 23 item 10: one Markdown defuser (`escape.defuse_references`) for every text that
reaches GitHub: matrix labels in a `<summary>`, the `workflow_run` poster's artifact body and
summary. Mentions, `#n`, `GH-n`, `owner/repo#n`, bare URLs and HTML stay inert; a fork
artifact's conclusion is capped at `neutral`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bfcl_action.github.activities import artifact_conclusion, untrusted_summary
from bfcl_action.safety.escape import ZWJ, html_text, md_inline, untrusted_markdown
from tests.support.action import run_action
from tests.support.github_server import GitHubServer

HOSTILE = "GH-1 #2 owner/repo#3 @octo/admins https://evil.example www.evil.example <img src=x>"


def assert_inert(text: str) -> None:
    assert not re.search(r"(?i)\bGH-\d", text)
    assert not re.search(r"#\d", text)
    assert not re.search(r"@[A-Za-z0-9]", text)
    assert not re.search(r"(?i)\b(https?|www)(://|\.)", text)
    assert "<img" not in text


@pytest.mark.parametrize("defuse", [md_inline, html_text, untrusted_markdown, untrusted_summary])
def test_every_defuser_leaves_no_live_reference(defuse: object) -> None:
    assert callable(defuse)
    assert_inert(defuse(HOSTILE))


def test_a_matrix_label_in_a_summary_links_no_issue() -> None:
    """The `<summary>` path used to escape HTML and `@` only: `GH-1` linked issue 1."""
    assert html_text("GH-1") == "GH" + ZWJ + "-1"


def test_untrusted_markdown_keeps_our_layout_tags_only() -> None:
    text = untrusted_markdown("<details open><summary>s</summary>\n<b>x</b><script>y</script>")
    assert text.startswith("<details open><summary>s</summary>")
    assert "<b>x</b>" in text and "<script>" not in text and "&lt;script>" in text


@pytest.mark.parametrize(
    ("claimed", "head", "expected"),
    [
        ("success", "mallory/app", "neutral"),
        ("success", "", "neutral"),
        ("success", "octo/app", "success"),
        ("failure", "mallory/app", "failure"),
        ("neutral", "mallory/app", "neutral"),
        ("action_required", "octo/app", None),
    ],
)
def test_a_fork_artifact_conclusion_is_capped_at_neutral(
    claimed: str, head: str, expected: str | None
) -> None:
    assert artifact_conclusion(claimed, head_repo=head, repository="octo/app") == expected


def test_the_workflow_run_poster_publishes_a_fork_artifact_inert(
    github_server: GitHubServer, tmp_path: Path
) -> None:
    github_server.fork("octo/app", "mallory/app")
    head_sha = github_server.commit("mallory/app", "patch")
    number = github_server.open_pull("octo/app", "patch", head_repo="mallory/app")["number"]
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / "body.md").write_text(f"## Result\n{HOSTILE}\n[click](https://evil.example)\n")
    (artifact / "meta.json").write_text(
        json.dumps({"conclusion": "success", "summary": HOSTILE, "title": "all good"})
    )
    event = github_server.fork_workflow_run_event("octo/app", head_sha, "mallory/app")
    run = run_action(
        github_server, tmp_path / "poster", "workflow_run", event, comment_artifact=str(artifact)
    )
    assert run.code == 0, run.stdout + run.stderr
    [comment] = github_server.comments_on("octo/app", number)
    assert "## Result" in comment["body"]  # the document's own Markdown stays
    assert_inert(comment["body"])
    [check] = github_server.check_runs_on("octo/app", head_sha)
    assert check["conclusion"] == "neutral"
    assert_inert(check["output"]["summary"])
