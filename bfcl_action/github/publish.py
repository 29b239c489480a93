"""Publishing one run of one model or of a matrix, shared by every activity: outcome,
resilient GitHub calls, comparing each model with its baseline, check runs, job summary and
step outputs. A run of one model is a matrix of one (`ModelReport` per model); what differs
is the layout, chosen by `MatrixComparison.single` when rendering.

`attempt` wraps each GitHub call: a failure becomes a warning and a line in the job summary,
never a crash, so `finish` can always write the report to the job summary and the outputs
before the exit code. Pull-request (`activities`) and scheduled (`scheduled`) runs both
publish through here; neither imports the other.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from github import Github, GithubException
from github.Repository import Repository

from bfcl_action.compare.matrix import MatrixComparison, MatrixEntry, pick_baseline
from bfcl_action.compare.model_choice import ModelChoice, choose_models
from bfcl_action.compare.runs import Comparison, Verdict, compare_runs, percent
from bfcl_action.core.errors import BfclActionError, InputError
from bfcl_action.core.records import RunReport
from bfcl_action.github import outputs
from bfcl_action.github.checks import (
    Annotation,
    Conclusion,
    check_summary_room,
    find_digest_text,
    publish_check_run,
    summary_with_digest,
)
from bfcl_action.github.client import describe_error
from bfcl_action.github.comment import find_sticky_comment, resolve_author, upsert_comment
from bfcl_action.github.context import (
    DEFAULT_CHECK_NAME,
    ActionContext,
    CommentMode,
    PullRequestInfo,
)
from bfcl_action.github.evaluate import Engine, ToolIndex, annotations_for
from bfcl_action.github.statuses import CategoryStatus
from bfcl_action.report.markdown import DEFAULT_TITLE
from bfcl_action.report.matrix import render_matrix_comment, render_matrix_summary
from bfcl_action.results.digest import RunDigest, make_digest, parse_digests
from bfcl_action.results.run_reports import load_baseline
from bfcl_action.runner.evaluation import labelled_path
from bfcl_action.safety import escape, redact
from bfcl_action.settings.resolve import MatrixRun

T = TypeVar("T")
MODELS_OUTPUT = "models"
"""The step output holding a matrix's every model's score, verdict and report path (JSON)."""
COMMENT_DIR = "comment"
"""Where a read-only pull-request run leaves its comment for a `workflow_run` job."""


@dataclass
class Outcome:
    """What one run produced and what could not be posted; feeds outputs and the summary."""

    verdict: str = "skipped"
    report_path: Path | None = None
    comparison: Comparison | None = None
    comment_id: int | None = None
    comment_url: str = ""
    comment_file: Path | None = None
    check_run_id: int | None = None
    problems: list[str] = field(default_factory=list)
    exit_code: int = 0


def attempt(outcome: Outcome, what: str, action: Callable[[], T]) -> T | None:
    """Run one GitHub call; on failure record a warning naming `what` and return None."""
    try:
        return action()
    except GithubException as exc:
        message = f"could not {what}: {describe_error(exc)}"
    except Exception as exc:  # urllib3 retry exhaustion, connection errors, ...
        message = f"could not {what}: {describe_error(exc)}"
    outcome.problems.append(message)
    outputs.warning(message, title="bfcl-action")
    return None


def title_for(ctx: ActionContext) -> str:
    name = ctx.inputs.check_name
    return DEFAULT_TITLE if name == DEFAULT_CHECK_NAME else f"{DEFAULT_TITLE} ({name})"


def output_dir(ctx: ActionContext) -> Path:
    path = (Path(ctx.inputs.working_directory or ".") / ctx.inputs.output_dir).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


# ------------------------------------------------------------------------------ models
@dataclass(frozen=True)
class ModelReport:
    """One model of this run (the one model, or a matrix entry): its settings, its report
    (redacted) and the file it is saved in."""

    run: MatrixRun
    report: RunReport
    path: Path


def model_ctx(ctx: ActionContext, run: MatrixRun, *, metrics: bool = False) -> ActionContext:
    """The context as one model's own step would see it: informational as
    `fail-on-regression: false`; a matrix entry's check name (`<check-name>/<label>`,
    scheduled runs) or its metrics files (`metrics=True`). The one model of a run without
    `models:` sees `ctx` itself."""
    update: dict[str, object] = {}
    if run.informational:
        update["fail_on_regression"] = False
    if run.label and metrics:
        for name in ("metrics_json", "metrics_openmetrics", "metrics_emf"):
            value = getattr(ctx.inputs, name)
            if value:
                update[name] = str(labelled_path(Path(value), run.label))
    elif run.label:
        update["check_name"] = f"{ctx.inputs.check_name}/{run.label}"
    if not update:
        return ctx
    return ctx.model_copy(update={"inputs": ctx.inputs.model_copy(update=update)})


def entry_of(model: ModelReport, comparison: Comparison) -> MatrixEntry:
    return MatrixEntry(
        label=model.run.label,
        model=model.report.model,
        mode=str(model.report.mode),
        informational=model.run.informational,
        comparison=comparison,
    )


def compare_models(
    ctx: ActionContext,
    engine: Engine,
    models: list[ModelReport],
    baselines: list[RunDigest | RunReport],
    where: str,
    merge_base: str = "",
) -> MatrixComparison:
    """Each model against its own baseline (`matrix.pick_baseline`), the first note
    saying which baseline."""
    changes = engine.changed_tools(ctx, merge_base) if merge_base else []
    entries = []
    for model in models:
        base, which = pick_baseline(baselines, model.run.label, model.report.model)
        comparison = compare_runs(
            base,
            model.report,
            engine.thresholds(model_ctx(ctx, model.run)),
            changed_tools=changes,
        )
        if not model.run.label:
            note = where if base is not None else NO_BASELINE
        else:
            note = which + (f" in {where}" if base is not None else "")
        comparison.notes.insert(0, f"baseline: {note}")
        entries.append(entry_of(model, comparison))
    return MatrixComparison(entries=entries)


NO_BASELINE = "no baseline yet (no digest on the merge-base commit and no baseline file)"


# ------------------------------------------------------------------------------ check run
def conclusion_of(matrix: MatrixComparison) -> Conclusion:
    if matrix.fails:
        return "failure"
    if any(e.comparison.verdict is Verdict.REGRESSION for e in matrix.entries):
        return "neutral"
    return "success"


def check_title(matrix: MatrixComparison) -> str:
    """One model: its score line and verdict; a matrix: each model's score and verdict."""
    one = matrix.single
    if one is not None:
        return f"{one.overall.score_line()} · {one.verdict.value.replace('_', ' ')}"
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
    choice: ModelChoice | None = None,
) -> str:
    """The comment's layout within the check run's room, then one digest per model (the
    next runs' baselines)."""
    digests = "\n\n".join(make_digest(r) for r in reports)
    body = render_matrix_comment(
        matrix,
        title=title_for(ctx),
        full_report_url=ctx.run_url or None,
        choice=choice,
        max_bytes=check_summary_room(digests),
    )
    return summary_with_digest(body, digests)


