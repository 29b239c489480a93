"""Issue 16, vulnerability 1: tool code cannot switch the sandbox off, read the run's secrets,
outlive its worker or forge the worker's answers. These hold at the OS level (jail.py), with
the audit hook bypassed or not."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bfcl_action.safety import credentials
from bfcl_action.safety.jail import landlock_abi
from bfcl_action.safety.sandbox import EnvironmentSpec, Sandbox, SandboxLimits

FIXTURES = Path(__file__).parents[1] / "fixtures" / "multiturn"
ESCAPE = EnvironmentSpec("Escape", "escape_env:Escape", {})
LINUX = sys.platform.startswith("linux")
needs_landlock = pytest.mark.skipif(not landlock_abi(), reason="kernel without Landlock")
needs_linux = pytest.mark.skipif(not LINUX, reason="Linux-only layer")
SECRET = "sk-parent-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    os.environ["BFCL_TEST_API_KEY"] = SECRET  # in this process's environment, like a key
    try:
        with Sandbox(limits=SandboxLimits(call_timeout_s=5.0), paths=[FIXTURES]) as box:
            box.init("model", [ESCAPE], long_context=False)
            yield box
    finally:
        os.environ.pop("BFCL_TEST_API_KEY", None)


def failed(result: str) -> bool:
    return result.startswith("Error during execution:")


@needs_landlock
def test_switching_the_hook_off_still_cannot_read_the_parents_environment(
    sandbox: Sandbox,
) -> None:
    result = sandbox.call("model", "disable_hook_then_read_parent_environ")
    assert failed(result) and SECRET not in result


@needs_landlock
def test_the_parents_environment_and_memory_are_unreadable_without_the_hook(
    sandbox: Sandbox,
) -> None:
    for method in ("read_parent_environ_raw", "read_parent_memory"):
        result = sandbox.call("model", method)
        assert failed(result), method
        assert SECRET not in result


def test_the_worker_starts_from_an_empty_environment(sandbox: Sandbox) -> None:
    result = sandbox.call("model", "own_environment")
    assert SECRET not in result
    assert "BFCL_TEST_API_KEY" not in result and "PATH" not in result


@needs_linux
@pytest.mark.parametrize("method", ["fork_exec", "fork", "mkfifo", "mknod", "setxattr"])
def test_process_creation_and_special_files_are_refused_by_the_os(
    sandbox: Sandbox, method: str
) -> None:
    assert failed(sandbox.call("model", method)), method
    leftovers = [p for p in Path("/tmp").glob("bfcl-escape-*")]
    assert leftovers == []


@needs_linux
def test_signals_to_the_parent_and_sockets_are_refused(sandbox: Sandbox) -> None:
    assert failed(sandbox.call("model", "kill_parent"))
    assert failed(sandbox.call("model", "socket"))


def test_forged_answers_on_the_channel_are_rejected_and_state_survives(sandbox: Sandbox) -> None:
    before = sandbox.call("model", "count")
    result = sandbox.call("model", "forge_replies")
    assert "FORGED" not in result
    after = sandbox.call("model", "count")
    assert "FORGED" not in after
    assert int(after) >= int(before) + 1 or failed(result)


@needs_landlock
def test_the_worker_reports_each_os_layer(sandbox: Sandbox) -> None:
    assert sandbox.jail["filesystem"].startswith("landlock ABI")
    assert sandbox.jail["syscalls"] == "filter installed"


@needs_linux
def test_the_parent_is_non_dumpable_and_holds_no_secret_in_its_environment(
    tmp_path: Path,
) -> None:
    import subprocess

    script = (
        "import os, sys; from bfcl_action.safety import credentials;"
        "status = credentials.protect_process();"
        "print(status['non_dumpable'], status['environ_block_scrubbed'],"
        " 'OPENAI_API_KEY' in os.environ, credentials.get('OPENAI_API_KEY') == sys.argv[1]);"
        "print(open('/proc/self/environ', 'rb').read().count(sys.argv[1].encode()))"
    )
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    out = subprocess.run(
        [sys.executable, "-c", script, SECRET], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["True", "True", "False", "True", "0"]


def test_held_secrets_are_redacted() -> None:
    credentials.put("BFCL_TEST_TOKEN", "ghp_" + "x" * 36)
    from bfcl_action.safety.redact import redact

    assert redact(f"token ghp_{'x' * 36}!") == "token ***!"
