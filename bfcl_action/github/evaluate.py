"""What the GitHub activities need from the evaluation side, as replaceable functions.

`Engine` bundles them: run the evaluation (or load a finished report), resolve thresholds,
and locate tool definitions for annotations. The defaults call the `run` command, the
`.bfcl.yml` loader and the tool loader; tests hand in their own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bfcl_action import run_reports
from bfcl_action.compare import Comparison, Thresholds
from bfcl_action.errors import BfclActionError, ConfigError, InputError
from bfcl_action.github.checks import Annotation
from bfcl_action.github.context import ActionContext
from bfcl_action.globs import glob_files
from bfcl_action.impact import ToolChange
from bfcl_action.models import CaseResult, RunReport, SourceLocation

REPLAY_PREFIX = "replay:"
API_KEY_ENV = "INPUT_API_KEY"


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


def load_config(ctx: ActionContext) -> Any | None:
    """The `.bfcl.yml` (`bfcl_action.config.BfclConfig`) when the file exists."""
    path = config_path(ctx)
    if path is None:
        return None
    from bfcl_action.config import load_config as load

    return load(path, ctx.inputs.config)


def model_name(ctx: ActionContext, config: Any | None = None) -> str:
    if ctx.inputs.model:
        return ctx.inputs.model
    settings = getattr(config, "model", None)
    return str(getattr(settings, "name", "") or "")


def needs_api_key(ctx: ActionContext) -> bool:
    """Whether this run would call a hosted model (no finished report, no replay model)."""
    if ctx.inputs.report:
        return False
    try:
        name = model_name(ctx, load_config(ctx))
    except BfclActionError:
        name = ctx.inputs.model
    return not name.startswith(REPLAY_PREFIX)


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


def run_args(ctx: ActionContext, output: Path) -> list[str]:
    """`bfcl-action run` arguments for the inputs (the API key travels by env var name)."""
    config = load_config(ctx)
    model = model_name(ctx, config)
    if not model:
        raise ConfigError(
            "no model: set the `model` input or `model.name` in .bfcl.yml", field="model"
        )
    args = [
        "run",
        "--model",
        model,
        "--output",
        str(output),
        "--api-key-env",
        API_KEY_ENV,
        "--quiet",
    ]
    path = config_path(ctx)
    if path is not None:
        args += ["--config", str(path)]
    for spec in _split(ctx.inputs.suites):
        args += ["--dataset", spec]
    settings = getattr(config, "model", None)
    base_url = ctx.inputs.base_url or getattr(settings, "base_url", None)
    if base_url:
        args += ["--base-url", str(base_url)]
    mode = ctx.inputs.mode or (str(getattr(settings, "mode", "")) if settings else "")
    if mode:
        args += ["--mode", mode]
    if ctx.inputs.categories:
        args += ["--categories", ",".join(_split(ctx.inputs.categories))]
    if ctx.inputs.sample:
        args += ["--sample", ctx.inputs.sample]
    if ctx.inputs.shard:
        args += ["--shard", ctx.inputs.shard]
    concurrency = ctx.inputs.concurrency or (
        str(getattr(settings, "concurrency", "")) if settings else ""
    )
    if concurrency:
        args += ["--concurrency", concurrency]
    if ctx.inputs.env_python:
        args += ["--env-python", ctx.inputs.env_python]
    if ctx.inputs.tool_timeout:
        args += ["--tool-timeout", ctx.inputs.tool_timeout]
    return args


def run_evaluation(ctx: ActionContext, output: Path) -> RunReport:
    """The head run: the `report` input when given, else `bfcl-action run` in-process."""
    if ctx.inputs.report:
        return load_reports(ctx)
    from bfcl_action.cli import build_parser

    args = build_parser().parse_args(run_args(ctx, output))
    os.environ[API_KEY_ENV] = ctx.inputs.api_key.get_secret_value()
    code = args.func(args)
    if code != 0 and not output.is_file():
        raise BfclActionError(f"the evaluation failed (exit {code})")
    return run_reports.load_report(output)


_THRESHOLD_KEYS = {
    "max-drop": "max_drop_points",
    "alpha": "alpha",
    "min-score": "min_score",
    "informational": "informational",
}


def parse_thresholds(text: str, base: dict[str, Any] | None = None) -> Thresholds:
    """Thresholds from the `thresholds` input over the config's.

    Syntax: `max-drop=2 alpha=0.05 min-score=70 max-drop:simple_python=5
    min-score:own_simple=90 informational=true` (comma, space or newline separated).
    """
    values: dict[str, Any] = dict(base or {})
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
        parsed: Any = value.lower() in ("true", "1", "yes") if name == "informational" else value
        if suite:
            table = {
                "max_drop_points": "category_max_drop_points",
                "min_score": "category_min_score",
            }
            if field_name not in table:
                raise ConfigError(f"{name} has no per-suite form", field="thresholds")
            values.setdefault(table[field_name], {})[suite] = parsed
        else:
            values[field_name] = parsed
    try:
        return Thresholds.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(
            first["msg"], field="thresholds." + ".".join(str(p) for p in first["loc"])
        ) from None


def config_thresholds(config: Any | None) -> dict[str, Any]:
    """`.bfcl.yml` thresholds in `compare.Thresholds` terms."""
    raw = getattr(config, "thresholds", None)
    if raw is None:
        return {}
    values: dict[str, Any] = {"max_drop_points": raw.max_drop, "alpha": raw.alpha}
    if raw.min_score is not None:
        values["min_score"] = raw.min_score
    drops = {k: v.max_drop for k, v in raw.categories.items() if v.max_drop is not None}
    mins = {k: v.min_score for k, v in raw.categories.items() if v.min_score is not None}
    if drops:
        values["category_max_drop_points"] = drops
    if mins:
        values["category_min_score"] = mins
    return values


def resolve_thresholds(ctx: ActionContext) -> Thresholds:
    config = load_config(ctx)
    thresholds = parse_thresholds(ctx.inputs.thresholds, config_thresholds(config))
    if not ctx.inputs.fail_on_regression:
        thresholds = thresholds.model_copy(update={"informational": True})
    return thresholds


def index_tools(ctx: ActionContext) -> ToolIndex:
    """Tool locations from the config's `tools` globs; problems become annotations."""
    index = ToolIndex()
    try:
        config = load_config(ctx)
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
    from bfcl_action.tools import ToolValidationError, load_tools

    base = workdir(ctx)
    try:
        tools = load_tools(
            patterns, base_dir=base, exclude=list(getattr(config, "tools_exclude", []))
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
    """Tools a failing case involves: those the model called or the answer expected; the
    offered ones only when neither is known (e.g. the model called nothing)."""
    names: set[str] = set()
    if result is not None:
        names.update(call.name for call in result.decoded or [])
        names.update(name for expected in result.expected or [] for name in expected)
    if not names:
        names.update(offered or (result.functions if result is not None else None) or [])
    return names


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


def changed_tools(ctx: ActionContext, base_ref: str) -> list[ToolChange]:
    """Tool definitions changed since `base_ref` (the merge-base), from the local checkout.

    Needs the merge-base commit in the clone (`fetch-depth: 0`); without it, or without
    own tools, the comment simply does not list changed tools.
    """
    path = config_path(ctx)
    if path is None or not base_ref:
        return []
    try:
        config = load_config(ctx)
        patterns = list(getattr(config, "tools", []) or [])
        if not patterns:
            return []
        from bfcl_action.impact import describe_tool_changes, tools_at_ref
        from bfcl_action.tools import load_tools

        exclude = list(getattr(config, "tools_exclude", []))
        base = tools_at_ref(
            path.parent, base_ref, patterns, config_dir=path.parent, exclude=exclude
        )
        head = load_tools(patterns, base_dir=path.parent, exclude=exclude)
    except BfclActionError:
        return []
    return describe_tool_changes(base.functions, head.functions)


@dataclass
class Engine:
    """The evaluation-side functions the activities call; replace any of them in tests."""

    run: Callable[[ActionContext, Path], RunReport] = run_evaluation
    thresholds: Callable[[ActionContext], Thresholds] = resolve_thresholds
    tools: Callable[[ActionContext], ToolIndex] = index_tools
    needs_api_key: Callable[[ActionContext], bool] = needs_api_key
    changed_tools: Callable[[ActionContext, str], list[ToolChange]] = changed_tools
