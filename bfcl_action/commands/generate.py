"""`bfcl-action generate`: draft own test cases with your model, keep only verified ones.

For each tool, a model proposes realistic requests with the exact expected calls; format,
grounding and agreement checks (our checker judging a verify model's answer) keep only
entries that hold up; disagreements go to a review file. Model settings, cache and retries
are `run`'s (the `model:` section of .bfcl.yml, then flags). A cost estimate is printed
before any request; a rerun with the cache makes no request and writes the same files.
Reference: docs/generate.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bfcl_action.core.errors import ConfigError, InputError
from bfcl_action.core.records import FunctionDoc, Mode, TestCase
from bfcl_action.generate.models import (
    KIND_ORDER,
    PROMPT_VERSION,
    STRUCTURED,
    GenerateResult,
    Kind,
    Provenance,
)
from bfcl_action.safety import credentials
from bfcl_action.safety.numbers import integer, number

if TYPE_CHECKING:  # the model layer (openai) loads only when generate runs
    from bfcl_action.generate.model import ModelLink
    from bfcl_action.generate.pipeline import GenerateOptions
    from bfcl_action.settings.resolve import RunSettings

DEFAULT_OUTPUT = Path("cases") / "generated.yml"
PROPOSE_TEMPERATURE = 0.7
"""Proposing wants variety; verifying uses the run's own sampling settings."""
TOKENS_PER_CANDIDATE = 90
"""Output tokens of one proposed case (request + calls), for the estimate."""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "generate",
        help="draft own test cases for your tools with a model, verified by our checker",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = p.add_argument_group("what to draft")
    what.add_argument("--config", type=Path, help=".bfcl.yml (default: search upward)")
    what.add_argument("--tools", metavar="NAME,...", help="only these tools (default: all)")
    what.add_argument("--per-tool", type=integer, default=5, metavar="N", help="cases per tool (5)")
    what.add_argument(
        "--categories",
        metavar="KIND,...",
        help="among " + ", ".join(k.value for k in KIND_ORDER) + " (default: all)",
    )
    what.add_argument("--seed", type=integer, default=0, help="variation of the prompt (default 0)")
    out = p.add_argument_group("output")
    out.add_argument(
        "--output",
        type=Path,
        help=f"cases file, relative to the config's directory (default {DEFAULT_OUTPUT}); "
        "a file not written by generate is never overwritten",
    )
    out.add_argument("--review", type=Path, help="review file (default: <output>.review.md)")
    out.add_argument("--quiet", action="store_true", help="no progress output")
    model = p.add_argument_group("model (defaults: the config's `model:` section, as `run`)")
    model.add_argument("--model", help="the proposing model (default: model.name)")
    model.add_argument("--verify-model", help="the model that checks (default: --model)")
    model.add_argument("--base-url", help="OpenAI-compatible endpoint")
    model.add_argument("--api-key-env", metavar="NAME", help="default OPENAI_API_KEY")
    model.add_argument("--temperature", type=number, help="verify temperature (default 0.001)")
    model.add_argument(
        "--propose-temperature",
        type=number,
        default=PROPOSE_TEMPERATURE,
        help=f"proposer temperature (default {PROPOSE_TEMPERATURE})",
    )
    model.add_argument("--top-p", type=number)
    model.add_argument("--request-seed", type=integer, metavar="N")
    model.add_argument("--max-tokens", type=integer)
    model.add_argument(
        "--structured-output",
        choices=STRUCTURED,
        default="auto",
        help="response_format JSON schema: auto (fall back to plain JSON on 400), on, off",
    )
    run = p.add_argument_group("execution")
    run.add_argument("--concurrency", type=integer, help="requests in flight (default 8)")
    run.add_argument("--timeout", type=number, help="seconds per request")
    run.add_argument("--max-retries", type=integer, help="retries per request")
    run.add_argument(
        "--max-requests", type=integer, metavar="N", help="stop asking after N requests"
    )
    run.add_argument(
        "--price",
        metavar="IN,OUT",
        help="USD per million input and output tokens, to print the estimate in dollars",
    )
    run.add_argument("--dry-run", action="store_true", help="print the estimate and stop")
    run.add_argument(
        "--cache", type=Path, metavar="DIR", help="response cache (default: run's, shared)"
    )
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    p.set_defaults(func=main, mode=None, repeat=None, model_name=None)


