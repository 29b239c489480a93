"""What the GitHub activities need from the evaluation side, as replaceable functions.

`Engine` bundles them: run the evaluation (or load a finished report), resolve thresholds,
and locate tool definitions for annotations. The defaults call the evaluation core
(`bfcl_action.runner.evaluation`), the `.bfcl.yml` loader and the tool loader; tests hand in their
own.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bfcl_action.compare.impact import ToolChange
from bfcl_action.compare.runs import Comparison
from bfcl_action.core.errors import BfclActionError, ConfigError, InputError
from bfcl_action.core.records import CaseResult, RunReport, SourceLocation
from bfcl_action.github.checks import Annotation
from bfcl_action.github.context import ActionContext
from bfcl_action.results import run_reports
from bfcl_action.safety.globs import glob_files
from bfcl_action.safety.numbers import integer, number
from bfcl_action.settings.config import BfclConfig, MatrixModel
from bfcl_action.settings.resolve import (
    MatrixRun,
    RunOverrides,
    RunSettings,
    check_settings,
    resolve_model_runs,
    resolve_run_settings,
    resolve_thresholds,
)
from bfcl_action.settings.thresholds import CategoryThreshold, ThresholdOverrides, Thresholds

REPLAY_PREFIX = "replay:"


@dataclass
class ToolIndex:
    """Where each tool is defined, and the tool files' problems (for annotations)."""

    locations: dict[str, SourceLocation] = field(default_factory=dict)
    problems: list[Annotation] = field(default_factory=list)


def config_path(ctx: ActionContext) -> Path | None:
    path = workdir(ctx) / ctx.inputs.config
    return path if path.is_file() else None


def workdir(ctx: ActionContext) -> Path:
    return Path(ctx.inputs.working_directory or ".")


def repo_path(ctx: ActionContext, file: str) -> str:
    """`file` (relative to `working-directory`, as every tool and config message names it)
    as a path from the repository root (`GITHUB_WORKSPACE`), which is what GitHub needs to
    attach an annotation to the diff; unchanged when it lies outside the workspace."""
    full = (workdir(ctx) / file).resolve()
    try:
        return full.relative_to(ctx.workspace.resolve()).as_posix()
    except ValueError:
        return file


@dataclass(frozen=True)
class LoadedConfig:
    """The repository's `.bfcl.yml`, parsed once per process (or why it could not be)."""

    path: Path | None = None
    config: BfclConfig | None = None
    error: BfclActionError | None = None

    def require(self) -> BfclConfig | None:
        """The config (None when there is no file); raises the file's error if it has one."""
        if self.error is not None:
            raise self.error
        return self.config


def read_config(ctx: ActionContext) -> LoadedConfig:
    """Parse the `config` input's file when it exists; errors are kept for whoever needs it."""
    path = config_path(ctx)
    if path is None:
        return LoadedConfig()
    from bfcl_action.settings.config import load_config

    try:
        return LoadedConfig(path=path, config=load_config(path, ctx.inputs.config))
    except BfclActionError as exc:
        return LoadedConfig(path=path, error=exc)


def model_name(ctx: ActionContext, config: BfclConfig | None = None) -> str:
    if ctx.inputs.model:
        return ctx.inputs.model
    return (config.model.name or "") if config is not None else ""


def needs_api_key(ctx: ActionContext, loaded: LoadedConfig | None = None) -> bool:
    """Whether this run would call a hosted model (no finished report, no replay model)."""
    if ctx.inputs.report:
        return False
    loaded = loaded if loaded is not None else read_config(ctx)
    return not model_name(ctx, loaded.config).startswith(REPLAY_PREFIX)


def report_files(ctx: ActionContext) -> list[Path]:
    """Files named by the `report` input: paths or globs, separated by spaces or newlines."""
    base = workdir(ctx)
    files: list[Path] = []
    for pattern in ctx.inputs.report.split():
        if any(ch in pattern for ch in "*?["):
            matched = glob_files(pattern, base)
            if not matched:
                raise InputError("matched no files", file=pattern, field="report")
            files.extend(matched)
        else:
            files.append(base / pattern)
    return files


