"""Every setting of a run and of a comparison: one defaults table, one precedence.

    DEFAULTS  <  `.bfcl.yml` (`model:`, `thresholds:`)  <  command-line flags / Action inputs

`DEFAULTS` is the only place a default value of a run lives (BFCL's where BFCL has one:
temperature 0.001); `Thresholds()` holds the comparison's (`bfcl_action.settings.thresholds`). The
`.bfcl.yml` sections only carry what the file sets, the CLI and the Action only produce
overrides (`RunOverrides`, `ThresholdOverrides`), and `resolve_run_settings` /
`resolve_thresholds` are the one way to combine them. So an empty `.bfcl.yml` and no
`.bfcl.yml` resolve to the same settings, and to the same report fingerprint.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode
from bfcl_action.safety import credentials, redact
from bfcl_action.safety.credentials import key_variable_problem
from bfcl_action.settings.config import BfclConfig, MatrixModel, ModelSettings
from bfcl_action.settings.select import parse_shard
from bfcl_action.settings.thresholds import (
    ThresholdOverrides,
    Thresholds,
)

if TYPE_CHECKING:
    from bfcl_action.model.options import BackendOptions

__all__ = [
    "DEFAULTS",
    "MatrixRun",
    "RunOverrides",
    "RunSettings",
    "api_key",
    "api_key_from_env",
    "backend_options",
    "check_settings",
    "default_cache_dir",
    "resolve_model_runs",
    "resolve_run_settings",
    "resolve_thresholds",
    "settings_of_section",
]


def default_cache_dir() -> Path:
    """The response cache under the user cache directory (per machine, not per repository)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("bfcl-action")) / "responses"


class RunSettings(BaseModel):
    """A run's settings, resolved. The field defaults are the defaults table (`DEFAULTS`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # --- what to evaluate
    datasets: tuple[str, ...] = ()
    """Dataset specs (`bfcl@2026.3.23`, `live@latest`, ...), evaluated before own suites."""
    config: Path | None = None
    """The `.bfcl.yml` whose own suites are evaluated (its directory anchors relative paths)."""
    categories: tuple[str, ...] | None = None
    ids: str | None = None
    sample: int | None = None
    seed: int = 0
    """Seed of `sample`."""
    shard: str = ""
    # --- model
    model: str = ""
    model_name: str | None = None
    """The name the report records (a replay stands in for the model it recorded)."""
    mode: Mode = Mode.FC
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    """The *name* of the variable holding the API key (the CLI reads it; never the key)."""
    temperature: float | Literal["omit"] = 0.001
    """BFCL's; `omit` sends none (models that accept only their default)."""
    top_p: float | None = None
    request_seed: int | None = None
    max_tokens: int | None = None
    # --- execution
    concurrency: int = 8
    timeout_s: float = 120.0
    """Seconds per request."""
    max_retries: int = 6
    """Retries per request after the first try."""
    repeat: int = 1
    """Samples per case (`model.samples` in `.bfcl.yml`)."""
    cache_dir: Path | None = Field(default_factory=default_cache_dir)
    """Response cache directory; None neither reads nor writes a cache."""
    cache_max_age_days: float = 7.0
    """Cached answers older than this are neither reused nor kept (0 reuses none)."""
    fresh: bool = False
    """Ask every request afresh, still writing the cache (scheduled runs measure drift)."""
    max_infra_error_rate: float = 0.05
    # --- multi-turn environments
    env_python: str | None = None
    env_paths: tuple[str, ...] = ()
    tool_timeout_s: float = 10.0
    tool_memory_mb: int = 1024
    exec_allow_hosts: tuple[str, ...] = ()
    """Non-loopback hosts executable checks may POST to (front-ends only, never
    `.bfcl.yml`: a fork PR edits that file; docs/security.md)."""
    # --- Batch API (bfcl_action.model.batch)
    batch: bool = False
    """Ask single-turn cases by the provider's Batch API first (answers land in the cache)."""
    batch_wait_s: float = 3600.0
    """How long a run waits for its batch; the next run collects what is still running."""
    batch_fallback: Literal["realtime", "error"] = "realtime"
    """What becomes of requests a batch did not answer."""

    @property
    def replaying(self) -> bool:
        return self.model.startswith("replay:")


DEFAULTS = RunSettings()
"""The one defaults table of a run."""


