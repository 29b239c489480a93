"""Run a `bfcl-action` command on hostile input in a child process, bounded as issue 16 asks:
answered within 10 s and 800 MB, no traceback, no workflow command it did not mean to print,
no secret in any output."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SECONDS = 10.0
MEGABYTES = 800


@dataclass
class Bounded:
    code: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def _limit() -> None:
    size = MEGABYTES * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    cpu = int(SECONDS)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))  # SIGXCPU past it: the test fails


def run_bounded(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Bounded:
    """`python -m bfcl_action.cli ARGS` under the time and memory bound; asserts the bound.

    Time is CPU time (rlimit and measured): the machine is shared, wall time is not ours."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-m", "bfcl_action.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=SECONDS * 12,
        preexec_fn=_limit,
        env={**os.environ, "PYTHONPATH": _code_root(), **(env or {})},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result = Bounded(proc.returncode, proc.stdout, proc.stderr, cpu)
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode} (CPU or memory bound)"
    assert result.seconds < SECONDS, f"took {result.seconds:.1f} s of CPU"
    assert "Traceback" not in result.output, result.output[-2000:]
    assert "MemoryError" not in result.output, result.output[-2000:]
    for line in result.output.splitlines():
        assert not line.lstrip().startswith(("::", "##[")) or line.startswith(
            ("::error file=", "::warning file=")
        ), line
    return result


def _code_root() -> str:
    """This checkout; `BFCL_BOUNDED_CODE` points the child at another (to show a test fails
    on the code before a fix)."""
    return os.environ.get("BFCL_BOUNDED_CODE") or str(Path(__file__).parents[2])


def python_bounded(code: str) -> str:
    """Run `code` in a child Python under the same bound; its stdout (asserting no traceback)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=SECONDS * 12,
        preexec_fn=_limit,
        env={**os.environ, "PYTHONPATH": _code_root()},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr[-1500:]}"
    assert cpu < SECONDS, f"took {cpu:.1f} s of CPU"
    return proc.stdout