def model_annotations(
    matrix: MatrixComparison, tools: ToolIndex, reports: list[RunReport]
) -> list[Annotation]:
    """The tool files' problems once, then per model the tools in its newly failing cases
    (a matrix's titled with the model)."""
    out = list(tools.problems)
    locations_only = ToolIndex(locations=tools.locations)
    for entry, report in zip(matrix.entries, reports, strict=True):
        for note in annotations_for(entry.comparison, locations_only, report):
            if entry.label:
                note = note.model_copy(update={"title": f"{entry.label}: {note.title}"})
            out.append(note)
    return out


def publish_check(
    ctx: ActionContext,
    outcome: Outcome,
    repo: Repository,
    sha: str,
    matrix: MatrixComparison,
    summary: str,
    annotations: list[Annotation],
) -> None:
    """The run's one check run: conclusion and title from every model."""
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


def publish_summary(
    ctx: ActionContext,
    outcome: Outcome,
    repo: Repository,
    sha: str,
    *,
    conclusion: Conclusion,
    title: str,
    summary: str,
    annotations: list[Annotation],
) -> None:
    """The `check-name` check run on `sha` (one model's or a matrix's), its id into
    `outcome`; a failure is a recorded problem."""
    run = attempt(
        outcome,
        f"publish the `{ctx.inputs.check_name}` check run on {sha[:12]}",
        lambda: publish_check_run(
            repo,
            sha,
            ctx.inputs.check_name,
            conclusion=conclusion,
            title=title,
            summary=summary,
            annotations=annotations,
            details_url=ctx.run_url or None,
        ),
    )
    if run is not None:
        outcome.check_run_id = run.id


