"""Where the official multi-turn data and environments are, if this machine has them.

The data comes from the dataset cache (`bfcl-action` fetches it once); the environments from
an interpreter that can import `bfcl_eval` (installed with `--no-deps`, docs/multi-turn.md):
`$BFCL_ENV_PYTHON`, this interpreter, or the reference venv the conformance harness uses.
Tests that need either skip when it is absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

from bfcl_action.dataset import official

PROBE = "import bfcl_eval.eval_checker.multi_turn_eval.func_source_code.gorilla_file_system"


@cache
def data_root() -> Path | None:
    root = official.release_dir(official.get_release("2026.3.23"))
    return root if (root / "MANIFEST.json").is_file() else None


@cache
def environment_python() -> str | None:
    candidates = [os.environ.get("BFCL_ENV_PYTHON"), sys.executable, "/tmp/refvenv/bin/python"]
    for python in candidates:
        if not python or not Path(python).exists():
            continue
        probe = subprocess.run(
            [python, "-I", "-c", PROBE], capture_output=True, timeout=60, check=False
        )
        if probe.returncode == 0:
            return python
    return None
