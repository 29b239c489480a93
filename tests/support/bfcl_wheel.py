"""A small stand-in for the official `bfcl-eval` wheel: same layout, a few entries each.

Tests build it on the fly and pin its digest in place of the real one, so fetching, hash
checks and the cache can be exercised without the network.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from bfcl_action.core.categories import CATEGORIES, SINGLE_TURN_OFFICIAL, Checker
from bfcl_action.dataset.official import BfclRelease

VERSION = "2026.3.23"
ENTRIES_PER_CATEGORY = 2


def _entry(category: str, index: int) -> dict[str, Any]:
    return {
        "id": f"{category}_{index}",
        "question": [[{"role": "user", "content": f"Question {index} of {category}?"}]],
        "function": [
            {
                "name": "math.add",
                "description": "Add two numbers.",
                "parameters": {
                    "type": "dict",
                    "properties": {
                        "a": {"type": "integer", "description": "first"},
                        "b": {"type": "integer", "description": "second"},
                    },
                    "required": ["a", "b"],
                },
            }
        ],
    }


def _answer(category: str, index: int) -> dict[str, Any]:
    return {"id": f"{category}_{index}", "ground_truth": [{"math.add": {"a": [index], "b": [2]}}]}


AGENTIC_ANSWERS = ["Zhang Yiming", "35"]
"""The expected texts of the fixture's web search and memory entries, by index."""


def _agentic_files() -> list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """BFCL's shared agentic files: `web_search` (ids `web_search_N`) and `memory` (ids
    `memory_N-<scenario>-N`), each entry's answer one text of `AGENTIC_ANSWERS`."""
    out = []
    for stem, ids in (
        ("web_search", [f"web_search_{i}" for i in range(ENTRIES_PER_CATEGORY)]),
        ("memory", [f"memory_{i}-customer-{i}" for i in range(ENTRIES_PER_CATEGORY)]),
    ):
        rows = [
            {
                "id": entry_id,
                "question": [[{"role": "user", "content": f"Question {i} of {stem}?"}]],
                "involved_classes": ["WebSearchAPI" if stem == "web_search" else "MemoryAPI"],
            }
            for i, entry_id in enumerate(ids)
        ]
        answers = [
            {"id": entry_id, "ground_truth": [AGENTIC_ANSWERS[i % len(AGENTIC_ANSWERS)]]}
            for i, entry_id in enumerate(ids)
        ]
        out.append((stem, rows, answers))
    return out


PROMPT_TEMPLATES_SOURCE = """\
# A stand-in for bfcl_eval/constants/default_prompts.py: the same constants and placeholders,
# our own short texts (each names its slot, so a test can tell which piece was chosen).
UNRELATED = 20

OUTPUT_FORMAT_MAPPING = {
    "python": "[f(a=1), g(b=2)]",
    "json": '[{"function": "f", "parameters": {"a": 1}}]',
    "verbose_xml": '<functions><function name="f"><params>'
    '<param name="a" value="1" type="integer"/></params></function></functions>',
    "concise_xml": '<functions><function name="f">'
    '<param name="a" type="integer">1</param></function></functions>',
}

_XML_TYPES = "XML-TYPES: string, integer, float, boolean, array, dict, tuple."
PARAM_TYPE_MAPPING = {
    "python": "",
    "json": "",
    "verbose_xml": _XML_TYPES,
    "concise_xml": _XML_TYPES,
}

PROMPT_STYLE_TEMPLATES = {
    "classic": {
        "persona": "CLASSIC-PERSONA.",
        "task": "CLASSIC-TASK.",
        "tool_call_no_tag": "CLASSIC-NO-TAG {output_format}. {param_types} END.",
        "tool_call_with_tag": "CLASSIC-TAG <TOOLCALL>{output_format}</TOOLCALL>. "
        "{param_types} END.",
        "multiturn_behavior": "CLASSIC-TURNS.",
        "available_tools": "CLASSIC-TOOLS in {format}:\\n{functions}\\n",
    },
    "experimental": {
        "persona": "EXPERIMENTAL-PERSONA.",
        "task": "EXPERIMENTAL-TASK.",
        "tool_call_no_tag": "EXPERIMENTAL-NO-TAG {output_format}. {param_types}",
        "tool_call_with_tag": "EXPERIMENTAL-TAG <TOOLCALL>{output_format}</TOOLCALL>. "
        "{param_types}",
        "multiturn_behavior": "EXPERIMENTAL-TURNS.",
        "available_tools": "EXPERIMENTAL-TOOLS ({format}):\\n{functions}\\n",
    },
}

_PLAIN = (
    "{persona}{task}\\n\\n{tool_call_format}\\n\\n{multiturn_behavior}\\n\\n{available_tools}"
)
PROMPT_TEMPLATE_MAPPING = {
    "plaintext": _PLAIN,
    "markdown": "{persona}\\n\\n# TASK\\n{task}\\n\\n# CALLS\\n{tool_call_format}\\n\\n"
    "# TURNS\\n{multiturn_behavior}\\n\\n# TOOLS\\n{available_tools}",
}

LATER = "{functions}\\n" + "more"
"""
"""A stand-in of the file format-sensitivity prompts are built from: bfcl-eval's constant
names and placeholders with texts of our own."""


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