# ------------------------------------------------------------------------------ baseline
def save_baseline(ctx: ActionContext, gh: Github, engine: Engine, models: list[ModelReport]) -> int:
    """A push: every model's digest in one check run, where pull requests find them."""
    outcome = Outcome(report_path=models[0].path)
    entries = [
        entry_of(m, compare_runs(None, m.report, engine.thresholds(model_ctx(ctx, m.run))))
        for m in models
    ]
    matrix = MatrixComparison(entries=entries)
    if matrix.single is not None:
        matrix.single.notes.append(
            f"baseline run on {ctx.sha[:12]}: its digest is stored in the "
            f"{ctx.inputs.check_name} check run, where pull requests find it"
        )
    else:
        for entry in matrix.entries:
            entry.comparison.notes[:] = []
        matrix.notes.append(
            f"baseline run on {ctx.sha[:12]}: every model's digest is stored in the "
            f"{ctx.inputs.check_name} check run, where pull requests find them"
        )
    reports = [m.report for m in models]
    choice = choose_models(reports) if matrix.single is None else None
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    if repo is not None and ctx.sha:
        summary = check_summary(ctx, matrix, reports, choice)
        publish_check(ctx, outcome, repo, ctx.sha, matrix, summary, [])
    return finish(ctx, outcome, matrix, models, choice)


# ------------------------------------------------------------------------------ pull requests
def find_baselines(
    ctx: ActionContext, repo: Repository | None, pr: PullRequestInfo, outcome: Outcome
) -> tuple[list[RunReport | RunDigest], str, str]:
    """Every digest of the merge-base check run (one per model of a matrix), else the
    baseline file, else none; where they came from; the merge-base sha when known."""
    mode = ctx.inputs.baseline
    merge_base = ""
    if mode in ("auto", "check-run") and repo is not None:
        found = attempt(
            outcome, "read the merge-base check run", lambda: _merge_base_text(ctx, repo, pr)
        )
        if found is not None:
            merge_base, text = found
            if text is not None:
                try:
                    digests = parse_digests(text, source=f"check run on {merge_base[:12]}")
                    return (
                        list(digests),
                        # plain words: notes are escaped as text where they are shown
                        f"the {ctx.inputs.check_name} check run on the merge-base commit "
                        f"{merge_base[:12]}",
                        merge_base,
                    )
                except BfclActionError as exc:
                    outcome.problems.append(f"ignored the merge-base digest: {exc}")
    path = baseline_file(ctx)
    if mode in ("auto", "file") or mode.startswith("file:"):
        if path is not None and path.is_file():
            return [load_baseline(path)], f"the baseline file {path.name}", merge_base
        if mode != "auto":
            raise InputError("the baseline file does not exist", file=str(path), field="baseline")
    return [], "", merge_base


def _merge_base_text(
    ctx: ActionContext, repo: Repository, pr: PullRequestInfo
) -> tuple[str, str | None]:
    """The merge-base sha and the summary of its `check-name` check run with a digest."""
    comparison = repo.compare(pr.base_sha or pr.base_ref, pr.head_sha)
    sha = comparison.merge_base_commit.sha
    return sha, find_digest_text(repo, sha, ctx.inputs.check_name)


def baseline_file(ctx: ActionContext) -> Path | None:
    root = Path(ctx.inputs.working_directory or ".")
    if ctx.inputs.baseline.startswith("file:"):
        return root / ctx.inputs.baseline[len("file:") :]
    if ctx.inputs.baseline_file:
        return root / ctx.inputs.baseline_file
    return None


def post_comment(
    ctx: ActionContext,
    outcome: Outcome,
    gh: Github,
    repo: Repository,
    number: int,
    body: str,
    verdict: Verdict,
) -> None:
    mode = ctx.inputs.comment
    if mode is CommentMode.OFF:
        return
    author = resolve_author(gh, ctx.inputs.comment_author)
    if mode is CommentMode.ON_REGRESSION and verdict is not Verdict.REGRESSION:
        existing = attempt(
            outcome,
            "look for the existing comment",
            lambda: find_sticky_comment(repo, number, ctx.inputs.check_name, author),
        )
        if existing is None:
            return
    result = attempt(
        outcome,
        f"post the pull request comment on #{number}",
        lambda: upsert_comment(repo, number, body, ctx.inputs.check_name, author),
    )
    if result is not None:
        outcome.comment_id = result[0].id
        outcome.comment_url = str(result[0].html_url or "")


def category_statuses(comparison: Comparison) -> list[CategoryStatus]:
    out = []
    for row in comparison.suites:
        head = row.head
        if head is None:
            continue
        failed = row.verdict is Verdict.REGRESSION and not comparison.thresholds.informational
        counts = "" if row.delta_points is not None else f" ({head.correct}/{head.total})"
        out.append(
            CategoryStatus(
                category=row.suite,
                state="failure" if failed else "success",
                description=f"{row.score_line()}{counts} · {row.verdict.value}",
            )
        )
    return out


def keep_comment_if_unposted(
    ctx: ActionContext,
    outcome: Outcome,
    repo: Repository | None,
    pr: PullRequestInfo,
    body: str,
    *,
    conclusion: Conclusion,
    title: str,
    summary: str,
    annotations: list[Annotation],
) -> None:
    """A comment the token could not post goes to a folder for a `workflow_run` job."""
    if (
        outcome.comment_id is None
        and ctx.inputs.comment is not CommentMode.OFF
        and (repo is None or outcome.problems)
    ):
        outcome.comment_file = write_comment_artifact(
            ctx,
            pr,
            body,
            conclusion=conclusion,
            title=title,
            summary=summary,
            annotations=annotations,
        )


