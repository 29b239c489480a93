"""Contributions submitted through the GitHub issue form (`contribute-function.yml`).

GitHub renders an issue form as Markdown: one `### <label>` heading per field, the answer
below it (inside a code fence for `render:` fields), and `_No response_` for an empty
optional field. We read issues by label through PyGithub and parse that Markdown back.
"""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from curation.intake import Intake, _plain
from curation.models import Drop, Origin

LABEL = "live-contribution"
_FIELDS = {
    "question": "question",
    "functions": "functions",
    "ground truth": "ground_truth",
    "license": "license",
    "source": "source",
    "category": "category",
    "credit": "credit",
}
_HEADING = re.compile(r"^###\s+(.+?)\s*$", re.MULTILINE)
_FENCE = re.compile(r"^```[\w-]*\n(.*?)\n?```\s*$", re.DOTALL)


class FormError(ValueError):
    pass


def parse_issue_body(body: str) -> dict[str, Any]:
    """The form's fields as a raw contribution (without `contributor`)."""
    parts = _HEADING.split(body or "")
    values: dict[str, str] = {}
    for label, text in zip(parts[1::2], parts[2::2], strict=True):
        key = _FIELDS.get(label.strip().lower())
        if key is None:
            continue
        text = text.strip()
        if text == "_No response_":
            text = ""
        fenced = _FENCE.match(text)
        values[key] = fenced.group(1) if fenced else text
    missing = [f for f in ("question", "functions", "ground_truth") if not values.get(f)]
    if missing:
        raise FormError(f"missing field(s): {', '.join(missing)}")
    raw: dict[str, Any] = {"question": values["question"]}
    for key in ("functions", "ground_truth"):
        try:
            raw[key] = _plain(YAML(typ="rt").load(values[key]))
        except YAMLError as exc:
            raise FormError(
                f"{key}: not valid JSON or YAML ({getattr(exc, 'problem', exc)})"
            ) from None
    if values.get("license"):
        raw["license"] = values["license"]
    if values.get("source"):
        raw["source"] = values["source"]
    if values.get("category"):
        raw["category"] = values["category"]
    if re.search(r"^- \[[xX]\]", values.get("credit", ""), re.MULTILINE):
        raw["publish_handle"] = True  # the author ticked "Credit me by my GitHub handle"
    return raw


def add_issue(intake: Intake, *, number: int, body: str, author: str) -> None:
    origin = Origin(kind="issue", ref=f"#{number}")
    try:
        raw = parse_issue_body(body)
    except FormError as exc:
        intake.drops.append(
            Drop(stage="intake", reason="invalid_issue_form", origin=origin, detail=str(exc))
        )
        return
    intake.add({**raw, "contributor": author}, origin)


def add_issues(intake: Intake, repo: Any, label: str = LABEL) -> int:
    """Open issues with the label, oldest first; returns how many were read."""
    count = 0
    for issue in repo.get_issues(state="open", labels=[label], sort="created", direction="asc"):
        if getattr(issue, "pull_request", None) is not None:
            continue
        add_issue(intake, number=issue.number, body=issue.body or "", author=issue.user.login)
        count += 1
    return count
