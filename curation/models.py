"""Models of the Live pipeline: what a contributor submits, what the stages pass along, and
what they report.

A `Contribution` is the contributor's text as parsed (any tool format); an `Item` is its
normalised form in BFCL's vocabulary, carrying provenance through every stage. Stages never
delete silently: whatever leaves the funnel does so as a `Drop` with a reason.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bfcl_action.core.records import ExpectedCall, FunctionDoc, Message

DEFAULT_LICENSE = "Apache-2.0"
ACCEPTED_LICENSES = ("Apache-2.0", "MIT", "CC-BY-4.0", "CC0-1.0", "BSD-3-Clause")


class Contribution(BaseModel):
    """One submitted test entry, as written by its contributor.

    `ground_truth` maps each expected call's name to its arguments; an argument is a value or
    a list of acceptable options (see `bfcl_action.cases.authoring` for how a list is
    read when the parameter itself is an array). `[]` means no call is expected.
    """

    model_config = ConfigDict(extra="forbid")

    question: str | list[Message]
    functions: list[dict[str, Any]]
    ground_truth: list[dict[str, dict[str, Any]]]
    contributor: str
    license: str = DEFAULT_LICENSE
    source: str = ""
    category: Literal["live_relevance"] | None = None
    """Only `live_relevance` may be asked for: any call passes, the answer is not checked."""
    publish_handle: bool = False
    """The contributor consents to `contributor` being published as the credit; otherwise
    the release credits a salted pseudonym."""


class Origin(BaseModel):
    """Where an item entered the pipeline, for reports and provenance."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """`file`, `issue`, `git`, `bfcl` (imported from BFCL) or `generated`."""
    ref: str
    """`path:line`, `#123`, or the upstream id."""


class Item(BaseModel):
    """A contribution in BFCL form, with the facts later stages add."""

    origin: Origin
    question: list[list[Message]]
    functions: list[FunctionDoc]
    possible_answer: list[ExpectedCall]
    contributor: str
    license: str
    source: str = ""
    category: str = ""
    requested_category: str | None = None
    publish_handle: bool = False
    edits: list[str] = Field(default_factory=list)
    canonical_hash: str = ""
    interface_hash: str = ""
    id: str = ""


ORIGIN_CLASSES = ("contributed", "imported-bfcl", "generated")


def origin_class(origin: Origin) -> str:
    """How an entry came to exist: contributed by a person, imported from BFCL's published
    sets, or generated. Imported entries are never presented as contributions."""
    if origin.kind == "bfcl":
        return "imported-bfcl"
    if origin.kind == "generated":
        return "generated"
    return "contributed"


class Drop(BaseModel):
    """An item that left the funnel, and why."""

    stage: str
    reason: str
    origin: Origin
    detail: str = ""


class StageCount(BaseModel):
    stage: str
    entered: int
    kept: int
    dropped: dict[str, int] = Field(default_factory=dict)
    changed: dict[str, int] = Field(default_factory=dict)
