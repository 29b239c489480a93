"""The vocabulary of case generation: candidates, why one was dropped, what each tool got."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bfcl_action.core.records import ExpectedCall, TestCase

STRUCTURED = ("auto", "on", "off")
"""`--structured-output`: `auto` asks with `response_format` and without it after a 400."""
PROMPT_VERSION = "1"
"""Bumped when the proposing prompt or its answer schema changes (recorded in provenance)."""


class Kind(StrEnum):
    """What a candidate tests; the own category it becomes (`own_<kind>`)."""

    SIMPLE = "simple"
    MULTIPLE = "multiple"
    PARALLEL = "parallel"
    PARALLEL_MULTIPLE = "parallel_multiple"
    IRRELEVANCE = "irrelevance"

    @property
    def needs_siblings(self) -> bool:
        return self in {Kind.MULTIPLE, Kind.PARALLEL_MULTIPLE}

    @property
    def calls(self) -> str:
        return {
            Kind.SIMPLE: "exactly one call to the target tool",
            Kind.MULTIPLE: "exactly one call to the target tool (the other tools are offered too)",
            Kind.PARALLEL: "two or three calls to the target tool with different arguments",
            Kind.PARALLEL_MULTIPLE: "two or three calls: the target tool and another offered tool",
            Kind.IRRELEVANCE: "no call at all: a request near the tools' domain that none serves",
        }[self]


KIND_ORDER = (Kind.SIMPLE, Kind.MULTIPLE, Kind.PARALLEL, Kind.IRRELEVANCE, Kind.PARALLEL_MULTIPLE)
"""Preference when a tool's quota is shared out (simple cases matter most: the distractor
suite is built from them)."""


class DropReason(StrEnum):
    """Why a candidate was not written; docs/generate.md explains each."""

    REFUSAL = "refusal"
    MALFORMED_JSON = "malformed_json"
    HOSTILE_TEXT = "hostile_text"
    WRONG_KIND = "wrong_kind"
    UNKNOWN_FUNCTION = "unknown_function"
    UNKNOWN_ARGUMENT = "unknown_argument"
    MISTYPED_ARGUMENT = "mistyped_argument"
    OUTSIDE_ENUM = "outside_enum"
    MISSING_REQUIRED = "missing_required"
    UNPASSABLE = "unpassable"
    INVALID = "invalid"
    HALLUCINATED = "hallucinated"
    DUPLICATE = "duplicate"
    NO_ANSWER = "no_answer"
    """The verify model could not be asked (infrastructure error or request budget)."""
    SURPLUS = "surplus"
    """Verified, but the tool already has its share of cases."""


@dataclass
class Candidate:
    """One proposed request with its expected calls in the own-case form.

    `expect` maps a function name to own-case arguments (a list is a list of alternatives,
    `""` among them means the parameter may be omitted), exactly as a person writes a case.
    """

    tool: str
    kind: Kind
    request: str
    expect: list[dict[str, dict[str, Any]]]
    offered: list[str]
    index: int
    """Position in the proposer's answer (ties in ordering are broken by it)."""
    case: TestCase | None = None
    """The case as `validate` reads it, once the format check passed."""
    checks: list[str] = field(default_factory=list)

    def possible_answer(self) -> list[ExpectedCall]:
        return self.case.possible_answer if self.case is not None else []


@dataclass
class Drop:
    tool: str
    reason: DropReason
    detail: str
    request: str = ""
    count: int = 1
    """Candidates lost: a whole unusable answer counts for every candidate asked of it."""


@dataclass
class Review:
    """A candidate the verify model answered differently: a person decides."""

    candidate: Candidate
    verify_output: Any
    verdict: str


@dataclass
class ToolReport:
    tool: str
    proposed: int = 0
    kept: int = 0
    review: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        drops = ", ".join(f"{k} {v}" for k, v in sorted(self.dropped.items())) or "none"
        return (
            f"{self.tool}: proposed {self.proposed}, kept {self.kept}, "
            f"for review {self.review}, dropped {sum(self.dropped.values())} ({drops})"
        )


@dataclass
class Provenance:
    generator: str
    verify_model: str
    seed: int
    prompt_version: str = PROMPT_VERSION


@dataclass
class GenerateResult:
    kept: list[Candidate]
    reviews: list[Review]
    drops: list[Drop]
    reports: list[ToolReport]
    requests: int = 0
    cache_hits: int = 0
