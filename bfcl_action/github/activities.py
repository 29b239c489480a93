"""What `bfcl-action github` does for each event, as small named steps.

- `push`: run, publish a check run whose summary carries the run digest (the baseline store),
  job summary, outputs.
- `schedule`, `workflow_dispatch` (default branch): the same, compared with the previous
  scheduled run, plus history, trend chart and the alert issue (`github/scheduled.py`).
- `pull_request`: run on the PR head, baseline from the merge-base check run (else a file,
  else none), compare, then sticky comment, check run on the head sha, optional statuses,
  job summary, outputs, and only then the exit code.
- `workflow_run`: post the comment (and check run) a read-only PR run left in an artifact.

Every GitHub call is wrapped: a failure becomes a warning and a line in the job summary, and
the report always reaches the job summary and the step outputs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any, cast

from github import Github
from github.Repository import Repository

from bfcl_action import redact
from bfcl_action.compare import compare_runs
from bfcl_action.credentials import ModelPath, model_calls_allowed
from bfcl_action.digest import RunDigest
from bfcl_action.errors import InputError
from bfcl_action.escape import one_line, untrusted_markdown
from bfcl_action.github import outputs, scheduled
from bfcl_action.github.checks import (
    Annotation,
    Conclusion,
    publish_check_run,
    summary_with_digest,
)
from bfcl_action.github.client import make_github
from bfcl_action.github.comment import (
    COMMENT_LIMIT,
    comment_marker,
    resolve_author,
    upsert_comment,
)
from bfcl_action.github.context import ActionContext, PullRequestInfo
from bfcl_action.github.evaluate import Engine, annotations_for
from bfcl_action.github.publish import (
    COMMENT_DIR,
    Outcome,
    attempt,
    category_statuses,
    check_summary,
    check_title,
    conclusion_of,
    find_baselines,
    finish,
    keep_comment_if_unposted,
    output_dir,
    output_values,
    pct,
    post_comment,
    problems_markdown,
    publish_check,
    save_baseline,
    title_for,
)
from bfcl_action.github.scheduled import SCHEDULED_EVENTS
from bfcl_action.github.statuses import post_statuses
from bfcl_action.models import RunReport
from bfcl_action.report.coverage import tools_without_cases
from bfcl_action.report.markdown import render_comment
from bfcl_action.run_reports import load_report, save_report

GithubFactory = Callable[[ActionContext], Github]
BASELINE_MODES = ("auto", "check-run", "file", "none")


# ------------------------------------------------------------------------------ choosing
class Activity(StrEnum):
    """What one `bfcl-action github` process does."""

    POST_ARTIFACT = "post-artifact"
    """`workflow_run`: post the comment a read-only pull-request run left."""
    SKIP = "skip"
    """The run would call a hosted model but has no API key (a fork): skip, neutral."""
    SHARD = "shard"
    """One shard of a matrix: keep the report for the merging job, publish nothing."""
    SCHEDULED = "scheduled"
    """`schedule` / `workflow_dispatch`: compare with the previous scheduled run, history, alert."""
    PULL_REQUEST = "pull-request"
    """Compare with the merge-base, comment, check run, statuses."""
    SAVE_BASELINE = "save-baseline"
    """Anything else (a push): publish the check run whose digest later runs compare with."""


def choose_activity(
    event_name: str,
    *,
    has_pull_request: bool,
    shard: bool,
    needs_api_key: bool,
    has_api_key: bool,
) -> Activity:
    """The activity for an event and the inputs' facts; pure (tests/test_github_activity.py
    holds its truth table). `shard` means the `shard` input without a finished `report`."""
    if event_name == "workflow_run":
        return Activity.POST_ARTIFACT
    if needs_api_key and not has_api_key:
        return Activity.SKIP
    if shard:
        return Activity.SHARD
    if event_name in SCHEDULED_EVENTS and not has_pull_request:
        return Activity.SCHEDULED
    if has_pull_request:
        return Activity.PULL_REQUEST
    return Activity.SAVE_BASELINE


def activity_for(ctx: ActionContext, engine: Engine) -> Activity:
    return choose_activity(
        ctx.event_name,
        has_pull_request=ctx.pull_request is not None,
        shard=bool(ctx.inputs.shard and not ctx.inputs.report),
        needs_api_key=ctx.event_name != "workflow_run" and engine.needs_api_key(ctx),
        has_api_key=ctx.event_name != "workflow_run"
        and model_calls_allowed_for(ctx, engine)
        and engine.has_api_key(ctx),
    )


def model_calls_allowed_for(ctx: ActionContext, engine: Engine) -> bool:
    """`credentials.model_calls_allowed` for this event: a fork PR's run calls no model on
    any path, whatever keys its files name (the skip is neutral)."""
    pr = ctx.pull_request
    return model_calls_allowed(
        ctx.event_name,
        head_repo=pr.head_repo if pr is not None else None,
        base_repo=pr.base_repo if pr is not None else None,
        path=ModelPath.MATRIX if engine.matrix(ctx) else ModelPath.SINGLE,
    )


# ------------------------------------------------------------------------------ entry point
def main(
    ctx: ActionContext,
    *,
    engine: Engine | None = None,
    github_factory: GithubFactory = make_github,
) -> int:
    """Choose the activity, then run it as a straight script of named steps."""
    engine = engine or Engine()
    activity = activity_for(ctx, engine)
    if activity is Activity.POST_ARTIFACT:
        return post_comment_artifact(ctx, github_factory(ctx))
    if ctx.inputs.baseline not in BASELINE_MODES and not ctx.inputs.baseline.startswith("file:"):
        raise InputError(
            f"expected one of {', '.join(BASELINE_MODES)} or file:PATH, "
            f"found {ctx.inputs.baseline!r}",
            field="baseline",
        )
    if activity is Activity.SKIP:
        return skip_without_key(ctx, github_factory)
    if engine.matrix(ctx):
        from bfcl_action.github.matrix import run_matrix

        return run_matrix(ctx, engine, activity.value, github_factory)
    report_path = output_dir(ctx) / "report.json"
    report = redact.redact_model(engine.run(ctx, report_path))
    if not report_path.is_file():
        save_report(report, report_path)
    if activity is Activity.SHARD:
        return finish_shard(ctx, report, report_path)
    scheduled.export_metrics(ctx, report)
    gh = github_factory(ctx)
    if activity is Activity.SCHEDULED:
        return scheduled.run_scheduled(ctx, gh, engine, report, report_path)
    pr = ctx.pull_request
    if activity is Activity.PULL_REQUEST and pr is not None:
        return process_pull_request(ctx, gh, engine, report, report_path, pr)
    return save_baseline(ctx, gh, engine, report, report_path)


# ------------------------------------------------------------------------------ activities
def skip_without_key(ctx: ActionContext, github_factory: GithubFactory = make_github) -> int:
    """No API key (a fork PR gets no secrets): skip the model calls, neutral, exit 0.

    Outside forks (whose token cannot write) a neutral check run makes the skip visible on
    the commit.
    """
    pr = ctx.pull_request
    why = (
        "this pull request comes from a fork, and forks get no secrets"
        if pr is not None and pr.is_fork
        else "the `api-key` input is empty"
    )
    message = (
        f"bfcl-action skipped the evaluation: {why}. Set `api-key`, use a `replay:` model, "
        "or run the evaluation from a trusted workflow."
    )
    outputs.notice(message, title="bfcl-action: skipped")
    outcome = Outcome()
    if not (pr is not None and pr.is_fork) and ctx.repository and ctx.head_sha:
        gh = github_factory(ctx)
        repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
        if repo is not None:
            attempt(
                outcome,
                f"publish the `{ctx.inputs.check_name}` check run",
                lambda: publish_check_run(
                    repo,
                    ctx.head_sha,
                    ctx.inputs.check_name,
                    conclusion="neutral",
                    title="skipped: no API key",
                    summary=message,
                ),
            )
    summary = f"## {title_for(ctx)}\n\n⏭️ {message}\n"
    if outcome.problems:
        summary += problems_markdown(outcome.problems)
    outputs.append_summary(ctx.step_summary_path, summary)
    outputs.write_outputs(
        ctx.output_path,
        {
            "score": "",
            "verdict": "skipped",
            "categories": "{}",
            "report-path": "",
            "comment-id": "",
            "comment-file": "",
            "check-run-id": "",
        },
    )
    return 0


def finish_shard(ctx: ActionContext, report: RunReport, report_path: Path) -> int:
    """One shard of a matrix: keep the report for the merging job; publish nothing."""
    answered = [r for r in report.results if r.infra_error is None]
    correct = sum(r.valid for r in answered)
    outputs.append_summary(
        ctx.step_summary_path,
        f"## {title_for(ctx)}: shard {ctx.inputs.shard}\n\n{correct}/{len(answered)} cases "
        f"passed. The final job merges the shards and reports (see docs/action.md).\n",
    )
    outputs.write_outputs(
        ctx.output_path,
        {
            "score": pct(correct / len(answered) if answered else None),
            "verdict": "shard",
            "categories": "{}",
            "report-path": str(report_path),
            "comment-id": "",
            "comment-file": "",
            "check-run-id": "",
        },
    )
    return 0


def process_pull_request(
    ctx: ActionContext,
    gh: Github,
    engine: Engine,
    report: RunReport,
    report_path: Path,
    pr: PullRequestInfo,
) -> int:
    outcome = Outcome(report_path=report_path)
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    base, where, merge_base = find_baseline(ctx, repo, pr, outcome, model=report.model)
    changes = engine.changed_tools(ctx, merge_base) if merge_base else []
    comparison = compare_runs(base, report, engine.thresholds(ctx), changed_tools=changes)
    comparison.notes.insert(0, f"baseline: {where}")
    outcome.comparison = comparison
    outcome.verdict = comparison.verdict.value
    tools = engine.tools(ctx)
    notes = annotations_for(comparison, tools, report)
    body = render_comment(
        comparison,
        title=title_for(ctx),
        full_report_url=ctx.run_url or None,
        max_chars=COMMENT_LIMIT - len(comment_marker(ctx.inputs.check_name)) - 1,
        uncovered_tools=tools_without_cases(tools.locations, report),
    )
    if repo is not None:
        post_comment(ctx, outcome, gh, repo, pr.number, body, comparison.verdict)
        publish_check(ctx, outcome, repo, pr.head_sha, report, comparison, notes)
        if ctx.inputs.statuses:
            attempt(
                outcome,
                "post commit statuses",
                lambda: post_statuses(
                    repo,
                    pr.head_sha,
                    category_statuses(comparison),
                    prefix=ctx.inputs.check_name,
                    target_url=ctx.run_url or None,
                ),
            )
    keep_comment_if_unposted(
        ctx,
        outcome,
        repo,
        pr,
        body,
        conclusion=conclusion_of(comparison),
        title=check_title(comparison),
        summary=check_summary(ctx, report, comparison),
        annotations=notes,
    )
    return finish(ctx, outcome)


def find_baseline(
    ctx: ActionContext,
    repo: Repository | None,
    pr: PullRequestInfo,
    outcome: Outcome,
    *,
    model: str = "",
) -> tuple[RunReport | RunDigest | None, str, str]:
    """The merge-base check run's digest, else the baseline file, else nothing; plus the
    merge-base sha when it is known. A check run of a model matrix holds one digest per
    model: a single-model run takes the one of its `model` (else the last)."""
    found, where, merge_base = find_baselines(ctx, repo, pr, outcome)
    if not found:
        return (
            None,
            "no baseline yet (no digest on the merge-base commit and no baseline file)",
            merge_base,
        )
    unlabelled = [b for b in found if not b.label]
    same_model = [b for b in found if b.model == model]
    return (unlabelled or same_model or found)[-1], where, merge_base


# ------------------------------------------------------------------------------ read-only PRs
_CONCLUSIONS: tuple[Conclusion, ...] = ("success", "failure", "neutral")


def post_comment_artifact(ctx: ActionContext, gh: Github) -> int:
    """`workflow_run` mode: post what a read-only PR run left, finding the PR via the API.

    The artifact comes from an untrusted run: the PR and the commit are taken from the
    trusted `workflow_run` event, never from the artifact, and mentions are defused.
    """
    outcome = Outcome(verdict="posted")
    folder = Path(ctx.inputs.comment_artifact or Path(ctx.inputs.output_dir) / COMMENT_DIR)
    body_file, meta_file = folder / "body.md", folder / "meta.json"
    if not body_file.is_file():
        outputs.notice(f"no comment artifact at {folder}; nothing to post", title="bfcl-action")
        outputs.write_outputs(ctx.output_path, {"verdict": "skipped", "comment-id": ""})
        return 0
    body = untrusted_markdown(body_file.read_text(encoding="utf-8"))
    meta: dict[str, Any] = {}
    if meta_file.is_file():
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except ValueError:
            meta = {}
    run = ctx.event.get("workflow_run") or {}
    head_sha = str(run.get("head_sha") or "")
    head_branch = str(run.get("head_branch") or "")
    head_repo = str((run.get("head_repository") or {}).get("full_name") or "")
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    number = None
    if repo is not None:
        number = attempt(
            outcome,
            "find the pull request",
            lambda: find_pull_request(repo, head_repo, head_branch, head_sha),
        )
    if repo is not None and number is None and not outcome.problems:
        outputs.notice(
            f"no open pull request has head {head_repo}:{head_branch} at {head_sha[:12]}; "
            "nothing to post",
            title="bfcl-action",
        )
    if repo is not None and number is not None:
        author = resolve_author(gh, ctx.inputs.comment_author)
        result = attempt(
            outcome,
            f"post the pull request comment on #{number}",
            lambda: upsert_comment(repo, number, body, ctx.inputs.check_name, author),
        )
        if result is not None:
            outcome.comment_id = result[0].id
        conclusion = artifact_conclusion(
            meta.get("conclusion"), head_repo=head_repo, repository=ctx.repository
        )
        if conclusion is not None and isinstance(meta.get("summary"), str):
            annotations = [
                Annotation.model_validate(a)
                for a in meta.get("annotations") or []
                if isinstance(a, dict)
            ]
            check = attempt(
                outcome,
                f"publish the `{ctx.inputs.check_name}` check run",
                lambda: publish_check_run(
                    repo,
                    head_sha,
                    ctx.inputs.check_name,
                    conclusion=conclusion,
                    title=one_line(str(meta.get("title") or ctx.inputs.check_name))[:200],
                    summary=summary_with_digest(untrusted_summary(meta["summary"]), ""),
                    annotations=annotations,
                ),
            )
            if check is not None:
                outcome.check_run_id = check.id
    if outcome.problems:
        outputs.append_summary(ctx.step_summary_path, problems_markdown(outcome.problems))
    outputs.write_outputs(
        ctx.output_path,
        {
            "verdict": "posted" if outcome.comment_id else "not-posted",
            "comment-id": str(outcome.comment_id or ""),
        },
    )
    return 1 if outcome.problems else 0


_DIGEST_BLOCK = re.compile(r"<!--\s*bfcl-action:digest\b.*?-->", re.S)


def untrusted_summary(text: str) -> str:
    """A check-run summary from an artifact, without digests (a fork must not plant a
    baseline), its HTML, mentions, references and links defused (`escape.untrusted_markdown`)."""
    return untrusted_markdown(_DIGEST_BLOCK.sub("", text))


def artifact_conclusion(claimed: Any, *, head_repo: str, repository: str) -> Conclusion | None:
    """The check-run conclusion an artifact may set: a fork's run (or one whose head is
    unknown) may report a failure, never a success: capped at `neutral`."""
    if claimed not in _CONCLUSIONS:
        return None
    if claimed == "success" and (not head_repo or head_repo != repository):
        return "neutral"
    return cast(Conclusion, claimed)


def find_pull_request(
    repo: Repository, head_repo: str, head_branch: str, head_sha: str
) -> int | None:
    """The open PR whose head is `head_repo:head_branch` at `head_sha`."""
    owner = head_repo.split("/")[0] if head_repo else repo.owner.login
    for pull in repo.get_pulls(state="open", head=f"{owner}:{head_branch}"):
        if pull.head.sha == head_sha:
            return int(pull.number)
    return None


__all__ = ["Activity", "Outcome", "choose_activity", "load_report", "main", "output_values"]
