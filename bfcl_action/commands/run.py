"""`bfcl-action run`: evaluate a model on datasets and/or a repository's own suites.

The API key is read from `OPENAI_API_KEY` (or the variable named by `--api-key-env`): it is
never a command-line value, never printed and never part of a report or cache key.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import platformdirs

from bfcl_action.checker import needs_underscore_to_dot
from bfcl_action.errors import ConfigError
from bfcl_action.model.naming import NameMap, with_api_names
from bfcl_action.models import CaseResult, Mode, RunReport, TestCase
from bfcl_action.multiturn.check import ExecutionOptions
from bfcl_action.multiturn.sandbox import SandboxLimits
from bfcl_action.run_reports import save_report
from bfcl_action.runner.backends import BackendOptions
from bfcl_action.runner.pipeline import RunOptions, infra_error_rate, run_evaluation
from bfcl_action.runner.progress import make_progress
from bfcl_action.select import parse_shard, select_cases


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
    src.add_argument("--config", type=Path, help=".bfcl.yml with the repository's own suites")
    src.add_argument("--categories", help="comma list of categories or groups (default: all)")
    src.add_argument("--ids", metavar="REGEX", help="only cases whose id matches REGEX")
    src.add_argument("--sample", type=int, metavar="N", help="a seeded sample of N cases")
    src.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    src.add_argument("--shard", metavar="I/N", help="evaluate shard I of N (1-based)")
    model = p.add_argument_group("model")
    model = p.add_argument_group(
        "model (each defaults to the `model:` section of --config, then to the value shown)"
    )
    model.add_argument("--model", help="model name, or replay:PATH (required)")
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
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    model.add_argument("--mode", choices=[m.value for m in Mode], help="default fc")
    model.add_argument(
        "--temperature",
        type=_temperature,
        metavar="T|omit",
        help="default 0.001, as BFCL; `omit` sends none (models that accept only their default)",
    )
    model.add_argument("--top-p", type=float, metavar="P", help="sent when set")
    model.add_argument(
        "--request-seed",
        type=int,
        metavar="N",
        help="the requests' `seed` (best-effort determinism where the server supports it)",
    )
    model.add_argument("--max-tokens", type=int)
    run = p.add_argument_group("execution")
    run.add_argument("--concurrency", type=int, help="requests in flight (default 8)")
    run.add_argument("--timeout", type=float, help="seconds per request (default 120)")
    run.add_argument("--max-retries", type=int, help="retries per request (default 6)")
    run.add_argument("--repeat", type=int, metavar="K", help="K samples per case (default 1)")
    run.add_argument(
        "--cache",
        type=Path,
        default=Path(platformdirs.user_cache_dir("bfcl-action")) / "responses",
        metavar="DIR",
        help="response cache directory (default: the user cache directory)",
    )
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    run.add_argument(
        "--max-infra-error-rate",
        type=float,
        default=0.05,
        metavar="RATE",
        help="fail (exit 1) when more than RATE of the cases got no answer (default 0.05)",
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
        "--tool-timeout", type=float, default=10.0, help="seconds per tool call (default 10)"
    )
    env.add_argument(
        "--tool-memory-mb", type=int, default=1024, help="address-space limit (default 1024)"
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
    out.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=main)


def load_own_cases(config: Path) -> list[TestCase]:
    """Cases of a `.bfcl.yml`'s suites (own, derived, and the sets it names)."""
    from bfcl_action.config import load_config
    from bfcl_action.suites import build_cases

    return build_cases(load_config(config), base_dir=config.resolve().parent)


