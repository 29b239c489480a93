"""Step outputs, the job summary and workflow commands, written safely.

Untrusted text (model output, tool descriptions, GitHub error messages) passes through
`escape_data`/`escape_property` before it reaches a workflow command, and through
`neutralize_log` before it is printed, so it can never start a `::command::` of its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from bfcl_action.report import github_limits as limits
from bfcl_action.safety.escape import neutralize_commands
from bfcl_action.safety.logstream import emit_command
from bfcl_action.safety.redact import redact

SUMMARY_LIMIT = limits.JOB_SUMMARY.size
"""GitHub rejects a step's job summary over 1 MiB (bytes)."""


def escape_data(text: str) -> str:
    """Escape the message part of a workflow command (GitHub's toolkit rules)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a `key=value` property of a workflow command."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def neutralize_log(text: str) -> str:
    """Text safe to print in a log: no line can start a workflow command."""
    return neutralize_commands(text)


def workflow_command(
    command: str,
    message: str,
    *,
    title: str | None = None,
    file: str | None = None,
    line: int | None = None,
) -> str:
    props = []
    if title:
        props.append(f"title={escape_property(title)}")
    if file:
        props.append(f"file={escape_property(file)}")
        if line is not None:
            props.append(f"line={line}")
    joined = (" " + ",".join(props)) if props else ""
    return f"::{command}{joined}::{escape_data(message)}"


def warning(message: str, *, title: str | None = None, stream: TextIO | None = None) -> None:
    emit_command(workflow_command("warning", message, title=title), stream)


def notice(message: str, *, title: str | None = None, stream: TextIO | None = None) -> None:
    emit_command(workflow_command("notice", message, title=title), stream)


def _delimiter(value: str) -> str:
    while True:
        candidate = f"ghadelimiter_{secrets.token_hex(8)}"
        if candidate not in value:
            return candidate


def format_outputs(values: Mapping[str, str]) -> str:
    """`GITHUB_OUTPUT` text: every value in heredoc form, so newlines cannot inject outputs."""
    chunks = []
    for name, value in values.items():
        delim = _delimiter(value)
        chunks.append(f"{name}<<{delim}\n{value}\n{delim}\n")
    return "".join(chunks)


def write_outputs(path: Path | None, values: Mapping[str, str]) -> None:
    """Append outputs to `GITHUB_OUTPUT`; without it (local runs) print them instead."""
    text = format_outputs(values)
    if path is None:
        for name, value in values.items():
            print(f"{name}={neutralize_log(value)}")
        return
    with path.open("a", encoding="utf-8") as fh:
        fh.write(redact(text))


def fit_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """Cut a job summary to GitHub's size limit (bytes), saying so at the end."""
    note = "\n\n_… truncated: the job summary is limited to 1 MiB; see the report artifact._\n"
    return limits.fit_bytes(markdown, limit, note)


def append_summary(path: Path | None, markdown: str) -> None:
    """Append to the job summary (`GITHUB_STEP_SUMMARY`); without it print to stdout."""
    text = fit_summary(markdown)
    if path is None:
        print(neutralize_log(text))
        return
    existing = path.stat().st_size if path.exists() else 0
    text = fit_summary(text, max(0, SUMMARY_LIMIT - existing))
    with path.open("a", encoding="utf-8") as fh:
        fh.write(redact(text) + "\n")
