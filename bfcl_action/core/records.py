"""The vocabulary both pipelines share (evaluation and Live curation).

Stages are pure functions over these models; only the edges (CLI, files, HTTP, GitHub, git)
parse raw dicts into them. Field names follow BFCL's JSON formats where BFCL has one, so a
BFCL entry validates into `TestCase` with nothing renamed but `function` -> `functions`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

CASE_ID_PATTERN = re.compile(r"[A-Za-z0-9_.:@-]+\Z")
"""An own case id, single- or multi-turn (used with `fullmatch`: `$` would also accept a
trailing newline, and an id is printed in logs and comments)."""

SCHEMA_VERSION = 1
"""Version of the run-report JSON layout; bump on any incompatible change."""

ExpectedCall = dict[str, dict[str, list[Any]]]
"""One call of a BFCL possible answer: `{"func": {"param": [option, ...]}}`.

`""` among the options means the parameter may be omitted; `None` means `null` is accepted.
"""


class Language(StrEnum):
    PYTHON = "python"
    JAVA = "java"
    JAVASCRIPT = "javascript"


class Mode(StrEnum):
    """How the model is asked: native function calling, or a prompt that asks for call text."""

    FC = "fc"
    PROMPT = "prompt"


class SourceLocation(BaseModel):
    """Where a definition came from, so errors and annotations can point at it."""

    model_config = ConfigDict(frozen=True)

    file: str
    line: int | None = None
    column: int | None = None


class Message(BaseModel):
    """One chat message of a question turn."""

    model_config = ConfigDict(extra="allow")

    role: str
    content: str | None = ""


class FunctionDoc(BaseModel):
    """A function (tool) definition in BFCL's form.

    `parameters` is BFCL's JSON-Schema dialect (`"type": "dict"` at the top, Python-ish type
    names inside); loaders of other formats normalise into it. Unknown keys are kept so a
    round trip through the model loses nothing.
    """

    model_config = ConfigDict(extra="allow")

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "dict", "properties": {}, "required": []}
    )
    source: SourceLocation | None = Field(default=None, exclude=True)


class ExecutionData(BaseModel):
    """What an executable case (`execute:`) and a case running environments carry beyond
    BFCL's fields, read with `TestCase.metadata_as(ExecutionData)`."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    execute: dict[str, Any] | None = None
    """The `execute` block (`multiturn.executable.exec_spec` checks it); None: not executable."""
    environment_paths: list[str] = Field(default_factory=list)
    """Directories the case's implementations and environments import from."""


Metadata = TypeVar("Metadata", bound=BaseModel)


class TestCase(BaseModel):
    """One evaluation entry: question turns, offered functions and BFCL possible answers.

    `category` is a key of `bfcl_action.core.categories.CATEGORIES` and alone decides how the case
    is checked. `suite` is the label results are reported under: the category for official
    BFCL data, a dataset-qualified label for other sources (so official `live_simple` and a
    Live release's `live_simple` never share a row).
    """

    __test__ = False  # not a pytest test class
    model_config = ConfigDict(extra="allow")

    id: str
    category: str
    question: list[list[Message]]
    functions: list[FunctionDoc] = Field(default_factory=list)
    possible_answer: list[ExpectedCall] = Field(default_factory=list)
    answer_texts: list[str] = Field(default_factory=list)
    """For BFCL's agentic categories (web search, memory): the final answer passes when it
    contains one of these texts (`bfcl_action.checker.agentic`)."""
    language: Language = Language.PYTHON
    dataset: str = ""
    suite: str = ""
    source: SourceLocation | None = None
    cluster: str = ""
    """Id of the question this case derives from (a distractor variant's own case); empty:
    the case is its own question. Comparisons count the evidence of a cluster once."""

    def label(self) -> str:
        return self.suite or self.category

    def metadata_as(self, kind: type[Metadata]) -> Metadata:
        """The fields of this case beyond the declared ones (a kind's data: multi-turn
        `involved_classes`, `ground_truth`, ...; `execute`; BFCL's own extras), as the typed
        model of that kind: the one way to read them. Raises `ValidationError`."""
        return kind.model_validate(self.model_extra or {})

    def cluster_id(self) -> str:
        return self.cluster or self.id