@dataclass
class GenerateCommand:
    """What a front-end (`generate`, `init --generate`) asks for; the rest is resolved."""

    config: Path
    per_tool: int = 5
    tools: list[str] | None = None
    kinds: tuple[Kind, ...] = KIND_ORDER
    output: Path | None = None
    review: Path | None = None
    seed: int = 0
    verify_model: str | None = None
    max_requests: int | None = None
    structured: str = "auto"
    propose_temperature: float = PROPOSE_TEMPERATURE
    price: tuple[float, float] | None = None
    dry_run: bool = False
    quiet: bool = False
    cache: Path | None = None
    """Response cache directory (default: `run`'s)."""
    no_cache: bool = False
    note_unlisted: bool = True
    """Say so when the output is not among the config's `cases:` (init lists it itself)."""
    model_flags: dict[str, Any] = field(default_factory=dict)
    """`run`'s model flags (model, base_url, temperature, ...) given on the command line."""


def parse_kinds(text: str | None) -> tuple[Kind, ...]:
    if not text:
        return KIND_ORDER
    kinds: list[Kind] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        try:
            kinds.append(Kind(part.removeprefix("own_")))
        except ValueError:
            raise ConfigError(
                f"unknown category {part!r}; expected " + ", ".join(k.value for k in KIND_ORDER),
                field="categories",
            ) from None
    return tuple(k for k in KIND_ORDER if k in kinds)


