"""Issue 23, item 11 (worker half): a fork bomb, a huge write or a flood of files is stopped
and reported as an infrastructure error of its case (`SandboxError`), and the run goes on.

The stops are OS limits (seccomp refuses `fork`; `RLIMIT_NPROC` bounds threads where the
kernel applies it, i.e. not for root; `RLIMIT_AS` bounds them everywhere; `RLIMIT_FSIZE`
kills the worker with `SIGXFSZ`); the report comes from the parent, which checks the worker's
threads and its directory after every request, so tool code cannot hide a breach by catching
the error it got."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.multiturn import ExecutionOptions
from bfcl_action.multiturn.check import check_conversation
from bfcl_action.safety.sandbox import EnvironmentSpec, Sandbox, SandboxError, SandboxLimits

FIXTURES = Path(__file__).parents[1] / "fixtures" / "multiturn"
GREEDY = EnvironmentSpec("Greedy", "escape_env:Greedy", {})
LIMITS = SandboxLimits(call_timeout_s=10.0, memory_mb=512, threads=32, files=200)


@pytest.mark.parametrize(
    ("method", "reason"),
    [
        ("fork_bomb", "more than 32 threads"),
        ("huge_write", "wrote a file past the sandbox's limit of 16 MiB"),
        ("huge_write_ignoring_the_signal", "a file of the sandbox's limit (16 MiB)"),
        ("many_files", "more than 200 files"),
    ],
)
def test_an_exhausted_budget_breaks_the_sandbox_with_a_reason(method: str, reason: str) -> None:
    with Sandbox(limits=LIMITS, paths=[FIXTURES]) as box:
        box.init("model", [GREEDY], long_context=False)
        assert box.call("model", "ping") == "pong 1"
        with pytest.raises(SandboxError, match="sandbox budget exhausted") as raised:
            box.call("model", method)
        assert reason in raised.value.message
        with pytest.raises(SandboxError):  # broken for the rest of its case
            box.call("model", "ping")


def greedy_case(index: int) -> TestCase:
    return TestCase.model_validate(
        {
            "id": f"own_multi_turn_{index}",
            "category": "own_multi_turn",
            "question": [[{"role": "user", "content": "go"}]],
            "involved_classes": ["Greedy"],
            "environments": {"Greedy": "escape_env:Greedy"},
            "ground_truth": [["ping()"]],
            "environment_paths": [str(FIXTURES)],
        }
    )


def test_a_case_that_exhausts_a_budget_is_an_infrastructure_error_and_the_next_case_runs() -> None:
    options = ExecutionOptions(limits=LIMITS)
    outputs = [["[fork_bomb()]", "[ping()]"], ["[huge_write()]", "[ping()]"], ["[ping()]"]]
    results = [
        check_conversation(greedy_case(index), [output], mode=Mode.PROMPT, options=options)
        for index, output in enumerate(outputs)
    ]
    assert [r.infra_error is not None for r in results] == [True, True, False]
    assert "more than 32 threads" in str(results[0].infra_error)
    assert "16 MiB" in str(results[1].infra_error)
    assert results[2].valid, results[2].error


FUNCTIONS = [
    {
        "name": name,
        "description": f"{name} the environment.",
        "parameters": {"type": "dict", "properties": {}, "required": []},
    }
    for name in ("ping", "fork_bomb", "huge_write")
]


def test_the_installed_command_reports_a_budget_breach_as_an_infra_error_and_goes_on(
    tmp_path: Path,
) -> None:
    """`bfcl-action run` as the user runs it: the fork bomb's and the huge write's cases are
    infrastructure errors; the third case is scored; no traceback."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    shutil.copy(FIXTURES / "escape_env.py", repo / "escape_env.py")
    (repo / "greedy.functions.json").write_text(json.dumps(FUNCTIONS))
    (repo / ".bfcl.yml").write_text(
        "version: 1\nmulti_turn:\n  - cases.multi_turn.jsonl\n"
        "suites:\n  own: [own_multi_turn]\nmodel:\n  name: scripted\n  mode: fc\n"
    )
    cases, answers = [], []
    for index, method in enumerate(("fork_bomb", "huge_write", "ping")):
        case_id = f"own_multi_turn_greedy_{index}"
        cases.append(
            {
                "id": case_id,
                "question": [[{"role": "user", "content": "go"}]],
                "function": "greedy.functions.json",
                "involved_classes": ["Greedy"],
                "environments": {"Greedy": "escape_env:Greedy"},
                "ground_truth": [["ping()"]],
            }
        )
        steps = [[{method: "{}"}], [{"ping": "{}"}]] if method != "ping" else [[{"ping": "{}"}]]
        answers.append({"id": case_id, "result": [steps]})
    (repo / "cases.multi_turn.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps(a) + "\n" for a in answers))
    out = tmp_path / "run.json"
    command = Path(sys.executable).with_name("bfcl-action")
    done = subprocess.run(
        [str(command), "run", "--config", str(repo / ".bfcl.yml"), "--model",
         f"replay:{replay}", "--output", str(out), "--quiet"],
        cwd=repo, capture_output=True, text=True, timeout=300, check=False,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    )  # fmt: skip
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-2000:]
    report = json.loads(out.read_text())
    by_id = {r["id"]: r for r in report["results"]}
    assert "more than 64 threads" in str(by_id["own_multi_turn_greedy_0"]["infra_error"])
    assert "16 MiB" in str(by_id["own_multi_turn_greedy_1"]["infra_error"])
    assert by_id["own_multi_turn_greedy_2"]["valid"] is True
    assert by_id["own_multi_turn_greedy_2"]["infra_error"] is None


NPROC = """
import importlib.util, os, resource, sys, threading, time
spec = importlib.util.spec_from_file_location("jail", sys.argv[1])
jail = sys.modules["jail"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(jail)
if os.getuid() == 0:  # the kernel applies RLIMIT_NPROC to every user but root
    os.setgid(65534)
    os.setuid(65534)
jail.set_limits({"threads": 5})
started = 0
try:
    for _ in range(50):
        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
        started += 1
except RuntimeError:
    pass
print(started)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_NPROC as Linux has it")
def test_the_thread_budget_is_an_rlimit_for_a_non_root_user() -> None:
    jail = Path(__file__).parents[2] / "bfcl_action" / "safety" / "jail.py"
    done = subprocess.run(
        [sys.executable, "-I", "-c", NPROC, str(jail)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert 1 <= int(done.stdout) <= 5, done.stdout
