"""What a one-tool PR costs: model requests asked, as a ratio to the ideal (target 1.00).

For each tool of examples/weather-app, one PR rewords that tool's description. The base run
fills a response cache (as the Action's `actions/cache` restore gives a PR its base
branch's answers); the head run shares it. Ideal: the distinct requests that offer the
edited tool (the cases whose request changed; a case and its k=0 distractor copy ask the same
thing, so once). Also: what the same PR costs without the cache (every case), and an
unchanged push (target 0 requests). Requests are counted by the local server.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from bfcl_action.cases.suites import build_cases
from bfcl_action.compare.impact import request_delta
from bfcl_action.core.records import Mode, TestCase
from bfcl_action.model.options import BackendOptions
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from bfcl_action.settings.config import load_config
from bfcl_action.tools import load_tools
from tests.support.openai_server import OpenAIServer

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "weather-app"


def _run(cases: list[TestCase], options: BackendOptions, cache: Path, server: OpenAIServer) -> int:
    before = len(server.requests)
    run_evaluation(cases, RunOptions(backend=options, cache_dir=cache))
    return len(server.requests) - before


def main() -> dict[str, Any]:
    config = load_config(EXAMPLE / ".bfcl.yml")
    tools = load_tools(config.tools, base_dir=EXAMPLE)
    base_cases = build_cases(config, base_dir=EXAMPLE, tools=tools)
    per_tool: dict[str, dict[str, int]] = {}
    with OpenAIServer() as server, tempfile.TemporaryDirectory() as tmp:
        options = BackendOptions(
            model="bench-model", mode=Mode.FC, base_url=server.base_url, api_key="sk-bench"
        )
        cache = Path(tmp) / "cache"
        full = _run(base_cases, options, cache, server)
        unchanged = _run(base_cases, options, cache, server)
        for fn in tools.functions:
            edited = [
                f.model_copy(update={"description": f"{f.description} (reworded)"})
                if f.name == fn.name
                else f
                for f in tools.functions
            ]
            head_cases = build_cases(
                config, base_dir=EXAMPLE, tools=replace(tools, functions=edited)
            )
            _, ideal = request_delta(head_cases, options, base_cases, options)
            offering = {c.id for c in head_cases if fn.name in [f.name for f in c.functions]}
            # each PR starts from main's cache: a copy, so PRs do not feed each other
            pr_cache = Path(tmp) / f"pr-{fn.name}"
            shutil.copytree(cache, pr_cache)
            asked = _run(head_cases, options, pr_cache, server)
            per_tool[fn.name] = {
                "asked": asked,
                "ideal": len(ideal),
                "cases_offering": len(offering),
            }
    ratios = [t["asked"] / t["ideal"] for t in per_tool.values() if t["ideal"]]
    figures: dict[str, Any] = {
        "cases": len(base_cases),
        "first_push_requests": full,
        "unchanged_push_requests": unchanged,
        "one_tool_pr_requests_median": statistics.median(t["asked"] for t in per_tool.values()),
        "one_tool_pr_ratio_to_ideal_mean": round(statistics.fmean(ratios), 4),
        "one_tool_pr_ratio_to_ideal_max": round(max(ratios), 4),
        "one_tool_pr_without_cache_ratio_mean": round(
            statistics.fmean(len(base_cases) / t["ideal"] for t in per_tool.values() if t["ideal"]),
            2,
        ),
        "per_tool": per_tool,
    }
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "prloop.json").write_text(json.dumps(figures, indent=2) + "\n")
    summary = {k: v for k, v in figures.items() if k != "per_tool"}
    print(json.dumps(summary, indent=2))
    return figures


if __name__ == "__main__":
    main()
