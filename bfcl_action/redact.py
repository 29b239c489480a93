"""The one place secrets are taken out of what the run shows.

Every secret the run knows (the model API key, the GitHub token, any environment variable
named like a credential) is registered here when it is read (`bfcl_action.credentials`), and
`redact` replaces each of them, in every spelling it may take on the way out (as is, JSON
escaped, URL encoded), by `***`. The output edges apply it: the process's stdout and stderr
(installed by the CLI, so every log line and workflow command), the report files, the
comment, the check run and its annotations, the job summary and step outputs.

What it does not do: a secret transformed in other ways (reversed, split across outputs,
base64 encoded by hostile code) is not recognised, and values shorter than
`MIN_SECRET_LENGTH` are not registered (redacting "abc" everywhere would mangle reports;
no real key is that short).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import threading
import urllib.parse
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

MASK = "***"
MIN_SECRET_LENGTH = 8

_lock = threading.Lock()
_secrets: set[str] = set()
_spellings: tuple[str, ...] = ()


def register(value: str | None) -> None:
    """Remember `value` as a secret: from now on `redact` removes it from every output."""
    global _spellings
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        forms: set[str] = set()
        for secret in _secrets:
            forms.add(secret)
            forms.add(json.dumps(secret)[1:-1])
            forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
            forms.add(urllib.parse.quote(secret, safe=""))
            forms.add(urllib.parse.quote_plus(secret))
        _spellings = tuple(sorted((f for f in forms if len(f) >= MIN_SECRET_LENGTH), key=len)[::-1])


def forget_all() -> None:
    """Tests only: start again with no known secret."""
    global _spellings
    with _lock:
        _secrets.clear()
        _spellings = ()


def known() -> frozenset[str]:
    return frozenset(_secrets)


def redact(text: str) -> str:
    """`text` with every known secret (in every spelling above) replaced by `***`."""
    spellings = _spellings
    if not spellings or not text:
        return text
    for secret in spellings:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def redact_value(value: Any) -> Any:
    """`redact` applied to every string inside a JSON-like value (keys included)."""
    if not _spellings:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_value(v) for v in value)
    if isinstance(value, dict):
        return {redact_value(k): redact_value(v) for k, v in value.items()}
    return value


def redact_lines(lines: Iterable[str]) -> list[str]:
    return [redact(line) for line in lines]


class RedactingStream(io.TextIOBase):
    """A text stream that redacts what it forwards, a line at a time.

    Whole lines are forwarded (a partial line waits for its newline or `flush`), so a secret
    written in two pieces by two `write` calls is still recognised."""

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self.target = target
        self._pending = ""
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self._lock:
            data = self._pending + text
            head, sep, tail = data.rpartition("\n")
            if sep:
                self.target.write(redact(head + sep))
                self._pending = tail
            else:
                self._pending = data
            if len(self._pending) > 65536:
                self.target.write(redact(self._pending))
                self._pending = ""
        return len(text)

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                self.target.write(redact(self._pending))
                self._pending = ""
        self.target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.target, "encoding", "utf-8"))


@contextlib.contextmanager
def std_streams() -> Iterator[None]:
    """Route `sys.stdout` and `sys.stderr` through `RedactingStream` for the block."""
    saved = (sys.stdout, sys.stderr)
    wrapped = [
        s if s is None or isinstance(s, RedactingStream) else RedactingStream(s) for s in saved
    ]
    sys.stdout, sys.stderr = wrapped[0], wrapped[1]
    try:
        yield
    finally:
        for stream in wrapped:
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.flush()
        sys.stdout, sys.stderr = saved