@dataclass(slots=True)
class Call:
    """One decoded function call: a name and keyword arguments (already parsed values).

    A slots dataclass, not a pydantic model: decoders build one per call on the checker's hot
    path, where validation would cost four times the construction. Pydantic still validates
    and serialises it as a field of `CaseResult` (`{"name": ..., "arguments": {...}}`).
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


class CaseResult(BaseModel):
    """The verdict on one case.

    `infra_error` marks a case the runner could not get an answer for (timeouts, 5xx after
    retries): such a case is neither correct nor a model failure and is left out of accuracy.
    `error_type` uses BFCL's names (e.g. `value_error:string`) so verdicts can be compared
    with the official checker's one to one.
    """

    id: str
    category: str
    suite: str = ""
    valid: bool
    error_type: str | None = None
    error: list[str] = Field(default_factory=list)
    model_output: Any = None
    decoded: list[Call] | None = None
    infra_error: str | None = None
    samples: list[bool] | None = None
    cluster: str = ""
    """`TestCase.cluster`: the question this case derives from (empty: its own)."""
    same_request_as: str | None = None
    """An earlier case of the run whose request was byte-identical (a k=0 distractor variant
    and its own case): one answer, scored in both suites, counted once as evidence."""
    latency_s: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    """Prompt tokens the provider served from its prompt cache (part of `input_tokens`)."""
    reused: bool = False
    """The answer came from the response cache (an earlier run paid for it)."""
    batch: bool = False
    """The answer came through the Batch API (billed at the batch discount)."""
    cost_usd: float | None = None
    """What this answer costs at the rate it was asked at (`bfcl_action.core.cost`; None: no
    price for the model). Paid by this run unless `reused`."""
    # Case context for reports (filled by `bfcl_action.results.scoring.attach_case_context`), so a
    # stored report can show what was asked and expected without the dataset at hand.
    question: str | None = None
    """Excerpt of the question's last user message."""
    expected: list[ExpectedCall] | None = None
    """The case's possible answer (BFCL form)."""
    functions: list[str] | None = None
    """Names of the functions offered to the model (their count drives the distractor chart)."""

    def label(self) -> str:
        return self.suite or self.category

    def cluster_id(self) -> str:
        return self.cluster or self.id


class CategoryScore(BaseModel):
    """Accuracy of one reported suite; `total` excludes infrastructure errors."""

    suite: str
    category: str
    correct: int
    total: int
    infra_errors: int = 0
    accuracy: float


class RunCost(BaseModel):
    """Tokens and dollars of a run (`bfcl_action.core.cost`)."""

    answers: int = 0
    """Cases with an answer (infrastructure errors have none)."""
    reused: int = 0
    """Answers from the response cache (paid for by an earlier run)."""
    batch: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    """Prompt tokens served from the provider's prompt cache (part of `input_tokens`)."""
    priced_as: str | None = None
    """The `pricing:` entry that priced the run, or None (no price: tokens only)."""
    cost_usd: float | None = None
    full_cost_usd: float | None = None


class RequestCounts(BaseModel):
    """What a run paid for: model requests asked (retries aside) and answers reused from the
    response cache, with the serving model and fingerprint of each side."""

    asked: int = 0
    reused: int = 0
    shared: int = 0
    """Requests identical to one already asked in the run, answered by that one."""
    retries: int = 0
    cache: Literal["on", "off", "fresh"] = "off"
    """`fresh`: the cache was written but never read (scheduled runs measure the provider)."""
    served_fresh: dict[str, int] = Field(default_factory=dict)
    served_cached: dict[str, int] = Field(default_factory=dict)

    def drift(self) -> tuple[list[str], list[str]] | None:
        """(fresh, cached) serving labels when fresh answers name a model or fingerprint
        that none of the cached answers beside them do: the provider changed the model
        behind the name since those answers were cached."""
        if not self.served_fresh or not self.served_cached:
            return None
        fresh, cached = set(self.served_fresh), set(self.served_cached)
        if fresh <= cached:
            return None
        return sorted(fresh - cached), sorted(cached - fresh) or sorted(cached)


class RunReport(BaseModel):
    """Everything one evaluation run produced; the unit that is stored, merged and compared.

    `fingerprint` hashes what makes two runs comparable (model, mode, sampling settings,
    datasets); `case_set` hashes the sorted case ids. Scores are derived from `results` by
    `bfcl_action.results.scoring` and stored for readers that do not recompute them.
    """

    schema_version: int = SCHEMA_VERSION
    tool_version: str = ""
    created_at: str = ""
    model: str = ""
    label: str = ""
    """The `models:` matrix entry this run evaluated (`bfcl_action.compare.matrix`); empty for a
    single-model run. Baselines and the model-choice view pair runs by it."""
    mode: Mode = Mode.FC
    datasets: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    fingerprint: str = ""
    case_set: str = ""
    results: list[CaseResult] = Field(default_factory=list)
    categories: dict[str, CategoryScore] = Field(default_factory=dict)
    summary: dict[str, float | None] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    cost: RunCost | None = None
    """Tokens and dollars (`bfcl_action.core.cost`); dollars only where `pricing:` has the model."""
    shard: str = ""
    """`i/n` when this report holds one shard of a run (`run --shard`); empty otherwise."""
    requests: RequestCounts | None = None
    """What this run asked the model and reused from the cache (None: not recorded)."""
