"""Where the run keeps its secrets: out of the environment, out of reach of child processes.

At startup (`protect_process`, called by the `bfcl-action` entry point before anything
else; `cli.main` called in-process, as tests do, leaves the environment alone) the process:
1. becomes non-dumpable on Linux (`prctl(PR_SET_DUMPABLE, 0)`): another process of the same
   user, a sandbox worker included, can no longer read `/proc/<pid>/environ`, `/proc/<pid>/mem`
   or attach with ptrace (a process holding `CAP_SYS_PTRACE`, e.g. root in a default
   container, still can: the sandbox worker drops its capabilities, see `safety/jail.py`);
2. moves every credential-like variable (`INPUT_API_KEY`, `INPUT_GITHUB_TOKEN`,
   `GITHUB_TOKEN`, `OPENAI_API_KEY`, any `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`,
   `BFCL_KEY_*`) from `os.environ` into this module's holder, so no child process inherits it;
3. overwrites those variables in the process's original environment block, the memory that
   `/proc/<pid>/environ` shows (unsetting a variable does not clear it there);
4. registers each value with `bfcl_action.safety.redact`, so no output shows it.

Callers read a secret with `get(name)` and pass it explicitly to the client that needs it.

Which variables may hold a model's key is decided here too (`key_variable_problem`): the
workflow names any variable it likes (`--api-key-env`, the `models` input), but a repository
file (`.bfcl.yml`, which a pull request edits) names only the documented default
`OPENAI_API_KEY` or a `BFCL_KEY_*` variable, so a hostile file cannot pick the job's token or a
cloud key the runner holds and send it to an endpoint it also names. And whether a run may call
a model at all (`model_calls_allowed`): never for a pull request from a fork.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Mapping
from enum import StrEnum

from bfcl_action.safety import redact

SECRET_NAME = re.compile(
    r"(^INPUT_(API_KEY|GITHUB_TOKEN)$)|(_?(API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?"
    r"|SECRET_ACCESS_KEY|PRIVATE_KEY)$)",
    re.IGNORECASE,
)
"""Names of the variables treated as secrets (held, scrubbed, redacted)."""

DEFAULT_KEY_VARIABLE = "OPENAI_API_KEY"
KEY_PREFIX = "BFCL_KEY_"
"""The variables a repository file may name as a model's key: the workflow decides which
secret lands in them (`env: {BFCL_KEY_TOGETHER: ${{ secrets.TOGETHER_API_KEY }}}`)."""
KEY_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
RESERVED_KEY_PREFIXES = ("GITHUB_", "INPUT_", "ACTIONS_", "RUNNER_")
"""Variables that are never a model's key, whoever names them: the runner's and the Action's
own (the job's token, the inputs)."""


def key_variable_problem(name: str, *, from_file: bool = True) -> str | None:
    """Why `name` cannot hold a model's key, or None. `from_file`: named by a repository file
    (allow-list: `OPENAI_API_KEY` or `BFCL_KEY_*`); else by the workflow (any variable but the
    runner's and the Action's own)."""
    if not KEY_VARIABLE.fullmatch(name):
        return f"expected an environment variable name (letters, digits, _), found {name!r:.60}"
    if name.upper().startswith(RESERVED_KEY_PREFIXES):
        return (
            f"{name} is the runner's or the Action's own variable, never a model key: name the "
            "variable that holds the key (e.g. OPENAI_API_KEY), set from a secret in the step's "
            "env (to send a GitHub token on purpose, e.g. to GitHub Models, copy it into a "
            f"{KEY_PREFIX}* variable of your own there)"
        )
    if from_file and name != DEFAULT_KEY_VARIABLE and not name.startswith(KEY_PREFIX):
        return (
            f"a repository file may name only {DEFAULT_KEY_VARIABLE} or a {KEY_PREFIX}* variable "
            f"as a model key, found {name} (a pull request edits this file): rename the "
            f"variable in the workflow step's env, e.g. `{KEY_PREFIX}{_suffix(name)}: "
            f"${{{{ secrets.{name} }}}}`, and name that here"
        )
    return None


def _suffix(name: str) -> str:
    core = re.sub(r"_?(API_KEY|KEY|TOKEN)$", "", name, flags=re.IGNORECASE)
    return (core or "MODEL").upper()


class ModelPath(StrEnum):
    """The ways a run calls a model (`model_calls_allowed` treats them alike, on purpose)."""

    SINGLE = "single"
    MATRIX = "matrix"
    GENERATE = "generate"
    BATCH = "batch"


PULL_REQUEST_EVENTS = frozenset(
    {
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
    }
)


def model_calls_allowed(
    event_name: str, *, head_repo: str | None, base_repo: str | None, path: ModelPath
) -> bool:
    """Whether a run may call a model on `path`: never for a pull request from a fork (its
    files name the endpoints and it must reach no credential), nor for a pull-request event
    whose head repository is unknown (fail closed). Pure; tests/safety/test_security_keys.py holds
    its truth table over event x path."""
    del path  # every path obeys the same rule: one rule, one place
    if event_name not in PULL_REQUEST_EVENTS:
        return True
    return bool(head_repo) and bool(base_repo) and head_repo == base_repo


def model_calls_allowed_here(path: ModelPath, environ: Mapping[str, str] | None = None) -> bool:
    """`model_calls_allowed` for the workflow run this process is in (`GITHUB_EVENT_NAME`,
    the event payload at `GITHUB_EVENT_PATH`); True outside GitHub Actions."""
    env = os.environ if environ is None else environ
    event_name = env.get("GITHUB_EVENT_NAME", "")
    if event_name not in PULL_REQUEST_EVENTS:
        return True
    head, base = _pull_request_repos(env.get("GITHUB_EVENT_PATH", ""))
    return model_calls_allowed(event_name, head_repo=head, base_repo=base, path=path)


def _pull_request_repos(event_path: str) -> tuple[str | None, str | None]:
    try:
        with open(event_path, encoding="utf-8") as fh:
            event = json.loads(fh.read(1 << 24))
        pr = event["pull_request"]
        return str(pr["head"]["repo"]["full_name"]), str(pr["base"]["repo"]["full_name"])
    except (OSError, ValueError, KeyError, TypeError):
        return None, None


FORK_SKIP_MESSAGE = (
    "this pull request comes from a fork: its files choose the model endpoints, so no model "
    "is called (a replay still runs)"
)


def refuse_model_calls_on_fork(path: ModelPath, environ: Mapping[str, str] | None = None) -> None:
    """The command-line edge of `model_calls_allowed`: a clear error before any request."""
    if not model_calls_allowed_here(path, environ):
        from bfcl_action.core.errors import InputError

        raise InputError(
            f"{FORK_SKIP_MESSAGE}; run `bfcl-action` only for pull requests from this "
            "repository (`if: github.event.pull_request.head.repo.full_name == "
            "github.repository`)",
            field=f"{path.value} model calls",
        )


_NOT_SECRET = frozenset({"ACTIONS_ID_TOKEN_REQUEST_URL"})

_held: dict[str, str] = {}
_state = {"protected": False}


def is_secret_name(name: str) -> bool:
    """Credential-like names, and every `BFCL_KEY_*` variable (a model key by definition)."""
    if name.startswith(KEY_PREFIX):
        return True
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
