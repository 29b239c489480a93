"""Every case a `.bfcl.yml` asks for: own cases, derived suites, official and Live sets.

Derived suites are what make a repository's own tools testable beyond hand-written cases:

- `own_irrelevance` (derived): questions from the official and Live irrelevance pools, asked
  with *your* tools; correct iff the model makes no call. Questions lexically close to one of
  your tools (rapidfuzz token-set ratio over name and description, content words only), or
  that may be answerable in any language (`bfcl_action.cases.relevance`: shared CJK character
  bigrams, shared multilingual concepts such as weather or routes) are dropped; ids can be
  excluded in the config.
- `own_distractors`: each own simple case re-asked with k extra functions drawn from the pools
  (k from `derived.distractors.k`), pool functions near-duplicating one of your tools excluded.
  Reported per k (`own_distractors_k4`, ...): accuracy against the number of tools offered.

Every sample is fixed by `config.seed` and drawn per case (rendezvous ranking, `rank`): a
derived case depends only on the seed, its own identity and the tools *it* offers, so editing
one tool changes exactly the derived cases that offer it, and the same config and pools give
the same cases, ids and function order on every machine. Pools come from a `CaseSource`,
injectable for tests.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError
from rapidfuzz import fuzz, process

from bfcl_action.cases.own import load_cases
from bfcl_action.cases.relevance import bigrams, character_overlap, concepts, tool_text
from bfcl_action.core.categories import (
    CATEGORIES,
    MULTI_TURN_OFFICIAL,
    NOT_RUN,
    Checker,
    is_conversation,
    parse_categories,
)
from bfcl_action.core.errors import ConfigError, DatasetError, LiveUnavailable
from bfcl_action.core.fingerprint import sha256_hex
from bfcl_action.core.records import ExecutionData, FunctionDoc, Message, SourceLocation, TestCase
from bfcl_action.dataset import dataset_categories, load_dataset, load_pool_entries
from bfcl_action.dataset.bfcl_format import PoolEntry, PoolFunction, entry_functions
from bfcl_action.safety.globs import glob_files
from bfcl_action.settings.config import BfclConfig
from bfcl_action.tools.configured import load_configured
from bfcl_action.tools.load import ToolSet
from bfcl_action.tools.source import parse_jsonl
from bfcl_action.tools.validate import mapped_name

log = logging.getLogger(__name__)

_STOPWORDS = """
a an and are as at be between by can could do does for from get give has have how i in into
is it its like me more my of on or please set show tell than that the then there these this
those to use was were what when where which who will with would you your been
"""
STOPWORDS = frozenset(_STOPWORDS.split())


class CaseSource(Protocol):
    """Where official, Live and pool cases come from (a dataset spec or a local file)."""

    def categories(self, spec: str) -> list[str]: ...

    def load(self, spec: str, categories: Sequence[str] | None = None) -> list[TestCase]: ...

    def pool_entries(self, spec: str, categories: Sequence[str]) -> list[PoolEntry]:
        """The entries of those categories, in the compact form the derived suites' pools
        read (no case built per entry)."""
        ...


class DatasetSource:
    """The default source: local BFCL JSONL files (relative to the config), else datasets.

    Dataset specs (`bfcl@2026.3.23`, `live@latest`) go to `bfcl_action.dataset`, imported
    only when a spec needs it. Each pool (a dataset's category, a local file by its resolved
    path) and each official or Live suite is parsed once per source and kept: the
    irrelevance and distractor pools share their files, and `at` hands what was parsed to the
    source of another tree of the same run (the merge-base's cases beside the head's).
    Memory is bounded by the pools and suites the configs name; a new source starts empty,
    so nothing outlives the run that made it.
    """

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        self._files: dict[Path, list[TestCase]] = {}
        self._entries: dict[tuple[str, str], list[PoolEntry]] = {}
        self._datasets: dict[str, list[str] | LiveUnavailable] = {}
        self._loaded: dict[tuple[str, tuple[str, ...] | None], list[TestCase]] = {}

    def at(self, base_dir: Path) -> DatasetSource:
        """A source for the config directory `base_dir` sharing the pools and datasets
        parsed so far (and from now on) with this one."""
        other = DatasetSource(base_dir)
        other._files = self._files
        other._entries = self._entries
        other._datasets = self._datasets
        other._loaded = self._loaded
        return other

    def _local(self, spec: str) -> list[TestCase] | None:
        path = self.base_dir / spec
        if not path.is_file():
            return None
        key = path.resolve()
        if key not in self._files:
            self._files[key] = read_pool_file(path, spec)
        return self._files[key]

    def categories(self, spec: str) -> list[str]:
        """A dataset's categories, asked once per source: a Live release that cannot be had
        (its wheel not downloadable here) is tried once, not once per pool and tree."""
        local = self._local(spec)
        if local is not None:
            return sorted({c.category for c in local})
        known = self._datasets.get(spec)
        if known is None:
            try:
                known = list(dataset_categories(spec))
            except LiveUnavailable as exc:
                known = exc
            self._datasets[spec] = known
        if isinstance(known, LiveUnavailable):
            raise known
        return list(known)

    def load(self, spec: str, categories: Sequence[str] | None = None) -> list[TestCase]:
        """A dataset's cases of `categories`, parsed once per source (the official and Live
        suites of both trees `impact` builds); the cases are shared, never changed."""
        local = self._local(spec)
        if local is not None:
            return [c for c in local if categories is None or c.category in categories]
        key = (spec, None if categories is None else tuple(categories))
        if key not in self._loaded:
            self._loaded[key] = list(load_dataset(spec, categories))
        return list(self._loaded[key])

    def pool_entries(self, spec: str, categories: Sequence[str]) -> list[PoolEntry]:
        local = self._local(spec)
        if local is not None:
            return compact_entries(c for c in local if c.category in categories)
        out: list[PoolEntry] = []
        for category in categories:
            key = (spec, category)
            if key not in self._entries:
                self._entries[key] = load_pool_entries(spec, [category])
            out.extend(self._entries[key])
        return out


def compact_entries(cases: Iterable[TestCase]) -> list[PoolEntry]:
    """Cases in the compact pool form (already validated)."""
    return [PoolEntry(c.id, c.question, list(c.functions), "", 0, c.source) for c in cases]


def compact_functions(cases: Iterable[TestCase]) -> list[PoolFunction]:
    """Cases' functions in the compact pool form (already validated)."""
    return entry_functions(compact_entries(cases))


