"""A run as plain function calls over resolved settings: the core `run` and the Action share.

`gather_cases` builds the cases (datasets, then the `.bfcl.yml`'s own suites), `select`
narrows them, `evaluate` asks the model and returns the report in memory, and
`write_outputs` writes it where the caller wants. Front-ends resolve `RunSettings` once
(`bfcl_action.settings.resolve`), hand in the parsed `.bfcl.yml` and the API key, and never go
through each other (no argv, no environment variables, no report read back from disk).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bfcl_action.checker import needs_underscore_to_dot
from bfcl_action.core.cost import cost_line, price_for, priced, run_cost
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import CaseResult, Mode, RunReport, TestCase
from bfcl_action.dataset.official import official_sizes
from bfcl_action.model.batch import BatchSettings
from bfcl_action.model.naming import NameMap, with_api_names
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.results.leaderboard import (
    LEADERBOARD_CATEGORIES,
    OVERALL_ACC,
    cell_text,
    format_sensitivity_stats,
    leaderboard_of,
)
from bfcl_action.results.run_reports import save_report
from bfcl_action.runner.backends import Backend
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from bfcl_action.runner.progress import Progress
from bfcl_action.safety.budget import repository_root
from bfcl_action.safety.sandbox import SandboxLimits
from bfcl_action.settings.config import BfclConfig
from bfcl_action.settings.resolve import MatrixRun, RunSettings, backend_options
from bfcl_action.settings.select import select_cases

if TYPE_CHECKING:
    from bfcl_action.runner.estimate import RunEstimate


def gather_cases(
    settings: RunSettings, config: BfclConfig | None
) -> tuple[list[TestCase], list[str]]:
    """Cases of the datasets, then of the config's suites; plus the dataset labels.

    `categories` names own categories and dataset categories alike: each goes to the side
    it belongs to (`split_selection`)."""
    if not settings.datasets and settings.config is None:
        raise ConfigError("nothing to evaluate: give --dataset and/or --config", field="dataset")
    categories = list(settings.categories) if settings.categories else None
    own_names, data_names = split_selection(categories) if categories else ([], [])
    if categories and settings.datasets and not data_names:
        raise ConfigError(
            "--categories names only own categories, so --dataset would load nothing: "
            "drop --dataset or add one of its categories",
            field="categories",
        )
    cases: list[TestCase] = []
    datasets: list[str] = []
    if settings.datasets:
        from bfcl_action.dataset import load_dataset

        for spec in settings.datasets:
            loaded = load_dataset(spec, data_names or None)
            cases.extend(loaded)
            datasets.append(loaded[0].dataset if loaded and loaded[0].dataset else spec)
    if settings.config is not None:
        if config is None:
            raise ConfigError("the config was not loaded", file=str(settings.config))
        from bfcl_action.cases.suites import build_cases

        own = build_cases(
            config,
            base_dir=settings.config.resolve().parent,
            allow_hosts=settings.exec_allow_hosts,
        )
        if categories and (own_names or not settings.datasets):
            own = select_cases(own, categories=own_names if settings.datasets else categories)
        elif categories:
            own = []
        cases.extend(own)
        datasets.append(f"own:{own_label(settings.config)}")
    return cases, datasets


def own_label(config: Path) -> str:
    """The config as the report names it: its path inside the repository, however it was
    spelled on the command line (`.bfcl.yml`, `./x/.bfcl.yml` or an absolute path), so two
    runs of one config are comparable and no local path reaches a report."""
    resolved = config.resolve()
    root = repository_root(resolved.parent)
    try:
        return resolved.relative_to(root).as_posix()
    except ValueError:
        return config.name


def split_selection(names: list[str]) -> tuple[list[str], list[str]]:
    """A `--categories` list as (own names, dataset names); unknown names are an error with a
    did-you-mean, `all` goes to both."""
    from bfcl_action.core.categories import CATEGORIES, DISTRACTOR_SUITE, Group, expand_categories

    def own(member: str) -> bool:
        if DISTRACTOR_SUITE.fullmatch(member):
            return True
        return CATEGORIES[member].group is Group.OWN

    mine: list[str] = []
    data: list[str] = []
    for name in names:
        members = expand_categories([name])
        if name == "all":
            mine.append(name)
            data.append(name)
        elif members and all(own(m) for m in members):
            mine.append(name)
        else:
            data.append(name)
    return mine, data


def select(settings: RunSettings, cases: list[TestCase]) -> list[TestCase]:
    """The `ids` / `sample` / `shard` selection; an empty one is an error."""
    chosen = select_cases(
        cases,
        id_pattern=settings.ids,
        sample=settings.sample,
        seed=settings.seed,
        shard=settings.shard or None,
    )
    if not chosen:
        raise ConfigError("the selection is empty: no case to evaluate")
    return chosen


def check_prompt_variants(
    settings: RunSettings, cases: Sequence[TestCase], label: str = ""
) -> None:
    """Format-sensitivity cases are asked in prompt mode only (bfcl-eval skips them for FC
    models): a `ConfigError` before any request when this run would ask them in FC mode, and
    a `DatasetError` when the texts their system prompts are built from cannot be read
    (rather than one infrastructure error per case)."""
    from bfcl_action.core.categories import CATEGORIES

    variants = {c.dataset for c in cases if CATEGORIES[c.category].prompt_variants}
    if not variants or settings.replaying:
        return
    if settings.mode is not Mode.PROMPT:
        model = f"model {label!r}" if label else "this run"
        raise ConfigError(
            f"format_sensitivity asks prompt-mode models only (as bfcl-eval does), but "
            f"{model} is in {settings.mode.value} mode: run it with --mode prompt "
            "(`model.mode: prompt` in .bfcl.yml)",
            field="mode",
        )
    from bfcl_action.dataset.official import prompt_templates_for

    for spec in sorted(variants):
        prompt_templates_for(spec)


def execution_options(settings: RunSettings) -> ExecutionOptions:
    """Sandbox settings for multi-turn environments."""
    return ExecutionOptions(
        limits=SandboxLimits(
            call_timeout_s=settings.tool_timeout_s, memory_mb=settings.tool_memory_mb
        ),
        python=settings.env_python,
        paths=tuple(str(Path(p).resolve()) for p in settings.env_paths),
        http_allow=settings.exec_allow_hosts,
    )


def run_options(settings: RunSettings, datasets: Sequence[str], api_key: str | None) -> RunOptions:
    notes = (
        (f"answers replayed from {settings.model.removeprefix('replay:')}",)
        if settings.replaying
        else ()
    )
    return RunOptions(
        backend=backend_options(settings, api_key),
        datasets=list(datasets),
        repeat=settings.repeat,
        max_retries=settings.max_retries,
        cache_dir=settings.cache_dir,
        cache_max_age_s=settings.cache_max_age_days * 86400,
        cache_read=not settings.fresh,
        shard=settings.shard,
        model_name=settings.model_name,
        extra_notes=notes,
        multi_turn=execution_options(settings),
        batch=(
            BatchSettings(wait_s=settings.batch_wait_s, on_failure=settings.batch_fallback)
            if settings.batch
            else None
        ),
    )


def evaluate(
    settings: RunSettings,
    config: BfclConfig | None,
    *,
    api_key: str | None,
    progress: Progress | None = None,
    backend: Backend | None = None,
) -> tuple[RunReport, list[TestCase]]:
    """Build and select the cases, ask the model (or the cache at `settings.cache_dir`),
    check and score: the report, in memory, with the cases it covers."""
    cases, datasets = gather_cases(settings, config)
    cases = select(settings, cases)
    report = evaluate_cases(
        settings, config, cases, datasets, api_key=api_key, progress=progress, backend=backend
    )
    return report, cases


def evaluate_cases(
    settings: RunSettings,
    config: BfclConfig | None,
    cases: list[TestCase],
    datasets: Sequence[str],
    *,
    api_key: str | None,
    progress: Progress | None = None,
    backend: Backend | None = None,
) -> RunReport:
    """Ask the model about `cases` (already built and selected), check, score and price."""
    check_prompt_variants(settings, cases)
    report, _stats = run_evaluation(
        cases, run_options(settings, datasets, api_key), backend=backend, progress=progress
    )
    report.results, priced_as = priced(
        report.results, report.model, config.pricing if config else {}
    )
    report.cost = run_cost(report.results, priced_as)
    return report


def evaluate_models(
    runs: Sequence[MatrixRun],
    config: BfclConfig | None,
    *,
    api_keys: Mapping[str, str | None],
    progress: Progress | None = None,
) -> tuple[list[RunReport], list[TestCase]]:
    """Every model of the run (one, or a matrix's) on the same cases: built and selected
    once (from the first run's settings: what chooses cases is shared), then asked model by
    model, each report labelled with its run's label. `api_keys` maps labels to keys."""
    if not runs:
        raise ConfigError("the model matrix is empty", field="models")
    cases, datasets = gather_cases(runs[0].settings, config)
    cases = select(runs[0].settings, cases)
    for run in runs:
        check_prompt_variants(run.settings, cases, run.label)
    batched = [run for run in runs if run.settings.batch]
    if len(batched) > 1:  # every batch first: they run at once, the waits overlap
        from bfcl_action.runner.pipeline import submit_batch

        for run in batched:
            print(f"bfcl-action: submitting the batch of {run.label}", file=sys.stderr)
            submit_batch(cases, run_options(run.settings, datasets, api_keys.get(run.label)))
    reports: list[RunReport] = []
    for run in runs:
        if run.label:
            print(f"bfcl-action: model {run.label} ({run.settings.model})", file=sys.stderr)
        report = evaluate_cases(
            run.settings,
            config,
            cases,
            datasets,
            api_key=api_keys.get(run.label),
            progress=progress,
        )
        report.label = run.label
        reports.append(report)
    return reports, cases


_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._-]")


def file_label(label: str) -> str:
    """A matrix label as part of a file name (characters a file name cannot hold: `_`)."""
    return _UNSAFE_IN_NAME.sub("_", label)


def labelled_path(path: Path, label: str) -> Path:
    """`run.json` -> `run.<label>.json`: one model's file of a matrix run (`path` itself
    for the one model of a run without `models:`, whose label is empty)."""
    if not label:
        return path
    return path.with_name(f"{path.stem}.{file_label(label)}{path.suffix}")


def labelled_paths(path: Path, labels: Sequence[str]) -> dict[str, Path]:
    """`labelled_path` per matrix entry; two labels that would share a file are an error."""
    out: dict[str, Path] = {}
    taken: dict[Path, str] = {}
    for label in labels:
        target = labelled_path(path, label)
        if target in taken:
            raise ConfigError(
                f"labels {taken[target]!r} and {label!r} would both write {target.name}: "
                "rename one",
                field="models",
            )
        taken[target] = label
        out[label] = target
    return out


def estimate(settings: RunSettings, config: BfclConfig | None) -> RunEstimate:
    """What `evaluate` would ask and cost (`run --dry-run`); asks nothing."""
    from bfcl_action.runner.chat import ChatBackend
    from bfcl_action.runner.estimate import estimate_run
    from bfcl_action.runner.pipeline import open_backend

    if settings.replaying:
        raise ConfigError("a replay asks no model: nothing to estimate", field="dry-run")
    cases, datasets = gather_cases(settings, config)
    cases = select(settings, cases)
    check_prompt_variants(settings, cases)
    options = run_options(settings, datasets, api_key=None)
    backend, cache = open_backend(options)
    try:
        assert isinstance(backend, ChatBackend)
        price = price_for(settings.model_name or settings.model, config.pricing if config else {})
        return estimate_run(cases, backend, cache, repeat=settings.repeat, price=price)
    finally:
        if cache is not None:
            cache.close()


def write_outputs(
    report: RunReport, output: Path, results_dir: Path | None, cases: Sequence[TestCase] = ()
) -> None:
    save_report(report, output)
    if results_dir is not None:
        from bfcl_action.results.results_io import write_result_files

        answered = [r for r in report.results if r.infra_error is None]
        write_result_files(bfcl_named(report, answered, cases), results_dir)


def bfcl_named(
    report: RunReport, results: list[CaseResult], cases: Sequence[TestCase]
) -> list[CaseResult]:
    """Results as BFCL would record them for this model: FC models whose API rejects dots
    (`needs_underscore_to_dot`) get the API-safe names, so `score` and the official scorer,
    which expect those for such models, agree with this run."""
    if report.mode is not Mode.FC or not needs_underscore_to_dot(report.model, Mode.FC):
        return results
    by_id = {c.id: c for c in cases}
    renamed: list[CaseResult] = []
    for result in results:
        case = by_id.get(result.id)
        if case is not None:
            names = NameMap.for_names(f.name for f in case.functions)
            result = result.model_copy(
                update={"model_output": with_api_names(result.model_output, names)}
            )
        renamed.append(result)
    return renamed


def print_summary(report: RunReport) -> None:
    """Per-suite scores, infrastructure errors and notes, on standard output; with official
    categories, the leaderboard's Overall Acc (what did not run counts as 0, as BFCL counts)."""
    infra = [r for r in report.results if r.infra_error is not None]
    for label, score in report.categories.items():
        print(f"{label:32} {score.correct:5}/{score.total:<5} {score.accuracy:7.2%}")
    if infra:
        print(f"infrastructure errors: {len(infra)} (excluded from accuracy)")
        for r in infra[:20]:
            print(f"  {r.id}: {r.infra_error}")
    for note in report.notes:
        print(note)
    if report.cost is not None and report.cost.answers:
        print(cost_line(report.cost))
    figures = format_sensitivity_stats(report.results)
    if figures is not None:
        print(
            f"Format sensitivity: max delta {figures.max_delta:.2f} pp, standard deviation "
            f"{figures.std:.2f} pp across {len(figures.configs)} prompt configurations "
            "(never part of Overall Acc)"
        )
    sizes = official_sizes(report.datasets)
    board = leaderboard_of(report, sizes) if sizes is not None else None
    if board is not None:
        total = len(LEADERBOARD_CATEGORIES)
        print(
            f"BFCL leaderboard Overall Acc {cell_text(board.overall[OVERALL_ACC])} "
            f"({total - len(board.missing)} of {total} categories ran; the others count as 0, "
            "as on the leaderboard; `bfcl-action score` prints every column)"
        )
    sys.stdout.flush()
