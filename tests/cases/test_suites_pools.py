"""The pools read in compact form (`dataset.load_pool_entries`: a whole dataset's entries,
no case per entry) give the derived suites exactly what the cases of that dataset give: the
same distractor functions (`suites.distractor_functions`) and byte-identical irrelevance
cases (`suites.derive_irrelevance`, checked against the derivation from full cases), a bad
entry is still an error naming the file and line, and one source parses each pool once.
Against the Live release this checkout ships (`data/live`) and the small stand-in of the
official wheel (tests/support/bfcl_wheel.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bfcl_action.cases import suites
from bfcl_action.cases.relevance import bigrams, character_overlap, concepts, tool_text
from bfcl_action.cases.suites import (
    DatasetSource,
    build_cases,
    compact_entries,
    derive_irrelevance,
    distractor_functions,
    distractor_pool,
    pool_entries,
    pool_functions,
)
from bfcl_action.core.categories import CATEGORIES, Checker
from bfcl_action.core.errors import DatasetError, LiveUnavailable
from bfcl_action.core.records import FunctionDoc, TestCase
from bfcl_action.dataset import dataset_categories, load_dataset, load_pool_entries
from bfcl_action.dataset.bfcl_format import entry_functions, read_pool_entries
from bfcl_action.dataset.official import load_official, load_official_entries
from bfcl_action.settings.config import parse_config
from bfcl_action.tools import load_tools
from tests.support.bfcl_wheel import build_wheel, release_for

ROOT = Path(__file__).resolve().parents[2]
LIVE = ROOT / "data" / "live"
EXAMPLE = ROOT / "examples" / "weather-app"


def single_turn(spec: str, live_dir: Path | None = None) -> list[str]:
    return [
        c
        for c in dataset_categories(spec, live_dir=live_dir)
        if CATEGORIES[c].checker is not Checker.MULTI_TURN
    ]


def test_a_live_release_gives_the_same_distractors_compact_as_from_its_cases() -> None:
    categories = single_turn("live@latest", LIVE)
    cases = load_dataset("live@latest", categories, live_dir=LIVE)
    compact = entry_functions(load_pool_entries("live@latest", categories, live_dir=LIVE))
    assert len(compact) == sum(len(c.functions) for c in cases)
    expected = distractor_pool(cases)
    assert len(expected) > 20  # a real pool: many distinct functions
    assert distractor_functions(compact) == expected
    assert [f.model_dump() for f in distractor_functions(compact)] == [
        f.model_dump() for f in expected
    ]


def test_the_official_wheel_gives_the_same_distractors_compact_as_from_its_cases(
    tmp_path: Path,
) -> None:
    wheel = build_wheel(tmp_path / "wheel")
    release = release_for(wheel)
    categories = single_turn("bfcl@2026.3.23")
    cases = load_official(release, categories, wheel=wheel, cache=tmp_path / "cache")
    compact = entry_functions(
        load_official_entries(release, categories, wheel=wheel, cache=tmp_path / "cache")
    )
    assert [(f.case_id, f.raw) for f in compact] == [
        (c.id, fn.model_dump(mode="json")) for c in cases for fn in c.functions
    ]
    assert distractor_functions(compact) == distractor_pool(cases)


def test_a_local_pool_file_and_a_source_reading_it_agree(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples" / "weather-app" / "pools" / "pool.jsonl", tmp_path / "p.jsonl")
    source = DatasetSource(tmp_path)
    compact = pool_functions(source, ["p.jsonl"])
    cases = [
        c
        for c in source.load("p.jsonl")
        if CATEGORIES[c.category].checker is not Checker.MULTI_TURN
    ]
    assert distractor_functions(compact) == distractor_pool(cases)


def write_entries(root: Path, category: str, functions: list[object]) -> Path:
    path = root / f"BFCL_v4_{category}.json"
    rows = [
        {"id": f"{category}_0", "question": [[]], "function": [{"name": "fine"}]},
        {"id": f"{category}_1", "question": [[]], "function": functions},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("functions", [[{"description": "no name"}], "not a list", [3]])
def test_an_entry_whose_functions_are_not_named_objects_names_its_file_and_line(
    tmp_path: Path, functions: object
) -> None:
    write_entries(tmp_path, "simple_python", functions)  # type: ignore[arg-type]
    with pytest.raises(DatasetError) as caught:
        read_pool_entries(tmp_path, "simple_python", display="pool:")
    error = caught.value
    assert (error.file, error.line, error.field) == (
        "pool:BFCL_v4_simple_python.json",
        2,
        "functions",
    )


def test_a_kept_function_that_is_not_a_function_doc_names_its_file_and_line(
    tmp_path: Path,
) -> None:
    write_entries(tmp_path, "simple_python", [{"name": "broken", "parameters": "not a schema"}])
    compact = entry_functions(read_pool_entries(tmp_path, "simple_python", display="pool:"))
    assert [f.case_id for f in compact] == ["simple_python_0", "simple_python_1"]
    with pytest.raises(DatasetError) as caught:
        distractor_functions(compact)
    error = caught.value
    assert (error.file, error.line) == ("pool:BFCL_v4_simple_python.json", 2)
    assert error.field == "functions.parameters"


def irrelevance_from_cases(
    tools: list[FunctionDoc], pool: list[TestCase], *, count: int, seed: int
) -> list[TestCase]:
    """The irrelevance derivation as it was written over full pool cases (before the compact
    form): the reference the compact derivation must reproduce byte for byte."""
    vocabularies = [suites.tool_vocabulary(t) for t in tools]
    texts = [tool_text(t) for t in tools]
    tool_concepts = set().union(*(concepts(t) for t in texts))
    tool_bigrams = [bigrams(t) for t in texts]
    unique: dict[str, TestCase] = {}
    for case in sorted(pool, key=lambda c: c.id):
        if len(case.question) == 1:
            unique.setdefault(case.id, case)
    ranked = sorted(unique.values(), key=lambda c: suites.rank(seed, "own_irrelevance", c.id))
    picked: list[TestCase] = []
    for case in ranked:
        if len(picked) >= count:
            break
        text = " ".join(m.content or "" for t in case.question for m in t if m.role == "user")
        words = suites.question_words(text)
        if any(suites.closeness(words, v) >= 90 for v in vocabularies):
            continue
        if concepts(text) & tool_concepts or any(character_overlap(text, b) for b in tool_bigrams):
            continue
        picked.append(case)
    return [
        TestCase(
            id=f"own_irrelevance__{case.id}",
            category="own_irrelevance",
            question=[[m.model_copy() for m in case.question[0]]],
            functions=[t.model_copy(deep=True) for t in tools],
            possible_answer=[],
            dataset="own",
            suite="own_irrelevance",
            source=case.source,
        )
        for case in sorted(picked, key=lambda c: c.id)
    ]


def irrelevance_categories(spec: str, live_dir: Path | None = None) -> list[str]:
    return [
        c
        for c in dataset_categories(spec, live_dir=live_dir)
        if CATEGORIES[c].checker is Checker.IRRELEVANCE
    ]


def dumped(cases: list[TestCase]) -> list[str]:
    return [c.model_dump_json() for c in cases]


@pytest.mark.parametrize(("count", "seed"), [(12, 7), (50, 0), (10_000, 3)])
def test_irrelevance_from_the_compact_pools_is_byte_identical_to_the_derivation_from_cases(
    tmp_path: Path, count: int, seed: int
) -> None:
    """The default pools' shape: the Live release (881 irrelevance questions) and the
    official irrelevance categories; 10,000 looks at every question."""
    wheel = build_wheel(tmp_path / "wheel")
    release = release_for(wheel)
    official = irrelevance_categories("bfcl@2026.3.23")
    live = irrelevance_categories("live@latest", LIVE)
    cases = [
        *load_official(release, official, wheel=wheel, cache=tmp_path / "cache"),
        *load_dataset("live@latest", live, live_dir=LIVE),
    ]
    entries = [
        *load_official_entries(release, official, wheel=wheel, cache=tmp_path / "cache"),
        *load_pool_entries("live@latest", live, live_dir=LIVE),
    ]
    tools = load_tools(["tools/*"], base_dir=EXAMPLE).functions
    expected = irrelevance_from_cases(tools, cases, count=count, seed=seed)
    assert len(expected) == count if count < 100 else len(expected) > 500
    found = derive_irrelevance(tools, entries, count=count, seed=seed, max_similarity=90)
    assert dumped(found) == dumped(expected)
    assert found[0].source is not None and found[0].source.line is not None
    from_cases = derive_irrelevance(
        tools, compact_entries(cases), count=count, seed=seed, max_similarity=90
    )
    assert dumped(from_cases) == dumped(expected)


def test_an_entry_whose_question_is_not_a_list_of_turns_names_its_file_and_line(
    tmp_path: Path,
) -> None:
    rows = [
        {"id": "irrelevance_0", "question": [[]], "function": []},
        {"id": "irrelevance_1", "question": "Who wrote Hamlet?", "function": []},
    ]
    (tmp_path / "BFCL_v4_irrelevance.json").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    with pytest.raises(DatasetError) as caught:
        read_pool_entries(tmp_path, "irrelevance", display="pool:")
    error = caught.value
    assert (error.file, error.line, error.field) == ("pool:BFCL_v4_irrelevance.json", 2, "question")


def test_a_drawn_question_that_is_not_a_message_names_its_file_line_and_field(
    tmp_path: Path,
) -> None:
    rows = [{"id": "irrelevance_0", "question": [[{"content": "no role"}]], "function": []}]
    (tmp_path / "BFCL_v4_irrelevance.json").write_text(json.dumps(rows[0]) + "\n")
    entries = read_pool_entries(tmp_path, "irrelevance", display="pool:")
    with pytest.raises(DatasetError) as caught:
        derive_irrelevance([], entries, count=1, seed=0, max_similarity=90)
    error = caught.value
    assert (error.file, error.line, error.field) == (
        "pool:BFCL_v4_irrelevance.json",
        1,
        "question.0.0.role",
    )


class CountingLoads:
    """Every dataset pool load and pool file read one source makes, by what it read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.datasets: list[tuple[str, tuple[str, ...]]] = []
        self.files: list[Path] = []
        real_load, real_read = suites.load_pool_entries, suites.read_pool_file

        def load(spec: str, categories: list[str]) -> list[object]:
            self.datasets.append((spec, tuple(categories)))
            return real_load(spec, categories)  # type: ignore[return-value]

        def read(path: Path, display: str) -> list[TestCase]:
            self.files.append(path.resolve())
            return real_read(path, display)

        monkeypatch.setattr(suites, "load_pool_entries", load)
        monkeypatch.setattr(suites, "read_pool_file", read)


