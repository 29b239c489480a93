"""The sandbox: tool code that hangs, hogs memory, crashes or reaches outside fails one call
with a reason, and the conversation's state survives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bfcl_action.safety.sandbox import (
    EnvironmentSetupError,
    EnvironmentSpec,
    Sandbox,
    SandboxLimits,
)

FIXTURES = Path(__file__).parents[1] / "fixtures" / "multiturn"
HOSTILE = EnvironmentSpec("Hostile", "hostile_env:Hostile", {"start": 5})


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    limits = SandboxLimits(call_timeout_s=1.0, memory_mb=512)
    with Sandbox(limits=limits, paths=[FIXTURES]) as box:
        box.init("model", [HOSTILE], long_context=False)
        yield box


def test_methods_run_in_the_worker_and_keep_state(sandbox: Sandbox) -> None:
    first = sandbox.call("model", "add", kwargs={"n": 1})
    second = sandbox.call("model", "add", kwargs={"n": 1})
    assert int(second.split(":")[1].strip(" }")) == int(first.split(":")[1].strip(" }")) + 1


def test_an_infinite_loop_times_out_and_state_is_rebuilt(sandbox: Sandbox) -> None:
    before = sandbox.call("model", "add", kwargs={"n": 0})
    assert sandbox.call("model", "spin") == "Error during execution: timed out after 1 s"
    assert sandbox.call("model", "add", kwargs={"n": 0}) == before
    assert sandbox.stats.restarts >= 1


def test_a_huge_allocation_is_a_memory_error(sandbox: Sandbox) -> None:
    assert sandbox.call("model", "hog") == "Error during execution: MemoryError"


def test_reading_a_file_outside_the_sandbox_is_refused(sandbox: Sandbox) -> None:
    result = sandbox.call("model", "read_secret")
    assert result == "Error during execution: sandbox: opening '/etc/passwd' is not allowed"


def test_writing_outside_the_sandbox_is_refused(sandbox: Sandbox) -> None:
    assert "is not allowed" in sandbox.call("model", "write_outside")
    assert not Path("/tmp/bfcl-sandbox-escape.txt").exists()


def test_listing_directories_outside_the_sandbox_is_refused(sandbox: Sandbox) -> None:
    assert sandbox.call("model", "list_etc") == (
        "Error during execution: sandbox: listing '/etc' is not allowed"
    )


def test_the_sandbox_temp_dir_is_writable(sandbox: Sandbox) -> None:
    assert sandbox.call("model", "write_scratch") == "ok"


def test_sockets_are_refused(sandbox: Sandbox) -> None:
    result = sandbox.call("model", "connect")
    assert result == "Error during execution: sandbox: network access is not allowed"


def test_subprocesses_are_refused(sandbox: Sandbox) -> None:
    assert "'subprocess.Popen' is not allowed" in sandbox.call("model", "spawn")


def test_a_crashing_tool_fails_its_call_only(sandbox: Sandbox) -> None:
    before = sandbox.call("model", "add", kwargs={"n": 0})
    assert "crashed the sandbox worker (exit code 7)" in sandbox.call("model", "crash")
    assert sandbox.call("model", "add", kwargs={"n": 0}) == before


def test_system_exit_and_recursion_are_ordinary_errors(sandbox: Sandbox) -> None:
    assert sandbox.call("model", "leave") == "Error during execution: 3"
    assert sandbox.call("model", "recurse").startswith("Error during execution: RecursionError")


def test_unknown_and_forbidden_names_fail_like_bfcl(sandbox: Sandbox) -> None:
    assert sandbox.call("model", "nope") == "Error during execution: name 'nope' is not defined"
    assert sandbox.call("model", "exit") == (
        "Error during execution: Function call exit is not allowed."
    )


def test_wrong_arguments_are_the_type_error_message(sandbox: Sandbox) -> None:
    result = sandbox.call("model", "add", kwargs={"m": 1})
    assert result.startswith("Error during execution: ")
    assert "unexpected keyword argument 'm'" in result


def test_an_environment_that_cannot_start_is_a_setup_error() -> None:
    with (
        Sandbox(paths=[FIXTURES]) as box,
        pytest.raises(EnvironmentSetupError, match="cannot start"),
    ):
        box.init("model", [EnvironmentSpec("Broken", "hostile_env:Broken")], long_context=False)


def test_a_missing_module_is_a_setup_error() -> None:
    with Sandbox() as box, pytest.raises(EnvironmentSetupError, match="no_such_module"):
        box.init("model", [EnvironmentSpec("X", "no_such_module:X")], long_context=False)