def write_comment_artifact(
    ctx: ActionContext,
    pr: PullRequestInfo,
    body: str,
    *,
    conclusion: Conclusion,
    title: str,
    summary: str,
    annotations: list[Annotation],
) -> Path:
    """Comment body and metadata for a `workflow_run` job to post (upload this directory)."""
    folder = output_dir(ctx) / COMMENT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "body.md").write_text(redact.redact(body), encoding="utf-8")
    meta = {
        "version": 1,
        "repository": ctx.repository,
        "pull_request": pr.number,
        "head_sha": pr.head_sha,
        "check_name": ctx.inputs.check_name,
        "conclusion": conclusion,
        "title": title,
        "summary": summary,
        "annotations": [a.model_dump() for a in annotations],
    }
    (folder / "meta.json").write_text(redact.redact(json.dumps(meta, indent=1)), encoding="utf-8")
    return folder


# ------------------------------------------------------------------------------ finish
def problems_markdown(problems: list[str]) -> str:
    lines = "\n".join(f"- {outputs.neutralize_log(p)}" for p in problems)
    return (
        "\n### ⚠️ Not everything could be posted to GitHub\n\n"
        f"{lines}\n\nThe report above and the step outputs are complete.\n"
    )


def summary_trailer(outcome: Outcome) -> str:
    """What the job summary adds after the report: the GitHub calls that failed, and where
    an unposted comment went."""
    text = problems_markdown(outcome.problems) if outcome.problems else ""
    if outcome.comment_file is not None:
        text += (
            f"\nThe comment could not be posted with this token; it was written to "
            f"`{outcome.comment_file}` for a `workflow_run` job to post.\n"
        )
    return text


def finish(
    ctx: ActionContext,
    outcome: Outcome,
    matrix: MatrixComparison,
    models: list[ModelReport],
    choice: ModelChoice | None = None,
) -> int:
    """Job summary, then outputs (the first model's score and categories, the run's
    verdict; a matrix's models under `models`), then the exit code: always in this order."""
    summary = render_matrix_summary(
        matrix,
        title=title_for(ctx),
        full_report_url=ctx.run_url or None,
        choice=choice,
        max_bytes=outputs.SUMMARY_LIMIT - 64_000,
    )
    outputs.append_summary(ctx.step_summary_path, summary + summary_trailer(outcome))
    outcome.comparison = matrix.entries[0].comparison
    outcome.verdict = matrix.verdict.value
    outcome.exit_code = matrix.exit_code
    values = output_values(outcome)
    if matrix.single is not None:
        outputs.write_outputs(ctx.output_path, values)
        print(f"bfcl-action: verdict {outcome.verdict}, score {values['score']}%", file=sys.stderr)
        print(escape.log_line(f"bfcl-action: {matrix.single.headline}", 2000), file=sys.stderr)
        return outcome.exit_code
    outputs.write_outputs(ctx.output_path, {**values, MODELS_OUTPUT: models_output(matrix, models)})
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
    return outcome.exit_code


def models_output(matrix: MatrixComparison, models: list[ModelReport]) -> str:
    """The `models` output: label -> model, score, verdict, informational, report."""
    return json.dumps(
        {
            e.label: {
                "model": e.model,
                "score": percent(
                    e.comparison.overall.head.accuracy if e.comparison.overall.head else None,
                    digits=2,
                    missing="",
                ),
                "verdict": e.comparison.verdict.value,
                "informational": e.informational,
                "report": str(m.path),
            }
            for e, m in zip(matrix.entries, models, strict=True)
        },
        sort_keys=True,
    )


def output_values(outcome: Outcome) -> dict[str, str]:
    comparison = outcome.comparison
    categories: dict[str, float | None] = {}
    score = ""
    if comparison is not None:
        head = comparison.overall.head
        score = percent(head.accuracy if head else None, digits=2, missing="")
        for row in comparison.suites:
            if row.head is not None:
                acc = row.head.accuracy
                categories[row.suite] = None if acc is None else round(acc * 100, 2)
    return {
        "score": score,
        "verdict": outcome.verdict,
        "categories": json.dumps(categories, sort_keys=True),
        "report-path": str(outcome.report_path or ""),
        "comment-id": str(outcome.comment_id or ""),
        "comment-file": str(outcome.comment_file or ""),
        "check-run-id": str(outcome.check_run_id or ""),
        "models": "",
    }
