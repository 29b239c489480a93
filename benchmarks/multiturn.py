"""Multi-turn engine costs: sandbox start, per-call round trip, whole-case checks.

Figures:
1. worker start (spawn + limits + audit hook), mean of 10;
2. tool-call round trip through the worker (notes API `count_notes`), mean of 2000;
3. ground-truth replay checks of the notes-app cases (model + truth instances, per-turn state
   and result checks), cases/s on one thread;
4. the same over official entries (40, all four categories) when bfcl-eval's environments can
   be imported (`tests.support.official_envs.environment_python`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from bfcl_action.core.records import Mode
from bfcl_action.multiturn import ExecutionOptions, check_conversation, conversation_of
from bfcl_action.multiturn.cases import load_conversation_cases
from bfcl_action.multiturn.conversation import ground_truth_output
from bfcl_action.safety.sandbox import EnvironmentSpec, Sandbox
from tests.support.official_envs import environment_python

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "notes-app"


def main() -> dict[str, Any]:
    figures: dict[str, Any] = {}
    starts = []
    for _ in range(10):
        t = time.perf_counter()
        with Sandbox(paths=[EXAMPLE]) as box:
            box.init(
                "model", [EnvironmentSpec("NotesAPI", "notes_api:NotesAPI")], long_context=False
            )
        starts.append(time.perf_counter() - t)
    figures["worker_start_ms"] = round(1000 * sum(starts) / len(starts), 1)

    with Sandbox(paths=[EXAMPLE]) as box:
        box.init("model", [EnvironmentSpec("NotesAPI", "notes_api:NotesAPI")], long_context=False)
        n = 2000
        t = time.perf_counter()
        for _ in range(n):
            box.call("model", "count_notes")
        figures["call_round_trip_us"] = round(1e6 * (time.perf_counter() - t) / n, 1)

    cases = load_conversation_cases(EXAMPLE / "cases.multi_turn.jsonl") * 5
    t = time.perf_counter()
    ok = sum(
        check_conversation(c, ground_truth_output(conversation_of(c), Mode.FC), mode=Mode.FC).valid
        for c in cases
    )
    elapsed = time.perf_counter() - t
    figures["notes_replay_cases_per_s"] = round(len(cases) / elapsed, 1)
    figures["notes_replay_pass_rate"] = ok / len(cases)

    python = environment_python()
    if python is not None:
        from bfcl_action.dataset import load_dataset

        official = load_dataset("bfcl@2026.3.23", ["multi_turn"])[::20]
        options = ExecutionOptions(python=python)
        t = time.perf_counter()
        ok = sum(
            check_conversation(
                c, ground_truth_output(conversation_of(c), Mode.FC), mode=Mode.FC, options=options
            ).valid
            for c in official
        )
        elapsed = time.perf_counter() - t
        figures["official_replay_cases"] = len(official)
        figures["official_replay_cases_per_s"] = round(len(official) / elapsed, 1)
        figures["official_replay_pass_rate"] = ok / len(official)
    out = ROOT / "bench-results" / "multiturn.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    for key, value in figures.items():
        print(f"{key:34} {value}")
    return figures


if __name__ == "__main__":
    main()
