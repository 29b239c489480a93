"""One request, one answer: a derived case whose request equals another's is asked once.

The k=0 distractor variant of an own case is byte-identical to it. The server must see it
once, with or without the response cache; both cases keep their result (each suite scores
it), and the later one names the earlier in `same_request_as` so the comparison counts that
answer once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bfcl_action.cases.suites import derive_distractors
from bfcl_action.core.records import FunctionDoc, Mode
from bfcl_action.runner.pipeline import RunOptions, run_evaluation
from tests.support.openai_server import OpenAIServer
from tests.support.runner import function, make_case, options, script, toy_judge


def _cases():  # type: ignore[no-untyped-def]
    own = [
        make_case(
            f"q{i}",
            script("add", a=i),
            [function("add", "a")],
            category="own_simple",
            answer=[{"add": {"a": [i]}}],
        ).model_copy(update={"suite": "own_simple"})
        for i in range(3)
    ]
    pool = [FunctionDoc.model_validate(function(f"pool_fn_{n}", "x")) for n in range(6)]
    return own + derive_distractors(own, pool, ks=[0, 2], seed=7)


@pytest.mark.parametrize("cache", [False, True], ids=["no-cache", "cache"])
def test_the_k0_variant_is_asked_once_and_scored_in_both_suites(
    server: OpenAIServer, tmp_path: Path, cache: bool
) -> None:
    cases = _cases()
    report, stats = run_evaluation(
        cases,
        RunOptions(backend=options(server, Mode.FC), cache_dir=tmp_path if cache else None),
        judge=toy_judge,
    )
    assert len(server.requests) == 6  # 3 own cases + 3 k=2 variants; the k=0 ones are shared
    assert stats.shared == 3
    by_id = {r.id: r for r in report.results}
    assert len(by_id) == 9
    for i in range(3):
        twin = by_id[f"own_distractors_k0__q{i}"]
        assert twin.same_request_as == f"q{i}" and twin.cluster == f"q{i}"
        assert twin.valid and by_id[f"q{i}"].valid
        assert by_id[f"own_distractors_k2__q{i}"].same_request_as is None
        assert by_id[f"own_distractors_k2__q{i}"].cluster == f"q{i}"
    assert {s: c.total for s, c in report.categories.items()} == {
        "own_simple": 3,
        "own_distractors_k0": 3,
        "own_distractors_k2": 3,
    }


def test_repeats_of_a_shared_request_are_shared_sample_by_sample(server: OpenAIServer) -> None:
    cases = _cases()
    report, _ = run_evaluation(
        cases, RunOptions(backend=options(server, Mode.FC), repeat=2), judge=toy_judge
    )
    assert len(server.requests) == 12  # 6 distinct requests, 2 samples each
    twin = next(r for r in report.results if r.id == "own_distractors_k0__q1")
    assert twin.same_request_as == "q1" and twin.samples == [True, True]


def test_a_replayed_run_marks_the_same_twins(server: OpenAIServer, tmp_path: Path) -> None:
    cases = _cases()
    live, _ = run_evaluation(cases, RunOptions(backend=options(server, Mode.FC)), judge=toy_judge)
    recorded = tmp_path / "live.json"
    recorded.write_text(live.model_dump_json(), encoding="utf-8")
    replay = options(server, Mode.FC, model=f"replay:{recorded}")
    replayed, _ = run_evaluation(cases, RunOptions(backend=replay), judge=toy_judge)
    twins = {r.id: r.same_request_as for r in replayed.results if r.same_request_as}
    assert twins == {f"own_distractors_k0__q{i}": f"q{i}" for i in range(3)}
    assert twins == {r.id: r.same_request_as for r in live.results if r.same_request_as}
