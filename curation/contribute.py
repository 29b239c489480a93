"""Own test cases -> Live contributions (`bfcl-action contribute`).

A team that tests its tools with bfcl-action already has what the Live set needs: questions,
the tools offered and the expected calls. This turns chosen own cases into contributions that
the weekly build reads like any other (`contributions/*.jsonl` or the issue form), after the
same steps a contribution meets there: intake (the tool loaders), validation and scrubbing,
so what the contributor sees in the preview is what the release would hold.

Consent is never implied: the licence and whether the contributor's handle may be published
(`publish_handle`) are given explicitly by the caller. Nothing here talks to the network; the
caller writes the result to a local file.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bfcl_action.core.records import TestCase
from curation.intake import Intake
from curation.models import ACCEPTED_LICENSES, Item, Origin
from curation.pipeline import validate_items
from curation.scrub import scrub_item
from curation.settings import CurationSettings

OWN_TO_LIVE = {"own_relevance": "live_relevance"}
"""Own categories a contribution must ask for by name; the others follow from the shape."""


@dataclass(frozen=True)
class Consent:
    """What the contributor states explicitly: under which licence, credited how."""

    license: str
    publish_handle: bool
    contributor: str = ""
    source: str = ""


@dataclass
class Prepared:
    """One own case as a contribution: before and after scrubbing, or why it cannot be one."""

    case_id: str
    before: dict[str, Any]
    after: dict[str, Any] | None = None
    replaced: Counter[str] = field(default_factory=Counter)
    problem: str = ""


def contribution_of(case: TestCase, consent: Consent) -> dict[str, Any]:
    """An own case in the contribution format (question, the offered tools in BFCL form, the
    expected calls as option lists, licence and credit)."""
    messages = [m for turn in case.question for m in turn]
    question: Any
    if len(messages) == 1 and messages[0].role == "user":
        question = messages[0].content or ""
    else:
        question = [m.model_dump(mode="json") for m in messages]
    raw: dict[str, Any] = {
        "question": question,
        "functions": [f.model_dump(mode="json") for f in case.functions],
        "ground_truth": [dict(call) for call in case.possible_answer],
        "contributor": consent.contributor,
        "license": consent.license,
        "publish_handle": consent.publish_handle,
    }
    if consent.source:
        raw["source"] = consent.source
    if case.category in OWN_TO_LIVE:
        raw["category"] = OWN_TO_LIVE[case.category]
    return raw


def _as_contribution(item: Item, template: dict[str, Any]) -> dict[str, Any]:
    messages = [m for turn in item.question for m in turn]
    question: Any = (
        messages[0].content or ""
        if isinstance(template["question"], str)
        else [m.model_dump(mode="json") for m in messages]
    )
    return {
        **template,
        "question": question,
        "functions": [f.model_dump(mode="json") for f in item.functions],
        "ground_truth": [dict(call) for call in item.possible_answer],
    }


def prepare(cases: Sequence[TestCase], consent: Consent) -> list[Prepared]:
    """Each case through intake, the authoring round trip, validation and scrubbing."""
    if consent.license not in ACCEPTED_LICENSES:
        raise ValueError(f"licence must be one of {', '.join(ACCEPTED_LICENSES)}")
    settings = CurationSettings()
    out: list[Prepared] = []
    for case in cases:
        raw = contribution_of(case, consent)
        prepared = Prepared(case_id=case.id, before=raw)
        out.append(prepared)
        if case.category not in {
            "own_simple",
            "own_multiple",
            "own_parallel",
            "own_parallel_multiple",
            "own_irrelevance",
            "own_relevance",
        }:
            prepared.problem = f"{case.category} cases cannot be contributed (single-turn only)"
            continue
        intake = Intake()
        intake.add(raw, Origin(kind="file", ref=case.id))
        if intake.drops:
            prepared.problem = f"{intake.drops[0].reason}: {intake.drops[0].detail}"
            continue
        (item,) = intake.items
        if item.possible_answer != case.possible_answer:
            prepared.problem = (
                "the expected calls read differently as a contribution; write them as "
                "option lists of plain values"
            )
            continue
        kept, drops = validate_items([item], settings)
        if drops:
            prepared.problem = f"{drops[0].reason}: {drops[0].detail}"
            continue
        result = scrub_item(kept[0])
        if result.item is None:
            prepared.problem = f"{result.rejected}: {result.detail}"
            continue
        prepared.replaced = result.replaced
        prepared.after = _as_contribution(result.item, raw)
    return out


def preview(prepared: Prepared) -> str:
    """A unified diff of what scrubbing changed (empty when nothing did)."""
    if prepared.after is None or prepared.after == prepared.before:
        return ""
    before = json.dumps(prepared.before, indent=2, ensure_ascii=False).splitlines()
    after = json.dumps(prepared.after, indent=2, ensure_ascii=False).splitlines()
    lines = difflib.unified_diff(
        before,
        after,
        fromfile=f"own case {prepared.case_id}",
        tofile=f"contribution {prepared.case_id} (scrubbed)",
        lineterm="",
    )
    return "\n".join(lines)


def render_file(prepared: Sequence[Prepared]) -> str:
    """A `contributions/*.jsonl` file: one scrubbed contribution per line."""
    return "".join(
        json.dumps(p.after, ensure_ascii=False, sort_keys=True) + "\n"
        for p in prepared
        if p.after is not None
    )


def render_issue(prepared: Prepared) -> str:
    """The body of the *Contribute a function-calling test* issue form, as GitHub renders a
    filled form (what `curation.issue_forms.parse_issue_body` reads back). The form takes one
    user question; the contributor is the issue's author."""
    after = prepared.after
    if after is None:
        raise ValueError(f"{prepared.case_id}: {prepared.problem}")
    if not isinstance(after["question"], str):
        raise ValueError(
            f"{prepared.case_id}: the issue form takes one user question; this case has "
            f"{len(after['question'])} messages (write a contribution file instead)"
        )
    functions = json.dumps(after["functions"], indent=2, ensure_ascii=False)
    answer = json.dumps(after["ground_truth"], ensure_ascii=False)
    credit = "X" if after.get("publish_handle") else " "
    return (
        f"### Question\n\n{after['question']}\n\n"
        f"### Functions\n\n```json\n{functions}\n```\n\n"
        f"### Ground truth\n\n```json\n{answer}\n```\n\n"
        f"### License\n\n{after['license']}\n\n"
        f"### Source\n\n{after.get('source') or '_No response_'}\n\n"
        f"### Category\n\n{after.get('category') or '_No response_'}\n\n"
        f"### Credit\n\n- [{credit}] Credit me by my GitHub handle in the release\n\n"
        "### Terms\n\n- [X] I wrote this entry (or may share it) under the license above.\n"
    )
