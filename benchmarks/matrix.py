"""A model matrix: what it asks and how its comment scales.

1. Requests: a two-model matrix over examples/weather-app (`evaluation.evaluate_models`, a
   shared response cache as the Action's `actions/cache` gives it). The first push asks each
   model every distinct request; a PR that rewords one tool asks each model only the requests
   that changed (ideal: `impact.request_delta` per model; target ratio 1.00).
2. The comment: render time and size of the matrix comment for 2, 4 and 8 models over the
   example's suites (scripted outcomes), which must stay within GitHub's 65,536 characters.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bfcl_action.cases.suites import build_cases
from bfcl_action.compare.impact import request_delta
from bfcl_action.compare.matrix import MatrixComparison, MatrixEntry
from bfcl_action.compare.runs import compare_runs
from bfcl_action.report.matrix import render_matrix_comment
from bfcl_action.runner.evaluation import evaluate_cases, evaluate_models
from bfcl_action.settings.config import MatrixModel, load_config
from bfcl_action.settings.resolve import RunOverrides, backend_options, resolve_model_runs
from bfcl_action.tools import load_tools
from tests.support.openai_server import OpenAIServer
from tests.support.reports import make_report

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "weather-app"


def _requests() -> dict[str, Any]:
    config = load_config(EXAMPLE / ".bfcl.yml")
    tools = load_tools(config.tools, base_dir=EXAMPLE)
    entries = [MatrixModel(name="bench-a"), MatrixModel(name="bench-b", temperature=0.5)]
    with OpenAIServer() as server, tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        overrides = RunOverrides(
            config=EXAMPLE / ".bfcl.yml", base_url=server.base_url, cache_dir=cache
        )
        runs = resolve_model_runs(overrides, config, entries, environ={})
        keys: dict[str, str | None] = {r.label: "sk-bench" for r in runs}
        before = len(server.requests)
        evaluate_models(runs, config, api_keys=keys)
        first_push = len(server.requests) - before
        base_cases = build_cases(config, base_dir=EXAMPLE, tools=tools)
        fn = tools.functions[0]
        edited = [
            f.model_copy(update={"description": f"{f.description} (reworded)"})
            if f.name == fn.name
            else f
            for f in tools.functions
        ]
        head_cases = build_cases(config, base_dir=EXAMPLE, tools=replace(tools, functions=edited))
        ideal = 0
        for run in runs:
            options = backend_options(run.settings)
            ideal += len(request_delta(head_cases, options, base_cases, options)[1])
        # the PR's run: the same cases with the edited tool (the cache holds main's answers)
        before = len(server.requests)
        for run in runs:
            evaluate_cases(run.settings, config, head_cases, [], api_key="sk-bench")
        asked = len(server.requests) - before
    return {
        "models": len(runs),
        "cases": len(base_cases),
        "first_push_requests": first_push,
        "one_tool_pr_tool": fn.name,
        "one_tool_pr_requests": asked,
        "one_tool_pr_ideal": ideal,
        "one_tool_pr_ratio_to_ideal": round(asked / ideal, 4) if ideal else None,
    }


def _comment(models: int) -> dict[str, Any]:
    suites = {
        "own_simple": "1" * 12,
        "own_multiple": "1" * 14,
        "own_parallel": "1" * 3,
        "own_irrelevance": "1" * 21,
        **{f"own_distractors_k{k}": "1" * 6 for k in (0, 4, 16, 32)},
    }
    entries = []
    for i in range(models):
        base = make_report(suites, model=f"model-{i}")
        head_suites = dict(suites)
        if i % 2:
            head_suites["own_multiple"] = "1" * 4 + "0" * 10
        head = make_report(head_suites, model=f"model-{i}")
        entries.append(
            MatrixEntry(
                label=f"model-{i}",
                model=f"model-{i}",
                mode="fc",
                comparison=compare_runs(base, head),
            )
        )
    matrix = MatrixComparison(entries=entries)
    start = time.perf_counter()
    body = render_matrix_comment(matrix)
    elapsed = time.perf_counter() - start
    return {"models": models, "render_ms": round(elapsed * 1000, 1), "chars": len(body)}


def main() -> dict[str, Any]:
    figures: dict[str, Any] = {
        "requests": _requests(),
        "comment": [_comment(n) for n in (2, 4, 8)],
    }
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "matrix.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