def _price(text: str | None) -> tuple[float, float] | None:
    if not text:
        return None
    try:
        a, b = (float(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(
            f"expected IN,OUT in USD per million tokens, found {text!r}", field="price"
        ) from None
    return a, b


def main(args: argparse.Namespace) -> int:
    from bfcl_action.commands.impact import _config

    _, config_dir = _config(args.config)
    config_path = args.config or (config_dir / ".bfcl.yml")
    flags = {
        k: getattr(args, k)
        for k in (
            "model",
            "base_url",
            "api_key_env",
            "temperature",
            "top_p",
            "request_seed",
            "max_tokens",
            "concurrency",
            "timeout",
            "max_retries",
        )
    }
    command = GenerateCommand(
        config=Path(config_path),
        per_tool=args.per_tool,
        tools=[t.strip() for t in args.tools.split(",") if t.strip()] if args.tools else None,
        kinds=parse_kinds(args.categories),
        output=args.output,
        review=args.review,
        seed=args.seed,
        verify_model=args.verify_model,
        max_requests=args.max_requests,
        structured=args.structured_output,
        propose_temperature=args.propose_temperature,
        price=_price(args.price),
        dry_run=args.dry_run,
        quiet=args.quiet,
        cache=args.cache,
        no_cache=args.no_cache,
        model_flags=flags,
    )
    return run_generate(command)


def _settings(command: GenerateCommand) -> RunSettings:
    """`run`'s settings, resolved the one way (`bfcl_action.settings.resolve`): defaults <
    `.bfcl.yml` `model:` < our flags."""
    from bfcl_action.settings.config import load_config
    from bfcl_action.settings.resolve import RunOverrides, check_settings, resolve_run_settings

    flags = command.model_flags
    overrides = RunOverrides(
        config=command.config,
        model=flags.get("model"),
        base_url=flags.get("base_url"),
        api_key_env=flags.get("api_key_env"),
        temperature=flags.get("temperature"),
        top_p=flags.get("top_p"),
        request_seed=flags.get("request_seed"),
        max_tokens=flags.get("max_tokens"),
        concurrency=flags.get("concurrency"),
        timeout_s=flags.get("timeout"),
        max_retries=flags.get("max_retries"),
        cache_dir=command.cache,
        no_cache=command.no_cache,
    )
    settings = resolve_run_settings(overrides, load_config(command.config), environ=os.environ)
    check_settings(settings, model_hint="give --model or `model.name` in .bfcl.yml")
    if settings.replaying or (command.verify_model or "").startswith("replay:"):
        raise ConfigError(
            "generate needs a live model (replay answers are keyed by case id, and drafts are "
            "new cases); give --model or model.name",
            field="model",
        )
    return settings


def _link(command: GenerateCommand, settings: RunSettings, api_key: str | None) -> ModelLink:
    from bfcl_action.generate.model import ModelLink, verify_options
    from bfcl_action.model.cache import ResponseCache
    from bfcl_action.model.retry import RetryPolicy
    from bfcl_action.runner.progress import make_progress
    from bfcl_action.settings.resolve import backend_options

    verify = verify_options(backend_options(settings, api_key), command.verify_model)
    proposer = dataclasses.replace(
        backend_options(settings, api_key),
        mode=Mode.FC,
        temperature=command.propose_temperature,
        seed=command.seed,
    )
    return ModelLink(
        proposer=proposer,
        verifier=verify,
        policy=RetryPolicy(max_retries=settings.max_retries),
        cache=ResponseCache(settings.cache_dir) if settings.cache_dir is not None else None,
        max_requests=command.max_requests,
        structured=command.structured,
        progress=make_progress(sys.stderr, enabled=not command.quiet, label="generate"),
        seed=command.seed,
    )


def load_inputs(command: GenerateCommand, output: Path) -> tuple[list[FunctionDoc], list[TestCase]]:
    """The config's tools and its cases other than the output file (which is replaced)."""
    from bfcl_action.cases.own import load_cases
    from bfcl_action.safety.globs import expand_globs
    from bfcl_action.settings.config import load_config
    from bfcl_action.tools.configured import load_configured
    from bfcl_action.tools.load import display_name

    config = load_config(command.config)
    base = command.config.resolve().parent
    if not config.tools:
        raise ConfigError("no tool files configured", file=str(command.config), field="tools")
    tools = load_configured(
        config.tools, base_dir=base, exclude=config.tools_exclude, limits=config.tool_limits
    )
    files, _ = expand_globs(config.cases, base)
    others = [display_name(f, base) for f in files if f.resolve() != output.resolve()]
    cases = load_cases(others, base_dir=base, tools=tools.functions) if others else []
    return list(tools.functions), cases


def estimate(
    command: GenerateCommand,
    tools: list[FunctionDoc],
    targets: list[str],
    link: ModelLink,
) -> tuple[int, int, str]:
    """Uncached propose requests, an upper bound on verify requests, and the printed line."""
    from bfcl_action.generate.pipeline import GenerateOptions, plan
    from bfcl_action.generate.prompt import propose_messages, response_format

    options = GenerateOptions(command.per_tool, command.kinds, command.seed)
    tasks = plan(tools, targets, options)
    fmt = response_format()
    messages = [propose_messages(t, tools) for t in tasks]
    cached = sum(link.is_cached_proposal(m, fmt) for m in messages)
    propose_in = sum(len(json.dumps(m)) for m in messages) // 4
    candidates = sum(t.total for t in tasks)
    verify = min(candidates, command.per_tool * len(tasks) * 2)
    by_name = {t.name: t for t in tools}
    verify_in = sum(
        len(json.dumps([by_name[n].model_dump(mode="json") for n in t.offered])) // 4 + 40
        for t in tasks
    ) * max(1, verify // max(1, len(tasks)))
    tokens_in = propose_in + verify_in
    tokens_out = candidates * TOKENS_PER_CANDIDATE + verify * 40
    line = (
        f"bfcl-action generate: {len(targets)} tools, up to {command.per_tool} cases each: "
        f"{len(tasks)} propose requests ({cached} cached) and at most {verify} verify "
        f"requests; about {tokens_in:,} input and {tokens_out:,} output tokens"
    )
    if command.price is not None:
        dollars = tokens_in / 1e6 * command.price[0] + tokens_out / 1e6 * command.price[1]
        line += f" (about ${dollars:.4f})"
    return len(tasks) - cached, verify, line


def run_generate(command: GenerateCommand) -> int:
    """Resolve settings, print the estimate, draft, write the cases and review files."""
    from bfcl_action.generate.pipeline import GenerateOptions
    from bfcl_action.generate.writer import case_id, ensure_writable, render_cases, render_review
    from bfcl_action.settings.resolve import api_key

    if command.per_tool < 1:
        raise ConfigError(f"must be >= 1, found {command.per_tool}", field="per-tool")
    if command.max_requests is not None and command.max_requests < 1:
        raise ConfigError(f"must be >= 1, found {command.max_requests}", field="max-requests")
    settings = _settings(command)
    base = command.config.resolve().parent
    output = base / (command.output or DEFAULT_OUTPUT)
    review = command.review or output.with_name(output.stem + ".review.md")
    if not review.is_absolute():
        review = base / review
    ensure_writable(output)
    tools, existing = load_inputs(command, output)
    names = [t.name for t in tools]
    targets = command.tools or names
    unknown = [t for t in targets if t not in names]
    if unknown:
        raise InputError(
            "unknown tool "
            + ", ".join(repr(u) for u in unknown)
            + "; the config's tools are "
            + ", ".join(names),
            field="--tools",
        )
    if not command.dry_run:
        credentials.refuse_model_calls_on_fork(credentials.ModelPath.GENERATE)
    key = None if command.dry_run else api_key(settings)
    link = _link(command, settings, key)
    uncached_propose, _verify, line = estimate(command, tools, targets, link)
    print(line, flush=True)
    if command.max_requests is not None and uncached_propose > command.max_requests:
        raise ConfigError(
            f"{uncached_propose} propose requests needed, more than --max-requests "
            f"{command.max_requests}; raise it or limit --tools",
            field="max-requests",
        )
    if command.dry_run:
        return 0
    options = GenerateOptions(command.per_tool, command.kinds, command.seed)
    result = asyncio.run(_generate(tools, targets, existing, link, options))
    provenance = Provenance(
        generator=link.proposer.model,
        verify_model=link.verifier.model,
        seed=command.seed,
        prompt_version=PROMPT_VERSION,
    )
    stamp = (
        f"generator {provenance.generator}, verify model {provenance.verify_model}, "
        f"prompt v{PROMPT_VERSION}, seed {command.seed}"
    )
    taken = {c.id for c in existing}
    kept = [c for c in result.kept if case_id(c) not in taken]
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(render_cases(kept, provenance, stamp), encoding="utf-8")
    review.parent.mkdir(parents=True, exist_ok=True)
    review.write_text(
        render_review(result.reviews, provenance, stamp, result.drops), encoding="utf-8"
    )
    print_report(result, output, review, base)
    if command.note_unlisted:
        _note_unlisted(command, output)
    return 0


async def _generate(
    tools: list[FunctionDoc],
    targets: list[str],
    existing: list[TestCase],
    link: ModelLink,
    options: GenerateOptions,
) -> GenerateResult:
    from bfcl_action.generate.pipeline import generate

    try:
        return await generate(tools, targets, existing, link, options)
    finally:
        await link.aclose()
        if link.cache is not None:
            link.cache.close()


def print_report(result: GenerateResult, output: Path, review: Path, base: Path) -> None:
    from bfcl_action.safety.escape import log_line

    for report in result.reports:
        print(log_line(report.line()))
    kept = len(result.kept)
    per_case = f"{result.requests / kept:.2f}" if kept else "n/a"
    print(
        f"kept {kept} cases, {len(result.reviews)} for review; {result.requests} requests "
        f"({result.cache_hits} answers from cache), {per_case} requests per kept case"
    )
    print(f"wrote {_rel(output, base)} and {_rel(review, base)}")


def _rel(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(path)


def _note_unlisted(command: GenerateCommand, output: Path) -> None:
    from bfcl_action.safety.globs import expand_globs
    from bfcl_action.settings.config import load_config

    config = load_config(command.config)
    files, _ = expand_globs(config.cases, command.config.resolve().parent)
    if output.resolve() not in {f.resolve() for f in files}:
        print(
            f"note: {output.name} is not matched by `cases:` in {command.config.name}; add it "
            "there after review so runs include it"
        )