def load_reports(ctx: ActionContext) -> RunReport:
    """One report, or the merge of several shard reports (`bfcl-action merge`)."""
    return run_reports.load_reports(report_files(ctx))


def _split(value: str) -> list[str]:
    return [part for part in re.split(r"[,\s]+", value) if part]


def _number(ctx: ActionContext, name: str, kind: type[int] | type[float]) -> Any:
    raw: str = getattr(ctx.inputs, name)
    if not raw:
        return None
    try:
        return integer(raw) if kind is int else number(raw)
    except ValueError as exc:
        raise ConfigError(str(exc), field=name.replace("_", "-"), file="action input") from None


def run_overrides(ctx: ActionContext, config: Path | None) -> RunOverrides:
    """The Action inputs that set run settings (unset inputs leave `.bfcl.yml`'s value)."""
    from bfcl_action.core.records import Mode

    mode = None
    if ctx.inputs.mode:
        try:
            mode = Mode(ctx.inputs.mode)
        except ValueError:
            choices = ", ".join(m.value for m in Mode)
            raise ConfigError(
                f"expected one of {choices}, found {ctx.inputs.mode!r}",
                field="mode",
                file="action input",
            ) from None
    categories = _split(ctx.inputs.categories)
    return RunOverrides(
        config=config,
        datasets=tuple(_split(ctx.inputs.suites)) or None,
        categories=tuple(categories) or None,
        model=ctx.inputs.model or None,
        base_url=ctx.inputs.base_url or None,
        mode=mode,
        sample=_number(ctx, "sample", int),
        shard=ctx.inputs.shard or None,
        concurrency=_number(ctx, "concurrency", int),
        env_python=ctx.inputs.env_python or None,
        tool_timeout_s=_number(ctx, "tool_timeout", float),
        exec_allow_hosts=tuple(ctx.inputs.exec_allow_hosts.replace(",", " ").split()) or None,
        batch=ctx.inputs.batch or None,
        batch_wait_s=_number(ctx, "batch_wait", float),
        **cache_overrides(ctx),
    )


def cache_overrides(ctx: ActionContext) -> dict[str, Any]:
    """The response cache of a workflow run: the directory action.yml restores from and
    saves to `actions/cache`, the age limit, and never a reuse on a scheduled run (provider
    drift is what those measure; their fresh answers are still saved for later PRs)."""
    if not ctx.inputs.response_cache:
        return {"no_cache": True}
    values: dict[str, Any] = {
        "cache_max_age_days": _number(ctx, "response_cache_max_age", float),
        "fresh": True if ctx.scheduled else None,
    }
    if ctx.response_cache_dir is not None:
        values["cache_dir"] = ctx.response_cache_dir
    return values


def run_settings(ctx: ActionContext, loaded: LoadedConfig) -> RunSettings:
    """Defaults < `.bfcl.yml` < Action inputs (`bfcl_action.settings.resolve`)."""
    config = loaded.require()
    settings = resolve_run_settings(run_overrides(ctx, loaded.path), config, environ=os.environ)
    check_settings(settings, model_hint="set the `model` input or `model.name` in .bfcl.yml")
    return settings


def matrix_entries(ctx: ActionContext, loaded: LoadedConfig) -> list[MatrixModel]:
    """The model matrix of this run: the `models` input, else `.bfcl.yml`'s `models:`;
    empty for a single-model run. The `model` input beside a matrix is an error: which of
    the two the workflow meant cannot be guessed."""
    from bfcl_action.settings.config import parse_models_input

    config = loaded.require()
    entries = (
        parse_models_input(ctx.inputs.models)
        if ctx.inputs.models
        else list(config.models if config is not None else [])
    )
    if entries and ctx.inputs.model:
        where = "the `models` input" if ctx.inputs.models else f"`models:` in {ctx.inputs.config}"
        raise ConfigError(
            f"the `model` input ({ctx.inputs.model}) and {where} both say which model to "
            "evaluate: remove the `model` input from the workflow to evaluate the matrix, "
            "or the matrix to evaluate one model",
            field="model",
            file="action input",
        )
    return entries


