"""`bfcl-curate publish`: put a built release on a branch and open (or update) the one data PR.

The branch is `live-data/<version>`; the PR body carries the funnel and the per-category
counts. With nothing new (no release folder that the base branch lacks) nothing is pushed and
no PR is opened. The token comes from an environment variable: a GitHub App or PAT token,
since PRs opened with the workflow's own GITHUB_TOKEN do not trigger other workflows.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bfcl_action.core.errors import ConfigError, InputError
from curation.build import BuildReport
from curation.store import latest_version
from curation.summary import funnel_markdown

PR_MARKER = "<!-- bfcl-curate:live-data -->"
REGISTRY_IN_REPO = "bfcl_action/dataset/live_wheels.json"
"""The registry of release digests (`bfcl-curate register`), committed with each release."""


def publish(
    *,
    repo_dir: Path,
    live_dir: Path,
    report_path: Path,
    repository: str,
    token_env: str = "BFCL_CURATE_TOKEN",  # noqa: S107 (a variable name, not a secret)
    api_url: str | None = None,
    remote: str = "origin",
    base: str = "main",
) -> dict[str, Any]:
    import git
    from github import Auth, Github

    token = os.environ.get(token_env, "")
    if not token:
        raise ConfigError(
            f"no token: set the environment variable {token_env}", field="--token-env"
        )
    try:
        report = BuildReport.model_validate_json(report_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the build report: {exc}", file=str(report_path)) from None
    version = latest_version(live_dir)
    repo = git.Repo(repo_dir)
    rel_live = live_dir.resolve().relative_to(Path(repo.working_tree_dir or ".").resolve())
    released = report.released and version == report.version
    drafts = _new_drafts(repo, rel_live)
    if not released and not drafts:
        return {"published": False, "reason": "nothing new to publish"}
    if not released:
        version = report.version  # harvest drafts to review, no release this week
    branch = f"live-data/{version}"
    repo.git.checkout("-B", branch)
    repo.git.add("--", rel_live.as_posix())
    if (Path(repo.working_tree_dir or ".") / REGISTRY_IN_REPO).is_file():
        repo.git.add("--", REGISTRY_IN_REPO)  # the release's pin travels in the same PR
    if not repo.index.diff("HEAD") and not repo.untracked_files:
        return {"published": False, "reason": "nothing changed under data/live"}
    with repo.config_writer() as cfg:
        if not cfg.has_option("user", "name"):
            cfg.set_value("user", "name", "bfcl-curate")
            cfg.set_value("user", "email", "bfcl-curate@users.noreply.github.com")
    repo.index.commit(f"Live data {version}: +{report.added} entries ({report.total} in all)")
    repo.git.push("--force-with-lease", remote, f"{branch}:{branch}")

    gh = Github(
        auth=Auth.Token(token),
        base_url=api_url or os.environ.get("GITHUB_API_URL", "https://api.github.com"),
    )
    gh_repo = gh.get_repo(repository)
    owner = repository.split("/", 1)[0]
    title = f"Live data {version}"
    body = f"{PR_MARKER}\n{funnel_markdown(report)}"
    if drafts:
        listed = "\n".join(f"- `{d}`" for d in drafts)
        body += (
            "\n\n### Drafts to review\n\nHarvested drafts (origin `generated`) are released "
            "only once their ids are added to `approved.txt`:\n" + listed + "\n"
        )
    open_prs = [
        pr
        for pr in gh_repo.get_pulls(state="open", base=base)
        if pr.head.ref.startswith("live-data/") and PR_MARKER in (pr.body or "")
    ]
    same = [pr for pr in open_prs if pr.head.ref == branch]
    if same:
        pr = same[0]
        pr.edit(title=title, body=body)
        action = "updated"
    else:
        pr = gh_repo.create_pull(title=title, body=body, head=f"{owner}:{branch}", base=base)
        action = "created"
        for old in open_prs:
            old.create_issue_comment(f"Superseded by #{pr.number}.")
            old.edit(state="closed")
    return {"published": True, "action": action, "number": pr.number, "branch": branch}


def _new_drafts(repo: Any, rel_live: Path) -> list[str]:
    """Review files of harvested drafts not committed yet (`<live>/review/*.md`)."""
    prefix = (rel_live / "review").as_posix() + "/"
    return sorted(f for f in repo.untracked_files if f.startswith(prefix) and f.endswith(".md"))
