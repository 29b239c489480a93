"""One defaults table, one precedence: defaults < `.bfcl.yml` < command line / Action inputs."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bfcl_action.commands.compare import thresholds_from_args
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.fingerprint import config_fingerprint
from bfcl_action.core.records import Mode
from bfcl_action.github.context import ActionContext
from bfcl_action.github.evaluate import Engine
from bfcl_action.runner.evaluation import backend_options, run_options
from bfcl_action.settings.config import parse_config
from bfcl_action.settings.resolve import (
    DEFAULTS,
    RunOverrides,
    RunSettings,
    check_settings,
    resolve_run_settings,
    resolve_thresholds,
)
from bfcl_action.settings.thresholds import ThresholdOverrides, Thresholds

DATASETS = ["live@2026-W48"]


def fingerprint(settings: RunSettings) -> str:
    options = run_options(settings, DATASETS, api_key=None)
    return config_fingerprint(
        model=settings.model,
        mode=settings.mode.value,
        datasets=DATASETS,
        settings=options.comparable_settings(),
    )


def test_an_empty_bfcl_yml_changes_neither_the_settings_nor_the_fingerprint() -> None:
    overrides = RunOverrides(model="gpt-4o-mini")
    without = resolve_run_settings(overrides, None)
    with_empty = resolve_run_settings(overrides, parse_config("", ".bfcl.yml"))
    assert with_empty == without
    assert run_options(with_empty, DATASETS, None) == run_options(without, DATASETS, None)
    assert fingerprint(with_empty) == fingerprint(without)


def test_a_bfcl_yml_with_only_a_model_name_keeps_every_default() -> None:
    config = parse_config("model:\n  name: gpt-4o-mini\n", ".bfcl.yml")
    settings = resolve_run_settings(RunOverrides(), config)
    assert settings.model == "gpt-4o-mini"
    assert settings.model_dump(exclude={"model"}) == DEFAULTS.model_dump(exclude={"model"})
    assert fingerprint(settings) == fingerprint(RunSettings(model="gpt-4o-mini"))


def test_the_defaults_are_bfcls_temperature_and_one_timeout_and_retry_count() -> None:
    assert (DEFAULTS.temperature, DEFAULTS.timeout_s, DEFAULTS.max_retries) == (0.001, 120.0, 6)
    backend = backend_options(RunSettings(model="m"), None)
    assert (backend.temperature, backend.timeout) == (0.001, 120.0)
    assert run_options(RunSettings(model="m"), DATASETS, None).max_retries == 6


def test_the_file_overrides_the_defaults_and_the_command_line_overrides_the_file() -> None:
    config = parse_config(
        "model:\n  name: from-file\n  temperature: 0.5\n  timeout_s: 30\n  retries: 1\n",
        ".bfcl.yml",
    )
    from_file = resolve_run_settings(RunOverrides(), config)
    assert (from_file.model, from_file.temperature, from_file.timeout_s) == ("from-file", 0.5, 30)
    assert (from_file.max_retries, from_file.concurrency) == (1, DEFAULTS.concurrency)
    flags = resolve_run_settings(RunOverrides(model="from-flag", temperature="omit"), config)
    assert (flags.model, flags.temperature, flags.timeout_s) == ("from-flag", "omit", 30)
    assert backend_options(flags, None).temperature is None


def test_base_url_falls_back_to_the_environment_only_when_no_layer_sets_it() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
    assert resolve_run_settings(RunOverrides(), environ=env).base_url == env["OPENAI_BASE_URL"]
    config = parse_config("model:\n  base_url: http://127.0.0.1:2/v1\n", ".bfcl.yml")
    assert resolve_run_settings(RunOverrides(), config, environ=env).base_url.endswith(":2/v1")


def test_a_replay_model_uses_no_cache_and_records_the_configs_model() -> None:
    config = parse_config("model:\n  name: gpt-4o-mini\n", ".bfcl.yml")
    settings = resolve_run_settings(RunOverrides(model="replay:answers"), config)
    assert settings.cache_dir is None
    assert settings.model_name == "gpt-4o-mini"


def test_out_of_range_settings_name_the_flag() -> None:
    with pytest.raises(ConfigError, match="concurrency"):
        check_settings(RunSettings(model="m", concurrency=0), model_hint="")
    with pytest.raises(ConfigError, match="give --model"):
        check_settings(RunSettings(), model_hint="give --model")


def test_mode_from_the_file_is_used() -> None:
    config = parse_config("model:\n  mode: prompt\n", ".bfcl.yml")
    assert resolve_run_settings(RunOverrides(), config).mode is Mode.PROMPT


# ------------------------------------------------------------------ thresholds
THRESHOLDS_YML = """\
thresholds:
  max_drop: 3
  alpha: 0.1
  categories:
    simple_python: {alpha: 0.2, max_drop: 5}
    live: {min_score: 40}
"""


def _compare_args(config: Path) -> argparse.Namespace:
    return argparse.Namespace(
        config=config,
        max_drop=None,
        alpha=None,
        min_score=None,
        max_drop_for=[],
        min_score_for=[],
        informational=False,
    )


def test_compare_config_and_the_action_resolve_the_same_thresholds(tmp_path: Path) -> None:
    (tmp_path / ".bfcl.yml").write_text(THRESHOLDS_YML, encoding="utf-8")
    from_cli = thresholds_from_args(_compare_args(tmp_path / ".bfcl.yml"))
    ctx = ActionContext.from_env({"INPUT_WORKING_DIRECTORY": str(tmp_path)})
    from_action = Engine().thresholds(ctx)
    assert from_action == from_cli
    assert from_action.alpha_for("simple_python", "simple_python") == 0.2
    assert from_action.alpha_for("multiple", "multiple") == 0.1
    assert from_action.min_score_for("live_simple", "live_simple") == 40


def test_flags_and_inputs_override_the_file_field_by_field(tmp_path: Path) -> None:
    config = parse_config(THRESHOLDS_YML, ".bfcl.yml")
    merged = resolve_thresholds(
        config,
        ThresholdOverrides.model_validate({"categories": {"simple_python": {"max_drop": 9}}}),
    )
    assert merged.max_drop_for("simple_python", "simple_python") == 9
    assert merged.alpha_for("simple_python", "simple_python") == 0.2


def test_the_overall_row_uses_the_global_values() -> None:
    t = Thresholds.model_validate({"categories": {"simple_python": {"max_drop": 9}}})
    assert t.max_drop_for("overall", "overall") == t.max_drop == 2.0