def test_one_source_parses_each_dataset_pool_once_for_both_suites_and_both_trees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The irrelevance and distractor pools share their files, and the merge-base's build
    (another tree, `at`) reuses what the head's parsed: the same cases as fresh sources."""
    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(LIVE))
    base = tmp_path / "base"
    shutil.copytree(EXAMPLE, base, ignore=shutil.ignore_patterns("replay"))
    text = "\n".join(
        line
        for line in (EXAMPLE / ".bfcl.yml").read_text(encoding="utf-8").splitlines()
        if not line.strip().startswith("pools:")
    ).replace("irrelevance:\n", "irrelevance:\n    pools: [live@latest]\n")
    text = text.replace("distractors:\n", "distractors:\n    pools: [live@latest]\n")
    config = parse_config(text, file=".bfcl.yml")
    fresh = [
        build_cases(config, base_dir=EXAMPLE),
        build_cases(config, base_dir=base),
    ]
    counted = CountingLoads(monkeypatch)
    source = DatasetSource(EXAMPLE)
    shared = [
        build_cases(config, base_dir=EXAMPLE, source=source),
        build_cases(config, base_dir=base, source=source.at(base)),
    ]
    assert [dumped(c) for c in shared] == [dumped(c) for c in fresh]
    assert any(c.id.startswith("own_irrelevance__live_irrelevance") for c in shared[0])
    assert any(c.id.startswith("own_distractors_k16__") for c in shared[0])
    read = [category for _, (category,) in counted.datasets]
    assert sorted(read) == sorted(set(read))
    assert "live_irrelevance" in read and "live_simple" in read