def model_runs(ctx: ActionContext, loaded: LoadedConfig) -> list[MatrixRun]:
    """The models of this run, checked (`settings.resolve_model_runs`): one per matrix
    entry, else the one model (no label). A finished report (the `report` input) of one
    model is not re-resolved: nothing is asked, so the inputs' defaults stand."""
    entries = matrix_entries(ctx, loaded)
    if not entries and ctx.inputs.report:
        return [MatrixRun(label="", settings=RunSettings())]
    runs = resolve_model_runs(
        run_overrides(ctx, loaded.path), loaded.config, entries, environ=os.environ
    )
    for run in runs:
        check_settings(
            run.settings,
            model_hint=f"give the `models` entry {run.label} a name"
            if run.label
            else "set the `model` input or `model.name` in .bfcl.yml",
        )
    return runs


def model_keys(ctx: ActionContext, runs: list[MatrixRun]) -> dict[str, str | None]:
    """Each model's API key: from the variable its matrix entry names (set in the step's
    `env`, held by `credentials` and redacted from every output), else the `api-key`
    input (a replay ignores it)."""
    from bfcl_action.safety import credentials

    keys: dict[str, str | None] = {}
    for run in runs:
        if run.key_variable:
            keys[run.label] = credentials.get(run.key_variable) or None
        else:
            keys[run.label] = ctx.inputs.api_key.get_secret_value() or None
    return keys


def missing_keys(runs: list[MatrixRun], keys: dict[str, str | None]) -> list[str]:
    """Matrix entries that would call a hosted model without a key (a local `base-url`
    server may need none, so those are left to the server to refuse); the one model of a
    run without `models:` is skipped earlier when it has no key (`Activity.SKIP`)."""
    return [
        run.label
        for run in runs
        if run.label
        and keys.get(run.label) is None
        and not run.settings.replaying
        and not run.settings.base_url
    ]


def given_reports(ctx: ActionContext, runs: list[MatrixRun]) -> list[tuple[MatrixRun, RunReport]]:
    """The `report` input's reports: for one model, that report or the merge of its shard
    reports; for a matrix, grouped by label (a model without a report is left out, with a
    warning)."""
    if len(runs) == 1 and not runs[0].label:
        return [(runs[0], load_reports(ctx))]
    labels = [run.label for run in runs]
    grouped = run_reports.load_labelled_reports(report_files(ctx))
    found = [(run, grouped[run.label]) for run in runs if run.label in grouped]
    if not found:
        raise InputError(
            f"no report of the matrix models ({', '.join(labels)}) in the `report` input; "
            f"it holds {', '.join(sorted(g or '(no label)' for g in grouped)) or 'none'}",
            field="report",
        )
    missing = [label for label in labels if label not in grouped]
    if missing:  # a job of the matrix left no report
        from bfcl_action.github import outputs

        outputs.warning(
            f"the `report` input holds no report of {', '.join(missing)}: left out of the "
            "comparison",
            title="bfcl-action",
        )
    return found


