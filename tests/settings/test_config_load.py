"""`.bfcl.yml`: defaults, every error at once with its line, thresholds for the comparison."""

from pathlib import Path

import pytest

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Mode
from bfcl_action.settings.config import BfclConfig, find_config, load_config, parse_config

EXAMPLE = Path(__file__).parents[2] / "examples" / "weather-app"


def errors(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    return str(info.value).splitlines()[1:]


def test_empty_file_is_the_default_config() -> None:
    config = parse_config("")
    assert config.model_dump() == BfclConfig().model_dump()
    assert config.derived.distractors.k == [0, 4, 16, 32]
    assert config.suites.own_categories()[0] == "own_simple"


def test_example_config_loads() -> None:
    config = load_config(EXAMPLE / ".bfcl.yml")
    assert config.tools == ["tools/*.json", "tools/*.yaml"]
    assert config.model.mode is Mode.FC
    assert config.derived.irrelevance.count == 12
    assert config.weights["own_multiple"] == 2


def test_a_single_glob_may_be_written_as_a_string() -> None:
    assert parse_config("tools: tools/*.json\ncases: c.yml").cases == ["c.yml"]


def test_every_error_is_reported_with_its_line_and_column() -> None:
    text = """\
tools: tools/*.json
suites:
  own: [own_simple, simpel]
modle:
  name: x
model:
  temperature: hot
thresholds:
  categories:
    own_simpel: {max_drop: 5}
    own_simple: {alpha: 2}
weights: {own_simple: -1}
"""
    assert errors(text) == [
        "  .bfcl.yml:3:8: suites.own: 'simpel' is not an own category; did you mean "
        "'own_simple'? (expected 'own' or one of own_simple, own_multiple, own_parallel, "
        "own_parallel_multiple, own_irrelevance, own_relevance, own_distractors, "
        "own_multi_turn)",
        "  .bfcl.yml:4:1: modle: unknown key; did you mean 'model'? (expected one of: version, "
        "tools, tools_exclude, tool_limits, cases, multi_turn, environments, suites, derived, "
        "seed, model, models, thresholds, weights, pricing)",
        "  .bfcl.yml:7:16: model.temperature: expected a number >= 0, or `omit` to send none "
        "(models that accept only their default) (found 'hot')",
        "  .bfcl.yml:10:5: thresholds.categories.own_simpel: unknown category or suite "
        "'own_simpel'; did you mean 'own_simple'?",
        "  .bfcl.yml:11:25: thresholds.categories.own_simple.alpha: Input should be less than 1 "
        "(found 2)",
        "  .bfcl.yml:12:23: weights.own_simple: Input should be greater than or equal to 0 "
        "(found -1)",
    ]


def test_unknown_nested_key_lists_the_keys_of_its_section() -> None:
    assert errors("derived:\n  distractors:\n    kk: [1]\n") == [
        "  .bfcl.yml:3:5: derived.distractors.kk: unknown key; did you mean 'k'? "
        "(expected one of: enabled, k, pools, max_similarity)"
    ]


def test_yaml_syntax_error_has_its_line() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config("tools: [a\nseed: 1\n")
    assert str(info.value).startswith(".bfcl.yml:2:5: invalid YAML:")


def test_official_suites_accept_multi_turn_and_reject_unknown_names() -> None:
    config = parse_config("suites:\n  official: [multi_turn_base, multi_turn]\n")
    assert config.suites.official == ["multi_turn_base", "multi_turn"]
    assert errors("suites:\n  official: [multi_turn_bogus]\n") == [
        "  .bfcl.yml:2:13: suites.official: 'multi_turn_bogus' is not an official BFCL "
        "category or group; did you mean 'multi_turn_base' or 'multi_turn' or "
        "'multi_turn_miss_func'?"
    ]


def test_thresholds_fall_back_from_suite_to_category_to_group_to_global() -> None:
    config = parse_config(
        """\
thresholds:
  max_drop: 2
  alpha: 0.1
  categories:
    own_distractors_k16: {max_drop: 10}
    own_distractors: {max_drop: 5, min_score: 40}
    own: {alpha: 0.01}
"""
    )
    t = config.thresholds
    assert t.for_category("own_distractors_k16", "own_distractors").model_dump() == {
        "max_drop": 10.0,
        "alpha": 0.01,
        "min_score": 40.0,
    }
    assert t.for_category("own_simple").model_dump() == {
        "max_drop": 2.0,
        "alpha": 0.01,
        "min_score": None,
    }
    assert t.for_category("simple_python").alpha == 0.1


def test_distractor_k_values_are_sorted_and_unique() -> None:
    assert parse_config("derived: {distractors: {k: [16, 0, 4, 4]}}").derived.distractors.k == [
        0,
        4,
        16,
    ]


def test_find_config_searches_parent_directories(tmp_path: Path) -> None:
    (tmp_path / ".bfcl.yml").write_text("seed: 3\n")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_config(nested) == tmp_path / ".bfcl.yml"


def test_missing_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / ".bfcl.yml")
