"""Publishing a release: a real git remote (bare repo) and the local GitHub REST server."""

import json
import os
from collections.abc import Iterator
from pathlib import Path

import git
import pytest
from github import Auth, Github

from curation.build import build
from curation.cli import main
from curation.intake import Intake
from curation.issue_forms import add_issues
from curation.publish import PR_MARKER, publish
from curation.sources import contributions_since_release
from curation.verify import verify_live_dir
from tests.support.curation import contribution
from tests.support.github_server import GitHubServer, running_github_server

REPO = "acme/tools"
TOKEN = "pat-live-bot"


@pytest.fixture
def server() -> Iterator[GitHubServer]:
    with running_github_server() as srv:
        srv.add_repo(REPO)
        srv.add_token(TOKEN, "live-bot", kind="user")
        yield srv


@pytest.fixture
def checkout(tmp_path: Path) -> git.Repo:
    remote = git.Repo.init(tmp_path / "remote.git", bare=True, initial_branch="main")
    repo = git.Repo.init(tmp_path / "work", initial_branch="main")
    with repo.config_writer() as cfg:
        cfg.set_value("user", "name", "Maintainer")
        cfg.set_value("user", "email", "m@example.com")
    root = Path(repo.working_tree_dir or "")
    (root / "contributions").mkdir()
    (root / "contributions" / "first.jsonl").write_text(json.dumps(contribution()) + "\n")
    repo.git.add(A=True)
    repo.index.commit("initial")
    repo.create_remote("origin", str(remote.working_dir))
    repo.git.push("origin", "main")
    return repo


def _build(repo: git.Repo, version: str) -> Path:
    root = Path(repo.working_tree_dir or "")
    live = root / "data" / "live"
    intake = Intake()
    for path in contributions_since_release(root, live):
        intake.add_file(path)
    report = build(
        live_dir=live, items=intake.items, intake_drops=intake.drops, references=[], version=version
    )
    out = root.parent / f"report-{version}.json"
    out.write_text(report.model_dump_json())
    return out


def _publish(repo: git.Repo, report: Path, server: GitHubServer) -> dict:  # type: ignore[type-arg]
    root = Path(repo.working_tree_dir or "")
    os.environ["BFCL_CURATE_TOKEN"] = TOKEN
    try:
        return publish(
            repo_dir=root,
            live_dir=root / "data" / "live",
            report_path=report,
            repository=REPO,
            api_url=server.url,
        )
    finally:
        del os.environ["BFCL_CURATE_TOKEN"]


def _open_data_prs(server: GitHubServer) -> list:  # type: ignore[type-arg]
    gh = Github(auth=Auth.Token(TOKEN), base_url=server.url)
    return [p for p in gh.get_repo(REPO).get_pulls(state="open") if PR_MARKER in (p.body or "")]


def test_publish_pushes_the_branch_and_opens_one_pr_with_the_funnel(
    checkout: git.Repo, server: GitHubServer
) -> None:
    report = _build(checkout, "2026-W49")
    server.commit(REPO, "live-data/2026-W49")  # GitHub learns of the branch from the push
    result = _publish(checkout, report, server)
    assert result["published"] and result["action"] == "created"
    heads = checkout.git.ls_remote("--heads", "origin").split()
    assert "refs/heads/live-data/2026-W49" in heads
    (pr,) = _open_data_prs(server)
    assert pr.title == "Live data 2026-W49"
    assert "| validate | 1 | 1 | - |" in pr.body and "| live_simple | 1 |" in pr.body


def test_publishing_again_updates_the_same_pr(checkout: git.Repo, server: GitHubServer) -> None:
    report = _build(checkout, "2026-W49")
    server.commit(REPO, "live-data/2026-W49")
    _publish(checkout, report, server)
    checkout.git.checkout("main")  # a second run in the same week starts from main again
    again = _publish(checkout, _build(checkout, "2026-W49"), server)
    assert again["action"] == "updated"
    assert len(_open_data_prs(server)) == 1


def test_nothing_new_means_no_push_and_no_pr(checkout: git.Repo, server: GitHubServer) -> None:
    root = Path(checkout.working_tree_dir or "")
    first = _build(checkout, "2026-W49")
    checkout.git.add(A=True)
    checkout.index.commit("release 2026-W49")
    second = _build(checkout, "2026-W50")
    assert json.loads(second.read_text())["released"] is False
    result = _publish(checkout, second, server)
    assert result == {"published": False, "reason": "nothing new to publish"}
    assert server.writes() == []
    assert first.exists() and (root / "data" / "live" / "LATEST").read_text().strip() == "2026-W49"


