"""The generated cases file and the review file: deterministic text from the kept cases.

Both are written for people to read and commit, so both pass `redact.scrub` (every secret
the run knows, every key shape) and the review file's untrusted text is Markdown-escaped
(`escape.md_code` / `md_inline`, as in the PR comment) or fenced.

The cases file is an ordinary own-case file (`validate` reads it as is) that starts with
`MARKER`; a file without it was written by a person and is never overwritten. Case ids come
from the content (tool, request, tools offered, expectation), so the same draft always gets
the same id and a rerun writes the same bytes.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from bfcl_action.core.errors import InputError
from bfcl_action.core.fingerprint import canonical_json, sha256_hex
from bfcl_action.generate.checks import own_case_entry
from bfcl_action.generate.models import Candidate, Drop, Provenance, Review
from bfcl_action.safety.escape import md_code
from bfcl_action.safety.redact import scrub

MARKER = "# Drafted by `bfcl-action generate`"
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")


def case_id(candidate: Candidate) -> str:
    """`gen_<tool>_<10 hex>`: a hash of what the case asks and expects."""
    content = canonical_json(
        {
            "request": candidate.request,
            "tools": candidate.offered,
            "expect": candidate.expect,
            "kind": candidate.kind.value,
        }
    )
    return f"gen_{_UNSAFE_ID.sub('_', candidate.tool)}_{sha256_hex(content)[:10]}"


def is_generated_file(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8") as handle:
            return handle.readline().startswith(MARKER)
    except (OSError, UnicodeDecodeError):
        return False


def ensure_writable(path: Path) -> None:
    """Refuse to replace a file a person wrote (one without the generated marker)."""
    if path.exists() and not is_generated_file(path):
        raise InputError(
            f"{path} exists and was not written by `bfcl-action generate`; it is never "
            "overwritten: choose another --output",
            field="--output",
        )


def _flow(value: Any) -> Any:
    if isinstance(value, dict):
        out = CommentedMap((k, _flow(v)) for k, v in value.items())
        out.fa.set_flow_style()
        return out
    if isinstance(value, list):
        seq = CommentedSeq(_flow(v) for v in value)
        seq.fa.set_flow_style()
        return seq
    return value


def _case_map(candidate: Candidate, provenance: Provenance) -> CommentedMap:
    entry = own_case_entry(candidate, case_id(candidate))
    out = CommentedMap()
    out["id"] = entry["id"]
    out["question"] = entry["question"]
    out["tools"] = _flow(entry["tools"])
    out["expect"] = CommentedSeq(_flow(call) for call in entry["expect"])
    out["category"] = entry["category"]
    out["provenance"] = _flow(
        {
            "generator": provenance.generator,
            "verify_model": provenance.verify_model,
            "prompt_version": provenance.prompt_version,
            "seed": provenance.seed,
            "checks": list(candidate.checks),
        }
    )
    return out


def _yaml() -> YAML:
    yaml = YAML()
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def render_cases(kept: Sequence[Candidate], provenance: Provenance, command: str) -> str:
    """The cases file text."""
    header = (
        f"{MARKER} ({command}).\n"
        "# Every case passed the format, grounding and agreement checks (docs/generate.md).\n"
        "# Review, then commit like any case file. Rerunning replaces this file; move a case\n"
        "# into a file of your own to keep edits.\n"
    )
    doc = CommentedMap()
    doc["cases"] = CommentedSeq(_case_map(c, provenance) for c in kept)
    if not kept:
        doc["cases"].fa.set_flow_style()
    stream = io.StringIO()
    _yaml().dump(doc, stream)
    return scrub(header + stream.getvalue())


def _fence(text: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return md_code(text, 400, in_table=True)


def _calls(output: Any) -> Any:
    """The verify model's FC answer as plain calls (arguments parsed), or its text."""
    if not isinstance(output, list):
        return output if output else "(no call)"
    calls = []
    for item in output:
        if isinstance(item, dict):
            for name, args in item.items():
                try:
                    parsed = json.loads(args) if isinstance(args, str) else args
                except ValueError:
                    parsed = args
                calls.append({name: parsed})
    return calls


def _calls_text(output: Any) -> str:
    calls = _calls(output)
    return calls if isinstance(calls, str) else json.dumps(calls, indent=1, ensure_ascii=False)


def render_review(
    reviews: Sequence[Review],
    provenance: Provenance,
    command: str,
    drops: Sequence[Drop] = (),
) -> str:
    """The review file: each disagreement with both answers side by side, and the case ready
    to paste into a case file when the person sides with the proposer; then every dropped
    draft with its reason, so a surprising drop can be checked (text shown as code)."""
    lines = [
        f"# Generated cases for review ({command})",
        "",
        f"The verify model ({md_code(provenance.verify_model)}) answered these requests "
        f"differently from the expectation {md_code(provenance.generator)} proposed. Often the "
        "most valuable "
        "cases: decide who is right. If the expectation is right, paste the case into a case "
        "file; if the request is ambiguous, fix its wording or drop it.",
        "",
    ]
    if not reviews:
        lines.append("Nothing to review: every verified candidate agreed.")
    for n, review in enumerate(reviews, 1):
        c = review.candidate
        stream = io.StringIO()
        _yaml().dump(CommentedSeq([_case_map(c, provenance)]), stream)
        lines += [
            f"## {n}. {md_code(case_id(c))} ({c.kind.value}, tool {md_code(c.tool)})",
            "",
            "Request:",
            "",
            _fence(c.request, "text"),
            "",
            "| proposed expectation | verify model called |",
            "|---|---|",
            f"| {_cell(c.expect)} | {_cell(_calls(review.verify_output))} |",
            "",
            "Proposed:",
            "",
            _fence(json.dumps(c.expect, indent=1, ensure_ascii=False), "json"),
            "",
            "Verify model:",
            "",
            _fence(_calls_text(review.verify_output), "json"),
            "",
            f"Checker: {md_code(review.verdict, 400)}",
            "",
            "Case, ready to paste:",
            "",
            _fence(stream.getvalue().rstrip(), "yaml"),
            "",
        ]
    if drops:
        lines += [
            f"## Dropped drafts ({sum(d.count for d in drops)})",
            "",
            "| tool | reason | request | detail |",
            "|---|---|---|---|",
        ]
        for d in drops:
            request = md_code(d.request, 160, in_table=True) if d.request else ""
            lines.append(
                f"| {md_code(d.tool, in_table=True)} | {d.reason.value} | {request} "
                f"| {md_code(d.detail, 200, in_table=True)} |"
            )
    return scrub("\n".join(lines).rstrip() + "\n")
