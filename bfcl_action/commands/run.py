"""`bfcl-action run`: evaluate a model on datasets and/or a repository's own suites.

The API key is read from `OPENAI_API_KEY` (or the variable named by `--api-key-env`): it is
never a command-line value, never printed and never part of a report or cache key.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bfcl_action.core.categories import did_you_mean
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode, RunReport
from bfcl_action.runner.evaluation import (
    evaluate_models,
    file_label,
    labelled_path,
    labelled_paths,
    print_summary,
    write_outputs,
)
from bfcl_action.runner.pipeline import infra_error_rate
from bfcl_action.runner.progress import make_progress
from bfcl_action.safety import credentials
from bfcl_action.safety.credentials import ModelPath
from bfcl_action.safety.numbers import integer, number
from bfcl_action.settings.config import BfclConfig, MatrixModel
from bfcl_action.settings.resolve import (
    DEFAULTS,
    MatrixRun,
    RunOverrides,
    api_key,
    check_settings,
    resolve_model_runs,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "run",
        help="ask a model every selected case and write a run report",
        description=__doc__,
    )
    src = p.add_argument_group("what to evaluate")
    src.add_argument(
        "--dataset",
        action="append",
        default=[],
        metavar="SPEC",
        help="bfcl@2026.3.23, live@<YYYY-Www> or live@latest (repeatable)",
    )
    src.add_argument(
        "--config",
        type=Path,
        help=".bfcl.yml with the repository's own suites (default: search upward, "
        "unless --dataset is given)",
    )
    src.add_argument("--categories", help="comma list of categories or groups (default: all)")
    src.add_argument("--ids", metavar="REGEX", help="only cases whose id matches REGEX")
    src.add_argument("--sample", type=integer, metavar="N", help="a seeded sample of N cases")
    src.add_argument("--seed", type=integer, help=f"seed of --sample (default {DEFAULTS.seed})")
    src.add_argument("--shard", metavar="I/N", help="evaluate shard I of N (1-based)")
    model = p.add_argument_group("model")
    model = p.add_argument_group(
        "model (each defaults to the `model:` section of --config, then to the value shown)"
    )
    model.add_argument(
        "--model", help="model name, or replay:PATH (required here or as `model.name` in --config)"
    )
    model.add_argument(
        "--model-name",
        help="name recorded in the report (default: the model; for replay:PATH the config's "
        "model.name, so a replay compares with runs of the model it recorded)",
    )
    model.add_argument(
        "--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or OpenAI)"
    )
    model.add_argument(
        "--api-key-env",
        metavar="NAME",
        help=f"environment variable holding the API key (default {DEFAULTS.api_key_env})",
    )
    model.add_argument(
        "--mode", choices=[m.value for m in Mode], help=f"default {DEFAULTS.mode.value}"
    )
    model.add_argument(
        "--temperature",
        type=_temperature,
        metavar="T|omit",
        help=f"default {DEFAULTS.temperature}, as BFCL; `omit` sends none (models that accept only "
        "their default)",
    )
    model.add_argument("--top-p", type=number, metavar="P", help="sent when set")
    model.add_argument(
        "--request-seed",
        type=integer,
        metavar="N",
        help="the requests' `seed` (best-effort determinism where the server supports it)",
    )
    model.add_argument("--max-tokens", type=integer)
    model.add_argument(
        "--models",
        metavar="LABELS",
        help="comma list: evaluate only these entries of the config's `models:` matrix "
        "(default: every entry; --model evaluates one model instead; docs/model-matrix.md)",
    )
    run = p.add_argument_group("execution")
    run.add_argument(
        "--concurrency", type=integer, help=f"requests in flight (default {DEFAULTS.concurrency})"
    )
    run.add_argument(
        "--timeout", type=number, help=f"seconds per request (default {DEFAULTS.timeout_s:g})"
    )
    run.add_argument(
        "--max-retries", type=integer, help=f"retries per request (default {DEFAULTS.max_retries})"
    )
    run.add_argument(
        "--repeat",
        type=integer,
        metavar="K",
        help=f"K samples per case (default {DEFAULTS.repeat})",
    )
    run.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="response cache directory (default: the user cache directory)",
    )
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    run.add_argument(
        "--cache-max-age",
        type=number,
        metavar="DAYS",
        help="reuse cached answers at most this old, drop older ones "
        f"(default {DEFAULTS.cache_max_age_days:g}; 0: none)",
    )
    run.add_argument(
        "--fresh",
        action="store_true",
        help="ask every request afresh (the cache is still written): what scheduled runs do",
    )
    run.add_argument(
        "--max-infra-error-rate",
        type=number,
        metavar="RATE",
        help="fail (exit 1) when more than RATE of the cases got no answer "
        f"(default {DEFAULTS.max_infra_error_rate:g})",
    )
    env = p.add_argument_group("multi-turn environments (docs/multi-turn.md)")
    env.add_argument(
        "--env-python",
        metavar="PATH",
        help="interpreter that hosts the environments (default: this one); e.g. a venv with "
        "bfcl-eval installed for the official multi-turn categories",
    )
    env.add_argument(
        "--env-path",
        action="append",
        default=[],
        metavar="DIR",
        help="extra import root for environment classes (repeatable)",
    )
    env.add_argument(
        "--tool-timeout",
        type=number,
        help=f"seconds per tool call (default {DEFAULTS.tool_timeout_s:g})",
    )
    env.add_argument(
        "--tool-memory-mb",
        type=integer,
        help=f"address-space limit (default {DEFAULTS.tool_memory_mb})",
    )
    env.add_argument(
        "--exec-allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="executable checks may POST to this non-loopback host (repeatable; default: "
        "loopback only)",
    )
    batch = p.add_argument_group("Batch API (docs/batch.md)")
    batch.add_argument(
        "--batch",
        action="store_true",
        default=None,
        help="ask single-turn cases by the provider's Batch API (half the price, answers "
        "within 24 h; for scheduled runs); multi-turn cases stay real-time",
    )
    batch.add_argument(
        "--batch-wait",
        type=number,
        metavar="SECONDS",
        help=f"how long this run waits for its batch (default {DEFAULTS.batch_wait_s:g}); "
        "a batch still running "
        "is collected by the next run, never submitted twice",
    )
    batch.add_argument(
        "--batch-fallback",
        choices=["realtime", "error"],
        help="requests a batch could not answer (failed, expired): ask them in real time "
        f"or count them as infrastructure errors (default {DEFAULTS.batch_fallback})",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="ask nothing: print how many requests the run would send (after the cache) "
        "and what they would cost (docs/cost.md)",
    )
    out = p.add_argument_group("output")
    out.add_argument("--output", type=Path, default=Path("run.json"), help="run report JSON")
    out.add_argument("--results-dir", type=Path, help="also write BFCL-format result files")
    out.add_argument(
        "--metrics-json", type=Path, metavar="PATH", help="also write run metrics as JSON"
    )
    out.add_argument(
        "--metrics-openmetrics",
        type=Path,
        metavar="PATH",
        help="also write run metrics as OpenMetrics text (Pushgateway-ready; docs/scheduled.md)",
    )
    out.add_argument(
        "--metrics-emf",
        type=Path,
        metavar="PATH",
        help="also write run metrics as CloudWatch Embedded Metric Format lines (docs/cost.md)",
    )
    out.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=main)


def _temperature(text: str) -> float | str:
    if text == "omit":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or `omit`, found {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, found {text!r}")
    return value


def overrides_from_args(args: argparse.Namespace) -> RunOverrides:
    """The command line's settings; an option not given stays None (the config or the
    defaults decide)."""
    categories = [c.strip() for c in args.categories.split(",")] if args.categories else None
    return RunOverrides(
        datasets=tuple(args.dataset) or None,
        config=args.config,
        categories=tuple(categories) if categories else None,
        ids=args.ids,
        sample=args.sample,
        seed=args.seed,
        shard=args.shard,
        model=args.model,
        model_name=args.model_name,
        mode=Mode(args.mode) if args.mode else None,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        temperature=args.temperature,
        top_p=args.top_p,
        request_seed=args.request_seed,
        max_tokens=args.max_tokens,
        concurrency=args.concurrency,
        timeout_s=args.timeout,
        max_retries=args.max_retries,
        repeat=args.repeat,
        cache_dir=args.cache,
        no_cache=args.no_cache,
        cache_max_age_days=args.cache_max_age,
        fresh=args.fresh or None,
        max_infra_error_rate=args.max_infra_error_rate,
        env_python=args.env_python,
        env_paths=tuple(args.env_path) or None,
        tool_timeout_s=args.tool_timeout,
        tool_memory_mb=args.tool_memory_mb,
        exec_allow_hosts=tuple(h for e in args.exec_allow_host for h in e.split(",") if h) or None,
        batch=args.batch,
        batch_wait_s=args.batch_wait,
        batch_fallback=args.batch_fallback,
    )


def main(args: argparse.Namespace) -> int:
    """Every model of the run (`--model`, or the entries of `models:`) on the same cases:
    one report per model (a matrix entry's as `run.<label>.json`), the summaries, then
    for several models which did best. One model is a matrix of one."""
    config = None
    if args.config is None and not args.dataset:
        from bfcl_action.settings.config import find_config

        args.config = find_config(Path.cwd())  # as validate, impact and generate search
    if args.config is not None:
        from bfcl_action.settings.config import load_config

        config = load_config(args.config)
    runs = resolve_model_runs(
        overrides_from_args(args), config, matrix_entries(args, config), environ=os.environ
    )
    for run in runs:
        check_settings(
            run.settings,
            model_hint=f"`models:` entry {run.label} has no name"
            if run.label
            else "give --model or `model.name` in --config",
        )
    if args.dry_run:
        from bfcl_action.runner.evaluation import estimate

        for run in runs:
            line = estimate(run.settings, config).line()
            print(f"{run.label}: {line}" if run.label else line)
        return 0
    if not all(run.settings.replaying for run in runs):
        credentials.refuse_model_calls_on_fork(model_path(runs))
    keys: dict[str, str | None] = {}
    for run in runs:
        keys[run.label] = api_key(run.settings)  # held, out of the environment, redacted
    progress = make_progress(sys.stderr, enabled=not args.quiet)
    reports, cases = evaluate_models(runs, config, api_keys=keys, progress=progress)
    outputs = labelled_paths(args.output, [run.label for run in runs])
    failed = False
    for run, report in zip(runs, reports, strict=True):
        results_dir = args.results_dir
        if results_dir is not None and run.label:
            results_dir = results_dir / file_label(run.label)
        write_outputs(report, outputs[run.label], results_dir, cases)
        _write_metrics(args, report, run.label)
        if run.label:
            print(f"\n== {run.label} ({report.model}, {report.mode})")
        print_summary(report)
        print(f"wrote the run report to {outputs[run.label]}" + _results_note(results_dir))
        rate = infra_error_rate(report)
        if rate > run.settings.max_infra_error_rate:
            print(
                f"bfcl-action run: {run.label + ': ' if run.label else ''}{rate:.1%} of cases "
                f"got no answer (limit {run.settings.max_infra_error_rate:.1%}); failing",
                file=sys.stderr,
            )
            failed = True
    if len(reports) > 1:
        from bfcl_action.compare.model_choice import choose_models
        from bfcl_action.report.model_choice import render_model_choice_text

        print()
        print(render_model_choice_text(choose_models(reports)))
    return 1 if failed else 0


def model_path(runs: list[MatrixRun]) -> ModelPath:
    """How this run calls models, for the fork rule (`credentials.model_calls_allowed`)."""
    if len(runs) > 1 or runs[0].label:
        return ModelPath.MATRIX
    return ModelPath.BATCH if runs[0].settings.batch else ModelPath.SINGLE


def matrix_entries(args: argparse.Namespace, config: BfclConfig | None) -> list[MatrixModel]:
    """The `models:` entries this run evaluates: all, or the `--models` subset; none when
    `--model` names one model (then the matrix is left aside, with a note)."""
    entries = list(config.models) if config is not None else []
    if args.models is None:
        if entries and args.model:
            print(
                f"bfcl-action run: --model {args.model} given: evaluating it alone, not the "
                f"{len(entries)} models of `models:`",
                file=sys.stderr,
            )
            return []
        return entries
    if args.model:
        raise ConfigError(
            "give --model (one model) or --models (matrix entries), not both", field="models"
        )
    if not entries:
        raise ConfigError(
            "--models chooses entries of `models:` in --config, which has none", field="models"
        )
    by_key = {e.key: e for e in entries}
    chosen = []
    for label in (part.strip() for part in args.models.split(",")):
        if label not in by_key:
            raise ConfigError(
                f"no `models:` entry is labelled {label!r}{did_you_mean(label, list(by_key))}"
                f" (labels: {', '.join(by_key)})",
                field="models",
            )
        chosen.append(by_key[label])
    return chosen


def _write_metrics(args: argparse.Namespace, report: RunReport, label: str) -> None:
    if not (args.metrics_json or args.metrics_openmetrics or args.metrics_emf):
        return
    from bfcl_action.compare.metrics import write_metrics

    def path(given: Path | None) -> Path | None:
        return labelled_path(given, label) if given is not None else None

    write_metrics(
        report,
        json_path=path(args.metrics_json),
        openmetrics_path=path(args.metrics_openmetrics),
        emf_path=path(args.metrics_emf),
    )


def _results_note(results_dir: Path | None) -> str:
    return f" and BFCL result files to {results_dir}/" if results_dir is not None else ""
