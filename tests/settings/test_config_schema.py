"""The shipped JSON Schema of `.bfcl.yml` is the config model's, and says what it says."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from bfcl_action.settings.config import parse_config
from bfcl_action.settings.config_schema import SCHEMA_FILE, config_schema, render

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_schema_is_the_one_the_model_generates() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == render(), (
        "bfcl_action/data/bfcl-config.schema.json is stale: "
        "python -m bfcl_action.settings.config_schema"
    )


@pytest.mark.parametrize(
    "text",
    [
        "tools: tools.json\n",  # a lone string where a list is expected
        "tools: [a.json]\nsuites: {own: own_simple}\nmodel: {name: m, temperature: omit}\n",
        (ROOT / "examples" / "weather-app" / ".bfcl.yml").read_text(encoding="utf-8"),
    ],
)
def test_what_the_model_accepts_the_schema_accepts(text: str) -> None:
    parse_config(text)
    jsonschema.validate(YAML(typ="safe").load(text), config_schema())


@pytest.mark.parametrize(
    "text", ["tols: [a.json]\n", "model: {name: m, temprature: 0}\n", "seed: many\n"]
)
def test_what_the_model_refuses_the_schema_refuses(text: str) -> None:
    with pytest.raises(Exception):  # noqa: B017 - the config's own error type
        parse_config(text)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(YAML(typ="safe").load(text), config_schema())
