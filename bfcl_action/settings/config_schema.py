"""The JSON Schema of `.bfcl.yml`, generated from the config model (`config.BfclConfig`).

Shipped with the package (`bfcl_action/data/bfcl-config.schema.json`) and named by the
`# yaml-language-server: $schema=...` line that `bfcl-action init` writes, so editors with
the YAML language server (VS Code's YAML extension, JetBrains IDEs, Neovim) validate and
complete the file as they type. `python -m bfcl_action.settings.config_schema` rewrites the file;
a test fails when it differs from what the model generates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from bfcl_action.settings import config

SCHEMA_FILE = Path(__file__).parents[1] / "data" / "bfcl-config.schema.json"
SCHEMA_URL = (
    "https://raw.githubusercontent.com/bfcl-action/bfcl-action/v1/"
    "bfcl_action/data/bfcl-config.schema.json"
)
"""Where editors fetch the schema: the shipped file, at the release the workflow pins."""
MODELINE = f"# yaml-language-server: $schema={SCHEMA_URL}"


def config_schema() -> dict[str, Any]:
    """The schema of the config model, with the shorthands its validators accept: a
    single string where a list of strings is expected (`tools: tools.json`)."""
    schema = config.BfclConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = ".bfcl.yml (bfcl-action)"
    defs = schema.get("$defs", {})
    for model in _models(config.BfclConfig):
        node = schema if model is config.BfclConfig else defs.get(model.__name__)
        if node is None:
            continue
        for name in _string_or_list_fields(model):
            prop = node["properties"][name]
            node["properties"][name] = {"anyOf": [{"type": "string"}, prop]}
    return schema


def _models(root: type[BaseModel]) -> list[type[BaseModel]]:
    """`root` and every config model reachable from its fields."""
    seen: list[type[BaseModel]] = []
    stack = [root]
    while stack:
        model = stack.pop()
        if model in seen:
            continue
        seen.append(model)
        for field in model.model_fields.values():
            for arg in _types_in(field.annotation):
                if isinstance(arg, type) and issubclass(arg, BaseModel):
                    stack.append(arg)
    return seen


def _types_in(annotation: Any) -> list[Any]:
    args = list(getattr(annotation, "__args__", ()) or ())
    return [annotation, *(t for a in args for t in _types_in(a))]


def _string_or_list_fields(model: type[BaseModel]) -> list[str]:
    """Fields whose before-validator turns a lone string into a list (`config._as_list`)."""
    out: list[str] = []
    for decorator in model.__pydantic_decorators__.field_validators.values():
        if getattr(decorator.func, "__func__", decorator.func) is config._as_list:
            out.extend(decorator.info.fields)
    return out


def render() -> str:
    return json.dumps(config_schema(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMA_FILE.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {SCHEMA_FILE}\n")
