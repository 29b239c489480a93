"""The example app (`examples/weather-app`) as the end-to-end tests drive it: the calls a
good model makes, a scripted model that breaks on the reworded `get_forecast`, and what
`bfcl-action impact` predicts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bfcl_action.core.records import TestCase
from tests.support.action import ROOT

EXAMPLE = ROOT / "examples" / "weather-app"
NARROW = "Not for current conditions"
"""Words of main's `get_forecast` description that the PR drops."""


def expected_calls(cases: list[TestCase]) -> dict[str, list[dict[str, Any]]]:
    """Question -> the calls a good model makes (first option of each argument)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        if not case.possible_answer or len(case.question) != 1:
            continue
        calls = []
        for call in case.possible_answer:
            for name, params in call.items():
                args = {k: next(o for o in v if o != "") for k, v in params.items() if v != [""]}
                args = {k: v for k, v in args.items() if v != ""}
                calls.append({"name": name, "arguments": args})
        out[case.question[0][-1].content or ""] = calls
    return out


def scripted_model(calls: dict[str, list[dict[str, Any]]], *, fragile: bool = True):  # type: ignore[no-untyped-def]
    """A model that answers every question right, except (`fragile`) that once
    `get_forecast` no longer says it is not for current conditions, it answers "right now"
    questions with it."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        question = next(
            str(m.get("content") or "") for m in reversed(body["messages"]) if m["role"] == "user"
        )
        tools = {t["function"]["name"]: t["function"] for t in body.get("tools") or []}
        forecast = tools.get("get_forecast", {}).get("description", "")
        wanted = calls.get(question)
        if wanted is None:
            return {"content": "I cannot help with that."}
        if (
            fragile
            and forecast
            and NARROW not in forecast
            and wanted[0]["name"] == "get_current_weather"
        ):
            city = wanted[0]["arguments"].get("city", "Paris")
            return {"tool_calls": [{"name": "get_forecast", "arguments": {"city": city}}]}
        return {"tool_calls": wanted}

    return respond


def predicted_impact(workdir: Path, ref: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bfcl_action.cli", "impact", "--base-ref", ref, "--json"],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(workdir)},
    )
    payload: dict[str, Any] = json.loads(out.stdout)
    return payload
