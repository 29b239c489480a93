"""Where the run keeps its secrets: out of the environment, out of reach of child processes.

At startup (`protect_process`, called by the `bfcl-action` entry point before anything
else; `cli.main` called in-process, as tests do, leaves the environment alone) the process:
1. becomes non-dumpable on Linux (`prctl(PR_SET_DUMPABLE, 0)`): another process of the same
   user, a sandbox worker included, can no longer read `/proc/<pid>/environ`, `/proc/<pid>/mem`
   or attach with ptrace (a process holding `CAP_SYS_PTRACE`, e.g. root in a default
   container, still can: the sandbox worker drops its capabilities, see `multiturn/jail.py`);
2. moves every credential-like variable (`INPUT_API_KEY`, `INPUT_GITHUB_TOKEN`,
   `GITHUB_TOKEN`, `OPENAI_API_KEY`, any `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`)
   from `os.environ` into this module's holder, so no child process inherits it;
3. overwrites those variables in the process's original environment block, the memory that
   `/proc/<pid>/environ` shows (unsetting a variable does not clear it there);
4. registers each value with `bfcl_action.redact`, so no output shows it.

Callers read a secret with `get(name)` and pass it explicitly to the client that needs it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Mapping

from bfcl_action import redact

SECRET_NAME = re.compile(
    r"(^INPUT_(API_KEY|GITHUB_TOKEN)$)|(_?(API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?"
    r"|SECRET_ACCESS_KEY|PRIVATE_KEY)$)",
    re.IGNORECASE,
)
"""Names of the variables treated as secrets (held, scrubbed, redacted)."""

_NOT_SECRET = frozenset({"ACTIONS_ID_TOKEN_REQUEST_URL"})

_held: dict[str, str] = {}
_state = {"protected": False}


def is_secret_name(name: str) -> bool:
    return name not in _NOT_SECRET and bool(SECRET_NAME.search(name))


def put(name: str, value: str) -> None:
    """Hold `value` under `name` (never in `os.environ`) and redact it from every output."""
    _held[name] = value
    redact.register(value)


def get(name: str) -> str | None:
    """The secret held under `name`, else the variable (registered for redaction and, once
    the process is protected, taken out of the environment)."""
    if name in _held:
        return _held[name]
    if not _state["protected"]:
        value = os.environ.get(name)
        redact.register(value)
        return value
    value = os.environ.pop(name, None)
    if value is None:
        return None
    put(name, value)
    _scrub_environ_block({name})
    return value


def environment() -> dict[str, str]:
    """The environment as the process started with it: `os.environ` plus the held secrets."""
    return {**os.environ, **_held}


def take_from_environment(env: Mapping[str, str] | None = None) -> list[str]:
    """Move every secret-named variable into the holder; returns the names moved."""
    source = os.environ if env is None else env
    names = [name for name in list(source) if is_secret_name(name)]
    for name in names:
        value = os.environ.pop(name, None) if env is None else source[name]
        if value is not None:
            put(name, value)
    return names


def protect_process() -> dict[str, bool]:
    """Steps 1-4 of the module docstring; what each achieved (for docs and tests)."""
    _state["protected"] = True
    moved = take_from_environment()
    return {
        "non_dumpable": make_non_dumpable(),
        "environ_block_scrubbed": _scrub_environ_block(set(moved)),
    }


def make_non_dumpable() -> bool:
    """`prctl(PR_SET_DUMPABLE, 0)` on Linux; False where the platform has no such call."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(4, 0, 0, 0, 0)) == 0  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        return False


def is_dumpable() -> bool | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(3, 0, 0, 0, 0)) == 1  # PR_GET_DUMPABLE = 3
    except (OSError, AttributeError):
        return None


def _scrub_environ_block(names: set[str]) -> bool:
    """Overwrite `NAME=value` of `names` in the initial environment block with NUL bytes.

    Linux keeps the block the process was started with between `env_start` and `env_end`
    (fields 50-51 of `/proc/self/stat`); `/proc/<pid>/environ` reads it. The variables were
    unset first, so nothing points at those bytes any more."""
    if not names or not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])
        if not 0 < start < end or end - start > 1 << 24:
            return False
        block = ctypes.string_at(start, end - start)
        offset = 0
        wiped = False
        for entry in block.split(b"\0"):
            name, sep, _ = entry.partition(b"=")
            if sep and name.decode("utf-8", "replace") in names:
                ctypes.memset(start + offset, 0, len(entry))
                wiped = True
            offset += len(entry) + 1
        return wiped
    except (OSError, ValueError, IndexError):
        return False


def _reset_for_tests() -> None:
    with contextlib.suppress(Exception):
        _held.clear()
        _state["protected"] = False
        redact.forget_all()