class RunOverrides(BaseModel):
    """What a front-end (command line, Action inputs) sets; None keeps the layer below."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    datasets: tuple[str, ...] | None = None
    config: Path | None = None
    categories: tuple[str, ...] | None = None
    ids: str | None = None
    sample: int | None = None
    seed: int | None = None
    shard: str | None = None
    model: str | None = None
    model_name: str | None = None
    mode: Mode | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | Literal["omit"] | None = None
    top_p: float | None = None
    request_seed: int | None = None
    max_tokens: int | None = None
    concurrency: int | None = None
    timeout_s: float | None = None
    max_retries: int | None = None
    repeat: int | None = None
    cache_dir: Path | None = None
    no_cache: bool = False
    cache_max_age_days: float | None = None
    fresh: bool | None = None
    max_infra_error_rate: float | None = None
    env_python: str | None = None
    env_paths: tuple[str, ...] | None = None
    tool_timeout_s: float | None = None
    tool_memory_mb: int | None = None
    exec_allow_hosts: tuple[str, ...] | None = None
    batch: bool | None = None
    batch_wait_s: float | None = None
    batch_fallback: Literal["realtime", "error"] | None = None


_FROM_MODEL_SECTION = {
    "model": "name",
    "mode": "mode",
    "base_url": "base_url",
    "api_key_env": "api_key_env",
    "temperature": "temperature",
    "top_p": "top_p",
    "request_seed": "seed",
    "max_tokens": "max_tokens",
    "concurrency": "concurrency",
    "timeout_s": "timeout_s",
    "max_retries": "retries",
    "repeat": "samples",
}
"""Run setting -> key of `.bfcl.yml`'s `model:` section."""


def _file_layer(section: ModelSettings) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for ours, theirs in _FROM_MODEL_SECTION.items():
        value = getattr(section, theirs)
        if value is not None and value != "":
            values[ours] = value
    return values


def settings_of_section(section: ModelSettings) -> RunSettings:
    """DEFAULTS under a `model:` section alone (no command line): what `impact` predicts
    a run of that config would send."""
    return RunSettings.model_validate({**DEFAULTS.model_dump(), **_file_layer(section)})


def backend_options(settings: RunSettings, api_key: str | None = None) -> BackendOptions:
    """What the runner's backends get from the settings (the key only travels here)."""
    from bfcl_action.model.options import BackendOptions  # the model package is heavy

    return BackendOptions(
        model=settings.model,
        mode=settings.mode,
        base_url=settings.base_url,
        api_key=api_key,
        temperature=None if settings.temperature == "omit" else settings.temperature,
        top_p=settings.top_p,
        seed=settings.request_seed,
        timeout=settings.timeout_s,
        concurrency=settings.concurrency,
        max_tokens=settings.max_tokens,
    )