def gather_cases(args: argparse.Namespace) -> tuple[list[TestCase], list[str]]:
    if not args.dataset and args.config is None:
        raise ConfigError("nothing to evaluate: give --dataset and/or --config", field="dataset")
    categories = [c.strip() for c in args.categories.split(",")] if args.categories else None
    own_names, data_names = split_selection(categories) if categories else ([], [])
    if categories and args.dataset and not data_names:
        raise ConfigError(
            "--categories names only own categories, so --dataset would load nothing: "
            "drop --dataset or add one of its categories",
            field="categories",
        )
    cases: list[TestCase] = []
    datasets: list[str] = []
    if args.dataset:
        from bfcl_action.dataset import load_dataset

        for spec in args.dataset:
            loaded = load_dataset(spec, data_names or None)
            cases.extend(loaded)
            datasets.append(loaded[0].dataset if loaded and loaded[0].dataset else spec)
    if args.config is not None:
        own = load_own_cases(args.config)
        if categories and (own_names or not args.dataset):
            own = select_cases(own, categories=own_names if args.dataset else categories)
        elif categories:
            own = []
        cases.extend(own)
        datasets.append(f"own:{args.config}")
    return cases, datasets


def split_selection(names: list[str]) -> tuple[list[str], list[str]]:
    """A `--categories` list as (own names, dataset names); unknown names are an error with a
    did-you-mean, `all` goes to both."""
    from bfcl_action.categories import CATEGORIES, DISTRACTOR_SUITE, Group, expand_categories

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


def resolve_api_key(args: argparse.Namespace) -> str | None:
    if args.model.startswith("replay:"):
        return None
    key = os.environ.get(args.api_key_env)
    if key:
        return key
    if args.base_url:
        # Local servers (vLLM, Ollama, llama.cpp) usually need no key.
        print(
            f"bfcl-action run: {args.api_key_env} is not set; sending no API key to "
            f"{args.base_url}",
            file=sys.stderr,
        )
        return None
    raise ConfigError(
        f"no API key: set the environment variable {args.api_key_env}", field="api-key-env"
    )


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


def check_numbers(args: argparse.Namespace) -> None:
    for name in ("concurrency", "repeat"):
        if getattr(args, name) < 1:
            raise ConfigError(f"must be >= 1, found {getattr(args, name)}", field=name)
    if args.max_retries < 0:
        raise ConfigError(f"must be >= 0, found {args.max_retries}", field="max-retries")
    if args.timeout <= 0:
        raise ConfigError(f"must be > 0, found {args.timeout}", field="timeout")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        raise ConfigError(f"must be in (0, 1], found {args.top_p}", field="top-p")
    if args.shard:
        parse_shard(args.shard)


DEFAULTS: dict[str, Any] = {
    "mode": Mode.FC.value,
    "api_key_env": "OPENAI_API_KEY",
    "temperature": 0.001,
    "concurrency": 8,
    "timeout": 120.0,
    "max_retries": 6,
    "repeat": 1,
}
_FROM_CONFIG = {
    "model": "name",
    "mode": "mode",
    "base_url": "base_url",
    "api_key_env": "api_key_env",
    "temperature": "temperature",
    "top_p": "top_p",
    "request_seed": "seed",
    "max_tokens": "max_tokens",
    "concurrency": "concurrency",
    "timeout": "timeout_s",
    "max_retries": "retries",
    "repeat": "samples",
}


def resolve_settings(args: argparse.Namespace) -> None:
    """Command line, else the config's `model:` section, else the defaults (in place)."""
    settings = None
    if args.config is not None:
        from bfcl_action.config import load_config

        settings = load_config(args.config).model
    for arg, key in _FROM_CONFIG.items():
        if getattr(args, arg) is not None:
            continue
        value = getattr(settings, key, None) if settings is not None else None
        if isinstance(value, Mode):
            value = value.value
        if value is None or value == "":
            value = DEFAULTS.get(arg)
        setattr(args, arg, value)
    if args.base_url is None:
        args.base_url = os.environ.get("OPENAI_BASE_URL") or None
    if not args.model:
        raise ConfigError("no model: give --model or `model.name` in --config", field="model")
    if args.config is not None and args.model.startswith("replay:"):
        path = Path(args.model.removeprefix("replay:"))
        beside = args.config.resolve().parent / path
        if not path.is_absolute() and not path.exists() and beside.exists():
            args.model = f"replay:{beside}"
    recorded = settings.name if settings is not None else ""
    replaying = args.model.startswith("replay:")
    if args.model_name is None and replaying and recorded and not recorded.startswith("replay:"):
        args.model_name = recorded


