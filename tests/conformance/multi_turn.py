"""Conformance of the multi-turn checker: our verdicts against bfcl-eval's on the same outputs.

    python -m tests.conformance.multi_turn [--limit N] [--seed S] [--report PATH]

For each official multi-turn entry (our loader; the data cache), it builds the ground truth
as a model result and seeded mutations of it (a dropped call, a changed argument, a repeated
call, calls of a turn reversed, a turn answered with text, a missing last turn), in FC and
prompt representation, and asks bfcl-eval's `_evaluate_single_multi_turn_entry` (its decoder
for the representation, its environments, its checker) and ours (`check_conversation`, the
environments in our sandbox) for a verdict. Prints agreement on `valid` and `error_type` per
category and mutation; exits 1 on any `valid` disagreement.

Needs bfcl-eval importable here (`nox -s conformance` installs it with --no-deps). Our
sandbox hosts the environments with `$BFCL_ENV_PYTHON` if set, else this interpreter.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import tempfile
import time
import types
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.dataset import load_dataset
from bfcl_action.dataset.multi_turn import MULTI_TURN_OFFICIAL
from bfcl_action.multiturn import ExecutionOptions, check_conversation, conversation_of
from bfcl_action.multiturn.conversation import ground_truth_output
from tests.conformance.official import BFCL_EVAL_VERSION, sdk_stubs

MUTATIONS = (
    "truth",
    "drop_call",
    "change_arg",
    "repeat_call",
    "reverse_turn",
    "text_turn",
    "drop_turn",
)


@dataclass(frozen=True)
class Sample:
    kind: str
    mode: Mode
    output: list[list[Any]]


def _calls_of(step: Any, mode: Mode) -> list[str] | list[dict[str, str]]:
    if mode is Mode.FC:
        assert isinstance(step, list)
        return step
    assert isinstance(step, str)
    return [step]


def mutate(case: TestCase, kind: str, mode: Mode, rng: random.Random) -> list[list[Any]] | None:
    """The ground-truth result with one seeded change; None if the change does not apply."""
    truth = ground_truth_output(conversation_of(case), mode)
    fc = ground_truth_output(conversation_of(case), Mode.FC)
    turns = [i for i, t in enumerate(fc) if t]
    if kind == "truth":
        return truth
    if not turns:
        return None
    index = rng.choice(turns)
    step: list[dict[str, str]] = copy.deepcopy(fc[index][0])
    if kind == "drop_turn":
        return truth[:-1]
    if kind == "text_turn":
        truth[index] = ["I cannot do that."]
        return truth
    if kind == "drop_call":
        step.pop(rng.randrange(len(step)))
    elif kind == "repeat_call":
        step.append(dict(rng.choice(step)))
    elif kind == "reverse_turn":
        if len(step) < 2:
            return None
        step.reverse()
    elif kind == "change_arg":
        candidates = [
            (i, k)
            for i, call in enumerate(step)
            for k, v in json.loads(next(iter(call.values()))).items()
            if isinstance(v, str)
        ]
        if not candidates:
            return None
        i, key = rng.choice(candidates)
        name = next(iter(step[i]))
        args = json.loads(step[i][name])
        args[key] = args[key] + "_x"
        step[i] = {name: json.dumps(args)}
    fc[index] = [step] if step else []
    if mode is Mode.FC:
        return fc
    return [[_prompt_text(s) for s in turn] for turn in fc]


def _prompt_text(step: list[dict[str, str]]) -> str:
    parts = []
    for call in step:
        name, raw = next(iter(call.items()))
        args = json.loads(raw)
        parts.append(f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})")
    return "[" + ", ".join(parts) + "]"


def samples_for(case: TestCase, seed: int) -> list[Sample]:
    rng = random.Random(f"{seed}:{case.id}")
    out: list[Sample] = []
    for mode in (Mode.FC, Mode.PROMPT):
        for kind in MUTATIONS:
            output = mutate(case, kind, mode, rng)
            if output is not None:
                out.append(Sample(kind, mode, output))
    return out


class OfficialMultiTurn:
    """bfcl-eval's per-entry multi-turn evaluation with the OpenAI handler's decoders."""

    def __init__(self) -> None:
        os.environ.setdefault("BFCL_PROJECT_ROOT", tempfile.mkdtemp(prefix="bfclroot-"))
        with sdk_stubs():
            from bfcl_eval.eval_checker import eval_runner
            from bfcl_eval.model_handler.utils import (
                convert_to_function_call,
                default_decode_execute_prompting,
            )

        self._runner = eval_runner
        self._decoders = {
            Mode.FC: lambda result, has_tool_call_tag: convert_to_function_call(result),
            Mode.PROMPT: lambda result, has_tool_call_tag: default_decode_execute_prompting(
                result, has_tool_call_tag
            ),
        }
        self._count = 0

    def verdict(self, case: TestCase, sample: Sample) -> dict[str, Any]:
        self._count += 1  # a fresh model name: upstream keeps instances in globals by name
        handler = types.SimpleNamespace(decode_execute=self._decoders[sample.mode])
        extra = dict(case.model_extra or {})
        entry = {
            "id": case.id,
            "question": [[m.model_dump() for m in t] for t in case.question],
            "initial_config": extra.get("initial_config", {}),
            "involved_classes": extra.get("involved_classes", []),
        }
        try:
            result = self._runner._evaluate_single_multi_turn_entry(
                handler,
                case.id,
                copy.deepcopy(sample.output),
                extra["ground_truth"],
                entry,
                f"conformance_{self._count}",
                case.category,
            )
        except Exception as exc:
            return {"crash": f"{type(exc).__name__}: {exc}"}
        if result.get("valid"):
            return {"valid": True, "error_type": None}
        return {"valid": False, "error_type": result["error"]["error_type"]}


def compare(
    cases: Sequence[TestCase], seed: int, options: ExecutionOptions, *, progress: bool = True
) -> dict[str, Any]:
    official = OfficialMultiTurn()
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    disagreements: list[dict[str, Any]] = []
    started = time.perf_counter()
    for number, case in enumerate(cases, start=1):
        for sample in samples_for(case, seed):
            theirs = official.verdict(case, sample)
            ours = check_conversation(case, sample.output, mode=sample.mode, options=options)
            for key in (
                case.category,
                f"mutation:{sample.kind}",
                f"mode:{sample.mode.value}",
                "total",
            ):
                row = rows[key]
                row["samples"] += 1
                row["official_valid"] += bool(theirs.get("valid"))
                row["valid_agree"] += theirs.get("valid") == ours.valid
                row["error_type_agree"] += theirs.get("error_type") == ours.error_type
            if theirs.get("valid") != ours.valid or theirs.get("error_type") != ours.error_type:
                disagreements.append(
                    {
                        "id": case.id,
                        "kind": sample.kind,
                        "mode": sample.mode.value,
                        "official": theirs,
                        "ours": {
                            "valid": ours.valid,
                            "error_type": ours.error_type,
                            "error": ours.error[:3],
                        },
                    }
                )
        if progress and number % 50 == 0:
            print(
                f"  {number}/{len(cases)} cases, {time.perf_counter() - started:.0f}s",
                file=sys.stderr,
            )
    return {
        "bfcl_eval": BFCL_EVAL_VERSION,
        "seed": seed,
        "cases": len(cases),
        "rows": {k: dict(v) for k, v in rows.items()},
        "disagreements": disagreements,
        "seconds": round(time.perf_counter() - started, 1),
    }


def valid_disagreements(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in report["disagreements"] if d["official"].get("valid") != d["ours"]["valid"]]


def print_report(report: dict[str, Any]) -> None:
    print(f"multi-turn conformance: {report['cases']} cases, {report['seconds']}s")
    print(f"{'slice':32} {'samples':>8} {'off. valid':>10} {'valid agree':>12} {'type agree':>11}")
    for key, row in sorted(report["rows"].items()):
        n = row["samples"]
        print(
            f"{key:32} {n:>8} {row['official_valid']:>10} "
            f"{row['valid_agree'] / n:>11.2%} {row['error_type_agree'] / n:>10.2%}"
        )
    for item in report["disagreements"][:10]:
        print("disagreement:", json.dumps(item)[:400])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="cases per category (default: all 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", type=Path, help="write the report JSON here")
    args = parser.parse_args(argv)
    cases: list[TestCase] = []
    for category in MULTI_TURN_OFFICIAL:
        loaded = load_dataset(f"bfcl@{BFCL_EVAL_VERSION}", [category])
        cases.extend(loaded[: args.limit] if args.limit else loaded)
    options = ExecutionOptions(python=os.environ.get("BFCL_ENV_PYTHON"))
    report = compare(cases, args.seed, options)
    print_report(report)
    if args.report:
        args.report.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 1 if valid_disagreements(report) else 0


if __name__ == "__main__":
    raise SystemExit(main())
