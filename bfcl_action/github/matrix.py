"""A model matrix in the Action: every model on the same cases, one comment, one check run.

- `pull_request`: each model is compared with its own baseline, the digest of the same
  label in the merge-base check run (`matrix.pick_baseline`); one sticky comment with the
  model x suite table and which model did best; one check run on the head whose summary
  carries one digest per model (the next baselines); statuses `<check-name>/<label>/<suite>`.
- a push: the same check run with every model's digest, no comparison.
- `schedule` / `workflow_dispatch`: each model is tracked on its own, as if it had its own
  step with `check-name: <check-name>/<label>`: its check run, history file and alert issue.

An `informational` model is reported and never fails the check. The step fails when a
model that is not informational regressed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from github import Github
from github.Repository import Repository

from bfcl_action import escape, redact
from bfcl_action.compare import Comparison, Verdict, compare_runs
from bfcl_action.digest import RunDigest, make_digest
from bfcl_action.evaluation import labelled_path
from bfcl_action.github import outputs, scheduled
from bfcl_action.github.checks import (
    Annotation,
    Conclusion,
    check_summary_room,
    summary_with_digest,
)
from bfcl_action.github.client import make_github
from bfcl_action.github.comment import COMMENT_LIMIT, comment_marker
from bfcl_action.github.context import ActionContext, PullRequestInfo
from bfcl_action.github.evaluate import Engine, ToolIndex, annotations_for
from bfcl_action.github.publish import (
    Outcome,
    attempt,
    category_statuses,
    find_baselines,
    keep_comment_if_unposted,
    output_dir,
    output_values,
    pct,
    post_comment,
    publish_summary,
    summary_trailer,
    title_for,
)
from bfcl_action.github.statuses import post_statuses
from bfcl_action.matrix import MatrixComparison, MatrixEntry, pick_baseline
from bfcl_action.model_choice import ModelChoice, choose_models
from bfcl_action.models import RunReport
from bfcl_action.report.coverage import tools_without_cases
from bfcl_action.report.matrix import render_matrix_comment, render_matrix_summary
from bfcl_action.report.model_choice import render_model_choice_markdown
from bfcl_action.run_reports import save_report
from bfcl_action.settings import MatrixRun

MATRIX_OUTPUT = "models"
"""The step output holding every model's score, verdict and report path (JSON)."""


def run_matrix(
    ctx: ActionContext,
    engine: Engine,
    activity: str,
    github_factory: Callable[[ActionContext], Github] = make_github,
) -> int:
    """Evaluate every model, then publish as `activity` says (an `activities.Activity`
    value: `shard`, `scheduled`, `pull-request` or `save-baseline`)."""
    runs = engine.matrix(ctx)
    folder = output_dir(ctx)
    reports = [redact.redact_model(r) for r in engine.run_matrix(ctx, folder / "report.json")]
    by_label = {r.label: r for r in reports}
    missing = [r.label for r in runs if r.label not in by_label]
    if missing:  # only with the `report` input: a job of the matrix left no report
        outputs.warning(
            f"the `report` input holds no report of {', '.join(missing)}: left out of the "
            "comparison",
            title="bfcl-action",
        )
    runs = [r for r in runs if r.label in by_label]
    reports = [by_label[r.label] for r in runs]
    paths = {r.label: labelled_path(folder / "report.json", r.label) for r in runs}
    for run in runs:
        if not paths[run.label].is_file():
            save_report(by_label[run.label], paths[run.label])
    if activity == "shard":
        return finish_matrix_shard(ctx, runs, reports, paths)
    for run, report in zip(runs, reports, strict=True):
        scheduled.export_metrics(_model_ctx(ctx, run, metrics=True), report)
    gh = github_factory(ctx)
    if activity == "scheduled":
        return scheduled_matrix(ctx, gh, engine, runs, reports, paths)
    pr = ctx.pull_request
    if activity == "pull-request" and pr is not None:
        return pull_request_matrix(ctx, gh, engine, runs, reports, paths, pr)
    return baseline_matrix(ctx, gh, engine, runs, reports, paths)


def _entry(run: MatrixRun, report: RunReport, comparison: Comparison) -> MatrixEntry:
    return MatrixEntry(
        label=run.label,
        model=report.model,
        mode=str(report.mode),
        informational=run.informational,
        comparison=comparison,
    )


def _model_ctx(ctx: ActionContext, run: MatrixRun, *, metrics: bool = False) -> ActionContext:
    """The context as one model's own step would see it: its check name (scheduled runs),
    its metrics files, informational as `fail-on-regression: false`."""
    update: dict[str, object] = {}
    if run.informational:
        update["fail_on_regression"] = False
    if metrics:
        for name in ("metrics_json", "metrics_openmetrics", "metrics_emf"):
            value = getattr(ctx.inputs, name)
            if value:
                update[name] = str(labelled_path(Path(value), run.label))
    else:
        update["check_name"] = f"{ctx.inputs.check_name}/{run.label}"
    return ctx.model_copy(update={"inputs": ctx.inputs.model_copy(update=update)})


