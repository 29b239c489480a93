"""The sandboxed worker: holds one conversation's environment instances and runs their methods.

Run by path (`python -I worker.py`), it imports only the standard library, so any Python 3.9+
interpreter that can import the environment classes can host it. It speaks JSON Lines on
private copies of stdin/stdout (tool code sees /dev/null and a throwaway buffer instead).

Order at `setup` (issue 23): everything this file needs is imported at its start, before any
repository path exists in `sys.path`; then the rlimits the parent sends (address space, CPU
seconds, one file's size, threads), the OS layers of `jail.py` (capabilities, Landlock,
seccomp), the audit hook, and only then the repository paths, *appended* to `sys.path`: a
repository file named like a standard module (`resource.py`, `json.py`) never shadows it, and
no repository code runs before the jail is whole.

The audit hook refuses sockets, process creation, `ctypes`, acting on other processes and
file access outside the sandbox's temp directory (reads of importable modules excepted); its
rules are frozen into its closure when it is made, so tool code cannot rebind them. It is
defence in depth against careless or hostile *tool code and model arguments*; the boundary is
the OS layer.

Messages (one JSON object per line, parent -> worker):
- `{"op": "setup", "paths": [...], "allowed_dir": str, "limits": {...}}`
- `{"op": "init", "side": str, "envs": [{"name", "target", "config"}], "long_context": bool}`
- `{"op": "call", "side": str, "name": str, "args": [...], "kwargs": {...}}`
- `{"op": "compare", "left": str, "right": str}` (left = model, right = ground truth)
- `{"op": "invoke", "target": "module:function", "args": [...], "kwargs": {...}}`
Every answer is `{"ok": true, ...}` or `{"ok": false, "error": str}`.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import inspect
import io
import json
import os
import sys
import threading
from typing import Any

try:
    import resource
except ImportError:  # not POSIX: time limits still apply (the parent kills the worker)
    resource = None  # type: ignore[assignment]

FORBIDDEN_NAMES = frozenset({"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"})
"""Method names never dispatched (BFCL refuses the same names before executing a call)."""

TUPLE_TAG = "__bfcl_tuple__"
_REPR_LIMIT = 2000

_BLOCKED_PREFIXES = ("socket.", "ctypes.", "subprocess.", "os.exec", "os.spawn", "os.posix_spawn")
_BLOCKED_EVENTS = frozenset(
    {
        "os.system",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "pty.spawn",
        "os.startfile",
        "signal.pthread_kill",
        "sys.remote_exec",
        "webbrowser.open",
        "urllib.Request",
        "http.client.connect",
        "ftplib.connect",
        "smtplib.connect",
        "poplib.connect",
        "imaplib.open",
        "telnetlib.Telnet.open",
        "os.setxattr",
        "os.removexattr",
        "os.setsid",
        "os.setpgid",
        "os.mkfifo",
        "os.mknod",
        "_posixsubprocess.fork_exec",
    }
)
_PATH_EVENTS = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.rename": (0, 1),
    "os.replace": (0, 1),
    "os.mkdir": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.truncate": (0,),
    "os.utime": (0,),
    "os.symlink": (0, 1),
    "os.link": (0, 1),
    "os.chdir": (0,),
    "os.chflags": (0,),
    "os.lchflags": (0,),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (0, 1),
    "shutil.move": (0, 1),
}


def _load_jail() -> tuple[Any, str]:
    """jail.py beside this file, loaded by path (this directory is no import root); or why not."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.realpath(__file__)), "jail.py")
    spec = importlib.util.spec_from_file_location("bfcl_worker_jail", path)
    if spec is None or spec.loader is None:
        return None, f"no loader for {path}"
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(spec.name, None)
        return None, f"{type(exc).__name__}: {exc}"
    return module, ""


_JAIL, _JAIL_ERROR = _load_jail() if __name__ == "__main__" else (None, "not the worker")

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class SandboxViolation(PermissionError):
    """Raised inside the worker when tool code tries something the sandbox forbids."""


