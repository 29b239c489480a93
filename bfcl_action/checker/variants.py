"""BFCL v4's format-sensitivity cases: one entry of another category re-asked under one of
26 prompt configurations, the configuration and the entry named in the case id:

    format_sensitivity_<n>:ret_fmt=json&tool_call_tag=True&func_doc_fmt=xml&prompt_fmt=plaintext&style=classic:live_simple_23-5-1

The configuration says how the model was asked to write its calls (`ret_fmt`, `tool_call_tag`)
and so how its text is decoded; the entry's category decides how the calls are matched.
`PromptTemplates` holds the texts a configuration's system prompt is assembled from (read
from the pinned wheel by `bfcl_action.dataset.prompt_templates`, assembled by
`bfcl_action.model.variant_prompts`).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from bfcl_action.core.categories import CATEGORIES, Category
from bfcl_action.decode.return_formats import ReturnFormat

_CONFIG = re.compile(
    r"ret_fmt=(python|json|verbose_xml|concise_xml)&tool_call_tag=(True|False)"
    r"&func_doc_fmt=(python|xml|json)&prompt_fmt=(plaintext|markdown)&style=(classic|experimental)"
)
_ENTRY = re.compile(r"(\w+?)_\d+(?:-\d+-\d+)?")


class PromptConfig(BaseModel):
    """One of BFCL's format-sensitivity prompt configurations."""

    model_config = ConfigDict(frozen=True)

    return_format: ReturnFormat
    tool_call_tag: bool
    function_doc_format: str
    prompt_format: str
    style: str

    @property
    def key(self) -> str:
        """The configuration as BFCL writes it in ids and score files."""
        return (
            f"ret_fmt={self.return_format.value}&tool_call_tag={self.tool_call_tag}"
            f"&func_doc_fmt={self.function_doc_format}&prompt_fmt={self.prompt_format}"
            f"&style={self.style}"
        )


class PromptStyle(BaseModel):
    """One style's pieces; `tool_call_*` hold `{output_format}` and `{param_types}`,
    `available_tools` holds `{format}` (the function-doc format's name) and `{functions}`."""

    model_config = ConfigDict(frozen=True)

    persona: str
    task: str
    tool_call_no_tag: str
    tool_call_with_tag: str
    multiturn_behavior: str
    available_tools: str


class PromptTemplates(BaseModel):
    """Every text a format-sensitivity system prompt is made of, keyed as the configuration
    names them: return format (`output_formats`, `param_types`), style, layout."""

    model_config = ConfigDict(frozen=True)

    output_formats: dict[str, str]
    param_types: dict[str, str]
    styles: dict[str, PromptStyle]
    layouts: dict[str, str]


def _all_configs() -> list[PromptConfig]:
    configs = [
        PromptConfig(
            return_format=fmt,
            tool_call_tag=tag,
            function_doc_format=doc,
            prompt_format="plaintext",
            style="classic",
        )
        for fmt in ReturnFormat
        for tag in (True, False)
        for doc in ("python", "xml", "json")
    ]
    base = {"return_format": ReturnFormat.PYTHON, "tool_call_tag": False}
    configs.append(
        PromptConfig(**base, function_doc_format="json", prompt_format="markdown", style="classic")
    )
    configs.append(
        PromptConfig(
            **base, function_doc_format="json", prompt_format="plaintext", style="experimental"
        )
    )
    return configs


PROMPT_CONFIGS: list[PromptConfig] = _all_configs()
"""BFCL v4's 26 configurations, in its order: every return format x tag x function-doc format
in plain text and the classic style, then markdown, then the experimental style."""


def parse_config(text: str) -> PromptConfig | None:
    match = _CONFIG.fullmatch(text)
    if match is None:
        return None
    fmt, tag, doc, prompt, style = match.groups()
    return PromptConfig(
        return_format=ReturnFormat(fmt),
        tool_call_tag=tag == "True",
        function_doc_format=doc,
        prompt_format=prompt,
        style=style,
    )


def variant_of(case_id: str) -> tuple[PromptConfig, Category] | None:
    """The configuration and the re-asked entry's category named by a format-sensitivity id,
    or None when the id is not of that shape (or names an unknown category)."""
    parts = case_id.split(":")
    if len(parts) != 3:
        return None
    config = parse_config(parts[1])
    entry = _ENTRY.fullmatch(parts[2])
    category = CATEGORIES.get(entry.group(1)) if entry else None
    if config is None or category is None or category.prompt_variants:
        return None
    return config, category


def variant_id(index: int, config: PromptConfig, entry_id: str) -> str:
    return f"format_sensitivity_{index}:{config.key}:{entry_id}"
