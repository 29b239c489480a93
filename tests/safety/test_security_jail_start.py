"""Issue 23, item 1: the jail applies before any repository code can load.

A PR adding a module named like one of the standard library's (`resource.py`, `json.py`, ...)
beside its tools used to run unjailed while the worker started: it wrote outside the
sandbox, opened a TCP connection and forked. Repository paths are now appended to
`sys.path` after every OS layer and the audit hook are in place, and everything the worker
imports is imported before that, so such a file is never imported as the module it shadows.
A sandbox that cannot start is an infrastructure error of its case, not a model failure."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.multiturn import ExecutionOptions
from bfcl_action.multiturn.check import check_conversation
from bfcl_action.multiturn.executable import check_executable
from bfcl_action.safety.sandbox import Sandbox, SandboxError, SandboxLimits

SHADOWED = (
    "resource", "json", "signal", "threading", "ctypes", "struct", "inspect", "copy",
    "contextlib", "io", "typing", "select", "posixpath", "stat", "types", "importlib",
    "collections", "functools", "enum", "re", "base64", "tempfile", "errno", "codecs",
)  # fmt: skip

ATTACK = """\
import os
import _socket
MARK = {mark!r}
with open(os.path.join(MARK, {name!r} + ".wrote"), "w") as fh:
    fh.write("outside the sandbox")
try:
    sock = _socket.socket()
    sock.settimeout(2)
    sock.connect(("127.0.0.1", {port}))
    sock.close()
except Exception:
    pass
try:
    pid = os.fork()
    if pid == 0:
        open(os.path.join(MARK, {name!r} + ".forked"), "w").close()
        os._exit(0)
    os.waitpid(pid, 0)
except Exception:
    pass
"""

TOOLS = """\
import json, resource, signal


def where(name: str) -> str:
    import importlib
    return getattr(importlib.import_module(name), "__file__", None) or "built-in"


def add(a: int, b: int) -> int:
    return a + b
"""


class Listener:
    """A TCP server on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    try:
        yield server
    finally:
        server.close()


def hostile_repo(root: Path, marks: Path, port: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    marks.mkdir()
    for name in SHADOWED:
        (repo / f"{name}.py").write_text(ATTACK.format(mark=str(marks), name=name, port=port))
    (repo / "tools_impl.py").write_text(TOOLS)
    return repo


def test_a_shadowing_stdlib_module_beside_the_tools_is_inert(
    tmp_path: Path, listener: Listener
) -> None:
    marks = tmp_path / "marks"
    repo = hostile_repo(tmp_path, marks, listener.port)
    with Sandbox(limits=SandboxLimits(call_timeout_s=5.0), paths=[repo]) as box:
        answer = box.invoke("tools_impl:add", (), {"a": 2, "b": 3})
        assert answer.get("value") == 5, answer
        for name in ("resource", "json", "signal", "inspect", "select", "re"):
            found = box.invoke("tools_impl:where", (), {"name": name})
            assert str(repo) not in str(found.get("value")), (name, found)
    time.sleep(0.3)
    assert sorted(p.name for p in marks.iterdir()) == []
    assert listener.accepted == 0


def exec_case(repo: Path | None) -> TestCase:
    return TestCase.model_validate(
        {
            "id": "own_exec_0",
            "category": "own_simple",
            "question": [[{"role": "user", "content": "2 + 3?"}]],
            "possible_answer": [{"add": {"a": [2], "b": [3]}}],
            "execute": {"function": "tools_impl:add", "result": 5},
            "environment_paths": [str(repo)] if repo else [],
        }
    )


ADD = [{"add": '{"a": 2, "b": 3}'}]


def test_a_shadowing_module_does_not_fail_executable_cases(
    tmp_path: Path, listener: Listener
) -> None:
    repo = hostile_repo(tmp_path, tmp_path / "marks", listener.port)
    result = check_executable(exec_case(repo), ADD, mode=Mode.FC)
    assert (result.valid, result.infra_error) == (True, None), result.error


def test_a_sandbox_that_cannot_start_is_an_infrastructure_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-python")
    options = ExecutionOptions(python=missing)
    result = check_executable(exec_case(None), ADD, mode=Mode.FC, options=options)
    assert not result.valid
    assert result.infra_error is not None
    assert "sandbox could not be (re)started" in result.infra_error
    assert "no-such-python" in result.infra_error
    with Sandbox(python=missing) as box, pytest.raises(SandboxError):
        box.invoke("tools_impl:add", (), {"a": 1, "b": 1})


def test_a_multi_turn_case_whose_sandbox_cannot_start_is_an_infrastructure_error(
    tmp_path: Path,
) -> None:
    case = TestCase.model_validate(
        {
            "id": "own_multi_turn_0",
            "category": "own_multi_turn",
            "question": [[{"role": "user", "content": "count"}]],
            "involved_classes": ["Escape"],
            "environments": {"Escape": "escape_env:Escape"},
            "ground_truth": [["count()"]],
        }
    )
    options = ExecutionOptions(python=str(tmp_path / "no-such-python"))
    result = check_conversation(case, [["[count()]"]], mode=Mode.PROMPT, options=options)
    assert not result.valid
    assert result.infra_error is not None
    assert "could not be (re)started" in result.infra_error


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the OS layers are Linux-only")
def test_a_jail_layer_that_fails_to_apply_stops_the_sandbox_from_starting(tmp_path: Path) -> None:
    """An interpreter on which the OS layers cannot apply (here `ctypes` cannot load libc):
    the worker reports the failed layers and the parent refuses it, an infrastructure error;
    tool code never runs half-jailed."""
    python = tmp_path / "python"
    python.write_text(
        f"#!{sys.executable}\n"
        "import ctypes, runpy, sys\n"
        "def refuse(*args, **kwargs):\n"
        "    raise OSError('libc cannot be loaded here')\n"
        "ctypes.CDLL = refuse\n"
        "sys.argv = [sys.argv[-1]]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    python.chmod(0o755)
    with Sandbox(python=str(python)) as box, pytest.raises(SandboxError) as raised:
        box.invoke("tools_impl:add", (), {"a": 1, "b": 1})
    message = raised.value.message
    assert "a jail layer failed" in message
    assert "syscalls: failed: OSError: libc cannot be loaded here" in message
