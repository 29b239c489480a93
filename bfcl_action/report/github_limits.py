"""Every GitHub size limit this action writes against, each with the unit GitHub counts in.

GitHub counts some fields in characters and others in UTF-8 bytes, and the documentation
does not always say which: check-run `output.summary` / `output.text` are documented as
"65535 characters" but GitHub rejects them by *bytes* ("exceeds a maximum bytesize of
65535"), so a summary full of CJK text (3 bytes a character) that fits by characters is
refused. Every field is therefore fitted by the unit GitHub enforces, with `fit_chars` or
`fit_bytes`, which cut gracefully: on a character boundary, with a note saying so.

This module imports nothing from the rest of the package, so the Markdown renderer and the
GitHub edge can both size their text from one table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Unit = Literal["chars", "bytes"]


@dataclass(frozen=True)
class Limit:
    """A GitHub size limit: how much, counted in what, and on which field."""

    size: int
    unit: Unit
    field: str

    def measure(self, text: str) -> int:
        return len(text) if self.unit == "chars" else utf8_len(text)

    def fits(self, text: str) -> bool:
        return self.measure(text) <= self.size

    def fit(self, text: str, note: str = "") -> str:
        """`text` within this limit; when cut, `note` ends it (and counts toward the limit)."""
        if self.unit == "chars":
            return fit_chars(text, self.size, note)
        return fit_bytes(text, self.size, note)


COMMENT_BODY = Limit(65_536, "chars", "issue or pull request comment body")
"""Issue and PR comment bodies ("body is too long (maximum is 65536 characters)")."""
ISSUE_BODY = Limit(65_536, "chars", "issue body")
CHECK_OUTPUT = Limit(65_535, "bytes", "check run output.summary / output.text")
"""Check-run summary and text: 65,535 UTF-8 bytes ("exceeds a maximum bytesize of 65535")."""
CHECK_TITLE = Limit(255, "chars", "check run output.title")
ANNOTATION_MESSAGE = Limit(64 * 1024, "bytes", "check run annotation message")
"""Documented as "The maximum size is 64 KB": a size, so bytes."""
ANNOTATION_TITLE = Limit(255, "chars", "check run annotation title")
ANNOTATIONS_PER_REQUEST = 50
"""Annotations per create/update request; more go in follow-up updates."""
STATUS_DESCRIPTION = Limit(140, "chars", "commit status description")
JOB_SUMMARY = Limit(1024 * 1024, "bytes", "$GITHUB_STEP_SUMMARY per step")
"""The job summary a step may write (GitHub refuses the step's summary above 1 MiB)."""


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def fit_chars(text: str, limit: int, note: str = "") -> str:
    """`text` in at most `limit` characters, ending with `note` when it had to be cut
    (redacted before the cut: `redact.shorten`)."""
    from bfcl_action.safety.redact import shorten

    if len(note) >= limit:
        return shorten(text, limit, "")
    return shorten(text, limit, note)


def fit_bytes(text: str, limit: int, note: str = "") -> str:
    """`text` in at most `limit` UTF-8 bytes, cut on a character boundary, ending with `note`."""
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= limit:
        return text
    tail = note.encode("utf-8")
    if len(tail) >= limit:
        tail = b""
    head = data[: limit - len(tail)].decode("utf-8", errors="ignore")
    return head + tail.decode("utf-8")


__all__ = [
    "ANNOTATIONS_PER_REQUEST",
    "ANNOTATION_MESSAGE",
    "ANNOTATION_TITLE",
    "CHECK_OUTPUT",
    "CHECK_TITLE",
    "COMMENT_BODY",
    "ISSUE_BODY",
    "JOB_SUMMARY",
    "STATUS_DESCRIPTION",
    "Limit",
    "fit_bytes",
    "fit_chars",
    "utf8_len",
]
