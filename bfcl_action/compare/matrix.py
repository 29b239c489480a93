"""A model matrix compared with its baselines: one `Comparison` per model, one verdict.

Each model of a `models:` matrix (docs/model-matrix.md) is compared with *its own* baseline
(the digest of the same label on the merge-base, `pick_baseline`), so adding a model, or one
model regressing, moves only that model's row. The matrix verdict is the worst verdict of
the models that gate the check; an `informational` model is reported, never gating. Pure:
the GitHub side (`github/activities.py`) finds the baselines and publishes.
One model without `models:` is a matrix of one entry without a label
(`MatrixComparison.single`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from bfcl_action.compare.runs import Comparison, Verdict
from bfcl_action.core.records import RunReport
from bfcl_action.results.digest import RunDigest

_ORDER = (
    Verdict.REGRESSION,
    Verdict.IMPROVEMENT,
    Verdict.UNCHANGED,
    Verdict.INCOMPARABLE,
    Verdict.NO_BASELINE,
)
"""Which model's verdict speaks for the matrix: the first found in this order."""


class MatrixEntry(BaseModel):
    """One model of the matrix with its comparison against its own baseline."""

    label: str
    model: str
    mode: str
    informational: bool = False
    comparison: Comparison


class MatrixComparison(BaseModel):
    """Every model's comparison, in matrix order."""

    entries: list[MatrixEntry] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @property
    def single(self) -> Comparison | None:
        """The comparison of a run of one model without `models:` (shown in the
        single-model layout: comment, check run, summary, outputs); None for a matrix,
        even a matrix of one entry (a label keeps its layout)."""
        if len(self.entries) == 1 and not self.entries[0].label:
            return self.entries[0].comparison
        return None

    @property
    def gating(self) -> list[MatrixEntry]:
        """The entries whose verdict decides the check (all, when every one is
        informational: the verdict still says what happened)."""
        return [e for e in self.entries if not e.informational] or list(self.entries)

    @property
    def verdict(self) -> Verdict:
        found = {e.comparison.verdict for e in self.gating}
        for verdict in _ORDER:
            if verdict in found:
                return verdict
        return next(iter(found), Verdict.NO_BASELINE)

    @property
    def fails(self) -> bool:
        return any(e.comparison.fails for e in self.entries if not e.informational)

    @property
    def exit_code(self) -> int:
        return 1 if self.fails else 0


def pick_baseline(
    baselines: Sequence[RunDigest | RunReport], label: str, model: str
) -> tuple[RunDigest | RunReport | None, str]:
    """The baseline of matrix entry `label`: the one carrying that label; else, when the
    base ran a single model (no label) and it is this entry's model, that run (so adding
    a matrix to a repository keeps the old baseline for the model it already had). The
    second value says which, for the comment's notes.

    The one model of a run without `models:` (empty `label`) takes the unlabelled
    baseline, else the one of the same model (a base that ran a matrix), else the last."""
    if not label:
        unlabelled = [b for b in baselines if not b.label]
        same_model = [b for b in baselines if b.model == model]
        pool = unlabelled or same_model or list(baselines)
        return (pool[-1], "") if pool else (None, "")
    for base in baselines:
        if base.label == label:
            return base, f"its {label} run"
    unlabelled = [b for b in baselines if not b.label]
    if len(unlabelled) == 1 and unlabelled[0].model == model:
        return unlabelled[0], "the single-model run of the same model"
    return None, "none for this model yet"


__all__ = ["MatrixComparison", "MatrixEntry", "pick_baseline"]
