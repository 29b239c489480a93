"""A proposer's answer -> candidates, or why there are none (refusal, malformed JSON).

The answer is parsed with `json.loads` only (a fenced or prefixed JSON object is found by
its first `{`); nothing in it is ever evaluated.
"""

from __future__ import annotations

import json
from typing import Any

from bfcl_action.generate.models import Candidate, Drop, DropReason, Kind
from bfcl_action.generate.prompt import ProposeTask, offered_for
from bfcl_action.safety.redact import shorten

MAX_ANSWER_CHARS = 200_000
MAX_REQUEST_CHARS = 2_000


def _json_object(text: str) -> Any:
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object")
    value, _ = json.JSONDecoder().raw_decode(text[start:])
    return value


def read_proposals(
    task: ProposeTask, content: str | None, refusal: str | None
) -> tuple[list[Candidate], list[Drop]]:
    """Candidates of one proposing answer, and a drop for every entry that is unusable.

    A structured-output refusal, or prose with no JSON object at all, is a refusal; JSON
    that does not parse or has the wrong shape is malformed.
    """
    tool = task.tool
    if refusal:
        return [], [Drop(tool, DropReason.REFUSAL, shorten(refusal, 200))]
    text = (content or "").strip()
    if len(text) > MAX_ANSWER_CHARS:
        return [], [Drop(tool, DropReason.MALFORMED_JSON, "answer too long")]
    if "{" not in text:
        return [], [Drop(tool, DropReason.REFUSAL, shorten(text, 200) or "empty answer")]
    try:
        data = _json_object(text)
    except ValueError as exc:
        return [], [Drop(tool, DropReason.MALFORMED_JSON, f"not JSON: {exc}")]
    entries = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return [], [Drop(tool, DropReason.MALFORMED_JSON, "no `cases` list")]
    wanted = set(task.allowed or [k for k, _ in task.counts])
    out: list[Candidate] = []
    drops: list[Drop] = []
    for index, entry in enumerate(entries):
        candidate = _candidate(task, index, entry, wanted)
        if isinstance(candidate, Drop):
            drops.append(candidate)
        else:
            out.append(candidate)
    return out, drops


def _candidate(task: ProposeTask, index: int, entry: Any, wanted: set[Kind]) -> Candidate | Drop:
    tool = task.tool
    if not isinstance(entry, dict):
        return Drop(tool, DropReason.MALFORMED_JSON, f"case {index + 1} is not an object")
    request = entry.get("request")
    if not isinstance(request, str) or not request.strip():
        return Drop(tool, DropReason.MALFORMED_JSON, f"case {index + 1} has no request text")
    request = request.strip()
    if len(request) > MAX_REQUEST_CHARS:
        return Drop(tool, DropReason.MALFORMED_JSON, "request too long", shorten(request, 200))
    try:
        kind = Kind(str(entry.get("kind")))
    except ValueError:
        return Drop(tool, DropReason.WRONG_KIND, f"unknown kind {entry.get('kind')!r}", request)
    if kind not in wanted:
        return Drop(
            tool, DropReason.WRONG_KIND, f"kind {kind.value} is not among --categories", request
        )
    calls = entry.get("calls")
    if not isinstance(calls, list):
        return Drop(tool, DropReason.MALFORMED_JSON, "`calls` is not a list", request)
    expect: list[dict[str, dict[str, Any]]] = []
    for call in calls:
        name = call.get("name") if isinstance(call, dict) else None
        raw = call.get("arguments") if isinstance(call, dict) else None
        if not isinstance(name, str):
            return Drop(tool, DropReason.MALFORMED_JSON, "a call has no function name", request)
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError as exc:
            return Drop(tool, DropReason.MALFORMED_JSON, f"arguments of {name}: {exc}", request)
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return Drop(
                tool, DropReason.MALFORMED_JSON, f"arguments of {name} are not an object", request
            )
        expect.append({name: args})
    return Candidate(tool, kind, request, expect, offered_for(kind, task), index)