_INTROSPECTION_EVENTS = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys._current_frames",
        "sys.settrace",
        "sys.setprofile",
    }
)
"""Ways to reach (and rewrite) the hook or the worker's own objects from tool code."""


def make_policy(allowed_dir: str, read_roots: list[str]) -> Any:
    """The audit hook: decides which side effects tool code may have.

    It has no switch: it is installed when the worker is ready, and it is one flat function
    whose closure holds only immutable values (tuples, frozensets, strings) and functions
    bound when it is made. Rebinding the worker's module globals or `builtins` changes nothing
    it decides, and a refusal's traceback, which shows its frame, exposes no cell or mapping
    to rewrite (no nested function, no bound dict method). The events that would find it
    (`gc.get_objects`, ...) are refused. It stays defence in depth: tool code in the same
    interpreter can still monkeypatch the library functions it calls (`os.path.realpath`'s
    helpers); the boundary is the OS layer (jail.py).
    """
    realpath, fsdecode, own_pid, sep = os.path.realpath, os.fsdecode, os.getpid(), os.sep
    allowed = realpath(allowed_dir)
    allowed_prefix = allowed.rstrip(sep) + sep
    roots = tuple(realpath(p) for p in read_roots if p)
    root_prefixes = tuple(root.rstrip(sep) + sep for root in roots)
    listable = (allowed, *roots)
    listable_prefixes = (allowed_prefix, *root_prefixes)
    blocked_prefixes, blocked_events = tuple(_BLOCKED_PREFIXES), frozenset(_BLOCKED_EVENTS)
    introspection, write_flags = frozenset(_INTROSPECTION_EVENTS), int(_WRITE_FLAGS)
    first_path = frozenset(e for e, indexes in _PATH_EVENTS.items() if 0 in indexes)
    second_path = frozenset(e for e, indexes in _PATH_EVENTS.items() if 1 in indexes)
    listing = frozenset({"os.listdir", "os.scandir"})
    violation = SandboxViolation
    _isinstance, _len, _str, _int, _bytes = isinstance, len, str, int, bytes

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event.startswith(blocked_prefixes) or event in blocked_events:
            kind = "network access" if event.startswith("socket.") else f"{event!r}"
            raise violation(f"sandbox: {kind} is not allowed")
        if event in introspection or (
            event == "object.__setattr__" and _len(args) > 1 and args[1] == "__code__"
        ):
            raise violation(f"sandbox: {event!r} is not allowed")
        if event == "resource.prlimit":
            if args and args[0] not in (0, own_pid):
                raise violation("sandbox: limits of another process are not its to change")
            return
        if event == "open":
            positions: tuple[int, ...] = (0,)
        elif event in listing:
            positions = (0,)
            if not args:
                args = (".",)
        elif event in first_path:
            positions = (0, 1) if event in second_path else (0,)
        else:
            return
        for index in positions:
            raw = args[index] if index < _len(args) else None
            if raw is None or _isinstance(raw, _int):
                continue
            try:
                path = realpath(fsdecode(raw))
            except (TypeError, ValueError):
                path = "<unreadable path>"
            if path == allowed or path.startswith(allowed_prefix):
                continue
            if event == "open":
                mode = args[1] if _len(args) > 1 else None
                flags = args[2] if _len(args) > 2 and _isinstance(args[2], _int) else 0
                writes = flags & write_flags or (
                    _isinstance(mode, (_str, _bytes))
                    and ("w" in _str(mode) or "a" in _str(mode) or "x" in _str(mode)
                         or "+" in _str(mode))
                )  # fmt: skip
                if not writes and (path in roots or path.startswith(root_prefixes)):
                    continue
                raise violation(f"sandbox: opening {path!r} is not allowed")
            if event in listing:
                if path in listable or path.startswith(listable_prefixes):
                    continue
                raise violation(f"sandbox: listing {path!r} is not allowed")
            raise violation(f"sandbox: {event} on {path!r} is not allowed")

    return hook


