"""The one table that says how each category is checked, in which language, and where it
counts on the leaderboard.

Nothing else in the code may branch on substrings of a category name: look the category up
here. Upstream BFCL decides by name ("parallel" -> order-free matching, "multiple" -> one of
several functions); the `matching` column records the outcome of that rule per category.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from bfcl_action.errors import ConfigError
from bfcl_action.models import Language


class Checker(StrEnum):
    AST = "ast"
    IRRELEVANCE = "irrelevance"
    RELEVANCE = "relevance"
    MULTI_TURN = "multi_turn"


class Matching(StrEnum):
    """How many calls are expected and whether their order matters (AST categories)."""

    SIMPLE = "simple"
    MULTIPLE = "multiple"
    PARALLEL = "parallel"


class Group(StrEnum):
    """Leaderboard column group the category feeds."""

    NON_LIVE = "non_live"
    LIVE = "live"
    HALLUCINATION = "hallucination"
    MULTI_TURN = "multi_turn"
    OWN = "own"


class Category(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    checker: Checker
    matching: Matching = Matching.SIMPLE
    language: Language = Language.PYTHON
    group: Group
    official: bool = True
    """Part of BFCL's own data (loadable with `--dataset bfcl@<version>`)."""


def _c(
    name: str,
    checker: Checker,
    group: Group,
    matching: Matching = Matching.SIMPLE,
    language: Language = Language.PYTHON,
    official: bool = True,
) -> Category:
    return Category(
        name=name,
        checker=checker,
        matching=matching,
        language=language,
        group=group,
        official=official,
    )


_A, _IRR, _REL, _MT = Checker.AST, Checker.IRRELEVANCE, Checker.RELEVANCE, Checker.MULTI_TURN
_S, _M, _P = Matching.SIMPLE, Matching.MULTIPLE, Matching.PARALLEL
_NL, _L, _H = Group.NON_LIVE, Group.LIVE, Group.HALLUCINATION
_MTG, _OWN = Group.MULTI_TURN, Group.OWN

CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in [
        _c("simple_python", _A, _NL, _S),
        _c("simple_java", _A, _NL, _S, Language.JAVA),
        _c("simple_javascript", _A, _NL, _S, Language.JAVASCRIPT),
        _c("multiple", _A, _NL, _M),
        _c("parallel", _A, _NL, _P),
        _c("parallel_multiple", _A, _NL, _P),
        _c("irrelevance", _IRR, _H),
        _c("live_simple", _A, _L, _S),
        _c("live_multiple", _A, _L, _M),
        _c("live_parallel", _A, _L, _P),
        _c("live_parallel_multiple", _A, _L, _P),
        _c("live_irrelevance", _IRR, _H),
        _c("live_relevance", _REL, _H),
        _c("multi_turn_base", _MT, _MTG),
        _c("multi_turn_miss_func", _MT, _MTG),
        _c("multi_turn_miss_param", _MT, _MTG),
        _c("multi_turn_long_context", _MT, _MTG),
        # A repository's own tools and cases (`.bfcl.yml`): same checkers, own column group.
        _c("own_simple", _A, _OWN, _S, official=False),
        _c("own_multiple", _A, _OWN, _M, official=False),
        _c("own_parallel", _A, _OWN, _P, official=False),
        _c("own_parallel_multiple", _A, _OWN, _P, official=False),
        _c("own_irrelevance", _IRR, _OWN, official=False),
        _c("own_relevance", _REL, _OWN, official=False),
        _c("own_distractors", _A, _OWN, _M, official=False),
        _c("own_multi_turn", _MT, _OWN, official=False),
    ]
}

SINGLE_TURN_OFFICIAL = [
    c.name for c in CATEGORIES.values() if c.official and c.checker is not Checker.MULTI_TURN
]
"""The official categories `--dataset bfcl@<version>` loads for single-turn evaluation."""


def get_category(name: str) -> Category:
    """Look a category up; an unknown name is a user error that lists the known ones."""
    try:
        return CATEGORIES[name]
    except KeyError:
        known = ", ".join(sorted(CATEGORIES))
        raise ConfigError(f"unknown category {name!r}; known categories: {known}") from None


def parse_categories(spec: str | None, available: list[str]) -> list[str]:
    """Expand a comma list (`simple_python,live` or `all`) against the available categories.

    Group names (`non_live`, `live`, `hallucination`, `multi_turn`, `own`) select every
    available category of that group.
    """
    if not spec or spec.strip() in {"all", ""}:
        return list(available)
    chosen: list[str] = []
    groups = {g.value for g in Group}
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            continue
        if item in groups:
            picked = [n for n in available if CATEGORIES[n].group.value == item]
        else:
            get_category(item)
            if item not in available:
                raise ConfigError(
                    f"category {item!r} is not in the selected dataset(s); "
                    f"available: {', '.join(available)}",
                    field="categories",
                )
            picked = [item]
        chosen.extend(p for p in picked if p not in chosen)
    return chosen
