"""`schedule` / `workflow_dispatch` runs: track the model over time, alert once on degradation.

Steps, in this order (docs/scheduled.md):

1. baseline: the previous scheduled run on the default branch, i.e. the newest `check-name`
   check run carrying the scheduled marker and a digest on the default branch's recent
   commits; else the last run in the history file; else none (only the floors apply);
2. compare (`bfcl_action.compare.runs`: significant drops and the `min_score` floors);
3. decide what happens to the alert issue (`alerts.decide`);
4. append the run to the history file and draw the trend chart, *before* anything else can
   fail (the local file is written atomically; in `branch` mode it is then pushed);
5. open / update / close the alert; publish the check run (its digest is the next baseline);
6. job summary, outputs, exit code (`publish.finish`).

Each model of a matrix is tracked as if it had its own step (`run_scheduled_models`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from github import Github
from github.Repository import Repository

from bfcl_action.compare.git_files import BranchStore
from bfcl_action.compare.history import (
    HistoryRecord,
    append_line,
    last_digest,
    parse_history,
    read_history,
    record_of,
    trend_table,
    write_atomic,
)
from bfcl_action.compare.matrix import MatrixComparison
from bfcl_action.compare.metrics import write_metrics
from bfcl_action.compare.model_choice import choose_models
from bfcl_action.compare.runs import compare_runs
from bfcl_action.core.errors import BfclActionError, InputError
from bfcl_action.core.records import RunReport
from bfcl_action.github import alerts, outputs
from bfcl_action.github.checks import (
    PREVIOUS_DEFAULT_NAMES,
    completed_runs,
    newest_with_markers,
    publish_check_run,
)
from bfcl_action.github.context import SCHEDULED_EVENTS as CONTEXT_SCHEDULED_EVENTS
from bfcl_action.github.context import ActionContext
from bfcl_action.github.evaluate import Engine, workdir
from bfcl_action.github.publish import (
    MODELS_OUTPUT,
    ModelReport,
    Outcome,
    attempt,
    check_summary,
    check_title,
    conclusion_of,
    entry_of,
    finish,
    model_ctx,
    models_output,
    output_dir,
    save_baseline,
    title_for,
)
from bfcl_action.report.charts import history_chart
from bfcl_action.report.model_choice import render_model_choice_markdown
from bfcl_action.results.digest import MARKER as DIGEST_MARKER
from bfcl_action.results.digest import RunDigest, encode_digest, parse_digest
from bfcl_action.safety.escape import md_code, md_inline

SCHEDULED_EVENTS = CONTEXT_SCHEDULED_EVENTS
SCHEDULED_MARKER = "<!-- bfcl-action:scheduled -->"
HISTORY_MODES = ("artifact", "branch", "off")
MAX_COMMITS = 50
"""How far back on the default branch the previous scheduled check run is looked for."""
HISTORY_DIR = "history"
SCHEDULED_OUTPUTS = ("alert", "alert-issue", "history-path")
"""Step outputs only scheduled runs write (empty otherwise)."""


def is_scheduled(ctx: ActionContext) -> bool:
    return ctx.scheduled


def export_metrics(ctx: ActionContext, report: RunReport) -> list[Path]:
    """The `metrics-json` / `metrics-openmetrics` / `metrics-emf` files, for any event."""
    base = workdir(ctx)
    json_path = base / ctx.inputs.metrics_json if ctx.inputs.metrics_json else None
    om_path = base / ctx.inputs.metrics_openmetrics if ctx.inputs.metrics_openmetrics else None
    emf_path = base / ctx.inputs.metrics_emf if ctx.inputs.metrics_emf else None
    return write_metrics(report, json_path=json_path, openmetrics_path=om_path, emf_path=emf_path)


def history_name(check_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", check_name) or "bfcl"


def history_check_names(ctx: ActionContext) -> tuple[str, ...]:
    """This check's name, then the earlier default names it had (`PREVIOUS_DEFAULT_NAMES`):
    a workflow upgraded across the rename keeps appending to the history it has."""
    name = ctx.inputs.check_name
    return (name, *PREVIOUS_DEFAULT_NAMES.get(name, ()))


def local_history(ctx: ActionContext) -> tuple[Path, Path]:
    """The JSON Lines file and chart in the output directory (what the artifact uploads):
    the file of this check name, else an existing one of an earlier default name."""
    folder = output_dir(ctx) / HISTORY_DIR
    names = [history_name(n) for n in history_check_names(ctx)]
    name = next((n for n in names if (folder / f"{n}.jsonl").is_file()), names[0])
    return folder / f"{name}.jsonl", folder / f"{name}.svg"


def branch_paths(name: str) -> tuple[str, str]:
    """The history file and chart of check `name` on the data branch."""
    file = history_name(name)
    return f"{HISTORY_DIR}/{file}.jsonl", f"{HISTORY_DIR}/{file}.svg"


# ------------------------------------------------------------------------------ baseline
def find_previous_scheduled(
    repo: Repository, start_sha: str, check_name: str
) -> tuple[str, str] | None:
    """`(sha, summary)` of the newest scheduled `check_name` check run on `start_sha` or its
    first `MAX_COMMITS` ancestors."""
    for index, commit in enumerate(repo.get_commits(sha=start_sha)):
        if index >= MAX_COMMITS:
            break
        run = newest_with_markers(
            completed_runs(repo, commit.sha, check_name), SCHEDULED_MARKER, DIGEST_MARKER
        )
        if run is not None:
            return commit.sha, str(run.output.summary)
    return None


def find_baseline(
    ctx: ActionContext,
    repo: Repository | None,
    records: list[HistoryRecord],
    outcome: Outcome,
) -> tuple[RunDigest | None, str]:
    if repo is not None and ctx.sha:
        found = attempt(
            outcome,
            "look for the previous scheduled check run",
            lambda: find_previous_scheduled(repo, ctx.sha, ctx.inputs.check_name),
        )
        if found is not None:
            sha, summary = found
            try:
                digest = parse_digest(summary, source=f"check run on {sha[:12]}")
                when = digest.created_at[:10] or "an earlier date"
                return digest, f"the previous scheduled run ({when}, commit {sha[:12]})"
            except BfclActionError as exc:
                outcome.problems.append(f"ignored the previous scheduled digest: {exc}")
    recorded = last_digest(records, *history_check_names(ctx))
    if recorded is not None:
        when = recorded.created_at[:10] or "undated"
        return recorded, f"the last run in the history file ({when})"
    return None, "no earlier scheduled run (only the configured floors apply)"


# ------------------------------------------------------------------------------ history
class History:
    """The history of this check name: loaded at the start, saved before anything can fail."""

    def __init__(self, ctx: ActionContext, outcome: Outcome) -> None:
        self.ctx, self.outcome = ctx, outcome
        self.mode = ctx.inputs.history
        self.local, self.local_svg = local_history(ctx)
        self.store: BranchStore | None = None
        self.records: list[HistoryRecord] = []
        self.text = ""
        self.chart_url = ""
        self.saved = False
        self.branch_name = ctx.inputs.check_name
        """The check name whose file on the data branch this run appends to."""

    def load(self) -> None:
        if self.mode == "off":
            return
        if self.mode == "branch":

            def fetch() -> str:
                self.store = BranchStore(workdir(self.ctx), self.ctx.inputs.history_branch)
                tree = self.store.fetch()
                for name in history_check_names(self.ctx):
                    text = self.store.read(tree, branch_paths(name)[0])
                    if text:
                        self.branch_name = name
                        return text
                return ""

            text = attempt(
                self.outcome,
                f"read the history from the `{self.ctx.inputs.history_branch}` branch",
                fetch,
            )
            if text is not None:
                self.text = text
                self.records, skipped = parse_history(text)
                self._skipped(skipped)
                return
            self.store = None
        self.records, skipped = read_history(self.local)
        self.text = self.local.read_text(encoding="utf-8") if self.local.is_file() else ""
        self._skipped(skipped)

    def _skipped(self, notes: list[str]) -> None:
        for note in notes:
            outputs.warning(note, title="bfcl-action history")

    def title(self, model: str) -> str:
        return f"{self.ctx.inputs.check_name}: scheduled runs of {model}"

    def save(self, record: HistoryRecord) -> None:
        """Local file first (atomic), then the data branch; the chart beside the file."""
        if self.mode == "off":
            return
        records = [*self.records, record]
        write_atomic(self.local, append_line(self.text, record))
        write_atomic(self.local_svg, history_chart(records, title=self.title(record.model)))
        self.saved = True
        self.records = records
        if self.mode != "branch" or self.store is None:
            return
        store = self.store
        rel, rel_svg = branch_paths(self.branch_name)

        def build(read: Callable[[str], str]) -> dict[str, str]:
            text = read(rel)
            earlier, _ = parse_history(text)
            return {
                rel: append_line(text, record),
                rel_svg: history_chart([*earlier, record], title=self.title(record.model)),
            }

        message = f"bfcl-action: {self.ctx.inputs.check_name} history, {record.created_at[:10]}"
        sha = attempt(
            self.outcome,
            f"push the history to the `{self.ctx.inputs.history_branch}` branch",
            lambda: store.update(build, message),
        )
        if sha is not None and self.ctx.repository:
            self.chart_url = f"{self.ctx.server_url}/{self.ctx.repository}/raw/{sha}/{rel_svg}"


# ------------------------------------------------------------------------------ activity
def run_scheduled_models(
    ctx: ActionContext, gh: Github, engine: Engine, models: list[ModelReport]
) -> int:
    """Each model tracked on its own, as if it had its own step (a matrix entry as
    `<check-name>/<label>`: check run, history, alert); for a matrix, then the job
    summary's *Which model?* over this run and the matrix's outputs (written last, so they
    are the step's)."""
    codes = []
    entries = []
    for model in models:
        own_ctx = model_ctx(ctx, model.run)
        own_step = replace(model, run=model.run.model_copy(update={"label": ""}))
        done: list[Outcome] = []
        codes.append(run_scheduled(own_ctx, gh, engine, own_step, outcomes=done))
        comparison = done[0].comparison if done else None
        if comparison is None:  # not the default branch: only the check run was published
            comparison = compare_runs(None, model.report, engine.thresholds(own_ctx))
        entries.append(entry_of(model, comparison))
    matrix = MatrixComparison(entries=entries)
    if matrix.single is None:
        if len(models) > 1:
            outputs.append_summary(
                ctx.step_summary_path,
                "\n"
                + render_model_choice_markdown(
                    choose_models([m.report for m in models]), heading_level=2
                ),
            )
        outputs.write_outputs(
            ctx.output_path,
            {"verdict": matrix.verdict.value, MODELS_OUTPUT: models_output(matrix, models)},
        )
    return max(codes, default=0)


def run_scheduled(
    ctx: ActionContext,
    gh: Github,
    engine: Engine,
    model: ModelReport,
    *,
    outcomes: list[Outcome] | None = None,
) -> int:
    """One model's scheduled run (the module docstring's steps); `outcomes` collects its
    outcome for the caller that reports every model."""
    report, report_path = model.report, model.path
    if ctx.inputs.history not in HISTORY_MODES:
        raise InputError(
            f"expected one of {', '.join(HISTORY_MODES)}, found {ctx.inputs.history!r}",
            field="history",
        )
    outcome = Outcome(report_path=report_path)
    repo = attempt(outcome, "read the repository", lambda: gh.get_repo(ctx.repository))
    default = str(repo.default_branch) if repo is not None else ctx.default_branch
    if ctx.ref and ctx.ref != f"refs/heads/{default}":
        outputs.notice(
            f"{ctx.event_name} run on {ctx.ref}, not the default branch {default}: no history "
            "and no alert, only the check run",
            title="bfcl-action",
        )
        return save_baseline(ctx, gh, engine, [model])
    thresholds = engine.thresholds(ctx)
    history = History(ctx, outcome)
    history.load()
    previous, where = find_baseline(ctx, repo, history.records, outcome)
    comparison = compare_runs(previous, report, thresholds)
    comparison.notes.insert(0, f"scheduled run; baseline: {where}")
    outcome.comparison = comparison
    outcome.verdict = comparison.verdict.value

    existing = None
    decision: alerts.AlertDecision | None = None
    if ctx.inputs.alert and repo is not None:
        before = len(outcome.problems)
        existing = attempt(
            outcome,
            "look for the open alert issue",
            lambda: alerts.find_alert(repo, ctx.inputs.check_name),
        )
        if len(outcome.problems) == before:  # never open a second alert when the lookup failed
            vs_reference = None
            if existing is not None:
                vs_reference = compare_runs(alerts.reference_digest(existing), report, thresholds)
            decision = alerts.decide(
                open_alert=existing is not None,
                vs_previous=comparison,
                vs_reference=vs_reference,
            )

    record = record_of(
        report,
        check_name=ctx.inputs.check_name,
        run_id=ctx.run_id,
        sha=ctx.sha,
        event=ctx.event_name,
        verdict=comparison.verdict.value,
        alert=decision.action.value if decision else "",
    )
    if not record.created_at:
        record.created_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    history.save(record)

    facts = alerts.RunFacts(
        date=record.created_at[:10],
        check_name=ctx.inputs.check_name,
        model=report.model,
        sha=ctx.sha,
        run_url=ctx.run_url,
        chart_url=history.chart_url,
        trend=trend_table(history.records),
    )
    result = None
    if decision is not None and decision.action is not alerts.AlertAction.NONE and repo is not None:
        reference = encode_digest(previous) if previous is not None else None
        label = (
            where if previous is not None else "the configured floors (there was no earlier run)"
        )
        result = attempt(
            outcome,
            f"update the alert issue ({decision.action.value})",
            lambda: alerts.apply(
                repo,
                existing,
                decision,
                facts,
                comparison,
                reference=reference,
                reference_label=label,
            ),
        )
    matrix = MatrixComparison(entries=[entry_of(model, comparison)])
    if repo is not None and ctx.sha:
        publish_scheduled_check(ctx, outcome, repo, report, matrix)
    outputs.append_summary(
        ctx.step_summary_path, scheduled_summary(ctx, history, decision, result, facts)
    )
    outputs.write_outputs(
        ctx.output_path,
        dict(
            zip(
                SCHEDULED_OUTPUTS,
                (
                    result.action.value if result is not None else "",
                    str(result.number or "") if result is not None else "",
                    str(history.local) if history.saved else "",
                ),
                strict=True,
            )
        ),
    )
    if outcomes is not None:
        outcomes.append(outcome)
    return finish(ctx, outcome, matrix, [model])


def publish_scheduled_check(
    ctx: ActionContext,
    outcome: Outcome,
    repo: Repository,
    report: RunReport,
    matrix: MatrixComparison,
) -> None:
    """The check run with the scheduled marker, so the next scheduled run finds it."""
    summary = SCHEDULED_MARKER + "\n" + check_summary(ctx, matrix, [report])
    run = attempt(
        outcome,
        f"publish the `{ctx.inputs.check_name}` check run on {ctx.sha[:12]}",
        lambda: publish_check_run(
            repo,
            ctx.sha,
            ctx.inputs.check_name,
            conclusion=conclusion_of(matrix),
            title=check_title(matrix),
            summary=summary,
            details_url=ctx.run_url or None,
        ),
    )
    if run is not None:
        outcome.check_run_id = run.id


def scheduled_summary(
    ctx: ActionContext,
    history: History,
    decision: alerts.AlertDecision | None,
    result: alerts.AlertResult | None,
    facts: alerts.RunFacts,
) -> str:
    lines = [f"## {md_inline(title_for(ctx))}: scheduled run\n"]
    if not ctx.inputs.alert:
        lines.append("Alert issues are off (`alert: false`).")
    elif decision is None:
        lines.append("The alert issue could not be checked (see the warnings below).")
    elif result is not None and result.number is not None:
        verb = {"opened": "opened", "updated": "updated", "closed": "closed (recovered)"}
        lines.append(
            f"Alert issue [#{result.number}]({result.url}) {verb.get(result.action.value, '')}."
        )
    elif decision.action is alerts.AlertAction.NONE:
        lines.append("No degradation: no alert issue is open for this check.")
    if decision is not None and decision.reasons:
        lines.append("\n" + "\n".join(decision.reasons))
    if history.mode == "off":
        lines.append("\nHistory is off (`history: off`).")
    elif history.saved:
        kept = (
            f"committed to the `{md_inline(ctx.inputs.history_branch)}` branch"
            if history.chart_url
            else "kept in the output directory (upload it as an artifact)"
        )
        lines.append(
            f"\n### Trend\n\n{facts.trend if not history.chart_url else ''}"
            + (
                f"![Scores of the scheduled runs]({history.chart_url})\n"
                if history.chart_url
                else ""
            )
            + f"\nHistory: {len(history.records)} run(s) in {md_code(str(history.local))}, {kept}; "
            f"chart {md_code(str(history.local_svg))}.\n"
        )
    return "\n".join(lines) + "\n"
