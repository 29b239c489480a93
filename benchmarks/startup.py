"""Start time of the command line: `bfcl-action --version` and a one-line `bfcl-action check`.

Target (issue 13): `--version` under 0.2 s on the reference machine (it was 0.53 s when every
command module, and with them openai, PyGithub and jinja2, was imported up front). Each
command runs in a fresh interpreter, as a user or CI step would start it; the figure is the
fastest of RUNS runs (the least disturbed by other load on a shared machine), with the median
and the bare interpreter's start (`python -c pass`) beside it so the number can be judged on
any machine. CPU time (user + system of the child) is reported too: it is what the code
costs, whatever the machine's load.
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

RUNS = 9
TARGET_VERSION_S = 0.2
CHECK_LINE = {
    "id": "t1",
    "category": "simple_python",
    "functions": [
        {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {
                "type": "dict",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        }
    ],
    "possible_answer": [{"add": {"a": [1], "b": [2]}}],
    "model_output": "[add(a=1, b=2)]",
}


def _time(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `argv` in a child process."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def _figures(argv: list[str]) -> dict[str, float]:
    _time(argv)  # warm the file cache and the bytecode
    runs = [_time(argv) for _ in range(RUNS)]
    walls = [w for w, _ in runs]
    cpus = [c for _, c in runs]
    return {
        "min_s": round(min(walls), 4),
        "median_s": round(statistics.median(walls), 4),
        "cpu_min_s": round(min(cpus), 4),
    }


def main() -> dict[str, Any]:
    python = sys.executable
    script = Path(python).with_name("bfcl-action")
    cli = [str(script)] if script.is_file() else [python, "-m", "bfcl_action.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        cases = Path(tmp) / "in.jsonl"
        cases.write_text(json.dumps(CHECK_LINE) + "\n", encoding="utf-8")
        check = [*cli, "check", "--cases", str(cases), "--output", str(Path(tmp) / "out.jsonl")]
        result: dict[str, Any] = {
            "runs": RUNS,
            "python_startup": _figures([python, "-c", "pass"]),
            "version": _figures([*cli, "--version"]),
            "check_one_line": _figures(check),
        }
    result["version_target_s"] = TARGET_VERSION_S
    result["version_meets_target"] = result["version"]["min_s"] < TARGET_VERSION_S
    out = Path("bench-results")
    out.mkdir(exist_ok=True)
    (out / "startup.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