def _apply_limits(limits: dict[str, Any]) -> None:
    """The rlimits (`jail.set_limits`, address space for memory) and 1 MiB thread stacks
    (not RLIMIT_STACK's 8: the address-space limit must not stop a thread flood before the
    thread budget does, or the breach would pass for a tool error)."""
    if limits.get("threads"):
        threading.stack_size(1 << 20)
    if _JAIL is not None:
        _JAIL.set_limits(limits, memory="AS")
    elif resource is not None and limits.get("memory_mb"):  # jail.py missing: still bounded
        size = int(limits["memory_mb"]) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))


def _untag(value: Any) -> Any:
    if isinstance(value, list):
        return [_untag(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and TUPLE_TAG in value:
            return tuple(_untag(v) for v in value[TUPLE_TAG])
        return {k: _untag(v) for k, v in value.items()}
    return value


def _resolve_target(target: str) -> Any:
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected 'module:Name', found {target!r}")
    found: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        found = getattr(found, part)
    return found


def result_text(value: Any) -> str:
    """A call's result as the model sees it (BFCL's rule: str as is, dict as JSON, else str)."""
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def error_text(exc: BaseException) -> str:
    message = str(exc)
    if not message or isinstance(exc, (MemoryError, RecursionError)):
        message = f"{type(exc).__name__}: {message}".rstrip(": ")
    return f"Error during execution: {message}"


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a hostile __repr__
        text = f"<unprintable {type(value).__name__}: {exc}>"
    return text if len(text) <= _REPR_LIMIT else text[:_REPR_LIMIT] + "..."


class Worker:
    """Environment instances by side (`model`, `truth`) and the method table of each side."""

    def __init__(self) -> None:
        self.instances: dict[str, dict[str, Any]] = {}
        self.methods: dict[str, dict[str, Any]] = {}
        self.jail: dict[str, str] = {}

    def setup(self, message: dict[str, Any]) -> dict[str, Any]:
        """Limits, OS layers and audit hook first; the repository's paths last (appended)."""
        paths = [str(p) for p in message.get("paths") or [] if p]
        allowed = str(message["allowed_dir"])
        os.chdir(allowed)
        roots = [p for p in sys.path if p] + paths + [sys.prefix, sys.base_prefix]
        _apply_limits(message.get("limits") or {})
        if _JAIL is not None and message.get("jail", True):
            self.jail = _JAIL.apply([*roots, *_JAIL.SYSTEM_READ_ROOTS], [allowed])
        elif message.get("jail", True) and sys.platform.startswith("linux"):
            self.jail = {"os": f"failed: jail.py could not be loaded: {_JAIL_ERROR}"}
        sys.addaudithook(make_policy(allowed, roots))
        for path in paths:
            if path not in sys.path:
                sys.path.append(path)
        return {"ok": True, "pid": os.getpid(), "jail": self.jail}

    def init(self, message: dict[str, Any]) -> dict[str, Any]:
        side = str(message["side"])
        long_context = bool(message.get("long_context"))
        instances: dict[str, Any] = {}
        methods: dict[str, Any] = {}
        for env in message.get("envs") or []:
            name = str(env["name"])
            try:
                cls = _resolve_target(str(env["target"]))
                instance = self._instantiate(cls, _untag(env.get("config") or {}), long_context)
            except BaseException as exc:
                return {"ok": False, "error": f"cannot create {name} ({env['target']}): {exc!r}"}
            instances[name] = instance
            for method_name, method in inspect.getmembers(instance, predicate=inspect.ismethod):
                if not method_name.startswith("_"):
                    methods[method_name] = method
        self.instances[side] = instances
        self.methods[side] = methods
        return {"ok": True, "methods": sorted(methods)}

    @staticmethod
    def _instantiate(cls: Any, config: dict[str, Any], long_context: bool) -> Any:
        """BFCL's convention (`Class()` then `_load_scenario(config)`) or `Class(**config)`."""
        loader = getattr(cls, "_load_scenario", None)
        if loader is None:
            return cls(**config)
        instance = cls()
        try:
            accepts = "long_context" in inspect.signature(instance._load_scenario).parameters
        except (TypeError, ValueError):
            accepts = False
        if accepts:
            instance._load_scenario(copy.deepcopy(config), long_context=long_context)
        else:
            instance._load_scenario(copy.deepcopy(config))
        return instance

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        side = str(message["side"])
        name = str(message["name"])
        args = _untag(message.get("args") or [])
        kwargs = _untag(message.get("kwargs") or {})
        method = self.methods.get(side, {}).get(name)
        if name in FORBIDDEN_NAMES:
            return {
                "ok": True,
                "result": f"Error during execution: Function call {name} is not allowed.",
            }
        if method is None:
            return {"ok": True, "result": f"Error during execution: name '{name}' is not defined"}
        return {"ok": True, "result": self._run(method, args, kwargs)}

    def invoke(self, message: dict[str, Any]) -> dict[str, Any]:
        """Call a plain function (executable single-turn checks); the value comes back as JSON."""
        try:
            function = _resolve_target(str(message["target"]))
        except BaseException as exc:
            return {"ok": False, "error": f"cannot load {message['target']}: {exc!r}"}
        args = _untag(message.get("args") or [])
        kwargs = _untag(message.get("kwargs") or {})
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink):
                value = function(*args, **kwargs)
        except BaseException as exc:
            return {"ok": True, "raised": error_text(exc)}
        try:
            json.dumps(value)
            return {"ok": True, "value": value, "repr": _short_repr(value)}
        except (TypeError, ValueError):
            return {"ok": True, "value": None, "repr": _short_repr(value), "opaque": True}

    @staticmethod
    def _run(method: Any, args: list[Any], kwargs: dict[str, Any]) -> str:
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink):
                value = method(*args, **kwargs)
            return result_text(value)
        except BaseException as exc:
            return error_text(exc)

    def compare(self, message: dict[str, Any]) -> dict[str, Any]:
        """BFCL's state check: every public attribute of every ground-truth instance equal."""
        left = self.instances.get(str(message["left"]), {})
        right = self.instances.get(str(message["right"]), {})
        for name, truth in right.items():
            model = left.get(name)
            differences: dict[str, dict[str, str]] = {}
            for attr, expected in vars(truth).items():
                if attr.startswith("_"):
                    continue
                found = getattr(model, attr, None)
                try:
                    equal = bool(found == expected)
                except BaseException:
                    equal = False
                if not equal:
                    differences[attr] = {
                        "model": _short_repr(found),
                        "ground_truth": _short_repr(expected),
                    }
            if differences:
                return {"ok": True, "valid": False, "instance": name, "differences": differences}
        return {"ok": True, "valid": True}

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        handler = {
            "setup": self.setup,
            "init": self.init,
            "call": self.call,
            "compare": self.compare,
            "invoke": self.invoke,
        }.get(str(op))
        if handler is None:
            return {"ok": False, "error": f"unknown op {op!r}"}
        try:
            return handler(message)
        except BaseException as exc:
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def main() -> None:
    if sys.path and os.path.realpath(sys.path[0]) == os.path.dirname(os.path.realpath(__file__)):
        sys.path.pop(0)  # this file's directory is not an import root for tool code
    incoming = os.fdopen(os.dup(0), "rb")
    outgoing = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the worker
    sys.stdout = io.StringIO()
    worker = Worker()
    for line in incoming:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            message = {}
        nonce = str(message.pop("nonce", ""))
        answer = worker.handle(message) if message else {"ok": False, "error": "not JSON"}
        answer["nonce"] = nonce
        try:
            data = json.dumps(answer, default=str)
        except (TypeError, ValueError) as exc:
            data = json.dumps(
                {"ok": False, "error": f"unserialisable answer: {exc}", "nonce": nonce}
            )
        del nonce
        outgoing.write(data.encode("utf-8", "replace") + b"\n")
        outgoing.flush()


if __name__ == "__main__":
    main()
