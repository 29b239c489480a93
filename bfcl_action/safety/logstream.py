"""The edge every printed line crosses: stdout and stderr of a `bfcl-action` command.

`LogStream` wraps a text stream, a line at a time: each line has every known secret redacted
(`redact.redact`) and cannot start a workflow command (`escape.neutralize_commands`), whatever
the print site and whatever untrusted text (a model name, a replay file name, a server error
body, a tool's output) it carries. Our own workflow commands (annotations, warnings) go through
`command`, the one way to write a line that GitHub acts on; their message part is escaped by
`github.outputs.workflow_command`.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

from bfcl_action.safety.escape import LINE_BREAKS, defuse_legacy_commands, neutralize_commands
from bfcl_action.safety.redact import redact

_MAX_PENDING = 1 << 16
_ONE_LINE = re.compile(f"[{LINE_BREAKS}]")


class LogStream(io.TextIOBase):
    """Whole lines are forwarded (a partial line waits for its newline or `flush`), so a
    secret or a `::` written in two pieces by two `write` calls is still recognised."""

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self.target = target
        self._pending = ""
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def _forward(self, text: str) -> None:
        self.target.write(neutralize_commands(redact(text)))

    def write(self, text: str) -> int:
        with self._lock:
            data = self._pending + text
            head, sep, tail = data.rpartition("\n")
            if sep:
                self._forward(head + sep)
                self._pending = tail
            else:
                self._pending = data
            if len(self._pending) > _MAX_PENDING:
                self._forward(self._pending)
                self._pending = ""
        return len(text)

    def command(self, line: str) -> None:
        """Write one workflow command of ours (secrets still redacted)."""
        with self._lock:
            if self._pending:
                self._forward(self._pending + "\n")
                self._pending = ""
            self.target.write(redact(defuse_legacy_commands(_ONE_LINE.sub(" ", line))) + "\n")

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                self._forward(self._pending)
                self._pending = ""
        self.target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.target, "encoding", "utf-8"))


def emit_command(line: str, stream: TextIO | None = None) -> None:
    """Print a workflow command of ours: through `LogStream.command` when `stream` is one."""
    target = stream or sys.stdout
    if isinstance(target, LogStream):
        target.command(line)
    else:
        print(line, file=target)


@contextlib.contextmanager
def std_streams() -> Iterator[None]:
    """Route `sys.stdout` and `sys.stderr` through `LogStream` for the block."""
    saved = (sys.stdout, sys.stderr)
    wrapped = [s if s is None or isinstance(s, LogStream) else LogStream(s) for s in saved]
    sys.stdout, sys.stderr = wrapped[0], wrapped[1]
    try:
        yield
    finally:
        for stream in wrapped:
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.flush()
        sys.stdout, sys.stderr = saved
