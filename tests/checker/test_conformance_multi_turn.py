"""A slice of the multi-turn conformance run (bfcl-eval's checker and environments against
ours), where the official package is installed; the full run is part of `nox -s conformance`."""

from __future__ import annotations

import importlib.util

import pytest

from tests.support.official_envs import data_root, environment_python

pytestmark = [
    pytest.mark.conformance,
    pytest.mark.skipif(
        importlib.util.find_spec("bfcl_eval") is None or data_root() is None,
        reason="bfcl-eval is not installed or the official data is not cached",
    ),
]


def test_verdicts_agree_with_bfcl_eval_on_a_slice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from bfcl_action.dataset import load_dataset
    from bfcl_action.multiturn import ExecutionOptions
    from tests.conformance import multi_turn

    monkeypatch.setenv("BFCL_PROJECT_ROOT", str(tmp_path))
    cases = [c for c in load_dataset("bfcl@2026.3.23", ["multi_turn"])][::100]
    report = multi_turn.compare(
        cases, 0, ExecutionOptions(python=environment_python()), progress=False
    )
    assert multi_turn.valid_disagreements(report) == []
    assert report["disagreements"] == []
    assert 0 < report["rows"]["total"]["official_valid"] < report["rows"]["total"]["samples"]