def run_models(
    ctx: ActionContext, loaded: LoadedConfig, runs: list[MatrixRun], output: Path
) -> list[tuple[MatrixRun, RunReport]]:
    """Every model of the run on the same cases, in this process (`evaluate_models`);
    each report is written to `output`, a matrix model's beside it as
    `report.<label>.json`. With the `report` input, the given reports instead.

    The API keys go from the inputs straight to the backend; the reports stay in memory."""
    if ctx.inputs.report:
        return given_reports(ctx, runs)
    from bfcl_action.runner.evaluation import (
        evaluate_models,
        labelled_paths,
        print_summary,
        write_outputs,
    )

    paths = labelled_paths(output, [run.label for run in runs])
    keys = model_keys(ctx, runs)
    missing = missing_keys(runs, keys)
    if missing:
        names = ", ".join(
            f"{r.label} ({r.key_variable or 'api-key input'})" for r in runs if r.label in missing
        )
        raise ConfigError(
            f"no API key for {names}: pass each secret in the step's `env` under the variable "
            "its entry names (`api-key-env`), or the `api-key` input",
            field="models",
            file="action input",
        )
    reports, cases = evaluate_models(runs, loaded.config, api_keys=keys)
    for run, report in zip(runs, reports, strict=True):
        write_outputs(report, paths[run.label], None, cases)
        if run.label:
            print(f"== {report.label} ({report.model})")
        print_summary(report)
    return list(zip(runs, reports, strict=True))


_THRESHOLD_KEYS = {
    "max-drop": "max_drop",
    "alpha": "alpha",
    "min-score": "min_score",
    "informational": "informational",
}


def parse_thresholds(text: str) -> ThresholdOverrides:
    """The `thresholds` input, as overrides of `.bfcl.yml`'s `thresholds:`.

    Syntax: `max-drop=2 alpha=0.05 min-score=70 max-drop:simple_python=5
    alpha:simple_python=0.01 min-score:own_simple=90 informational=true` (comma, space or
    newline separated).
    """
    values: dict[str, Any] = {"categories": {}}
    for token in _split(text):
        key, sep, value = token.partition("=")
        name, _, suite = key.partition(":")
        if not sep or name not in _THRESHOLD_KEYS:
            raise ConfigError(
                f"expected KEY=VALUE with KEY one of {', '.join(_THRESHOLD_KEYS)} "
                f"(optionally KEY:SUITE), found {token!r}",
                field="thresholds",
            )
        field_name = _THRESHOLD_KEYS[name]
        try:
            parsed: Any = (
                value.lower() in ("true", "1", "yes") if name == "informational" else number(value)
            )
        except ValueError as exc:
            raise ConfigError(f"{name}: {exc}", field="thresholds", file="action input") from None
        if suite:
            if field_name not in CategoryThreshold.model_fields:
                raise ConfigError(f"{name} has no per-suite form", field="thresholds")
            values["categories"].setdefault(suite, {})[field_name] = parsed
        else:
            values[field_name] = parsed
    try:
        return ThresholdOverrides.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(
            first["msg"], field="thresholds." + ".".join(str(p) for p in first["loc"])
        ) from None


def action_thresholds(ctx: ActionContext, loaded: LoadedConfig) -> Thresholds:
    """Defaults < `.bfcl.yml`'s `thresholds:` < the `thresholds` input; `fail-on-regression:
    false` makes them informational."""
    overrides = parse_thresholds(ctx.inputs.thresholds)
    if not ctx.inputs.fail_on_regression:
        overrides = overrides.model_copy(update={"informational": True})
    return resolve_thresholds(loaded.require(), overrides)


def index_tools(ctx: ActionContext, loaded: LoadedConfig) -> ToolIndex:
    """Tool locations from the config's `tools` globs; problems become annotations."""
    index = ToolIndex()
    try:
        config = loaded.require()
    except BfclActionError as exc:
        index.problems.append(
            Annotation(
                path=repo_path(ctx, exc.file or ctx.inputs.config),
                start_line=exc.line or 1,
                level="failure",
                title="invalid .bfcl.yml",
                message=exc.message,
            )
        )
        return index
    patterns = list(getattr(config, "tools", []) or [])
    if not patterns:
        return index
    from bfcl_action.tools import ToolValidationError
    from bfcl_action.tools.configured import load_configured

    base = workdir(ctx)
    try:
        tools = load_configured(
            patterns,
            base_dir=base,
            exclude=list(getattr(config, "tools_exclude", [])),
            origins=config.origins("tools") if config is not None else (),
            limits=config.tool_limits if config is not None else None,
            allow_hosts=_allow_hosts(ctx),
        )
    except ToolValidationError as exc:
        for issue in getattr(exc, "issues", []):
            index.problems.append(_issue_annotation(ctx, issue, "failure"))
        return index
    for fn in tools.functions:
        if fn.source is not None:
            index.locations[fn.name] = fn.source.model_copy(
                update={"file": repo_path(ctx, fn.source.file)}
            )
    for issue in tools.left_out:
        index.problems.append(_issue_annotation(ctx, issue, "failure"))
    for issue in tools.warnings:
        index.problems.append(_issue_annotation(ctx, issue, "warning"))
    return index