def _category_of(entry: dict[str, Any]) -> str:
    given = entry.get("category")
    if isinstance(given, str) and given in CATEGORIES:
        return given
    ident = str(entry.get("id", ""))
    matches = [c for c in CATEGORIES if ident.startswith(c + "_")]
    return max(matches, key=len) if matches else "irrelevance"


def read_pool_file(path: Path, display: str) -> list[TestCase]:
    """A BFCL-style JSONL file (`id`, `question`, `function`) as pool cases.

    The category is the entry's `category`, else the BFCL id prefix (`live_irrelevance_3-0-1`),
    else `irrelevance`.
    """
    try:
        doc = parse_jsonl(path.read_text(encoding="utf-8"), display)
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read pool file: {exc}", file=display) from None
    out: list[TestCase] = []
    for index, entry in enumerate(doc.data):
        line = index + 1
        if not isinstance(entry, dict) or "id" not in entry or "question" not in entry:
            raise DatasetError(
                "invalid pool entry: expected an object with id, question and function",
                file=display,
                line=(doc.where((index,)) or (line, 1))[0],
            )
        data = dict(entry)
        data["functions"] = data.pop("function", [])
        data["category"] = _category_of(entry)
        data.setdefault("dataset", display)
        question = data["question"]
        if isinstance(question, str):
            data["question"] = [[{"role": "user", "content": question}]]
        out.append(TestCase.model_validate(data))
    return out


# ---------------------------------------------------------------------- closeness

_GENERIC_WORDS = """
about active after all any city current data date day days description details e.g each find
free given id information issued list matching name names now number optional provide query
request result results return returns right text their time today using value values via
"""
GENERIC_WORDS = frozenset(_GENERIC_WORDS.split())
"""Words so common in tool descriptions that sharing one says nothing about relevance."""


def _words(text: str) -> list[str]:
    tokens = re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower())
    return [t for t in tokens if t not in STOPWORDS and len(t) > 1]


def _name_words(name: str) -> str:
    return " ".join(_words(name.replace("_", " ").replace(".", " ")))


