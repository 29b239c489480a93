"""A small slice of the conformance run, for a quick signal in an environment that has the
official package (the full run is `nox -s conformance`; without bfcl-eval this skips)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from bfcl_action.core.categories import SINGLE_TURN_OFFICIAL
from tests.conformance import run
from tests.conformance.generate import case_samples

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.skipif(
        importlib.util.find_spec("bfcl_eval") is None, reason="bfcl-eval is not installed"
    ),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("bfclroot")
    mp = pytest.MonkeyPatch()
    mp.setenv("BFCL_PROJECT_ROOT", str(root))
    try:
        cases = run.load_package_cases(SINGLE_TURN_OFFICIAL)
        picked = [c for i, c in enumerate(cases) if i % 150 == 0]
        samples = {c.id: case_samples(c, 0) for c in picked}
        cache = run.VerdictCache(None)
        return run.compare(picked, samples, run.load_deviations(), cache, progress=False)
    finally:
        mp.undo()


def test_every_valid_disagreement_on_a_slice_is_a_listed_deviation(
    report: dict[str, object],
) -> None:
    assert run.unexplained(report) == []


def test_the_slice_covers_passing_and_failing_outputs(report: dict[str, object]) -> None:
    total = report["total"]
    assert isinstance(total, dict)
    assert 0 < total["official_valid"] < total["samples"]


def test_package_data_files_are_found() -> None:
    assert (run._package_data_dir() / "BFCL_v4_simple_python.json").is_file()
    assert isinstance(run._package_data_dir(), Path)


def test_an_entry_read_differently_from_the_package_is_reported() -> None:
    cases = run.load_package_cases(["simple_python"])[:3]
    changed = cases[1].model_copy(update={"possible_answer": []})
    problems = run.data_mismatches([cases[0], changed, cases[2]], complete=False)
    assert problems == [f"{changed.id}: possible_answer differs"]
