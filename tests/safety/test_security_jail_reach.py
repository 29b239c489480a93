"""Issue 23, item 8: jailed code cannot act on other processes, and cannot switch the audit
hook off by rebinding what it reads.

The attack: tool code set the parent's `RLIMIT_FSIZE` to 0 with `prlimit64` (the parent then
"cannot write the run report"), after rebinding the worker's module globals the hook read on
every event. Now seccomp refuses `prlimit64`, `setpriority`, `sched_setaffinity` (and the
other calls that name a process) unless they name the caller, and `rt_sigqueueinfo` and
`rt_tgsigqueueinfo` always; the hook's rules are frozen into its closure."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bfcl_action.safety.jail import landlock_abi
from bfcl_action.safety.sandbox import EnvironmentSpec, Sandbox, SandboxLimits

FIXTURES = Path(__file__).parents[1] / "fixtures" / "multiturn"
JAIL = Path(__file__).parents[2] / "bfcl_action" / "safety" / "jail.py"
REACH = EnvironmentSpec("Reach", "escape_env:Reach", {})
SECCOMP = sys.platform.startswith("linux") and os.uname().machine in ("x86_64", "aarch64")
needs_seccomp = pytest.mark.skipif(not SECCOMP, reason="seccomp filter: Linux x86-64/AArch64")
needs_landlock = pytest.mark.skipif(not landlock_abi(), reason="kernel without Landlock")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(limits=SandboxLimits(call_timeout_s=5.0), paths=[FIXTURES]) as box:
        box.init("model", [REACH], long_context=False)
        yield box


@pytest.fixture
def victim() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def failed(result: str) -> bool:
    return result.startswith("Error during execution:")


@needs_seccomp
def test_a_tool_cannot_lower_the_parents_file_size_limit(tmp_path: Path) -> None:
    """The attack end to end: the parent must still write its run report afterwards."""
    script = textwrap.dedent(
        f"""
        import sys
        from bfcl_action.safety.sandbox import EnvironmentSpec, Sandbox
        with Sandbox(paths=[{str(FIXTURES)!r}]) as box:
            box.init("model", [EnvironmentSpec("Reach", "escape_env:Reach", {{}})],
                     long_context=False)
            print(box.call("model", "prlimit_parent"))
        with open({str(tmp_path / "report.json")!r}, "w") as fh:
            fh.write("{{}}" * 4096)
        print("report written")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    lines = done.stdout.splitlines()
    assert lines[-1:] == ["report written"], done.stdout + done.stderr
    assert failed(lines[0])
    assert (tmp_path / "report.json").stat().st_size == 2 * 4096


@needs_seccomp
@pytest.mark.parametrize("method", ["prlimit", "setpriority", "setaffinity"])
def test_a_tool_cannot_change_another_process(
    sandbox: Sandbox, victim: subprocess.Popen[bytes], method: str
) -> None:
    before = (
        resource.prlimit(victim.pid, resource.RLIMIT_FSIZE),
        os.getpriority(os.PRIO_PROCESS, victim.pid),
        os.sched_getaffinity(victim.pid),
    )
    assert failed(sandbox.call("model", method, kwargs={"pid": victim.pid}))
    after = (
        resource.prlimit(victim.pid, resource.RLIMIT_FSIZE),
        os.getpriority(os.PRIO_PROCESS, victim.pid),
        os.sched_getaffinity(victim.pid),
    )
    assert after == before


@needs_seccomp
def test_a_tool_may_still_change_its_own_limits(sandbox: Sandbox) -> None:
    assert sandbox.call("model", "own_limits") == "own limits ok"


def test_rebinding_the_workers_globals_does_not_switch_the_hook_off(sandbox: Sandbox) -> None:
    result = sandbox.call("model", "rebind_hook_globals_then_connect")
    assert result == "Error during execution: sandbox: network access is not allowed"


def test_rebinding_builtins_does_not_switch_the_hook_off(sandbox: Sandbox) -> None:
    result = sandbox.call("model", "rebind_builtins_then_read")
    assert result == "Error during execution: sandbox: opening '/etc/passwd' is not allowed"


SECCOMP_ONLY = """
import ctypes, errno, importlib.util, os, resource, socket, struct, sys
spec = importlib.util.spec_from_file_location("jail", sys.argv[1])
jail = sys.modules["jail"] = importlib.util.module_from_spec(spec); spec.loader.exec_module(jail)
victim = int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
assert jail.install_seccomp() == "filter installed"

def outcome(action):
    try:
        action()
        return "allowed"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))

def raw(number, *args):
    def call():
        if libc.syscall(number, *args) != 0:
            raise OSError(ctypes.get_errno(), "")
    return call

info = ctypes.create_string_buffer(struct.pack("=iii", 0, 0, -1), 128)  # si_code SI_QUEUE
numbers = {"x86_64": (129, 297), "aarch64": (138, 240)}[os.uname().machine]
print(outcome(lambda: resource.prlimit(victim, resource.RLIMIT_FSIZE, (0, 0))))
print(outcome(lambda: os.setpriority(os.PRIO_PROCESS, victim, 19)))
print(outcome(lambda: os.setpriority(os.PRIO_USER, 0, 19)))
print(outcome(lambda: os.sched_setaffinity(victim, {0})))
print(outcome(raw(numbers[0], victim, 0, info)))
print(outcome(raw(numbers[1], victim, victim, 0, info)))
print(outcome(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)))
print(outcome(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)))
print(outcome(lambda: socket.socketpair(socket.AF_INET)))
nofile = resource.getrlimit(resource.RLIMIT_NOFILE)
print(outcome(lambda: resource.prlimit(0, resource.RLIMIT_NOFILE, nofile)))
print(outcome(lambda: socket.socketpair(socket.AF_UNIX)))
print(outcome(lambda: os.setpriority(os.PRIO_PROCESS, 0, 1)))
print(outcome(lambda: os.sched_setaffinity(os.getpid(), os.sched_getaffinity(0))))
"""


@needs_seccomp
def test_the_seccomp_filter_alone_refuses_acting_on_other_processes(
    victim: subprocess.Popen[bytes],
) -> None:
    """No audit hook in this process: what is refused here, seccomp refused."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", SECCOMP_ONLY, str(JAIL), str(victim.pid)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == [
        *["EPERM"] * 9,  # other processes, queued signals, network sockets
        *["allowed"] * 4,  # its own limits, priority, affinity; AF_UNIX socketpair
    ], done.stderr
    assert resource.prlimit(victim.pid, resource.RLIMIT_FSIZE) != (0, 0)


def test_walking_a_refusals_traceback_into_the_hook_does_not_switch_it_off() -> None:
    with Sandbox(limits=SandboxLimits(call_timeout_s=5.0), paths=[FIXTURES]) as box:
        box.init("model", [EnvironmentSpec("Rewire", "escape_env:Rewire", {})], long_context=False)
        result = box.call("model", "rewire_then_read")
    assert result == "Error during execution: sandbox: opening '/etc/passwd' is not allowed"