def tool_vocabulary(fn: FunctionDoc) -> list[str]:
    """Distinctive words of a tool's name and description (generic words left out)."""
    words = _words(fn.name.replace("_", " ").replace(".", " ") + " " + fn.description)
    return sorted({w for w in words if w not in GENERIC_WORDS and len(w) > 2})


def _user_text(messages: Sequence[Message]) -> str:
    return " ".join(m.content or "" for m in messages if m.role == "user")


def question_words(text: str) -> list[str]:
    """Distinctive words of a question's user text (generic words left out)."""
    return [w for w in _words(text) if w not in GENERIC_WORDS and len(w) > 2]


def closeness(words: Sequence[str], vocabulary: Sequence[str]) -> float:
    """0-100: the best rapidfuzz ratio between a question word and a tool word.

    One shared distinctive word ("forecast", "pollen") is enough to make a question possibly
    answerable by the tool, so the maximum, not an average, decides.
    """
    best = 0.0
    for word in words:
        hit = process.extractOne(word, vocabulary, scorer=fuzz.ratio)
        if hit is not None:
            best = max(best, float(hit[1]))
    return best


def function_closeness(a: FunctionDoc, b: FunctionDoc) -> float:
    """0-100: how close two function definitions are.

    The token-set ratio of the name words (100 when one name's words contain the other's, as
    `get_weather_forecast` and `get_forecast`) or of names plus descriptions, whichever is
    higher.
    """
    names = fuzz.token_set_ratio(_name_words(a.name), _name_words(b.name))
    texts = fuzz.token_set_ratio(" ".join(tool_vocabulary(a)), " ".join(tool_vocabulary(b)))
    return float(max(names, texts))


# ---------------------------------------------------------------------- derived


def rank(*parts: object) -> str:
    """A stable pseudo-random rank for one (seed, purpose, case, item) tuple.

    Rendezvous selection: each candidate's rank depends on the candidate and the case it is
    drawn for, never on the other candidates, so adding, removing or editing one candidate
    moves no other one, and a draw is the same on every machine (sha256, not `hash()`).
    """
    return sha256_hex("\x1f".join(str(p) for p in parts))


def derive_irrelevance(
    tools: Sequence[FunctionDoc],
    pool: Sequence[PoolEntry],
    *,
    count: int,
    seed: int,
    max_similarity: float,
    exclude_ids: Sequence[str] = (),
) -> list[TestCase]:
    """`count` pool questions asked with `tools`; none close to a tool.

    Each question's place in the draw is `rank(seed, question id)`, a function of that
    question alone; the `count` best-ranked single-turn questions that are not close to one
    of the offered tools are asked. Editing a tool can only swap out the questions that
    become (or stop being) close to it; every other question stays. A question is close when
    one of its content words has a rapidfuzz ratio of at least `max_similarity` with a
    distinctive word of a tool's name or description.

    The pool is read in its compact form: only the questions the draw looks at are
    validated, and a case is built only for those asked.
    """
    vocabularies = [tool_vocabulary(t) for t in tools]
    texts = [tool_text(t) for t in tools]
    tool_concepts = set().union(*(concepts(t) for t in texts)) if texts else set()
    tool_bigrams = [bigrams(t) for t in texts]
    excluded = set(exclude_ids)
    unique: dict[str, PoolEntry] = {}
    for entry in sorted(pool, key=lambda e: e.case_id):  # stable: of one id, the first entry
        if entry.case_id in excluded or len(entry.question) != 1:
            continue
        unique.setdefault(entry.case_id, entry)
    ranked = sorted(unique.values(), key=lambda e: rank(seed, "own_irrelevance", e.case_id))
    picked: list[tuple[PoolEntry, list[Message]]] = []
    for entry in ranked:
        if len(picked) >= count:
            break
        messages = _messages(entry)
        text = _user_text(messages)
        words = question_words(text)
        if any(closeness(words, v) >= max_similarity for v in vocabularies):
            continue
        if concepts(text) & tool_concepts or any(character_overlap(text, b) for b in tool_bigrams):
            continue
        picked.append((entry, messages))
    out = []
    for entry, messages in sorted(picked, key=lambda p: p[0].case_id):
        out.append(
            TestCase(
                id=f"own_irrelevance__{entry.case_id}",
                category="own_irrelevance",
                question=[messages],
                functions=[t.model_copy(deep=True) for t in tools],
                possible_answer=[],
                dataset="own",
                suite="own_irrelevance",
                source=entry.location(),
            )
        )
    return out


