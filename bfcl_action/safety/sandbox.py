"""The parent side of the sandbox: one long-lived worker process per conversation.

`Sandbox` starts `worker.py` in a subprocess (by path, `python -I`), sends it JSON Lines and
waits for each answer with a wall-clock deadline. A call that hangs past the deadline, or a
worker that dies (memory limit, CPU limit, `os._exit`, a segfault in a C extension), becomes
the failed result `Error during execution: ...` of that one call; the next call starts a
fresh worker and replays every earlier successful command, so the conversation's state is
back where it was (environments are deterministic, as BFCL's are). Nothing here raises for a
tool's ordinary misbehaviour. `SandboxError` (an infrastructure error of the case, never a
model failure) is raised when the sandbox itself fails: a worker that cannot start (or
restart), an environment that cannot be created (`EnvironmentSetupError`), or a tool that
exhausts a budget of the sandbox (threads, the size of one file, files or bytes written):
those are checked here, from outside the worker, after every request.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from bfcl_action.core.errors import BfclActionError
from bfcl_action.safety import redact

WORKER = Path(__file__).with_name("worker.py")
TUPLE_TAG = "__bfcl_tuple__"


class SandboxError(BfclActionError):
    """The sandbox failed, not the model: an infrastructure error of the case being checked."""


class EnvironmentSetupError(SandboxError):
    """An environment class could not be imported or constructed (a setup problem)."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-worker limits. `call_timeout_s` is wall-clock per call; `memory_mb`, `cpu_s`,
    `file_mb` (one file's size) and `threads` are rlimits the worker sets on itself;
    `files` and `write_mb` bound what its directory may hold (checked by the parent)."""

    call_timeout_s: float = 10.0
    memory_mb: int = 1024
    cpu_s: int = 120
    file_mb: int = 16
    start_timeout_s: float = 30.0
    threads: int = 64
    files: int = 512
    write_mb: int = 64

    def rlimits(self) -> dict[str, int]:
        return {
            "memory_mb": self.memory_mb,
            "cpu_s": self.cpu_s,
            "file_mb": self.file_mb,
            "threads": self.threads,
        }


@dataclass(frozen=True)
class EnvironmentSpec:
    """One environment of a conversation: the name calls use, the class, its initial state."""

    name: str
    target: str
    config: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "target": self.target, "config": tag_tuples(self.config)}


def tag_tuples(value: Any) -> Any:
    """JSON-safe form that keeps tuples (the worker turns the tag back into a tuple)."""
    if isinstance(value, tuple):
        return {TUPLE_TAG: [tag_tuples(v) for v in value]}
    if isinstance(value, list):
        return [tag_tuples(v) for v in value]
    if isinstance(value, dict):
        return {str(k): tag_tuples(v) for k, v in value.items()}
    return value


def budget_breach(
    proc: subprocess.Popen[bytes] | None, directory: str | None, limits: SandboxLimits
) -> str | None:
    """What a worker has exhausted, seen from outside: its threads (`/proc/<pid>/task`, Linux)
    and its directory (entries, bytes, a file at the size limit; the walk stops at the budget,
    symbolic links are not followed). None while every budget holds."""
    if proc is not None and proc.poll() is None:
        threads = _thread_count(proc.pid)
        if threads is not None and threads > limits.threads:
            return f"a tool started more than {limits.threads} threads"
    if directory is None:
        return None
    entries, total = 0, 0
    file_cap = limits.file_mb * 1024 * 1024
    pending = [directory]
    while pending:
        try:
            with os.scandir(pending.pop()) as found:
                for entry in found:
                    entries += 1
                    if entries > limits.files:
                        return f"a tool wrote more than {limits.files} files"
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                        continue
                    try:
                        size = entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
                    if size >= file_cap:
                        return f"a tool wrote a file of the sandbox's limit ({limits.file_mb} MiB)"
                    total += size
                    if total > limits.write_mb * 1024 * 1024:
                        return f"a tool wrote more than {limits.write_mb} MiB"
        except OSError:
            continue
    return None


def _thread_count(pid: int) -> int | None:
    """Threads of a process: procfs gives `/proc/<pid>/task` one link per thread plus two
    (one `stat`, no parsing: this runs after every request). None off Linux."""
    try:
        return os.stat(f"/proc/{pid}/task").st_nlink - 2
    except OSError:
        return None


class _WorkerGone(Exception):
    pass


MAX_ANSWER_BYTES = 16 * 1024 * 1024
_VIOLATION = "the sandbox worker broke the channel protocol (an unrequested or forged answer)"


@dataclass
class SandboxStats:
    calls: int = 0
    timeouts: int = 0
    crashes: int = 0
    restarts: int = 0


class Sandbox:
    """A worker process plus the log of commands needed to rebuild its state.

    `python` is the interpreter that hosts the environments (default: this one), `paths` are
    appended to its `sys.path` once the jail is in place (e.g. the repository root holding
    `module:Class` targets).
    Use as a context manager, or call `close()`.
    """

    def __init__(
        self,
        *,
        limits: SandboxLimits | None = None,
        python: str | None = None,
        paths: Sequence[str | Path] = (),
    ) -> None:
        self.limits = limits or SandboxLimits()
        self.python = python or sys.executable
        self.paths = [str(Path(p).resolve()) for p in paths]
        self.stats = SandboxStats()
        self._history: list[dict[str, Any]] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._dir: str | None = None
        self._broken: str | None = None
        self._breach: str | None = None
        self.jail: dict[str, str] = {}
        """What the OS layer of the last worker achieved (`jail.apply`)."""

    # --- lifecycle ----------------------------------------------------------------------

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._kill()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        self._buffer = b""
        if proc is None:
            return
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)  # the worker leads its own process group
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def _start(self) -> None:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="bfcl-sandbox-")
        self._proc = subprocess.Popen(
            [self.python, "-I", "-X", "utf8", str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self._dir,
            # no variable of this process, secrets above all, reaches tool code; two malloc
            # arenas (glibc reserves 64 MiB of address space per arena and thread otherwise),
            # so a thread flood meets the thread budget before the memory limit
            env={"MALLOC_ARENA_MAX": "2"},
            close_fds=True,  # the two pipes are the only descriptors it inherits
            start_new_session=True,  # its own process group, killed with it
        )
        setup = {
            "op": "setup",
            "paths": self.paths,
            "allowed_dir": self._dir,
            "limits": self.limits.rlimits(),
        }
        answer = self._exchange(setup, self.limits.start_timeout_s)
        if not answer.get("ok"):
            raise _WorkerGone(f"worker setup failed: {answer.get('error')}")
        jail = answer.get("jail")
        self.jail = {str(k): str(v) for k, v in jail.items()} if isinstance(jail, dict) else {}
        failed = [f"{name}: {status}" for name, status in self.jail.items() if "failed" in status]
        if failed:
            raise _WorkerGone(f"a jail layer failed ({'; '.join(failed)})")
        if self._history:
            self.stats.restarts += 1
            for command in self._history:
                self._exchange(command, self.limits.start_timeout_s)

    # --- transport ----------------------------------------------------------------------

    def _exchange(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One request and its answer.

        Every request carries a fresh random nonce and only an answer echoing it is accepted;
        anything else on the channel (a line written ahead of time by tool code, a second
        line after the answer, an answer to another request) is a protocol violation that
        kills the worker. Tool code shares the worker's interpreter, so it can still forge
        the answer to the request it is serving (it decides that result anyway); it cannot
        forge answers to later requests, and the parent treats every answer as untrusted
        data (size-capped, redacted, escaped where shown)."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise _WorkerGone("no worker")
        if self._buffer or select.select([proc.stdout.fileno()], [], [], 0)[0]:
            raise _WorkerGone(_VIOLATION)
        nonce = secrets.token_hex(16)
        try:
            proc.stdin.write(json.dumps({**message, "nonce": nonce}).encode("utf-8") + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise _WorkerGone(self._death_reason()) from exc
        deadline = time.monotonic() + timeout
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise _WorkerGone(self._death_reason())
            self._buffer += chunk
            if len(self._buffer) > MAX_ANSWER_BYTES:
                raise _WorkerGone(f"the sandbox worker's answer is over {MAX_ANSWER_BYTES} bytes")
        line, _, self._buffer = self._buffer.partition(b"\n")
        if self._buffer:
            raise _WorkerGone(_VIOLATION)
        try:
            answer = json.loads(redact.redact(line.decode("utf-8", "replace")))
        except (ValueError, RecursionError):
            raise _WorkerGone("worker sent a malformed answer") from None
        if not isinstance(answer, dict) or answer.pop("nonce", None) != nonce:
            raise _WorkerGone(_VIOLATION)
        return answer

    def _death_reason(self) -> str:
        proc = self._proc
        if proc is None:
            return "the sandbox worker is gone"
        try:
            code = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "the sandbox worker stopped answering"
        if code < 0:
            import signal

            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            if name == "SIGXFSZ":
                self._breach = (
                    f"a tool wrote a file past the sandbox's limit of {self.limits.file_mb} MiB"
                )
            hint = {"SIGXCPU": " (CPU time limit)", "SIGKILL": " (killed)"}.get(name, "")
            return f"the tool crashed the sandbox worker: {name}{hint}"
        return f"the tool crashed the sandbox worker (exit code {code})"

    def request(self, message: dict[str, Any], *, record: bool) -> dict[str, Any]:
        """Send one command; a hang or crash comes back as `{"ok": False, "error": ...}`.

        `record` keeps the command for replay after a restart (only if it succeeded).
        Raises `SandboxError` when the worker cannot (re)start or a budget was exhausted;
        the sandbox then stays broken (every later request raises the same error).
        """
        if self._broken is not None:
            raise SandboxError(self._broken)
        try:
            if self._proc is None:
                self._start()
        except (_WorkerGone, TimeoutError, OSError) as exc:
            self._fail(f"the sandbox could not be (re)started: {exc or 'timed out'}")
        try:
            answer = self._exchange(message, self.limits.call_timeout_s)
        except TimeoutError:
            self.stats.timeouts += 1
            self._check_budgets()
            self._kill()
            return {
                "ok": False,
                "error": f"timed out after {self.limits.call_timeout_s:g} s",
                "lost": True,
            }
        except _WorkerGone as exc:
            self.stats.crashes += 1
            self._check_budgets()
            self._kill()
            return {"ok": False, "error": str(exc), "lost": True}
        self._check_budgets()
        if record and answer.get("ok"):
            self._history.append(message)
        return answer

    def _fail(self, reason: str) -> NoReturn:
        self._kill()
        self._broken = reason
        raise SandboxError(reason)

    def _check_budgets(self) -> None:
        """Budgets the worker's rlimits cannot express, checked from outside the worker (tool
        code cannot hide a breach by catching the error it got): threads alive, files and
        bytes in its directory, one file at the size limit, a death by SIGXFSZ."""
        breach = self._breach or budget_breach(self._proc, self._dir, self.limits)
        if breach is not None:
            self._fail(f"sandbox budget exhausted: {breach}")

    # --- conversation API ---------------------------------------------------------------

    def init(self, side: str, envs: Sequence[EnvironmentSpec], *, long_context: bool) -> list[str]:
        """Create `side`'s instances; returns the method names calls may use."""
        message = {
            "op": "init",
            "side": side,
            "envs": [e.to_json() for e in envs],
            "long_context": long_context,
        }
        answer = self.request(message, record=True)
        if not answer.get("ok"):
            raise EnvironmentSetupError(str(answer.get("error")))
        return [str(m) for m in answer.get("methods") or []]

    def call(
        self, side: str, name: str, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> str:
        """Run one method call; the result text, or `Error during execution: ...`."""
        self.stats.calls += 1
        message = {
            "op": "call",
            "side": side,
            "name": name,
            "args": tag_tuples(list(args)),
            "kwargs": tag_tuples(kwargs or {}),
        }
        answer = self.request(message, record=True)
        if answer.get("ok"):
            return str(answer.get("result"))
        return f"Error during execution: {answer.get('error')}"

    def compare(self, left: str, right: str) -> dict[str, Any]:
        """BFCL's state check between two sides (`valid`, `instance`, `differences`)."""
        answer = self.request({"op": "compare", "left": left, "right": right}, record=False)
        if not answer.get("ok"):
            return {"valid": False, "instance": "", "error": str(answer.get("error"))}
        return answer

    def invoke(
        self, target: str, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Call a plain `module:function`; `value`/`repr`, `raised`, or `error` (hang, crash)."""
        message = {
            "op": "invoke",
            "target": target,
            "args": tag_tuples(list(args)),
            "kwargs": tag_tuples(kwargs or {}),
        }
        return self.request(message, record=False)
