"""How long the own-tools stages take: loading and validating tool files (the example and
128 generated tools, OpenAI's per-request maximum), loading the example's cases, and deriving
the irrelevance and distractor suites from the full official pools (1,124 irrelevance
questions; every function of the single-turn categories)."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bfcl_action.cases.suites import (
    DatasetSource,
    derive_distractors,
    derive_irrelevance,
    distractor_functions,
    load_own,
    pool_entries,
)
from bfcl_action.core.categories import Checker
from bfcl_action.dataset.bfcl_format import entry_functions
from bfcl_action.settings.config import load_config
from bfcl_action.tools import load_tools

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "weather-app"
SPEC = "bfcl@2026.3.23"


def _median(fn: Callable[[], Any], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 4)


def _generated_tools(directory: Path, count: int = 128) -> None:
    tools = []
    for i in range(count):
        props = {
            f"p{j}": {"type": "string", "description": f"Parameter {j}.", "enum": ["a", "b"]}
            for j in range(8)
        }
        schema = {"type": "object", "properties": props, "required": ["p0", "p1"]}
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": f"tool_{i}",
                    "description": f"Tool {i}.",
                    "parameters": schema,
                },
            }
        )
    (directory / "tools.json").write_text(json.dumps(tools, indent=2))


def main() -> dict[str, Any]:
    config = load_config(EXAMPLE / ".bfcl.yml")
    figures: dict[str, Any] = {
        "example_tools_load_s": _median(lambda: load_tools(config.tools, base_dir=EXAMPLE)),
        "example_tools_and_cases_load_s": _median(lambda: load_own(config, base_dir=EXAMPLE)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        _generated_tools(Path(tmp))
        figures["tools_128_load_s"] = _median(lambda: load_tools(["*.json"], base_dir=Path(tmp)))
    tools, own = load_own(config, base_dir=EXAMPLE)
    source = DatasetSource(EXAMPLE)
    irrelevance = pool_entries(source, [SPEC], Checker.IRRELEVANCE)
    everything = entry_functions(pool_entries(source, [SPEC], None))
    kept = derive_irrelevance(
        tools.functions, irrelevance, count=len(irrelevance), seed=0, max_similarity=90
    )
    functions = distractor_functions(everything)
    figures.update(
        {
            "pool_irrelevance_questions": len(irrelevance),
            "pool_irrelevance_kept_for_example_tools": len(kept),
            "derive_irrelevance_s": _median(
                lambda: derive_irrelevance(
                    tools.functions, irrelevance, count=50, seed=0, max_similarity=90
                ),
                runs=3,
            ),
            "pool_distractor_functions": len(functions),
            "distractor_pool_s": _median(lambda: distractor_functions(everything), runs=3),
            "derive_distractors_s": _median(
                lambda: derive_distractors(own, functions, ks=[0, 4, 16, 32], seed=0)
            ),
        }
    )
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "owntools.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return figures