def _messages(entry: PoolEntry) -> list[Message]:
    """The messages of a single-turn pool entry, validated here (fresh copies: a kept pool
    is never shared with a case)."""
    (turn,) = entry.question
    out: list[Message] = []
    for index, message in enumerate(turn):
        if isinstance(message, Message):
            out.append(message.model_copy())
            continue
        try:
            out.append(Message.model_validate(message))
        except ValidationError as exc:
            raise _entry_error(entry, exc, "question", "0", str(index)) from None
    return out


def _entry_error(
    entry: PoolEntry | PoolFunction, exc: ValidationError, *where: str
) -> DatasetError:
    """A pool entry that does not validate, naming its file, line and field (`where` is the
    path to the validated part)."""
    first = exc.errors()[0]
    return DatasetError(
        f"entry {entry.case_id!r} does not match BFCL's format: {first['msg']}",
        file=entry.file,
        line=entry.line,
        field=".".join([*where, *(str(p) for p in first["loc"])]),
    )


def distractor_pool(pool: Sequence[TestCase]) -> list[FunctionDoc]:
    """Pool functions usable as distractors, unique by (mapped) name (`distractor_functions`
    over the cases' functions)."""
    return distractor_functions(compact_functions(pool))


def distractor_functions(pool: Sequence[PoolFunction]) -> list[FunctionDoc]:
    """Pool functions usable as distractors, unique by (mapped) name: of each name, the
    function of the entry first by id. Only those become `FunctionDoc`s, so a whole dataset
    as the pool costs its unique functions, not a case per entry.

    Deliberately independent of your tools: which of them a case may not be offered beside
    (same name, near duplicate) is decided per case in `derive_distractors`, against the tools
    *that case* offers, so editing one tool cannot move another case's distractors.
    """
    by_name: dict[str, PoolFunction] = {}
    for entry in sorted(pool, key=lambda e: e.case_id):  # stable: an entry's order is kept
        name = entry.raw.name if isinstance(entry.raw, FunctionDoc) else entry.raw["name"]
        by_name.setdefault(mapped_name(name), entry)
    return [_function_doc(entry) for _, entry in sorted(by_name.items())]


def _function_doc(entry: PoolFunction) -> FunctionDoc:
    if isinstance(entry.raw, FunctionDoc):
        return entry.raw
    try:
        return FunctionDoc.model_validate(entry.raw)
    except ValidationError as exc:
        raise _entry_error(entry, exc, "functions") from None


def derive_distractors(
    cases: Sequence[TestCase],
    functions: Sequence[FunctionDoc],
    *,
    ks: Sequence[int],
    seed: int,
    max_similarity: float = 85.0,
) -> list[TestCase]:
    """Each own simple case re-asked with k distractors, for every k in `ks`.

    A case's distractors are the best-ranked pool functions by `rank(seed, case id, name)`
    that are neither named like nor close to (`function_closeness` >= `max_similarity`) a
    tool the case offers: a function of the case and the pool only, never of your other
    tools. Sets are nested (the k=4 set is part of the k=16 set) and the case's own tool is
    placed at a seeded position, so the curve measures k, not a different draw. Every variant
    carries its own case's id as `cluster`: one question, however many variants ask it.
    """
    out: list[TestCase] = []
    wanted = max(ks, default=0)
    for case in cases:
        if case.category != "own_simple":
            continue
        own = {mapped_name(f.name) for f in case.functions}
        ranked = sorted(functions, key=lambda f: rank(seed, "own_distractors", case.id, f.name))
        order: list[FunctionDoc] = []
        for fn in ranked:
            if len(order) >= wanted:
                break
            if mapped_name(fn.name) in own:
                continue
            if any(function_closeness(fn, t) >= max_similarity for t in case.functions):
                continue
            order.append(fn)
        for k in ks:
            extra = [f.model_copy(deep=True) for f in order[:k]]
            at = int(rank(seed, "own_distractors_at", case.id, k), 16) % (len(extra) + 1)
            offered = extra[:at] + [f.model_copy(deep=True) for f in case.functions] + extra[at:]
            label = f"own_distractors_k{k}"
            out.append(
                case.model_copy(
                    update={
                        "id": f"{label}__{case.id}",
                        "category": "own_distractors",
                        "suite": label,
                        "functions": offered,
                        "cluster": case.cluster_id(),
                    },
                    deep=True,
                )
            )
    return out


