"""Publishing one run, shared by every activity: outcome, resilient GitHub calls, check runs,
job summary and step outputs.

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

from bfcl_action import escape, redact
from bfcl_action.compare import Comparison, Verdict, compare_runs
from bfcl_action.digest import RunDigest, make_digest, parse_digests
from bfcl_action.errors import BfclActionError, InputError
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
from bfcl_action.github.evaluate import Engine
from bfcl_action.github.statuses import CategoryStatus
from bfcl_action.models import RunReport
from bfcl_action.report.markdown import DEFAULT_TITLE, render_comment, render_summary
from bfcl_action.run_reports import load_baseline

T = TypeVar("T")
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


# ------------------------------------------------------------------------------ check run
def conclusion_of(comparison: Comparison) -> Conclusion:
    if comparison.fails:
        return "failure"
    if comparison.verdict is Verdict.REGRESSION:
        return "neutral"
    return "success"


def check_title(comparison: Comparison) -> str:
    return f"{comparison.overall.score_line()} · {comparison.verdict.value.replace('_', ' ')}"


def publish_check(
    ctx: ActionContext,
    outcome: Outcome,
    repo: Repository,
    sha: str,
    report: RunReport,
    comparison: Comparison,
    annotations: list[Annotation],
) -> None:
    publish_summary(
        ctx,
        outcome,
        repo,
        sha,
        conclusion=conclusion_of(comparison),
        title=check_title(comparison),
        summary=check_summary(ctx, report, comparison),
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


def check_summary(ctx: ActionContext, report: RunReport, comparison: Comparison) -> str:
    digest = make_digest(report)
    body = render_comment(
        comparison,
        title=title_for(ctx),
        full_report_url=ctx.run_url or None,
        max_bytes=check_summary_room(digest),
    )
    return summary_with_digest(body, digest)


# ------------------------------------------------------------------------------ baseline
def save_baseline(
    ctx: ActionContext, gh: Github, engine: Engine, report: RunReport, report_path: Path
) -> int:
    outcome = Outcome(report_path=report_path)
    comparison = compare_runs(None, report, engine.thresholds(ctx))
    comparison.notes.append(
        f"baseline run on `{ctx.sha[:12]}`: its digest is stored in the `{ctx.inputs.check_name}` "
        "check run, where pull requests find it"
    )
    outcome.comparison = comparison
    outcome.verdict = comparison.verdict.value
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    if repo is not None and ctx.sha:
        publish_check(ctx, outcome, repo, ctx.sha, report, comparison, [])
    return finish(ctx, outcome)


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
                        f"the `{ctx.inputs.check_name}` check run on the merge-base commit "
                        f"`{merge_base[:12]}`",
                        merge_base,
                    )
                except BfclActionError as exc:
                    outcome.problems.append(f"ignored the merge-base digest: {exc}")
    path = baseline_file(ctx)
    if mode in ("auto", "file") or mode.startswith("file:"):
        if path is not None and path.is_file():
            return [load_baseline(path)], f"the baseline file `{path.name}`", merge_base
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


def finish(ctx: ActionContext, outcome: Outcome) -> int:
    """Job summary, then outputs, then the exit code: always in this order."""
    comparison = outcome.comparison
    summary = ""
    if comparison is not None:
        summary = render_summary(
            comparison,
            title=title_for(ctx),
            full_report_url=ctx.run_url or None,
            max_bytes=outputs.SUMMARY_LIMIT - 64_000,
        )
    outputs.append_summary(ctx.step_summary_path, summary + summary_trailer(outcome))
    outputs.write_outputs(ctx.output_path, output_values(outcome))
    outcome.exit_code = comparison.exit_code if comparison is not None else 0
    print(
        f"bfcl-action: verdict {outcome.verdict}"
        + (f", score {output_values(outcome)['score']}%" if comparison else ""),
        file=sys.stderr,
    )
    if comparison is not None:
        print(escape.log_line(f"bfcl-action: {comparison.headline}", 2000), file=sys.stderr)
    return outcome.exit_code


def pct(value: float | None) -> str:
    return "" if value is None else f"{value * 100:.2f}"


def output_values(outcome: Outcome) -> dict[str, str]:
    comparison = outcome.comparison
    categories: dict[str, float | None] = {}
    score = ""
    if comparison is not None:
        head = comparison.overall.head
        score = pct(head.accuracy if head else None)
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
