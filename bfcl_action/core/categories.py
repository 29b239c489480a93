"""The one table that says how each category is checked, in which language, and where it
counts on the leaderboard.

Each row also carries what modules used to re-derive from the name: the leaderboard
summary column it feeds (`column`), BFCL's result folder (`directory`), whether it is a
conversation (`multi_turn`) and whether it belongs to the Live set (`LIVE_CATEGORIES`).

Nothing else in the code may branch on substrings of a category name: look the category up
here. Upstream BFCL decides by name ("parallel" -> order-free matching, "multiple" -> one of
several functions); the `matching` column records the outcome of that rule per category.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import Language


class Checker(StrEnum):
    AST = "ast"
    IRRELEVANCE = "irrelevance"
    RELEVANCE = "relevance"
    MULTI_TURN = "multi_turn"
    AGENTIC = "agentic"
    """The final answer must contain an expected text (web search, memory)."""


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
    AGENTIC = "agentic"
    FORMAT_SENSITIVITY = "format_sensitivity"
    OWN = "own"


class Column(StrEnum):
    """The leaderboard summary column a category's accuracy feeds (`scoring` combines them)."""

    NON_LIVE_SIMPLE_AST = "non_live_simple_ast"
    """Averaged into `non_live_ast` with the other non-live AST categories."""
    NON_LIVE_AST = "non_live_ast"
    LIVE_AST = "live_ast"
    IRRELEVANCE = "irrelevance"
    RELEVANCE = "relevance"
    MULTI_TURN = "multi_turn"
    WEB_SEARCH = "web_search"
    MEMORY = "memory"
    FORMAT_SENSITIVITY = "format_sensitivity"
    """Reported beside the leaderboard, never part of Overall Acc."""
    OWN = "own"


class Directory(StrEnum):
    """BFCL's folder for a category's result and score files (ours: `own`)."""

    NON_LIVE = "non_live"
    LIVE = "live"
    MULTI_TURN = "multi_turn"
    AGENTIC = "agentic"
    FORMAT_SENSITIVITY = "format_sensitivity"
    OWN = "own"