# ---------------------------------------------------------------------- build


def pool_entries(
    source: CaseSource,
    specs: Sequence[str],
    checker: Checker | None,
    *,
    asked: SourceLocation | None = None,
    field: str = "pools",
) -> list[PoolEntry]:
    """The single-turn entries of every spec (of `checker`'s categories, all when None), in
    the compact form.

    A Live release that cannot be had (`LiveUnavailable`: not known to this install, not
    downloadable) is left out quietly when the pools are the defaults (`asked` None: nobody
    asked for Live data); when the repository wrote the pools (`asked`, where `field` is),
    it is an error naming the version and the fix. Any other DatasetError (a corrupt or
    tampered release) is an error."""
    out: list[PoolEntry] = []
    for spec, wanted in _pool_categories(source, specs, checker, asked=asked, field=field):
        out.extend(source.pool_entries(spec, wanted))
    return out


def pool_functions(
    source: CaseSource,
    specs: Sequence[str],
    *,
    asked: SourceLocation | None = None,
    field: str = "pools",
) -> list[PoolFunction]:
    """The functions of every spec's single-turn entries, in the compact form (the
    distractor pool)."""
    return entry_functions(pool_entries(source, specs, None, asked=asked, field=field))


def _pool_categories(
    source: CaseSource,
    specs: Sequence[str],
    checker: Checker | None,
    *,
    asked: SourceLocation | None,
    field: str,
) -> list[tuple[str, list[str]]]:
    """Each available spec with its pool categories (see `pool_entries`)."""
    out: list[tuple[str, list[str]]] = []
    for spec in specs:
        try:
            available = source.categories(spec)
        except LiveUnavailable as exc:
            if asked is None:
                log.debug("default pool %s left out: %s", spec, exc)
                continue
            raise DatasetError(
                f"{spec} is not available here ({exc.message}); name a published Live "
                f"release, or remove {spec} from {field}",
                file=asked.file,
                line=asked.line,
                column=asked.column,
                field=field,
            ) from None
        wanted = [
            c
            for c in available
            if c in CATEGORIES
            and CATEGORIES[c].checker is not Checker.MULTI_TURN
            and (checker is None or CATEGORIES[c].checker is checker)
        ]
        if wanted:
            out.append((spec, wanted))
    return out


def _pools_asked(config: BfclConfig, suite: str) -> SourceLocation | None:
    """Where `.bfcl.yml` names `derived.<suite>.pools`; None when they are the defaults."""
    section = getattr(config.derived, suite)
    if "pools" not in section.model_fields_set:
        return None
    return config.where("derived", suite, "pools") or SourceLocation(file=config.source_file)


def load_own(
    config: BfclConfig,
    *,
    base_dir: Path,
    tools: ToolSet | None = None,
    allow_hosts: Sequence[str] = (),
) -> tuple[ToolSet, list[TestCase]]:
    """The repository's tools (unless given) and own cases, validated (every problem listed).

    `allow_hosts`: non-loopback hosts an MCP server's URL may name (the executable-checks
    fence: front-ends pass the workflow's list, never the config's)."""
    if tools is None:
        if not config.tools:
            raise ConfigError("no tool files configured", file=config.source_file, field="tools")
        tools = load_configured(
            config.tools,
            base_dir=base_dir,
            exclude=config.tools_exclude,
            limits=config.tool_limits,
            origins=config.origins("tools"),
            allow_hosts=allow_hosts,
        )
        for issue in tools.left_out:  # the rest of the set runs; say which tool does not
            log.warning("%s", issue.render())
    cases = (
        load_cases(
            config.cases,
            base_dir=base_dir,
            tools=tools.functions,
            origins=config.origins("cases"),
        )
        if config.cases
        else []
    )
    return tools, cases