ENV_PACKAGE = "bfcl_eval/eval_checker/multi_turn_eval/func_source_code"
ENV_MODULES = (
    "gorilla_file_system",
    "long_context",
    "math_api",
    "message_api",
    "posting_api",
    "ticket_api",
    "trading_bot",
    "travel_booking",
    "vehicle_control",
)


def build_wheel(directory: Path, *, skip: tuple[str, ...] = (), environments: bool = False) -> Path:
    """Write `bfcl_eval-<VERSION>-py3-none-any.whl` into `directory` and return its path.

    With `environments`, it also holds tiny stand-ins of the multi-turn environment modules
    (each defines `MODULE = "<name>"`), under framework `__init__` files that must never run.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"bfcl_eval-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bfcl_eval/__init__.py", "raise ImportError('the framework ran')\n")
        if environments:
            for module in ENV_MODULES:
                archive.writestr(f"{ENV_PACKAGE}/{module}.py", f"MODULE = {module!r}\n")
        archive.writestr("bfcl_eval/data/README.md", "fixture")
        for category in SINGLE_TURN_OFFICIAL:
            if category in skip:
                continue
            name = f"BFCL_v4_{category}.json"
            rows = [_entry(category, i) for i in range(ENTRIES_PER_CATEGORY)]
            archive.writestr(f"bfcl_eval/data/{name}", _jsonl(rows))
            if CATEGORIES[category].checker is Checker.AST:
                answers = [_answer(category, i) for i in range(ENTRIES_PER_CATEGORY)]
                archive.writestr(f"bfcl_eval/data/possible_answer/{name}", _jsonl(answers))
        for stem, rows, answers in _agentic_files():
            archive.writestr(f"bfcl_eval/data/BFCL_v4_{stem}.json", _jsonl(rows))
            archive.writestr(f"bfcl_eval/data/possible_answer/BFCL_v4_{stem}.json", _jsonl(answers))
        archive.writestr(
            "bfcl_eval/data/BFCL_v4_format_sensitivity.json",
            json.dumps({"simple_python": ["simple_python_1"], "multiple": []}),
        )
        if "prompts" not in skip:
            archive.writestr("bfcl_eval/constants/default_prompts.py", PROMPT_TEMPLATES_SOURCE)
        archive.writestr("bfcl_eval/data/unused_datasets/BFCL_v3_sql.json", "{}\n")
        archive.writestr(
            f"bfcl_eval-{VERSION}.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: bfcl-eval\nVersion: {VERSION}\n",
        )
        archive.writestr(
            f"bfcl_eval-{VERSION}.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        archive.writestr(f"bfcl_eval-{VERSION}.dist-info/RECORD", "")
    return path


def release_for(wheel: Path) -> BfclRelease:
    data = wheel.read_bytes()
    return BfclRelease(version=VERSION, sha256=hashlib.sha256(data).hexdigest(), size=len(data))


MATH_ADD_ANSWERS = {
    "python": "[math.add(a=1, b=2)]",
    "json": '[{"function": "math.add", "parameters": {"a": 1, "b": 2}}]',
    "verbose_xml": '<functions><function name="math.add"><params>'
    '<param name="a" value="1" type="integer"/><param name="b" value="2" type="integer"/>'
    "</params></function></functions>",
    "concise_xml": '<functions><function name="math.add">'
    '<param name="a" type="integer">1</param><param name="b" type="integer">2</param>'
    "</function></functions>",
}
"""The right answer to the stand-in release's format-sensitivity entry (`simple_python_1`:
`math.add`, a=1, b=2) in each return format of the 26 prompt configurations."""