def resolve_run_settings(
    overrides: RunOverrides,
    config: BfclConfig | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> RunSettings:
    """DEFAULTS, then `config`'s `model:` section, then `overrides`.

    `config` is the parsed `overrides.config` (the caller parses it once). An unset
    `base_url` falls back to `$OPENAI_BASE_URL`; a relative `replay:PATH` that exists only
    beside the config is taken from there; a replay records the config's model name.
    """
    values: dict[str, Any] = DEFAULTS.model_dump()
    if config is not None:
        values.update(_file_layer(config.model))
    given = overrides.model_dump(exclude_none=True, exclude={"no_cache"})
    values.update(given)
    if overrides.no_cache:
        values["cache_dir"] = None
    if values["base_url"] is None:
        values["base_url"] = (environ or {}).get("OPENAI_BASE_URL") or None
    redact.register_url(values["base_url"])  # a key in the URL is never printed
    model: str = values["model"]
    where = overrides.config
    if where is not None and model.startswith("replay:"):
        path = Path(model.removeprefix("replay:"))
        beside = where.resolve().parent / path
        if not path.is_absolute() and not path.exists() and beside.exists():
            values["model"] = f"replay:{beside}"
    recorded = (config.model.name or "") if config is not None else ""
    if (
        values["model_name"] is None
        and model.startswith("replay:")
        and recorded
        and not recorded.startswith("replay:")
    ):
        values["model_name"] = recorded
    if values["model"].startswith("replay:"):
        values["cache_dir"] = None
    return RunSettings.model_validate(values)


class MatrixRun(BaseModel):
    """One model of a run with its resolved settings (`resolve_model_runs`): an entry of a
    `models:` matrix, or the one model of a run without `models:` (label "")."""

    model_config = ConfigDict(frozen=True)

    label: str
    settings: RunSettings
    informational: bool = False
    key_variable: str | None = None
    """The entry's own `api_key_env`: the variable its key is read from. None: the key of
    the run (the Action's `api-key` input, the command line's `--api-key-env`)."""


def resolve_model_runs(
    overrides: RunOverrides,
    config: BfclConfig | None,
    entries: Sequence[MatrixModel],
    *,
    environ: Mapping[str, str] | None = None,
) -> list[MatrixRun]:
    """The models of a run: one model is a matrix of one. Without `entries`, the one run
    of `resolve_run_settings` (no label); else one `RunSettings` per matrix entry:
    DEFAULTS < `model:` < front-end options < the entry's own keys (an entry is more
    specific than an option given for every model). The options that choose the cases
    (categories, sample, ...) are the same for all."""
    if not entries:
        return [
            MatrixRun(label="", settings=resolve_run_settings(overrides, config, environ=environ))
        ]
    runs: list[MatrixRun] = []
    for entry in entries:
        values = overrides.model_dump(exclude_none=True)
        values.update(_file_layer(entry))
        if entry.name.startswith("replay:") and values.get("model_name") is None:
            values["model_name"] = entry.label or (
                config.model.name if config is not None and config.model.name else None
            )
        runs.append(
            MatrixRun(
                label=entry.key,
                settings=resolve_run_settings(
                    RunOverrides.model_validate(values), config, environ=environ
                ),
                informational=entry.informational,
                key_variable=entry.api_key_env,
            )
        )
    return runs


def check_settings(settings: RunSettings, *, model_hint: str) -> None:
    """The errors a user can make in any layer, named by the command-line flag."""
    if not settings.model:
        raise ConfigError(f"no model: {model_hint}", field="model")
    problem = key_variable_problem(settings.api_key_env, from_file=False)
    if problem:
        raise ConfigError(problem, field="api-key-env")
    for name, value in (("concurrency", settings.concurrency), ("repeat", settings.repeat)):
        if value < 1:
            raise ConfigError(f"must be >= 1, found {value}", field=name)
    if settings.max_retries < 0:
        raise ConfigError(f"must be >= 0, found {settings.max_retries}", field="max-retries")
    if settings.timeout_s <= 0:
        raise ConfigError(f"must be > 0, found {settings.timeout_s}", field="timeout")
    if settings.top_p is not None and not 0 < settings.top_p <= 1:
        raise ConfigError(f"must be in (0, 1], found {settings.top_p}", field="top-p")
    if settings.tool_timeout_s <= 0 or settings.tool_memory_mb < 64:
        raise ConfigError(
            "--tool-timeout must be > 0 and --tool-memory-mb at least 64", field="tool-timeout"
        )
    if settings.shard:
        parse_shard(settings.shard)
    if settings.batch and (settings.replaying or settings.cache_dir is None):
        raise ConfigError(
            "a batch run needs a model endpoint and the response cache (its answers land "
            "there): drop --no-cache, or run without --batch",
            field="batch",
        )
    if settings.batch_wait_s < 0:
        raise ConfigError(f"must be >= 0, found {settings.batch_wait_s}", field="batch-wait")


def api_key(settings: RunSettings) -> str | None:
    """The API key of `settings`, read from wherever the entry point put it: the console
    script moves `*_API_KEY` out of `os.environ` into `credentials` at start, so commands
    read keys here, never from `os.environ` (held and redacted from now on)."""
    credentials.get(settings.api_key_env)
    return api_key_from_env(settings, credentials.environment())


def api_key_from_env(settings: RunSettings, environ: Mapping[str, str]) -> str | None:
    """The command line's API key: the variable `api_key_env` names (none for a replay, or
    for a `base_url` server when the variable is unset: local servers need none)."""
    if settings.replaying:
        return None
    key = environ.get(settings.api_key_env)
    if key:
        return key
    if settings.base_url:
        print(
            f"bfcl-action: {settings.api_key_env} is not set; sending no API key to "
            f"{settings.base_url}",
            file=sys.stderr,
        )
        return None
    raise ConfigError(
        f"no API key: set the environment variable {settings.api_key_env}", field="api-key-env"
    )


def resolve_thresholds(
    config: BfclConfig | None, overrides: ThresholdOverrides | None = None
) -> Thresholds:
    """`Thresholds()` defaults, then `.bfcl.yml`'s `thresholds:`, then `overrides`."""
    base = config.thresholds if config is not None else Thresholds()
    return base.with_overrides(overrides or ThresholdOverrides())