def build_cases(
    config: BfclConfig,
    *,
    base_dir: Path,
    source: CaseSource | None = None,
    derived: bool = True,
    external: bool = True,
    tools: ToolSet | None = None,
    allow_hosts: Sequence[str] = (),
) -> list[TestCase]:
    """All cases the config selects, in a stable order: own, derived, official, Live.

    `source` supplies pools, official and Live data (default: `DatasetSource(base_dir)`).
    `derived=False` skips the derived suites and `external=False` the official and Live sets
    (both need pools or downloads). `tools` replaces the configured tool files (used by
    `impact` to build cases against another tool set).
    """
    src = source or DatasetSource(base_dir)
    has_tools = bool(config.tools) or tools is not None
    if config.cases and not has_tools:
        where = config.where("cases")
        raise ConfigError(
            "own cases need tools: add the tool files under `tools`",
            file=config.source_file,
            line=where.line if where else None,
            field="cases",
        )
    own_categories = set(config.suites.own_categories()) if has_tools else set()
    cases: list[TestCase] = []
    if own_categories:
        toolset, own = load_own(config, base_dir=base_dir, tools=tools, allow_hosts=allow_hosts)
        own = [_with_import_root(c, base_dir) for c in own]
        cases.extend(c for c in own if c.category in own_categories)
        if derived:
            cases.extend(_derived(config, src, toolset, own, own_categories))
    if config.multi_turn and "own_multi_turn" in config.suites.own_categories():
        cases.extend(load_multi_turn(config, base_dir))
    if external:
        cases.extend(_external(config, src))
    return cases


def _with_import_root(case: TestCase, base_dir: Path) -> TestCase:
    """Executable cases import their implementations from the config's directory."""
    if case.metadata_as(ExecutionData).execute is None:
        return case
    return case.model_copy(update={"environment_paths": [str(base_dir.resolve())]})


def load_multi_turn(config: BfclConfig, base_dir: Path) -> list[TestCase]:
    """Own multi-turn cases (`multi_turn` globs); a glob matching nothing is an error."""
    from bfcl_action.multiturn.cases import load_conversation_cases

    cases: list[TestCase] = []
    for pattern in config.multi_turn:
        files = glob_files(pattern, base_dir)
        if not files:
            where = config.where("multi_turn")
            raise ConfigError(
                f"{pattern!r} matches no file",
                file=config.source_file,
                line=where.line if where else None,
                field="multi_turn",
            )
        for file in files:
            cases.extend(load_conversation_cases(file, environments=config.environments))
    return cases


def _derived(
    config: BfclConfig,
    src: CaseSource,
    tools: ToolSet,
    own: list[TestCase],
    own_categories: set[str],
) -> list[TestCase]:
    out: list[TestCase] = []
    irr = config.derived.irrelevance
    if irr.enabled and irr.count and "own_irrelevance" in own_categories:
        pool = pool_entries(
            src,
            irr.pools,
            Checker.IRRELEVANCE,
            asked=_pools_asked(config, "irrelevance"),
            field="derived.irrelevance.pools",
        )
        out.extend(
            derive_irrelevance(
                tools.functions,
                pool,
                count=irr.count,
                seed=config.seed,
                max_similarity=irr.max_similarity,
                exclude_ids=irr.exclude_ids,
            )
        )
    dis = config.derived.distractors
    if dis.enabled and dis.k and "own_distractors" in own_categories:
        pooled = pool_functions(
            src,
            dis.pools,
            asked=_pools_asked(config, "distractors"),
            field="derived.distractors.pools",
        )
        functions = distractor_functions(pooled)
        out.extend(
            derive_distractors(
                own, functions, ks=dis.k, seed=config.seed, max_similarity=dis.max_similarity
            )
        )
    return out


def _external(config: BfclConfig, src: CaseSource) -> list[TestCase]:
    out: list[TestCase] = []
    for spec, wanted in (
        (config.suites.dataset, config.suites.official),
        (config.suites.live_dataset, config.suites.live),
    ):
        if not wanted:
            continue
        available = [
            c
            for c in src.categories(spec)
            if c in CATEGORIES and CATEGORIES[c].checker is not Checker.MULTI_TURN
        ]
        multi = [
            w for w in wanted if w == "multi_turn" or (is_conversation(w) and w not in NOT_RUN)
        ]
        rest = [w for w in wanted if w not in multi]
        chosen = parse_categories(",".join(rest), available) if rest else []
        if multi:  # named explicitly: `all` never pulls multi-turn or web search in
            names = [
                *(MULTI_TURN_OFFICIAL if "multi_turn" in multi else []),
                *(w for w in multi if w != "multi_turn"),
            ]
            chosen += [c for c in names if c not in chosen]
        out.extend(src.load(spec, chosen))
    return out