def test_only_contributions_added_since_the_release_are_picked_up(checkout: git.Repo) -> None:
    root = Path(checkout.working_tree_dir or "")
    _build(checkout, "2026-W49")
    checkout.git.add(A=True)
    checkout.index.commit("release 2026-W49")
    (root / "contributions" / "second.jsonl").write_text(
        json.dumps(
            contribution("Is it snowing in Oslo?", ground_truth=[{"get_weather": {"city": "Oslo"}}])
        )
        + "\n"
    )
    checkout.git.add(A=True)
    checkout.index.commit("a new contribution")
    found = contributions_since_release(root, root / "data" / "live")
    assert [p.name for p in found] == ["second.jsonl"]


def test_verify_catches_a_released_file_changed_in_a_later_commit(checkout: git.Repo) -> None:
    root = Path(checkout.working_tree_dir or "")
    _build(checkout, "2026-W49")
    checkout.git.add(A=True)
    checkout.index.commit("release 2026-W49")
    live = root / "data" / "live"
    assert verify_live_dir(live) == []
    card = live / "releases" / "2026-W49" / "README.md"
    card.write_text(card.read_text() + "edited\n")
    checkout.git.add(A=True)
    checkout.index.commit("sneaky edit")
    problems = verify_live_dir(live)
    assert any("README.md: changed after release 2026-W49" in p for p in problems)


def test_issue_form_contributions_are_read_by_label(server: GitHubServer) -> None:
    body = (
        "### Question\n\nWhat's the weather in Lima?\n\n### Functions\n\n```json\n"
        + json.dumps(
            [
                {
                    "name": "get_weather",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                }
            ]
        )
        + "\n```\n\n### Ground truth\n\n```json\n"
        + json.dumps([{"get_weather": {"city": ["Lima"]}}])
        + "\n```\n\n### License\n\nMIT\n"
    )
    gh = Github(auth=Auth.Token(TOKEN), base_url=server.url)
    repo = gh.get_repo(REPO)
    repo.create_issue(title="[live] weather", body=body, labels=["live-contribution"])
    repo.create_issue(
        title="[live] broken", body="### Question\n\nhi", labels=["live-contribution"]
    )
    repo.create_issue(title="unrelated bug", body=body)
    intake = Intake()
    assert add_issues(intake, repo) == 2
    (item,) = intake.items
    assert item.contributor == "live-bot" and item.license == "MIT" and item.origin.ref == "#1"
    assert [d.reason for d in intake.drops] == ["invalid_issue_form"]


def test_publish_without_a_token_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    report.write_text("{}")
    code = main(
        ["publish", "--report", str(report), "--repository", REPO, "--token-env", "NO_SUCH_VAR_X"]
    )
    assert code == 2
    assert "no token: set the environment variable NO_SUCH_VAR_X" in capsys.readouterr().err


def test_the_data_pr_carries_the_registry_entry_of_the_new_release(
    checkout: git.Repo, server: GitHubServer
) -> None:
    from curation.live_wheel import write_registry

    root = Path(checkout.working_tree_dir or "")
    registry = root / "bfcl_action" / "dataset" / "live_wheels.json"
    registry.parent.mkdir(parents=True)
    registry.write_text("{}\n")
    checkout.git.add(A=True)
    checkout.index.commit("registry")
    report = _build(checkout, "2026-W49")
    assert write_registry(root / "data" / "live", registry)
    server.commit(REPO, "live-data/2026-W49")
    assert _publish(checkout, report, server)["published"]
    changed = checkout.git.show("--name-only", "--format=", "HEAD").split()
    assert "bfcl_action/dataset/live_wheels.json" in changed
    assert json.loads(registry.read_text())["latest"] == "2026-W49"


def test_harvested_drafts_reach_the_data_pr_even_without_a_release(
    checkout: git.Repo, server: GitHubServer
) -> None:
    root = Path(checkout.working_tree_dir or "")
    _build(checkout, "2026-W49")
    checkout.git.add(A=True)
    checkout.index.commit("release 2026-W49")
    report = _build(checkout, "2026-W50")
    assert json.loads(report.read_text())["released"] is False
    live = root / "data" / "live"
    (live / "drafts").mkdir()
    (live / "drafts" / "2026-W50.jsonl").write_text("{}\n")
    (live / "review").mkdir()
    (live / "review" / "2026-W50.md").write_text("# Drafts from harvest 2026-W50\n")
    server.commit(REPO, "live-data/2026-W50")
    result = _publish(checkout, report, server)
    assert result["published"] and result["branch"] == "live-data/2026-W50"
    (pr,) = _open_data_prs(server)
    assert "### Drafts to review" in pr.body and "data/live/review/2026-W50.md" in pr.body
    changed = checkout.git.show("--name-only", "--format=", "HEAD").split()
    assert (
        "data/live/review/2026-W50.md" in changed and "data/live/drafts/2026-W50.jsonl" in changed
    )