def test_a_local_pool_file_is_read_once_by_its_resolved_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        shutil.copy(EXAMPLE / "pools" / "pool.jsonl", tmp_path / name / "p.jsonl")
    counted = CountingLoads(monkeypatch)
    source = DatasetSource(tmp_path / "one")
    same = source.at(tmp_path / "two" / ".." / "one")
    other = source.at(tmp_path / "two")
    for each in (source, same, other, source):
        assert pool_entries(each, ["p.jsonl"], None)
    assert counted.files == [
        (tmp_path / "one" / "p.jsonl").resolve(),
        (tmp_path / "two" / "p.jsonl").resolve(),
    ]
    assert distractor_functions(pool_functions(other, ["p.jsonl"])) == distractor_functions(
        pool_functions(DatasetSource(tmp_path / "two"), ["p.jsonl"])
    )


def test_a_live_release_that_cannot_be_had_is_tried_once_per_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed without the Live data wheel reachable, every ask used to try the download
    again (twice per build, four times for `impact`'s two trees); now one source, and the
    sources it hands to other trees, ask once and give the same answer after."""
    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(tmp_path / "no-live-here"))
    asked: list[str] = []
    real = suites.dataset_categories

    def counting(spec: str) -> list[str]:
        asked.append(spec)
        return real(spec)

    monkeypatch.setattr(suites, "dataset_categories", counting)
    source = DatasetSource(EXAMPLE)
    for each in (source, source, source.at(tmp_path)):
        with pytest.raises(LiveUnavailable, match="live@latest"):
            each.categories("live@latest")
    assert asked == ["live@latest"]
    # as a default pool (nobody asked for it) it is left out quietly, without a new try
    assert pool_entries(source, ["live@latest", "pools/pool.jsonl"], None)
    assert asked == ["live@latest"]


def test_a_dataset_suite_is_parsed_once_for_both_trees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`impact` builds the official and Live suites of the merge-base and of the head: one
    parse, the same cases as a fresh source's."""
    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(LIVE))
    loads: list[tuple[str, tuple[str, ...] | None]] = []
    real = suites.load_dataset

    def counting(spec: str, categories: list[str] | None = None) -> list[TestCase]:
        loads.append((spec, None if categories is None else tuple(categories)))
        return real(spec, categories)

    monkeypatch.setattr(suites, "load_dataset", counting)
    source = DatasetSource(EXAMPLE)
    first = source.load("live@latest", ["live_simple"])
    again = source.at(tmp_path).load("live@latest", ["live_simple"])
    assert loads == [("live@latest", ("live_simple",))]
    fresh = DatasetSource(EXAMPLE).load("live@latest", ["live_simple"])
    assert first and dumped(again) == dumped(first) == dumped(fresh)
    assert again is not first  # a list of its own; the cases are shared
