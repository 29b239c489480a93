"""Reading run reports and baselines from files (a report JSON, or any text with a digest).

The one loader the `compare` command and the Action share.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from bfcl_action.digest import RunDigest, parse_digest
from bfcl_action.errors import InputError
from bfcl_action.models import RunReport


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(path)) from None


def load_report(path: Path) -> RunReport:
    """A run report JSON; errors name the file and the first invalid field."""
    try:
        return RunReport.model_validate_json(read_text(path))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(
            f"not a bfcl-action run report: {first['msg']}", file=str(path), field=where
        ) from None


def load_baseline(path: Path) -> RunReport | RunDigest:
    """A run report JSON, or any text (check-run summary, comment) holding a digest."""
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
        if isinstance(data, dict) and "schema_version" in data:
            return load_report(path)
    return parse_digest(text, source=str(path))
