"""`bfcl-action check` as a whole process against the official checker as a whole process.

What a user compares: one JSONL file of (case, model output) lines, the same for both, from
the conformance generator (ground truth and mutations over all 13 single-turn categories,
as decoded call lists, FC JSON and prompt text; `benchmarks.checker`'s workload). Ours is the
console script `bfcl-action check --cases IN --output OUT` (parse budget, pydantic line
model, decode, check, one output line each); the official side is a process that reads the
same file line by line with `json.loads` and runs bfcl_eval's per-entry evaluation
(`tests.conformance.official.OfficialChecker.verdict`), writing one line each. Start-up and
imports are included on both sides.

The two processes run one after the other, alternating, `ROUNDS` times; each ratio is taken
within a round (official wall / ours wall, and the same with child CPU time), so a load
change on a shared machine between rounds moves both sides. Reported: the minimum and the
median of the per-round ratios. Target (issue 27): >= 1.5x.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROUNDS = 5
TARGET_RATIO = 1.5
ROOT = Path(__file__).resolve().parents[1]


def _official_main(source: str, target: str) -> None:
    """The official side's process: `python -m benchmarks.check_process IN OUT`."""
    from tests.conformance.official import OfficialChecker

    official = OfficialChecker()
    with open(source, "rb") as fh, open(target, "w", encoding="utf-8") as out:
        for raw in fh:
            line = json.loads(raw)
            verdict = official.verdict(
                case_id=line["id"],
                category=line["category"],
                checker=line["checker"],
                language=line["language"],
                functions=line["functions"],
                possible_answer=line["possible_answer"],
                rep=line["rep"],
                output=line["model_output"],
                underscore_to_dot=line["underscore_to_dot"],
            )
            out.write(json.dumps({"id": line["id"], **verdict}) + "\n")


def write_workload(path: Path) -> int:
    """The checker benchmark's (case, output) pairs as `check` input lines; the extra keys
    the official side needs (`rep`, `checker`, `language`) are ignored by `check`."""
    from benchmarks.checker import _workload
    from bfcl_action.core.categories import CATEGORIES

    lines = 0
    with path.open("w", encoding="utf-8") as fh:
        for case, sample in _workload():
            entry = {
                "id": case.id,
                "category": case.category,
                "functions": [f.model_dump(mode="json") for f in case.functions],
                "possible_answer": case.possible_answer,
                "model_output": sample.output,
                "underscore_to_dot": sample.underscore_to_dot,
                "rep": sample.rep,
                "checker": CATEGORIES[case.category].checker.value,
                "language": case.language.value,
            }
            if sample.rep != "decoded":
                # FC JSON and prompt text go through the decoders, as the official side does
                entry["mode"] = "prompt" if sample.rep == "prompt" else "fc"
            fh.write(json.dumps(entry) + "\n")
            lines += 1
    return lines


# Bytecode is written and used on both sides, as an installed package has it (the warm-up
# run writes it), whatever the calling environment says.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _time(argv: list[str]) -> tuple[float, float]:
    before = os.times()
    start = time.perf_counter()
    subprocess.run(
        argv, check=True, cwd=ROOT, env=_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def _agreement(ours: Path, theirs: Path) -> float:
    pairs = zip(
        ours.read_text(encoding="utf-8").splitlines(),
        theirs.read_text(encoding="utf-8").splitlines(),
        strict=True,
    )
    same = total = 0
    for a, b in pairs:
        total += 1
        same += json.loads(a)["valid"] == json.loads(b).get("valid")
    return same / max(total, 1)


def main() -> dict[str, Any]:
    script = Path(sys.executable).with_name("bfcl-action")
    ours_cli = [str(script)] if script.is_file() else [sys.executable, "-m", "bfcl_action.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        cases = Path(tmp) / "in.jsonl"
        n = write_workload(cases)
        ours_out, official_out = Path(tmp) / "ours.jsonl", Path(tmp) / "official.jsonl"
        ours = [*ours_cli, "check", "--cases", str(cases), "--output", str(ours_out)]
        official = [sys.executable, "-m", "benchmarks.check_process", str(cases), str(official_out)]
        _time(ours)  # warm the file cache and the bytecode on both sides
        _time(official)
        rounds = []
        for _ in range(ROUNDS):
            o_wall, o_cpu = _time(official)
            u_wall, u_cpu = _time(ours)
            rounds.append({"official": (o_wall, o_cpu), "ours": (u_wall, u_cpu)})
        agreement = _agreement(ours_out, official_out)
    wall_ratios = [r["official"][0] / r["ours"][0] for r in rounds]
    cpu_ratios = [r["official"][1] / r["ours"][1] for r in rounds]
    result: dict[str, Any] = {
        "lines": n,
        "rounds": ROUNDS,
        "official_wall_s": [round(r["official"][0], 3) for r in rounds],
        "ours_wall_s": [round(r["ours"][0], 3) for r in rounds],
        "official_cpu_s": [round(r["official"][1], 3) for r in rounds],
        "ours_cpu_s": [round(r["ours"][1], 3) for r in rounds],
        "wall_ratio_min": round(min(wall_ratios), 3),
        "wall_ratio_median": round(statistics.median(wall_ratios), 3),
        "cpu_ratio_min": round(min(cpu_ratios), 3),
        "cpu_ratio_median": round(statistics.median(cpu_ratios), 3),
        "valid_agreement": round(agreement, 4),
        "target_ratio": TARGET_RATIO,
    }
    result["meets_target"] = result["cpu_ratio_median"] >= TARGET_RATIO
    out = ROOT / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "check_process.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(
        f"check (whole process): {n} lines; official {statistics.median(result['official_wall_s'])}"
        f" s, ours {statistics.median(result['ours_wall_s'])} s (medians of {ROUNDS}); ratio wall "
        f"min/median {result['wall_ratio_min']}/{result['wall_ratio_median']}x, CPU "
        f"{result['cpu_ratio_min']}/{result['cpu_ratio_median']}x (target >= {TARGET_RATIO}x); "
        f"valid verdicts agree on {100 * agreement:.2f}% of lines"
    )
    return result


if __name__ == "__main__":
    if len(sys.argv) == 3:
        _official_main(sys.argv[1], sys.argv[2])
    else:
        main()
