"""Operating-system limits for the sandbox worker and for jailed commands, applied before any
repository code can load.

Standard library and `ctypes` only (the worker loads this file by path, and it runs as the
launcher of a jailed command: `python -I jail.py exec SPEC`). Each layer is applied where the
platform has it and reports what it did; none of them depends on the audit hook, which tool
code running in the same interpreter can defeat.

- `set_limits`: rlimits (memory, CPU, one file's size, a thread budget via `RLIMIT_NPROC`).

- `drop_capabilities`: a worker started as root (the default in containers) gives up every
  capability (`capset` to zero, ambient set cleared): no `CAP_SYS_PTRACE` to read another
  process's memory, no `CAP_DAC_OVERRIDE`, no raising its own rlimits.
- `restrict_filesystem` (Linux Landlock, kernel 5.13+): reads only under the import roots
  and system library folders, writes only in the sandbox's temp directory, no device, FIFO
  or socket files anywhere, nothing under `/proc` of other processes, and (Landlock ABI 6,
  kernel 6.12+) no signals to processes outside the worker.
- `install_seccomp` (Linux x86-64 and AArch64): refuses `fork`/`vfork`/non-thread `clone`,
  `execve` (unless `allow_exec`), `socket`, `socketpair` but `AF_UNIX` (asyncio's
  self-pipe), `ptrace`, `process_vm_readv/writev`, `mknod`, extended attributes,
  `kill`/`tkill`/`rt_sigqueueinfo`/`rt_tgsigqueueinfo`, `tgkill` aimed at other processes,
  `prlimit64`, `setpriority`, `ioprio_set`, `sched_set*` and page migration aimed at other
  processes, `setsid`/`setpgid`, namespaces, mounts, `io_uring`, `bpf`, `perf_event_open`,
  `keyctl` and 32-bit system calls.
- `start_jailed` / `jail_command`: a command (a stdio MCP server) run inside all of the above.

Not done: other architectures get no seccomp filter; macOS and Windows get none of these
(only the rlimits, the parent's deadline and the audit hook).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import struct
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import subprocess

# subprocess, tempfile, shutil and select are imported where the parent uses them: the worker
# loads this file at every start and needs none of them (they cost it 10-20 ms).

PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

_SYS_LANDLOCK = {"create": 444, "add": 445, "restrict": 446}
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}

_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_REMOVE_DIR = 1 << 4
_FS_REMOVE_FILE = 1 << 5
_FS_MAKE_CHAR = 1 << 6
_FS_MAKE_DIR = 1 << 7
_FS_MAKE_REG = 1 << 8
_FS_MAKE_SOCK = 1 << 9
_FS_MAKE_FIFO = 1 << 10
_FS_MAKE_BLOCK = 1 << 11
_FS_MAKE_SYM = 1 << 12
_FS_REFER = 1 << 13
_FS_TRUNCATE = 1 << 14
_FS_IOCTL_DEV = 1 << 15
_NET_BIND_TCP = 1 << 0
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX = 1 << 0
_SCOPE_SIGNAL = 1 << 1

_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
_WRITE = (
    _READ
    | _FS_WRITE_FILE
    | _FS_REMOVE_DIR
    | _FS_REMOVE_FILE
    | _FS_MAKE_DIR
    | _FS_MAKE_REG
    | _FS_MAKE_SYM
    | _FS_REFER
    | _FS_TRUNCATE
)
_FILE_ONLY = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV

SYSTEM_READ_ROOTS = (
    "/usr/lib",
    "/usr/lib64",
    "/usr/local/lib",
    "/lib",
    "/lib64",
    "/usr/share/zoneinfo",
    "/etc/localtime",
    "/etc/ld.so.cache",
)
"""Shared libraries and time zones: what C extensions and `time` need, no user data."""

# seccomp
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_EPERM = 1
_ENOSYS = 38
_CLONE_THREAD = 0x00010000

_DENY = {
    "x86_64": {
        "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "socket": 41,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311,
        "mknod": 133, "mknodat": 259, "setxattr": 188, "lsetxattr": 189, "fsetxattr": 190,
        "removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "kill": 62,
        "tkill": 200, "setsid": 112, "setpgid": 109, "unshare": 272, "setns": 308,
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "keyctl": 250,
        "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "personality": 135, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "open_by_handle_at": 304,
        "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424, "kcmp": 312,
        "setxattrat": 463, "removexattrat": 466, "process_madvise": 440,
        "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
    },
    "aarch64": {
        "execve": 221, "execveat": 281, "socket": 198, "ptrace": 117,
        "process_vm_readv": 270, "process_vm_writev": 271, "mknodat": 33, "setxattr": 5,
        "lsetxattr": 6, "fsetxattr": 7, "removexattr": 14, "lremovexattr": 15,
        "fremovexattr": 16, "kill": 129, "tkill": 130, "setsid": 157, "setpgid": 154,
        "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41,
        "chroot": 51, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "personality": 92,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "open_by_handle_at": 265, "pidfd_open": 434, "pidfd_getfd": 438,
        "pidfd_send_signal": 424, "kcmp": 272, "setxattrat": 463, "removexattrat": 466,
        "process_madvise": 440, "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240,
    },
}  # fmt: skip
_SOCKETPAIR = {"x86_64": 53, "aarch64": 199}
_AF_UNIX = 1
_SELF_ONLY = {
    "x86_64": {
        "prlimit64": 302, "sched_setaffinity": 203, "sched_setparam": 142,
        "sched_setscheduler": 144, "sched_setattr": 314, "migrate_pages": 256,
        "move_pages": 279, "get_robust_list": 274,
    },
    "aarch64": {
        "prlimit64": 261, "sched_setaffinity": 122, "sched_setparam": 118,
        "sched_setscheduler": 119, "sched_setattr": 274, "migrate_pages": 238,
        "move_pages": 239, "get_robust_list": 100,
    },
}  # fmt: skip
"""System calls whose first argument names a process: allowed for 0 or the caller's pid only."""
_WHICH_WHO = {
    "x86_64": {"setpriority": (141, 0), "ioprio_set": (251, 1)},
    "aarch64": {"setpriority": (140, 0), "ioprio_set": (30, 1)},
}
"""(number, the `which` meaning "one process"): allowed for that `which` and who = 0 or self."""
_CLONE = {"x86_64": 56, "aarch64": 220}
_CLONE3 = 435
_TGKILL = {"x86_64": 234, "aarch64": 131}


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _machine() -> str:
    return os.uname().machine if hasattr(os, "uname") else ""