def _issue_annotation(ctx: ActionContext, issue: Any, level: str) -> Annotation:
    return Annotation(
        path=repo_path(ctx, str(issue.file)),
        start_line=int(issue.line or 1),
        level="failure" if level == "failure" else "warning",
        title=f"tool {issue.tool}" if issue.tool else "tool definition",
        message=issue.render(),
    )


def involved_names(result: CaseResult | None, offered: list[str]) -> set[str]:
    """Tools a failing case involves: those the model called or the answer expected, except
    a tool the model called exactly as expected (a parallel case failing on another tool
    says nothing against it); the offered ones only when neither is known (e.g. the model
    called nothing)."""
    names: set[str] = set()
    if result is not None:
        names.update(call.name for call in result.decoded or [])
        names.update(name for expected in result.expected or [] for name in expected)
        names -= _called_as_expected(result)
    if not names:
        names.update(offered or (result.functions if result is not None else None) or [])
    return names


def _called_as_expected(result: CaseResult) -> set[str]:
    """Tools whose every call matches one expected call of that tool, one for one."""
    calls: dict[str, list[dict[str, Any]]] = {}
    for call in result.decoded or []:
        calls.setdefault(call.name, []).append(call.arguments)
    wanted: dict[str, list[dict[str, list[Any]]]] = {}
    for expected in result.expected or []:
        for name, params in expected.items():
            wanted.setdefault(name, []).append(params)
    return {
        name
        for name, made in calls.items()
        if len(made) == len(wanted.get(name, []))
        and all(any(_matches(a, w) for w in wanted[name]) for a in made)
    }


def _matches(arguments: dict[str, Any], params: dict[str, list[Any]]) -> bool:
    """Every argument among its options, every missing one optional (`""` an option)."""
    if set(arguments) - set(params):
        return False
    return all(
        (arguments[p] in options) if p in arguments else ("" in options)
        for p, options in params.items()
    )


def annotations_for(
    comparison: Comparison | None, index: ToolIndex, report: RunReport | None = None
) -> list[Annotation]:
    """Problems in the tool files, plus one annotation per tool in newly failing cases.

    See `involved_names` for what ties a tool to a failing case.
    """
    out = list(index.problems)
    if comparison is None:
        return out
    results = {r.id: r for r in report.results} if report is not None else {}
    failing: dict[str, list[str]] = {}
    for flip in comparison.flipped:
        if flip.direction != "newly_failing":
            continue
        for name in sorted(involved_names(results.get(flip.id), flip.functions)):
            if name in index.locations:
                failing.setdefault(name, []).append(flip.id)
    for name, cases in sorted(failing.items()):
        loc = index.locations[name]
        shown = ", ".join(cases[:10]) + (f" and {len(cases) - 10} more" if len(cases) > 10 else "")
        out.append(
            Annotation(
                path=loc.file,
                start_line=loc.line or 1,
                level="failure",
                title=f"{name}: {len(cases)} newly failing case(s)",
                message=f"Newly failing cases that called, expected or offered `{name}`: {shown}",
            )
        )
    return out


