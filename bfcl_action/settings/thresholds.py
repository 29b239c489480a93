"""When a comparison fails the check: the one `Thresholds` model and its one lookup rule.

The same model is the `thresholds:` section of `.bfcl.yml`, what `bfcl-action compare` flags
and the Action's `thresholds` input override
(`bfcl_action.settings.resolve.resolve_thresholds`), and what `bfcl_action.compare.runs` judges
with. Scores are percentages (0-100). A suite fails when its accuracy dropped by more than
`max_drop` points *and* the drop is significant at level `alpha`, or when it is below
`min_score`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo
from rapidfuzz import process

from bfcl_action.core.categories import CATEGORIES, Group

OVERALL = "overall"
"""The pooled row of a comparison; it always uses the global values."""
STRICT_KEYS = "strict_category_keys"
"""Validation-context flag: `.bfcl.yml` keys must name a category, group or suite label."""
DISTRACTOR_SUITE = re.compile(r"^own_distractors_k\d+$")


def _check_category_key(key: str, info: ValidationInfo) -> str:
    """In `.bfcl.yml` a key is a category, a group, or a reported suite label (a typo is an
    error with a suggestion); a flag or an Action input may name any reported suite."""
    if not (info.context or {}).get(STRICT_KEYS):
        return key
    groups = {g.value for g in Group}
    last = re.split(r"[/:]", key)[-1]
    if key in CATEGORIES or key in groups or last in CATEGORIES or DISTRACTOR_SUITE.match(key):
        return key
    near = process.extractOne(key, [*CATEGORIES, *groups])
    hint = f"; did you mean {near[0]!r}?" if near and near[1] >= 70 else ""
    raise ValueError(f"unknown category or suite {key!r}{hint}")


CategoryKey = Annotated[str, AfterValidator(_check_category_key)]
"""A key of `thresholds.categories` / `weights`."""


class CategoryThreshold(BaseModel):
    """Overrides for one suite, category or group; unset fields fall back to the global ones."""

    model_config = ConfigDict(extra="forbid")

    max_drop: float | None = Field(default=None, ge=0, le=100)
    alpha: float | None = Field(default=None, gt=0, lt=1)
    min_score: float | None = Field(default=None, ge=0, le=100)


class ResolvedThreshold(BaseModel):
    """The rule that applies to one row of a comparison."""

    model_config = ConfigDict(frozen=True)

    max_drop: float
    alpha: float
    min_score: float | None
    keys: dict[str, str] = Field(default_factory=dict, exclude=True)
    """Per field set by a `categories` entry, that entry's key (a field absent here has the
    global value): what the verdict line names as a per-category threshold."""


class Thresholds(BaseModel):
    """Global values, per-key overrides, and informational mode.

    A row's value is looked up field by field in its suite label's entry, then its
    category's, then the category's group's (`non_live`, `live`, `hallucination`,
    `multi_turn`, `own`), then the global value. The global `min_score` is the floor of the
    overall score and of every suite without its own. In `informational` mode the verdict is
    still computed but never fails the check.
    """

    model_config = ConfigDict(extra="forbid")

    max_drop: float = Field(default=2.0, ge=0, le=100)
    alpha: float = Field(default=0.05, gt=0, lt=1)
    min_score: float | None = Field(default=None, ge=0, le=100)
    categories: dict[CategoryKey, CategoryThreshold] = Field(default_factory=dict)
    informational: bool = False

    def for_category(self, suite: str, category: str | None = None) -> ResolvedThreshold:
        """The rule for a reported suite (the one lookup rule; see the class docstring)."""
        picked: list[tuple[str, CategoryThreshold]] = []
        if suite != OVERALL:
            cat = CATEGORIES.get(category or suite)
            keys = (suite, category, cat.group.value if cat is not None else None)
            for key in dict.fromkeys(keys):
                if key and key in self.categories:
                    picked.append((key, self.categories[key]))
        found: dict[str, str] = {}

        def first(name: str, default: Any) -> Any:
            for key, entry in picked:
                value = getattr(entry, name)
                if value is not None:
                    found[name] = key
                    return value
            return default

        return ResolvedThreshold(
            max_drop=float(first("max_drop", self.max_drop)),
            alpha=float(first("alpha", self.alpha)),
            min_score=first("min_score", self.min_score),
            keys=found,
        )

    def max_drop_for(self, suite: str, category: str) -> float:
        return self.for_category(suite, category).max_drop

    def alpha_for(self, suite: str, category: str) -> float:
        return self.for_category(suite, category).alpha

    def min_score_for(self, suite: str, category: str) -> float | None:
        return self.for_category(suite, category).min_score

    def overridden(self, *fields: str) -> bool:
        """Whether some suite, category or group has its own value for one of `fields`."""
        return any(getattr(e, f) is not None for e in self.categories.values() for f in fields)

    def with_overrides(self, overrides: ThresholdOverrides) -> Thresholds:
        """These thresholds with `overrides` on top (per-key entries merged field by field)."""
        data = self.model_dump()
        for name in ("max_drop", "alpha", "min_score"):
            value = getattr(overrides, name)
            if value is not None:
                data[name] = value
        if overrides.informational:
            data["informational"] = True
        for key, entry in overrides.categories.items():
            merged = dict(data["categories"].get(key) or {})
            merged.update({k: v for k, v in entry.model_dump().items() if v is not None})
            data["categories"][key] = merged
        return Thresholds.model_validate(data)


class ThresholdOverrides(BaseModel):
    """What a command line or the Action's `thresholds` input sets; None keeps the value
    below it (`.bfcl.yml`, then the defaults)."""

    model_config = ConfigDict(extra="forbid")

    max_drop: float | None = Field(default=None, ge=0, le=100)
    alpha: float | None = Field(default=None, gt=0, lt=1)
    min_score: float | None = Field(default=None, ge=0, le=100)
    categories: dict[str, CategoryThreshold] = Field(default_factory=dict)
    informational: bool = False
