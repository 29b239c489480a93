"""The distractor pool read in compact form (`suites.distractor_functions` over
`dataset.load_pool_functions`: a whole dataset's functions, no case per entry) keeps the
functions the cases of that dataset give, and a bad entry is still an error naming the file
and line. Against the Live release this checkout ships (`data/live`) and the small stand-in
of the official wheel (tests/support/bfcl_wheel.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bfcl_action.cases.suites import (
    DatasetSource,
    distractor_functions,
    distractor_pool,
    pool_functions,
)
from bfcl_action.core.categories import CATEGORIES, Checker
from bfcl_action.core.errors import DatasetError
from bfcl_action.dataset import dataset_categories, load_dataset, load_pool_functions
from bfcl_action.dataset.bfcl_format import read_pool_functions
from bfcl_action.dataset.official import load_official, load_official_functions
from tests.support.bfcl_wheel import build_wheel, release_for

ROOT = Path(__file__).resolve().parents[2]
LIVE = ROOT / "data" / "live"


def single_turn(spec: str, live_dir: Path | None = None) -> list[str]:
    return [
        c
        for c in dataset_categories(spec, live_dir=live_dir)
        if CATEGORIES[c].checker is not Checker.MULTI_TURN
    ]


def test_a_live_release_gives_the_same_distractors_compact_as_from_its_cases() -> None:
    categories = single_turn("live@latest", LIVE)
    cases = load_dataset("live@latest", categories, live_dir=LIVE)
    compact = load_pool_functions("live@latest", categories, live_dir=LIVE)
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
    compact = load_official_functions(release, categories, wheel=wheel, cache=tmp_path / "cache")
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
        read_pool_functions(tmp_path, "simple_python", display="pool:")
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
    compact, entries = read_pool_functions(tmp_path, "simple_python", display="pool:")
    assert entries == 2 and [f.case_id for f in compact] == ["simple_python_0", "simple_python_1"]
    with pytest.raises(DatasetError) as caught:
        distractor_functions(compact)
    error = caught.value
    assert (error.file, error.line) == ("pool:BFCL_v4_simple_python.json", 2)
    assert error.field == "functions.parameters"