def _replay_note(args: argparse.Namespace) -> tuple[str, ...]:
    if not args.model.startswith("replay:"):
        return ()
    return (f"answers replayed from {args.model.removeprefix('replay:')}",)


def main(args: argparse.Namespace) -> int:
    resolve_settings(args)
    check_numbers(args)
    api_key = resolve_api_key(args)
    cases, datasets = gather_cases(args)
    cases = select_cases(
        cases, id_pattern=args.ids, sample=args.sample, seed=args.seed, shard=args.shard
    )
    if not cases:
        raise ConfigError("the selection is empty: no case to evaluate")
    options = RunOptions(
        backend=BackendOptions(
            model=args.model,
            mode=Mode(args.mode),
            base_url=args.base_url,
            api_key=api_key,
            temperature=None if args.temperature == "omit" else args.temperature,
            top_p=args.top_p,
            seed=args.request_seed,
            timeout=args.timeout,
            concurrency=args.concurrency,
            max_tokens=args.max_tokens,
        ),
        datasets=datasets,
        repeat=args.repeat,
        max_retries=args.max_retries,
        cache_dir=None if args.no_cache or args.model.startswith("replay:") else args.cache,
        shard=args.shard or "",
        model_name=args.model_name,
        extra_notes=_replay_note(args),
        multi_turn=execution_options(args),
    )
    progress = make_progress(sys.stderr, enabled=not args.quiet)
    report, _stats = run_evaluation(cases, options, progress=progress)
    write_outputs(report, args.output, args.results_dir, cases)
    if args.metrics_json or args.metrics_openmetrics:
        from bfcl_action.metrics import write_metrics

        write_metrics(
            report, json_path=args.metrics_json, openmetrics_path=args.metrics_openmetrics
        )
    print_summary(report)
    print(f"wrote the run report to {args.output}" + _results_note(args.results_dir))
    rate = infra_error_rate(report)
    if rate > args.max_infra_error_rate:
        print(
            f"bfcl-action run: {rate:.1%} of cases got no answer "
            f"(limit {args.max_infra_error_rate:.1%}); failing",
            file=sys.stderr,
        )
        return 1
    return 0


def _results_note(results_dir: Path | None) -> str:
    return f" and BFCL result files to {results_dir}/" if results_dir is not None else ""


def execution_options(args: argparse.Namespace) -> ExecutionOptions:
    """Sandbox settings for multi-turn environments, from the command line."""
    if args.tool_timeout <= 0 or args.tool_memory_mb < 64:
        raise ConfigError(
            "--tool-timeout must be > 0 and --tool-memory-mb at least 64", field="tool-timeout"
        )
    return ExecutionOptions(
        limits=SandboxLimits(call_timeout_s=args.tool_timeout, memory_mb=args.tool_memory_mb),
        python=args.env_python,
        paths=tuple(str(Path(p).resolve()) for p in args.env_path),
    )


def write_outputs(
    report: RunReport, output: Path, results_dir: Path | None, cases: Sequence[TestCase] = ()
) -> None:
    save_report(report, output)
    if results_dir is not None:
        from bfcl_action.results_io import write_result_files

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
    infra = [r for r in report.results if r.infra_error is not None]
    for label, score in report.categories.items():
        print(f"{label:32} {score.correct:5}/{score.total:<5} {score.accuracy:7.2%}")
    if infra:
        print(f"infrastructure errors: {len(infra)} (excluded from accuracy)")
        for r in infra[:20]:
            print(f"  {r.id}: {r.infra_error}")
    for note in report.notes:
        print(note)