# ------------------------------------------------------------------------------ comparing
def compare_matrix(
    ctx: ActionContext,
    engine: Engine,
    runs: list[MatrixRun],
    reports: list[RunReport],
    baselines: list[RunDigest | RunReport],
    where: str,
    merge_base: str = "",
) -> MatrixComparison:
    changes = engine.changed_tools(ctx, merge_base) if merge_base else []
    entries = []
    for run, report in zip(runs, reports, strict=True):
        base, which = pick_baseline(baselines, run.label, report.model)
        comparison = compare_runs(
            base, report, engine.thresholds(_model_ctx(ctx, run)), changed_tools=changes
        )
        comparison.notes.insert(0, f"baseline: {which}" + (f" in {where}" if base else ""))
        entries.append(_entry(run, report, comparison))
    return MatrixComparison(entries=entries)


# ------------------------------------------------------------------------------ publishing
def conclusion_of(matrix: MatrixComparison) -> Conclusion:
    if matrix.fails:
        return "failure"
    if any(e.comparison.verdict is Verdict.REGRESSION for e in matrix.entries):
        return "neutral"
    return "success"


def check_title(matrix: MatrixComparison) -> str:
    parts = []
    for entry in matrix.entries:
        head = entry.comparison.overall.head
        score = f"{head.accuracy:.1%}" if head is not None and head.accuracy is not None else "n/a"
        parts.append(f"{entry.label} {score} {entry.comparison.verdict.value.replace('_', ' ')}")
    return " · ".join(parts)


def check_summary(
    ctx: ActionContext,
    matrix: MatrixComparison,
    reports: list[RunReport],
    choice: ModelChoice,
) -> str:
    digests = "\n\n".join(make_digest(r) for r in reports)
    body = render_matrix_comment(
        matrix,
        title=title_for(ctx),
        full_report_url=ctx.run_url or None,
        choice=choice,
        max_bytes=check_summary_room(digests),
    )
    return summary_with_digest(body, digests)


def publish_matrix_check(
    ctx: ActionContext,
    outcome: Outcome,
    repo: Repository,
    sha: str,
    matrix: MatrixComparison,
    summary: str,
    annotations: list[Annotation],
) -> None:
    """The matrix's one check run: conclusion and title from every model."""
    publish_summary(
        ctx,
        outcome,
        repo,
        sha,
        conclusion=conclusion_of(matrix),
        title=check_title(matrix),
        summary=summary,
        annotations=annotations,
    )


def matrix_annotations(
    matrix: MatrixComparison, tools: ToolIndex, reports: list[RunReport]
) -> list[Annotation]:
    """The tool files' problems once, then per model the tools in its newly failing cases
    (titled with the model)."""
    out = list(tools.problems)
    locations_only = ToolIndex(locations=tools.locations)
    for entry, report in zip(matrix.entries, reports, strict=True):
        for note in annotations_for(entry.comparison, locations_only, report):
            out.append(note.model_copy(update={"title": f"{entry.label}: {note.title}"}))
    return out


