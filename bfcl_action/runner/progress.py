"""Progress: a rich bar (rate, ETA, cache hits) on a terminal; plain periodic lines in CI logs."""

from __future__ import annotations

import os
import sys
import time
from typing import Protocol, TextIO


class Progress(Protocol):
    def start(self, total: int, cached: int) -> None: ...
    def advance(self, *, failed: bool = False, cached: bool = False) -> None: ...
    def finish(self) -> None: ...


class NoProgress:
    def start(self, total: int, cached: int) -> None:
        pass

    def advance(self, *, failed: bool = False, cached: bool = False) -> None:
        pass

    def finish(self) -> None:
        pass


class PlainProgress:
    """One line every `interval` seconds and one at the end: readable in CI logs."""

    def __init__(self, stream: TextIO, interval: float = 10.0, *, label: str = "run") -> None:
        self.stream = stream
        self.interval = interval
        self.label = label
        self.total = self.done = self.cached = self.failed = 0
        self._start = self._last = 0.0

    def start(self, total: int, cached: int) -> None:
        self.total, self.cached, self.done = total, cached, cached
        self._start = self._last = time.monotonic()
        self._line("started")

    def advance(self, *, failed: bool = False, cached: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
        self.cached += int(cached)
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._line("running")

    def finish(self) -> None:
        self._line("finished")

    def _line(self, state: str) -> None:
        elapsed = max(time.monotonic() - self._start, 1e-9)
        asked = self.done - self.cached
        rate = asked / elapsed
        left = self.total - self.done
        eta = f"{left / rate:.0f}s" if rate > 0 and left else "-"
        self.stream.write(
            f"bfcl-action {self.label}: {state} {self.done}/{self.total} answers "
            f"({self.cached} from cache, {self.failed} infra errors) "
            f"{rate:.1f}/s ETA {eta}\n"
        )
        self.stream.flush()


class RichProgress:
    """A live bar for terminals."""

    def __init__(self, stream: TextIO, *, label: str = "run") -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichBar

        self._bar = RichBar(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}/s"),
            TextColumn("cache {task.fields[cached]}"),
            TextColumn("errors {task.fields[failed]}"),
            TimeRemainingColumn(),
            console=Console(file=stream),
            transient=False,
        )
        self._task = self._bar.add_task("run", total=0, rate="0.0", cached=0, failed=0)
        self._failed = 0
        self._cached = 0
        self._asked = 0
        self._start = 0.0

    def start(self, total: int, cached: int) -> None:
        self._start = time.monotonic()
        self._bar.start()
        self._cached = cached
        self._bar.update(self._task, total=total, completed=cached, cached=cached)

    def advance(self, *, failed: bool = False, cached: bool = False) -> None:
        self._failed += int(failed)
        self._cached += int(cached)
        self._asked += int(not cached)
        rate = self._asked / max(time.monotonic() - self._start, 1e-9)
        self._bar.update(
            self._task, advance=1, failed=self._failed, cached=self._cached, rate=f"{rate:.1f}"
        )

    def finish(self) -> None:
        self._bar.stop()


def make_progress(
    stream: TextIO | None = None, *, enabled: bool = True, label: str = "run"
) -> Progress:
    """A bar on an interactive terminal, plain lines when not a TTY or when `CI` is set;
    `label` names the command (`run`, `generate`)."""
    if not enabled:
        return NoProgress()
    stream = stream or sys.stderr
    in_ci = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
    if stream.isatty() and not in_ci:
        return RichProgress(stream, label=label)
    return PlainProgress(stream, label=label)