def changed_tools(ctx: ActionContext, loaded: LoadedConfig, base_ref: str) -> list[ToolChange]:
    """Tool definitions changed since `base_ref` (the merge-base), from the local checkout.

    Needs the merge-base commit in the clone (`fetch-depth: 0`); without it, or without
    own tools, the comment simply does not list changed tools.
    """
    path = loaded.path
    if path is None or not base_ref:
        return []
    try:
        config = loaded.require()
        patterns = list(getattr(config, "tools", []) or [])
        if not patterns:
            return []
        from bfcl_action.compare.git_files import tools_at_ref, tree_at_ref
        from bfcl_action.compare.impact import describe_tool_changes
        from bfcl_action.tools.configured import load_configured

        exclude = list(getattr(config, "tools_exclude", []))
        hosts = _allow_hosts(ctx)
        head = load_configured(patterns, base_dir=path.parent, exclude=exclude, allow_hosts=hosts)
        if config is None or config.tool_globs == patterns:
            base = tools_at_ref(
                path.parent, base_ref, patterns, config_dir=path.parent, exclude=exclude
            )
        else:  # a tool server: the merge-base's server, started from the merge-base's tree
            with tempfile.TemporaryDirectory(prefix="bfcl-base-") as tmp:
                base_dir = tree_at_ref(path.parent, base_ref, path.parent, Path(tmp))
                base = load_configured(
                    patterns, base_dir=base_dir, exclude=exclude, allow_hosts=hosts
                )
    except BfclActionError:
        return []
    return describe_tool_changes(base.functions, head.functions)


def _allow_hosts(ctx: ActionContext) -> tuple[str, ...]:
    """The workflow's `exec-allow-hosts` (never the config's): hosts an MCP URL may name."""
    return tuple(ctx.inputs.exec_allow_hosts.replace(",", " ").split())


class Engine:
    """The evaluation side of one Action run, over the `.bfcl.yml` it parses once.

    Each method is a plain call into the core (settings, evaluation, thresholds, tools);
    tests may subclass it to replace one.
    """

    def __init__(self) -> None:
        self._loaded: dict[tuple[str, str], LoadedConfig] = {}
        self._runs: dict[tuple[str, str, str], list[MatrixRun]] = {}

    def config(self, ctx: ActionContext) -> LoadedConfig:
        """The `.bfcl.yml` of `ctx`, read on first use and then kept."""
        key = (ctx.inputs.working_directory, ctx.inputs.config)
        if key not in self._loaded:
            self._loaded[key] = read_config(ctx)
        return self._loaded[key]

    def needs_api_key(self, ctx: ActionContext) -> bool:
        if matrix_entries(ctx, self.config(ctx)):
            runs = self.model_runs(ctx)
            return not ctx.inputs.report and any(not r.settings.replaying for r in runs)
        return needs_api_key(ctx, self.config(ctx))

    def has_api_key(self, ctx: ActionContext) -> bool:
        """A key for the model, or for at least one model of the matrix (a fork PR has
        none: every secret is empty)."""
        if ctx.has_api_key:
            return True
        if not matrix_entries(ctx, self.config(ctx)):
            return False
        return any(v for v in model_keys(ctx, self.model_runs(ctx)).values())

    def model_runs(self, ctx: ActionContext) -> list[MatrixRun]:
        """The models with their settings: a matrix's entries, or the one model."""
        key = (ctx.inputs.working_directory, ctx.inputs.config, ctx.inputs.models)
        if key not in self._runs:
            self._runs[key] = model_runs(ctx, self.config(ctx))
        return self._runs[key]

    def run_models(self, ctx: ActionContext, output: Path) -> list[tuple[MatrixRun, RunReport]]:
        return run_models(ctx, self.config(ctx), self.model_runs(ctx), output)

    def thresholds(self, ctx: ActionContext) -> Thresholds:
        return action_thresholds(ctx, self.config(ctx))

    def tools(self, ctx: ActionContext) -> ToolIndex:
        return index_tools(ctx, self.config(ctx))

    def changed_tools(self, ctx: ActionContext, base_ref: str) -> list[ToolChange]:
        return changed_tools(ctx, self.config(ctx), base_ref)