class Category(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    checker: Checker
    matching: Matching = Matching.SIMPLE
    language: Language = Language.PYTHON
    group: Group
    column: Column
    directory: Directory
    official: bool = True
    """Part of BFCL's own data (loadable with `--dataset bfcl@<version>`)."""
    data_file: str = ""
    """BFCL's data file stem when several categories share one (`web_search` for both web
    search categories, `memory` for the three memory backends); empty: the category's name.
    The shared file's ids are rewritten to the category's (`web_search_3` ->
    `web_search_base_3`), as bfcl-eval does."""
    subfolder: str = ""
    """Folder below `directory` for result and score files (`memory/kv`)."""
    prompt_variants: bool = False
    """Each case re-asks an entry of another category under one of BFCL's prompt
    configurations (format sensitivity); its id names both (`checker.variants`), and the
    entry's own category decides how it is matched."""

    @property
    def multi_turn(self) -> bool:
        """A conversation, checked turn by turn (never one decoded answer)."""
        return self.checker is Checker.MULTI_TURN

    @property
    def agentic(self) -> bool:
        """Scored from result files only: running it needs a search or memory backend."""
        return self.checker is Checker.AGENTIC

    @property
    def folder(self) -> str:
        """BFCL's folder for the category's result and score files (`agentic/memory/kv`)."""
        return (
            f"{self.directory.value}/{self.subfolder}" if self.subfolder else self.directory.value
        )

    @property
    def live(self) -> bool:
        """Part of the Live set (BFCL's and ours under `data/live/`)."""
        return self.directory is Directory.LIVE


def _c(
    name: str,
    checker: Checker,
    group: Group,
    matching: Matching = Matching.SIMPLE,
    language: Language = Language.PYTHON,
    official: bool = True,
    *,
    column: Column,
    directory: Directory,
    data_file: str = "",
    subfolder: str = "",
    prompt_variants: bool = False,
) -> Category:
    return Category(
        name=name,
        checker=checker,
        matching=matching,
        language=language,
        group=group,
        column=column,
        directory=directory,
        official=official,
        data_file=data_file,
        subfolder=subfolder,
        prompt_variants=prompt_variants,
    )


_A, _IRR, _REL, _MT = Checker.AST, Checker.IRRELEVANCE, Checker.RELEVANCE, Checker.MULTI_TURN
_AG, _AGG, _AGD = Checker.AGENTIC, Group.AGENTIC, Directory.AGENTIC
_S, _M, _P = Matching.SIMPLE, Matching.MULTIPLE, Matching.PARALLEL
_NL, _L, _H = Group.NON_LIVE, Group.LIVE, Group.HALLUCINATION
_MTG, _OWN = Group.MULTI_TURN, Group.OWN
_JS = Language.JAVASCRIPT
_SIMPLE_COL, _NL_COL, _L_COL = Column.NON_LIVE_SIMPLE_AST, Column.NON_LIVE_AST, Column.LIVE_AST
_IRR_COL, _MT_COL = Column.IRRELEVANCE, Column.MULTI_TURN
_NLD, _LD, _MTD = Directory.NON_LIVE, Directory.LIVE, Directory.MULTI_TURN
_OWN_COL, _OWND = Column.OWN, Directory.OWN

CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in [
        _c("simple_python", _A, _NL, _S, column=_SIMPLE_COL, directory=_NLD),
        _c("simple_java", _A, _NL, _S, Language.JAVA, column=_SIMPLE_COL, directory=_NLD),
        _c("simple_javascript", _A, _NL, _S, _JS, column=_SIMPLE_COL, directory=_NLD),
        _c("multiple", _A, _NL, _M, column=_NL_COL, directory=_NLD),
        _c("parallel", _A, _NL, _P, column=_NL_COL, directory=_NLD),
        _c("parallel_multiple", _A, _NL, _P, column=_NL_COL, directory=_NLD),
        _c("irrelevance", _IRR, _H, column=_IRR_COL, directory=_NLD),
        _c("live_simple", _A, _L, _S, column=_L_COL, directory=_LD),
        _c("live_multiple", _A, _L, _M, column=_L_COL, directory=_LD),
        _c("live_parallel", _A, _L, _P, column=_L_COL, directory=_LD),
        _c("live_parallel_multiple", _A, _L, _P, column=_L_COL, directory=_LD),
        _c("live_irrelevance", _IRR, _H, column=_IRR_COL, directory=_LD),
        _c("live_relevance", _REL, _H, column=Column.RELEVANCE, directory=_LD),
        _c("multi_turn_base", _MT, _MTG, column=_MT_COL, directory=_MTD),
        _c("multi_turn_miss_func", _MT, _MTG, column=_MT_COL, directory=_MTD),
        _c("multi_turn_miss_param", _MT, _MTG, column=_MT_COL, directory=_MTD),
        _c("multi_turn_long_context", _MT, _MTG, column=_MT_COL, directory=_MTD),
        # BFCL v4's agentic categories: scored from result files (`bfcl-action score`).
        *(
            _c(name, _AG, _AGG, column=Column.WEB_SEARCH, directory=_AGD, data_file="web_search")
            for name in ("web_search_base", "web_search_no_snippet")
        ),
        *(
            _c(
                f"memory_{backend}",
                _AG,
                _AGG,
                column=Column.MEMORY,
                directory=_AGD,
                data_file="memory",
                subfolder=f"memory/{backend}",
            )
            for backend in ("kv", "vector", "rec_sum")
        ),
        # BFCL v4's format sensitivity: 200 entries x 26 prompt configurations, prompt mode.
        _c(
            "format_sensitivity",
            _A,
            Group.FORMAT_SENSITIVITY,
            column=Column.FORMAT_SENSITIVITY,
            directory=Directory.FORMAT_SENSITIVITY,
            prompt_variants=True,
        ),
        # A repository's own tools and cases (`.bfcl.yml`): same checkers, own column group.
        _c("own_simple", _A, _OWN, _S, official=False, column=_OWN_COL, directory=_OWND),
        _c("own_multiple", _A, _OWN, _M, official=False, column=_OWN_COL, directory=_OWND),
        _c("own_parallel", _A, _OWN, _P, official=False, column=_OWN_COL, directory=_OWND),
        _c("own_parallel_multiple", _A, _OWN, _P, official=False, column=_OWN_COL, directory=_OWND),
        _c("own_irrelevance", _IRR, _OWN, official=False, column=_OWN_COL, directory=_OWND),
        _c("own_relevance", _REL, _OWN, official=False, column=_OWN_COL, directory=_OWND),
        _c("own_distractors", _A, _OWN, _M, official=False, column=_OWN_COL, directory=_OWND),
        _c("own_multi_turn", _MT, _OWN, official=False, column=_OWN_COL, directory=_OWND),
    ]
}

SINGLE_TURN_OFFICIAL = [
    c.name
    for c in CATEGORIES.values()
    if c.official and not c.multi_turn and not c.agentic and not c.prompt_variants
]
"""The official categories `--dataset bfcl@<version>` loads for single-turn evaluation."""

AGENTIC_OFFICIAL = [c.name for c in CATEGORIES.values() if c.agentic]
FORMAT_SENSITIVITY = "format_sensitivity"
"""BFCL v4's format-sensitivity category: loaded only when named (5,200 prompt-mode cases);
`run` asks it in prompt mode with each configuration's system prompt, `score` reads its
result files."""
"""BFCL v4's agentic categories: `score` reads their result files; `run` cannot ask them yet
(they need a search backend or a memory backend), and says so."""

MULTI_TURN_OFFICIAL = [c.name for c in CATEGORIES.values() if c.official and c.multi_turn]
"""BFCL's multi-turn categories (`--dataset bfcl@<version>` with multi-turn enabled)."""