def pull_request_matrix(
    ctx: ActionContext,
    gh: Github,
    engine: Engine,
    runs: list[MatrixRun],
    reports: list[RunReport],
    paths: dict[str, Path],
    pr: PullRequestInfo,
) -> int:
    outcome = Outcome(report_path=paths[runs[0].label])
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    baselines, where, merge_base = find_baselines(ctx, repo, pr, outcome)
    matrix = compare_matrix(ctx, engine, runs, reports, baselines, where, merge_base)
    choice = choose_models(reports)
    tools = engine.tools(ctx)
    notes = matrix_annotations(matrix, tools, reports)
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
        publish_matrix_check(ctx, outcome, repo, pr.head_sha, matrix, summary, notes)
        if ctx.inputs.statuses:
            for entry in matrix.entries:
                attempt(
                    outcome,
                    f"post commit statuses of {entry.label}",
                    lambda entry=entry: post_statuses(  # type: ignore[misc]
                        repo,
                        pr.head_sha,
                        category_statuses(entry.comparison),
                        prefix=f"{ctx.inputs.check_name}/{entry.label}",
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
    return finish_matrix(ctx, outcome, matrix, paths, choice)


def baseline_matrix(
    ctx: ActionContext,
    gh: Github,
    engine: Engine,
    runs: list[MatrixRun],
    reports: list[RunReport],
    paths: dict[str, Path],
) -> int:
    """A push: every model's digest in one check run, where pull requests find them."""
    outcome = Outcome(report_path=paths[runs[0].label])
    matrix = compare_matrix(ctx, engine, runs, reports, [], "")
    for entry in matrix.entries:
        entry.comparison.notes[:] = []
    matrix.notes.append(
        f"baseline run on `{ctx.sha[:12]}`: every model's digest is stored in the "
        f"`{ctx.inputs.check_name}` check run, where pull requests find them"
    )
    choice = choose_models(reports)
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    if repo is not None and ctx.sha:
        summary = check_summary(ctx, matrix, reports, choice)
        publish_matrix_check(ctx, outcome, repo, ctx.sha, matrix, summary, [])
    return finish_matrix(ctx, outcome, matrix, paths, choice)


def scheduled_matrix(
    ctx: ActionContext,
    gh: Github,
    engine: Engine,
    runs: list[MatrixRun],
    reports: list[RunReport],
    paths: dict[str, Path],
) -> int:
    """Each model tracked on its own (`<check-name>/<label>`: check run, history, alert),
    then the job summary's *Which model?* over this run and the matrix's outputs (written
    last, so they are the step's)."""
    codes = []
    entries = []
    for run, report in zip(runs, reports, strict=True):
        done: list[Outcome] = []
        codes.append(
            scheduled.run_scheduled(
                _model_ctx(ctx, run), gh, engine, report, paths[run.label], outcomes=done
            )
        )
        comparison = done[0].comparison if done else None
        if comparison is None:  # not the default branch: only the check run was published
            comparison = compare_runs(None, report, engine.thresholds(_model_ctx(ctx, run)))
        entries.append(_entry(run, report, comparison))
    if len(reports) > 1:
        outputs.append_summary(
            ctx.step_summary_path,
            "\n" + render_model_choice_markdown(choose_models(reports), heading_level=2),
        )
    matrix = MatrixComparison(entries=entries)
    outputs.write_outputs(
        ctx.output_path,
        {"verdict": matrix.verdict.value, MATRIX_OUTPUT: _models_output(matrix, paths)},
    )
    return max(codes, default=0)


def _models_output(matrix: MatrixComparison, paths: dict[str, Path]) -> str:
    """The `models` output: label -> model, score, verdict, informational, report."""
    return json.dumps(
        {
            e.label: {
                "model": e.model,
                "score": pct(
                    e.comparison.overall.head.accuracy if e.comparison.overall.head else None
                ),
                "verdict": e.comparison.verdict.value,
                "informational": e.informational,
                "report": str(paths[e.label]),
            }
            for e in matrix.entries
        },
        sort_keys=True,
    )


def finish_matrix_shard(
    ctx: ActionContext, runs: list[MatrixRun], reports: list[RunReport], paths: dict[str, Path]
) -> int:
    """One shard of the cases, every model: keep each model's report for the job that
    reports them all (`report:` with a glob over the shards' reports); publish nothing."""
    lines = []
    models: dict[str, dict[str, object]] = {}
    for run, report in zip(runs, reports, strict=True):
        answered = [r for r in report.results if r.infra_error is None]
        correct = sum(r.valid for r in answered)
        score = pct(correct / len(answered) if answered else None)
        lines.append(f"- `{run.label}`: {correct}/{len(answered)} cases passed")
        models[run.label] = {
            "model": report.model,
            "score": score,
            "verdict": "shard",
            "informational": run.informational,
            "report": str(paths[run.label]),
        }
    outputs.append_summary(
        ctx.step_summary_path,
        f"## {title_for(ctx)}: shard {ctx.inputs.shard}\n\n"
        + "\n".join(lines)
        + "\n\nThe final job reports every model's shards together (docs/model-matrix.md).\n",
    )
    outputs.write_outputs(
        ctx.output_path,
        {
            "score": str(models[runs[0].label]["score"]),
            "verdict": "shard",
            "categories": "{}",
            "report-path": str(paths[runs[0].label]),
            "comment-id": "",
            "comment-file": "",
            "check-run-id": "",
            MATRIX_OUTPUT: json.dumps(models, sort_keys=True),
        },
    )
    return 0


def finish_matrix(
    ctx: ActionContext,
    outcome: Outcome,
    matrix: MatrixComparison,
    paths: dict[str, Path],
    choice: ModelChoice,
) -> int:
    """Job summary, outputs (the first model's score and categories, the matrix verdict,
    every model under `models`), then the exit code."""
    summary = render_matrix_summary(
        matrix,
        title=title_for(ctx),
        full_report_url=ctx.run_url or None,
        choice=choice,
        max_bytes=outputs.SUMMARY_LIMIT - 64_000,
    )
    outputs.append_summary(ctx.step_summary_path, summary + summary_trailer(outcome))
    first = replace(outcome, comparison=matrix.entries[0].comparison, verdict=matrix.verdict.value)
    outputs.write_outputs(
        ctx.output_path,
        {**output_values(first), MATRIX_OUTPUT: _models_output(matrix, paths)},
    )
    print(
        "bfcl-action: verdict "
        + matrix.verdict.value
        + " ("
        + ", ".join(f"{e.label} {e.comparison.verdict.value}" for e in matrix.entries)
        + ")",
        file=sys.stderr,
    )
    for entry in matrix.entries:  # each model's verdict line, as its comment's first line
        line = f"bfcl-action: {entry.label}: {entry.comparison.headline}"
        print(escape.log_line(line, 2000), file=sys.stderr)
    return matrix.exit_code
