"""What `bfcl-action github` does for each event, as small named steps.

- `push`: run, publish a check run whose summary carries the run digest (the baseline store),
  job summary, outputs.
- `schedule`, `workflow_dispatch` (default branch): the same, compared with the previous
  scheduled run, plus history, trend chart and the alert issue (`github/scheduled.py`).
- `pull_request`: run on the PR head, baseline from the merge-base check run (else a file,
  else none), compare, then sticky comment, check run on the head sha, optional statuses,
  job summary, outputs, and only then the exit code.
- a shard (`shard` without `report`): run one shard of the cases, keep the reports.

One model is a matrix of one: every activity runs once over the list of models (the one
model, or each entry of `models:`, docs/model-matrix.md), each compared with its own
baseline; the rendering chooses the single-model layout for a run without `models:`.
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

from bfcl_action.compare.model_choice import choose_models
from bfcl_action.compare.runs import percent
from bfcl_action.core.errors import InputError
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
from bfcl_action.github.evaluate import Engine, matrix_entries
from bfcl_action.github.publish import (
    COMMENT_DIR,
    MODELS_OUTPUT,
    ModelReport,
    Outcome,
    attempt,
    category_statuses,
    check_summary,
    check_title,
    compare_models,
    conclusion_of,
    find_baselines,
    finish,
    keep_comment_if_unposted,
    model_annotations,
    model_ctx,
    output_dir,
    output_values,
    post_comment,
    problems_markdown,
    publish_check,
    save_baseline,
    title_for,
)
from bfcl_action.github.scheduled import SCHEDULED_EVENTS
from bfcl_action.github.statuses import post_statuses
from bfcl_action.report.coverage import tools_without_cases
from bfcl_action.report.matrix import render_matrix_comment
from bfcl_action.results.run_reports import load_report, save_report
from bfcl_action.runner.evaluation import labelled_path
from bfcl_action.safety import redact
from bfcl_action.safety.credentials import ModelPath, model_calls_allowed
from bfcl_action.safety.escape import one_line, untrusted_markdown

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
    """The activity for an event and the inputs' facts; pure (tests/github/test_github_activity.py
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
        path=ModelPath.MATRIX if matrix_entries(ctx, engine.config(ctx)) else ModelPath.SINGLE,
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
    models = evaluate_models(ctx, engine)
    if activity is Activity.SHARD:
        return finish_shard(ctx, models)
    for model in models:
        scheduled.export_metrics(model_ctx(ctx, model.run, metrics=True), model.report)
    gh = github_factory(ctx)
    if activity is Activity.SCHEDULED:
        return scheduled.run_scheduled_models(ctx, gh, engine, models)
    pr = ctx.pull_request
    if activity is Activity.PULL_REQUEST and pr is not None:
        return process_pull_request(ctx, gh, engine, models, pr)
    return save_baseline(ctx, gh, engine, models)


def evaluate_models(ctx: ActionContext, engine: Engine) -> list[ModelReport]:
    """Every model's report (the one model's, or a matrix's), redacted and saved in the
    output directory (`report.json`; a matrix model's `report.<label>.json`)."""
    folder = output_dir(ctx)
    models = []
    for run, report in engine.run_models(ctx, folder / "report.json"):
        path = labelled_path(folder / "report.json", run.label)
        report = redact.redact_model(report)
        if not path.is_file():
            save_report(report, path)
        models.append(ModelReport(run=run, report=report, path=path))
    return models


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


def finish_shard(ctx: ActionContext, models: list[ModelReport]) -> int:
    """One shard of the cases: keep each model's report for the job that reports them all
    (`report:` with a glob over the shards' reports); publish nothing."""
    lines = []
    models_json: dict[str, dict[str, object]] = {}
    for model in models:
        results = [r for r in model.report.results if r.infra_error is None]
        correct = sum(r.valid for r in results)
        lines.append((correct, len(results)))
        models_json[model.run.label] = {
            "model": model.report.model,
            "score": percent(correct / len(results) if results else None, digits=2, missing=""),
            "verdict": "shard",
            "informational": model.run.informational,
            "report": str(model.path),
        }
    values = {
        "score": str(models_json[models[0].run.label]["score"]),
        "verdict": "shard",
        "categories": "{}",
        "report-path": str(models[0].path),
        "comment-id": "",
        "comment-file": "",
        "check-run-id": "",
    }
    heading = f"## {title_for(ctx)}: shard {ctx.inputs.shard}\n\n"
    if len(models) == 1 and not models[0].run.label:
        correct, answered = lines[0]
        outputs.append_summary(
            ctx.step_summary_path,
            f"{heading}{correct}/{answered} cases passed. The final job merges the shards and "
            "reports (see docs/action.md).\n",
        )
        outputs.write_outputs(ctx.output_path, values)
        return 0
    outputs.append_summary(
        ctx.step_summary_path,
        heading
        + "\n".join(
            f"- `{m.run.label}`: {correct}/{answered} cases passed"
            for m, (correct, answered) in zip(models, lines, strict=True)
        )
        + "\n\nThe final job reports every model's shards together (docs/model-matrix.md).\n",
    )
    outputs.write_outputs(
        ctx.output_path, {**values, MODELS_OUTPUT: json.dumps(models_json, sort_keys=True)}
    )
    return 0


def process_pull_request(
    ctx: ActionContext,
    gh: Github,
    engine: Engine,
    models: list[ModelReport],
    pr: PullRequestInfo,
) -> int:
    """Compare each model with its merge-base baseline; one comment, one check run on the
    head, statuses; then the job summary, outputs and exit code."""
    outcome = Outcome(report_path=models[0].path)
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    baselines, where, merge_base = find_baselines(ctx, repo, pr, outcome)
    matrix = compare_models(ctx, engine, models, baselines, where, merge_base)
    reports = [m.report for m in models]
    choice = choose_models(reports) if matrix.single is None else None
    tools = engine.tools(ctx)
    notes = model_annotations(matrix, tools, reports)
    body = render_matrix_comment(
        matrix,
        title=title_for(ctx),
        full_report_url=ctx.run_url or None,
        choice=choice,
        max_chars=COMMENT_LIMIT - len(comment_marker(ctx.inputs.check_name)) - 1,
        uncovered_tools=tools_without_cases(tools.locations, reports[0]),
    )
    summary = check_summary(ctx, matrix, reports, choice)
    if repo is not None:
        post_comment(ctx, outcome, gh, repo, pr.number, body, matrix.verdict)
        publish_check(ctx, outcome, repo, pr.head_sha, matrix, summary, notes)
        if ctx.inputs.statuses:
            for entry in matrix.entries:
                label = entry.label
                attempt(
                    outcome,
                    "post commit statuses" + (f" of {label}" if label else ""),
                    lambda entry=entry: post_statuses(  # type: ignore[misc]
                        repo,
                        pr.head_sha,
                        category_statuses(entry.comparison),
                        prefix=f"{ctx.inputs.check_name}/{entry.label}"
                        if entry.label
                        else ctx.inputs.check_name,
                        target_url=ctx.run_url or None,
                    ),
                )
    keep_comment_if_unposted(
        ctx,
        outcome,
        repo,
        pr,
        body,
        conclusion=conclusion_of(matrix),
        title=check_title(matrix),
        summary=summary,
        annotations=notes,
    )
    return finish(ctx, outcome, matrix, models, choice)


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