NOT_SCORED: dict[str, str] = {
    name: "retired upstream (bfcl-eval does not score it either)"
    for name in (
        "exec_simple",
        "exec_multiple",
        "exec_parallel",
        "exec_parallel_multiple",
        "rest",
        "sql",
        "chatable",
    )
}
"""Categories of BFCL's data that bfcl-action does not score, with the reason it says."""

LIVE_CATEGORIES = tuple(c.name for c in CATEGORIES.values() if c.live)
"""The categories a Live release may hold (BFCL's Live set and ours under `data/live/`)."""


def columns_of(column: Column) -> list[str]:
    """The categories feeding one leaderboard summary column, in table order."""
    return [c.name for c in CATEGORIES.values() if c.column is column]


def is_multi_turn(name: str) -> bool:
    """Whether a category name is a conversation category (unknown names are not)."""
    category = CATEGORIES.get(name)
    return category is not None and category.multi_turn


SELECTION_GROUPS: dict[str, str] = {
    "all": "every category of the selected data (multi-turn only when named)",
    "own": "every own category: your cases and the derived suites",
    "official": "every official BFCL single-turn category",
    Group.NON_LIVE.value: "BFCL's non-live AST categories (simple, multiple, parallel, ...)",
    Group.LIVE.value: "the Live AST categories (live_simple, live_multiple, ...)",
    Group.HALLUCINATION.value: "irrelevance and relevance (official and Live)",
    Group.MULTI_TURN.value: "the official multi-turn categories",
    Group.AGENTIC.value: "BFCL v4's web search and memory categories (scored from result files)",
}
"""Names that select several categories, with what they select (`bfcl-action categories`)."""

DISTRACTOR_SUITE = re.compile(r"own_distractors_k\d+")
"""Suite labels of the distractor suite, one per k (`own_distractors_k4`)."""


def group_members(group: str) -> list[str]:
    """The categories a selection group names, in table order."""
    if group == "all":
        return [
            n
            for n, c in CATEGORIES.items()
            if not c.multi_turn and not c.agentic and not c.prompt_variants
        ]
    if group == "official":
        return list(SINGLE_TURN_OFFICIAL)
    return [n for n, c in CATEGORIES.items() if c.group.value == group]


def selection_names() -> list[str]:
    """Every name a category selection accepts: categories, then groups."""
    return [*CATEGORIES, *SELECTION_GROUPS]


def did_you_mean(name: str, candidates: Sequence[str]) -> str:
    """`; did you mean 'x'?` for the closest candidates, or nothing."""
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def unknown_category(name: str, field: str | None = None) -> ConfigError:
    """The error for a name that is neither a category nor a group, with a did-you-mean."""
    hint = did_you_mean(name, selection_names())
    return ConfigError(
        f"unknown category {name!r}{hint} (`bfcl-action categories` lists every name)",
        field=field,
    )


def expand_categories(names: Sequence[str], *, field: str | None = "categories") -> list[str]:
    """Categories and suite labels a selection names, groups expanded, order kept.

    Never drops a name silently: an unknown one is a `ConfigError` naming the closest valid
    names.
    """
    out: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        if name in SELECTION_GROUPS:
            picked = group_members(name)
        elif name in CATEGORIES or DISTRACTOR_SUITE.fullmatch(name):
            picked = [name]
        else:
            raise unknown_category(name, field)
        out.extend(p for p in picked if p not in out)
    return out


def get_category(name: str) -> Category:
    """Look a category up; an unknown name is a user error with a did-you-mean."""
    try:
        return CATEGORIES[name]
    except KeyError:
        raise unknown_category(name) from None


def parse_categories(spec: str | None, available: list[str]) -> list[str]:
    """Expand a comma list (`simple_python,live` or `all`) against the available categories.

    Group names (`non_live`, `live`, `hallucination`, `multi_turn`, `own`, `official`) select
    every available category of that group.
    """
    if not spec or spec.strip() in {"all", ""}:
        return list(available)
    chosen: list[str] = []
    groups = {g.value for g in Group} | {"official"}
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            continue
        if item in groups:
            members = set(group_members(item))
            picked = [n for n in available if n in members]
        else:
            known = get_category(item)
            if item not in available and known.agentic and known.official:
                backend = (
                    "a search backend"
                    if known.column is Column.WEB_SEARCH
                    else ("a memory backend")
                )
                raise ConfigError(
                    f"category {item!r} is in BFCL's data but bfcl-action does not run it yet "
                    f"(it needs {backend}); `bfcl-action score` scores its BFCL result files",
                    field="categories",
                )
            if item not in available:
                raise ConfigError(
                    f"category {item!r} is not in the selected dataset(s); "
                    f"available: {', '.join(available)}",
                    field="categories",
                )
            picked = [item]
        chosen.extend(p for p in picked if p not in chosen)
    return chosen


def natural_key(label: str) -> list[tuple[int, int | str]]:
    """Numbers inside a label sort as numbers: `own_distractors_k4` before `_k16`."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", label)]