def _no_new_privs(libc: ctypes.CDLL) -> bool:
    return int(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) == 0


def drop_capabilities() -> str:
    """Give up every capability of a root worker (`capset` with empty sets)."""
    if not sys.platform.startswith("linux"):
        return "not available on this platform"
    number = _SYS_CAPSET.get(_machine())
    if number is None:
        return f"not available on {_machine()}"
    libc = _libc()
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = struct.pack("=Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = bytes(24)  # two {effective, permitted, inheritable} u32 triples, all zero
    head_buf = ctypes.create_string_buffer(header, len(header))
    data_buf = ctypes.create_string_buffer(data, len(data))
    if libc.syscall(number, head_buf, data_buf) != 0:
        return f"failed: {os.strerror(ctypes.get_errno())}"
    return "dropped"


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where Landlock is missing or disabled."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = _libc()
    except OSError:
        return 0
    version = libc.syscall(_SYS_LANDLOCK["create"], None, ctypes.c_size_t(0), 1)
    return int(version) if version > 0 else 0


def restrict_filesystem(read_roots: Sequence[str], write_roots: Sequence[str]) -> str:
    """Landlock: read under `read_roots`, read and write under `write_roots`, nothing else."""
    abi = landlock_abi()
    if abi <= 0:
        return "not available (no Landlock in this kernel)"
    libc = _libc()
    handled = _WRITE | _FS_MAKE_CHAR | _FS_MAKE_SOCK | _FS_MAKE_FIFO | _FS_MAKE_BLOCK
    if abi < 2:
        handled &= ~_FS_REFER
    if abi < 3:
        handled &= ~_FS_TRUNCATE
    if abi >= 5:
        handled |= _FS_IOCTL_DEV
    if abi >= 6:
        scoped = _SCOPE_SIGNAL | _SCOPE_ABSTRACT_UNIX
        attr = struct.pack("=QQQ", handled, _NET_BIND_TCP | _NET_CONNECT_TCP, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", handled, _NET_BIND_TCP | _NET_CONNECT_TCP)
    else:
        attr = struct.pack("=Q", handled)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = int(libc.syscall(_SYS_LANDLOCK["create"], buf, ctypes.c_size_t(len(attr)), 0))
    if ruleset < 0:
        return f"failed: {os.strerror(ctypes.get_errno())}"
    try:
        for roots, access in ((read_roots, _READ), (write_roots, _WRITE)):
            for root in roots:
                _add_rule(libc, ruleset, root, access & handled)
        _add_rule(libc, ruleset, os.devnull, (_FS_READ_FILE | _FS_WRITE_FILE) & handled)
        if not _no_new_privs(libc):
            return f"failed: no_new_privs: {os.strerror(ctypes.get_errno())}"
        if libc.syscall(_SYS_LANDLOCK["restrict"], ruleset, 0) != 0:
            return f"failed: {os.strerror(ctypes.get_errno())}"
    finally:
        os.close(ruleset)
    scope = ", signals scoped" if abi >= 6 else ""
    return f"landlock ABI {abi}{scope}"


def _add_rule(libc: ctypes.CDLL, ruleset: int, path: str, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            access &= _FILE_ONLY
        attr = struct.pack("=Qi", access, fd)  # landlock_path_beneath_attr is packed
        buf = ctypes.create_string_buffer(attr, len(attr))
        libc.syscall(_SYS_LANDLOCK["add"], ruleset, 1, buf, 0)  # LANDLOCK_RULE_PATH_BENEATH
    finally:
        os.close(fd)


def _filter(machine: str, pid: int, *, allow_exec: bool = False) -> bytes:
    """The BPF program: deny lists first, then the calls allowed only with some arguments.

    Arguments are compared on their low 32 bits: pids, `which` and address families are C
    `int`s, which the kernel reads from those bits alone."""

    def op(code: int, jt: int, jf: int, k: int) -> bytes:
        return struct.pack("=HBBI", code, jt, jf, k)

    ld_w, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06
    deny = 0x00050000 | _EPERM
    arg0, arg1 = 16, 24  # seccomp_data.args[0] and args[1], low 32 bits
    prog = [
        op(ld_w, 0, 0, 4),  # seccomp_data.arch
        op(jeq, 1, 0, _AUDIT_ARCH[machine]),
        op(ret, 0, 0, _RET_KILL_PROCESS),
        op(ld_w, 0, 0, 0),  # seccomp_data.nr
    ]
    if machine == "x86_64":
        prog += [op(jge, 0, 1, 0x40000000), op(ret, 0, 0, deny)]  # the x32 ABI
    exec_calls = {_DENY[machine]["execve"], _DENY[machine]["execveat"]}
    for number in sorted(_DENY[machine].values()):
        if allow_exec and number in exec_calls:
            continue
        prog += [op(jeq, 0, 1, number), op(ret, 0, 0, deny)]
    prog += [op(jeq, 0, 1, _CLONE3), op(ret, 0, 0, 0x00050000 | _ENOSYS)]  # libc falls back
    # socketpair: AF_UNIX only (asyncio's self-pipe); `socket` itself stays denied above
    prog += [
        op(jeq, 0, 4, _SOCKETPAIR[machine]),
        op(ld_w, 0, 0, arg0),
        op(jeq, 0, 1, _AF_UNIX),
        op(ret, 0, 0, _RET_ALLOW),
        op(ret, 0, 0, deny),
    ]
    for number in sorted(_SELF_ONLY[machine].values()):
        prog += [
            op(jeq, 0, 5, number),
            op(ld_w, 0, 0, arg0),
            op(jeq, 2, 0, 0),
            op(jeq, 1, 0, pid),
            op(ret, 0, 0, deny),
            op(ret, 0, 0, _RET_ALLOW),
        ]
    for number, which in sorted(_WHICH_WHO[machine].values()):
        prog += [
            op(jeq, 0, 7, number),
            op(ld_w, 0, 0, arg0),
            op(jeq, 0, 3, which),
            op(ld_w, 0, 0, arg1),
            op(jeq, 2, 0, 0),
            op(jeq, 1, 0, pid),
            op(ret, 0, 0, deny),
            op(ret, 0, 0, _RET_ALLOW),
        ]
    prog += [
        op(jeq, 0, 4, _CLONE[machine]),
        op(ld_w, 0, 0, arg0),  # flags
        op(jset, 0, 1, _CLONE_THREAD),
        op(ret, 0, 0, _RET_ALLOW),
        op(ret, 0, 0, deny),
        op(jeq, 0, 4, _TGKILL[machine]),
        op(ld_w, 0, 0, arg0),  # thread group
        op(jeq, 0, 1, pid),
        op(ret, 0, 0, _RET_ALLOW),
        op(ret, 0, 0, deny),
        op(ret, 0, 0, _RET_ALLOW),
    ]
    return b"".join(prog)


def install_seccomp(*, allow_exec: bool = False) -> str:
    """The system-call filter described in the module docstring (`allow_exec`: `execve` too,
    for the launcher of `jail_command`, which must become its command)."""
    machine = _machine()
    if not sys.platform.startswith("linux"):
        return "not available on this platform"
    if machine not in _AUDIT_ARCH:
        return f"not available on {machine}"
    libc = _libc()
    program = _filter(machine, os.getpid(), allow_exec=allow_exec)
    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("=HxxxxxxQ", len(program) // 8, ctypes.addressof(instructions))
    fprog_buf = ctypes.create_string_buffer(fprog, len(fprog))
    if not _no_new_privs(libc):
        return f"failed: no_new_privs: {os.strerror(ctypes.get_errno())}"
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog_buf, 0, 0) != 0:
        return f"failed: {os.strerror(ctypes.get_errno())}"
    return "filter installed"


def apply(
    read_roots: Sequence[str], write_roots: Sequence[str], *, allow_exec: bool = False
) -> dict[str, str]:
    """Every layer in order (capabilities, filesystem, system calls); what each achieved."""
    status: dict[str, str] = {}
    for name, layer in (
        ("capabilities", drop_capabilities),
        ("filesystem", lambda: restrict_filesystem(read_roots, write_roots)),
        ("syscalls", lambda: install_seccomp(allow_exec=allow_exec)),
    ):
        try:
            status[name] = layer()
        except Exception as exc:  # a platform quirk must not stop the worker
            status[name] = f"failed: {type(exc).__name__}: {exc}"
    return status


# --- a jailed command (stdio MCP servers and the like) ----------------------------------

_LAUNCHER_FAILED = 125
"""Exit status of the launcher when a layer fails or the command cannot be executed."""


class JailStartError(RuntimeError):
    """A jailed command could not start: a layer failed, the program is missing, or it did not
    reach its `execve` within the start-up timeout. An infrastructure error for the caller."""


@dataclass(frozen=True)
class CommandLimits:
    """Limits of a jailed command. `memory_mb` is `RLIMIT_DATA` (not `RLIMIT_AS`: Node and Go
    reserve far more address space than they use), `cpu_s` is `RLIMIT_CPU`, `file_mb` is
    `RLIMIT_FSIZE`, `threads` is added to the user's tasks for `RLIMIT_NPROC` (not applied to
    root by the kernel), `wall_s` is the lifetime (an `alarm` set before `execve`, and the
    parent's own timer in `start_jailed`), `start_timeout_s` bounds the way to `execve`."""

    memory_mb: int = 1024
    cpu_s: int = 120
    file_mb: int = 16
    threads: int = 64
    wall_s: float = 600.0
    start_timeout_s: float = 30.0


def _program(argv0: str, cwd: str, env: Mapping[str, str] | None) -> str:
    """`argv[0]` as an absolute path: relative to `cwd` if it holds a slash (as `Popen` reads
    it), else looked up on `env`'s PATH, else on this process's."""
    import shutil

    if os.sep in argv0:
        return os.path.abspath(os.path.join(cwd, argv0))
    path = (env or {}).get("PATH") or os.environ.get("PATH") or os.defpath
    found = shutil.which(argv0, path=path)
    if found is None:
        raise JailStartError(f"cannot start {argv0!r}: no such program on PATH")
    return os.path.abspath(found)


def _program_roots(program: str) -> list[str]:
    """Folders a program needs to read: its own and its prefix (`.../bin/x` -> `...`), for
    the path as given and for the file it resolves to (a venv's python is a symbolic link)."""
    roots: list[str] = []
    for path in (program, os.path.realpath(program)):
        folder = os.path.dirname(path)
        roots.append(folder)
        if os.path.basename(folder) == "bin":
            roots.append(os.path.dirname(folder))
    return roots


def jail_command(
    argv: Sequence[str],
    *,
    cwd: str,
    limits: CommandLimits = CommandLimits(),
    read_roots: Sequence[str] = (),
    write_dir: str | None = None,
    env: Mapping[str, str] | None = None,
    status_fd: int = -1,
) -> list[str]:
    """The argument vector that runs `argv` inside the jail; give it to any spawner (the `mcp`
    SDK's `StdioServerParameters(command=v[0], args=v[1:], cwd=cwd, env=...)`).

    It runs this file with this interpreter (`python -I jail.py exec SPEC`): the launcher sets
    the rlimits, drops capabilities, applies Landlock (read: `cwd`, the program's folders, this
    interpreter's prefixes, system libraries, `read_roots`; write: `write_dir` only) and the
    seccomp filter with `execve` allowed (the command replaces the launcher and may replace
    itself, never create a process), sets `alarm(wall_s)`, then executes the command. `env`
    only serves to find `argv[0]` on its PATH; the spawner passes the environment itself.
    """
    if not argv:
        raise JailStartError("cannot start an empty command")
    program = _program(str(argv[0]), cwd, env)
    spec = {
        "argv": [program, *map(str, argv[1:])],
        "cwd": os.path.abspath(cwd),
        "read": [
            os.path.abspath(cwd),
            *_program_roots(program),
            *_program_roots(sys.executable),
            sys.prefix,
            sys.base_prefix,
            *SYSTEM_READ_ROOTS,
            *map(str, read_roots),
        ],
        "write": [write_dir] if write_dir else [],
        "limits": {
            "memory_mb": limits.memory_mb,
            "cpu_s": limits.cpu_s,
            "file_mb": limits.file_mb,
            "threads": limits.threads,
            "wall_s": limits.wall_s,
        },
        "status_fd": status_fd,
    }
    return [sys.executable, "-I", os.path.realpath(__file__), "exec", json.dumps(spec)]


class JailedProcess:
    """A running jailed command: `stdin`/`stdout` are its pipes (bytes), `jail` what each
    layer achieved. `close()` (or leaving the `with` block) kills its process group and
    removes its write directory; so does the lifetime timer."""

    def __init__(
        self, proc: subprocess.Popen[bytes], jail: dict[str, str], workdir: str, wall_s: float
    ) -> None:
        self.proc = proc
        self.jail = jail
        self.workdir = workdir
        self._timer = threading.Timer(wall_s, self._kill)
        self._timer.daemon = True
        self._timer.start()

    @property
    def stdin(self) -> IO[bytes]:
        assert self.proc.stdin is not None
        return self.proc.stdin

    @property
    def stdout(self) -> IO[bytes]:
        assert self.proc.stdout is not None
        return self.proc.stdout

    def _kill(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # its own session and group
        with contextlib.suppress(OSError):
            self.proc.kill()

    def close(self) -> int | None:
        """Stop it (if still running); its exit status (negative: the signal that ended it)."""
        import shutil
        import subprocess

        self._timer.cancel()
        self._kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        return self.proc.returncode

    def __enter__(self) -> JailedProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_jailed(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    limits: CommandLimits = CommandLimits(),
    read_roots: Sequence[str] = (),
    stderr: IO[Any] | None = None,
) -> JailedProcess:
    """Start `argv` as a jailed subprocess with pipes on stdin and stdout.

    `env` is the whole environment (nothing of this process is inherited; the caller passes
    only what the configuration names, never a secret) plus `TMPDIR`, a private directory
    that is the only place it may write. It runs in its own session. Returns once the
    launcher has applied every layer and is about to `execve`; raises `JailStartError` if a
    layer failed, the program is missing, or that takes over `limits.start_timeout_s`.
    Its standard error is discarded unless `stderr` is a file to write it to.
    """
    import shutil
    import subprocess
    import tempfile

    workdir = tempfile.mkdtemp(prefix="bfcl-jailed-")
    read_fd, write_fd = os.pipe()
    try:
        command = jail_command(
            argv, cwd=cwd, limits=limits, read_roots=read_roots, write_dir=workdir,
            env=env, status_fd=write_fd,
        )  # fmt: skip
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if stderr is None else stderr,
            cwd=cwd,
            env={"TMPDIR": workdir, **env},
            close_fds=True,
            pass_fds=(write_fd,),
            start_new_session=True,
        )
    except BaseException:
        os.close(read_fd)
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    finally:
        os.close(write_fd)
    running = JailedProcess(proc, {}, workdir, limits.wall_s)
    try:
        status = _read_status(read_fd, limits.start_timeout_s)
    except JailStartError:
        running.close()
        raise
    finally:
        os.close(read_fd)
    if "error" in status:
        running.close()
        raise JailStartError(f"cannot start {argv[0]!r} in the jail: {status['error']}")
    running.jail = {str(k): str(v) for k, v in status.get("jail", {}).items()}
    return running


def _read_status(fd: int, timeout: float) -> dict[str, Any]:
    import select
    import time

    deadline = time.monotonic() + timeout
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise JailStartError(f"the jail did not start within {timeout:g} s")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            raise JailStartError("the jail's launcher exited before it reported")
        data += chunk
        if len(data) > 1 << 16:
            raise JailStartError("the jail's launcher sent a malformed report")
    try:
        status = json.loads(data.partition(b"\n")[0])
    except ValueError:
        raise JailStartError("the jail's launcher sent a malformed report") from None
    if not isinstance(status, dict):
        raise JailStartError("the jail's launcher sent a malformed report")
    return status


def _launch(spec: dict[str, Any]) -> NoReturn:
    """The launcher (`python -I jail.py exec SPEC`): every layer, then `execve`. Runs before
    any code of the command; imports nothing but the standard library already loaded."""
    status_fd = int(spec.get("status_fd", -1))

    def report(status: dict[str, Any]) -> None:
        if status_fd >= 0:
            with contextlib.suppress(OSError):
                os.write(status_fd, json.dumps(status).encode() + b"\n")
                os.close(status_fd)

    def fail(message: str) -> NoReturn:
        report({"error": message})
        sys.stderr.write(f"bfcl-action jail: {message}\n")
        sys.stderr.flush()
        os._exit(_LAUNCHER_FAILED)

    argv = [str(a) for a in spec["argv"]]
    limits = spec.get("limits") or {}
    try:
        set_limits(limits, memory="DATA")
    except (OSError, ValueError) as exc:
        fail(f"rlimits: {exc}")
    write = [str(p) for p in spec.get("write") or []]
    if write and "TMPDIR" not in os.environ:
        os.environ["TMPDIR"] = write[0]
    if status_fd >= 0:
        os.set_inheritable(status_fd, False)
    status = apply([str(p) for p in spec.get("read") or []], write, allow_exec=True)
    failed = [f"{layer}: {value}" for layer, value in status.items() if value.startswith("failed")]
    if failed:
        fail("a jail layer failed (" + "; ".join(failed) + ")")
    if not os.access(argv[0], os.X_OK):
        fail(f"{argv[0]} is not an executable file the jail can read")
    report({"jail": status})
    wall = float(limits.get("wall_s") or 0)
    if wall > 0:
        signal.alarm(max(1, int(wall + 0.999)))
    try:
        os.execve(argv[0], argv, dict(os.environ))  # noqa: S606 - the command, argv as given
    except OSError as exc:
        fail(f"cannot execute {argv[0]}: {exc.strerror}")


def set_limits(limits: Mapping[str, Any], *, memory: str = "AS") -> None:
    """The rlimits, lowered on this process (no capability is needed to lower them, and none
    is left to raise them again): `memory_mb` as `RLIMIT_<memory>` (`AS` or `DATA`), `cpu_s`,
    `file_mb` (a write past it kills the process with `SIGXFSZ`, which Python would ignore)
    and `threads`, added to the user's tasks now for `RLIMIT_NPROC` (which counts every task
    of the user; the kernel does not apply it to root, where seccomp's ban on `fork` and the
    sandbox's thread check hold instead). Nothing where `resource` is missing."""
    try:
        import resource
    except ImportError:  # not POSIX: the parent's deadline still applies
        return
    memory_mb = limits.get("memory_mb")
    if memory_mb:
        size = int(memory_mb) * 1024 * 1024
        resource.setrlimit(getattr(resource, f"RLIMIT_{memory}"), (size, size))
    cpu = limits.get("cpu_s")
    if cpu:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 2))
    file_mb = limits.get("file_mb")
    if file_mb:
        size = int(file_mb) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    threads = limits.get("threads")
    if threads and hasattr(resource, "RLIMIT_NPROC") and getattr(os, "getuid", lambda: 0)():
        cap = _user_tasks(os.getuid()) + int(threads)
        resource.setrlimit(resource.RLIMIT_NPROC, (cap, cap))


def _user_tasks(uid: int) -> int:
    """Tasks (threads included) of `uid` now, from /proc; 0 where /proc is missing."""
    count = 0
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as status:
                fields = dict(line.split(b":", 1) for line in status if b":" in line)
            if int(fields[b"Uid"].split()[0]) == uid:
                count += int(fields[b"Threads"].split()[0])
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return count


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "exec":
    _launch(json.loads(sys.argv[2]))
