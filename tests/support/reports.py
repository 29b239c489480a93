"""A small factory for `RunReport`s: outcomes per suite in, a realistic report out.

`make_report({"simple_python": "1101e"})` gives a report with five `simple_python` cases
(ids `simple_python_0` ...): `1` passed, `0` failed (a wrong value), `e` infrastructure
error. Every case carries question, expected answer and offered functions, as
`attach_case_context` leaves them, so rendered reports have something to show.
"""

from __future__ import annotations

from typing import Any

from bfcl_action.core.categories import CATEGORIES
from bfcl_action.core.fingerprint import case_set_hash, config_fingerprint
from bfcl_action.core.records import Call, CaseResult, CategoryScore, Mode, RunReport


def make_result(
    case_id: str,
    suite: str,
    outcome: str,
    *,
    question: str | None = None,
    got: Any = 2,
    error: str | None = None,
    functions: list[str] | None = None,
) -> CaseResult:
    category = suite if suite in CATEGORIES else "own_simple"
    passed = outcome == "1"
    infra = outcome == "e"
    return CaseResult(
        id=case_id,
        category=category,
        suite=suite,
        valid=passed,
        error_type=None if passed or infra else "value_error:others",
        error=[]
        if passed or infra
        else [error or f"Invalid value for parameter 'x': expected 1, got {got!r}"],
        model_output=None if infra else [{"get_value": {"x": 1 if passed else got}}],
        decoded=None if infra else [Call(name="get_value", arguments={"x": 1 if passed else got})],
        infra_error="timeout after 3 retries" if infra else None,
        question=question or f"What is the value for case {case_id}?",
        expected=[{"get_value": {"x": [1]}}],
        functions=functions or ["get_value"],
    )


def make_report(
    suites: dict[str, str],
    *,
    model: str = "gpt-test",
    mode: Mode = Mode.FC,
    settings: dict[str, Any] | None = None,
    datasets: list[str] | None = None,
    results: list[CaseResult] | None = None,
    created_at: str = "2026-11-30T09:00:00Z",
) -> RunReport:
    """A report whose suite `label` has one case per character of `suites[label]`."""
    settings = {"temperature": 0.001} if settings is None else settings
    datasets = ["bfcl@2026.3.23"] if datasets is None else datasets
    all_results = list(results or [])
    for label, outcomes in suites.items():
        all_results += [make_result(f"{label}_{i}", label, o) for i, o in enumerate(outcomes)]
    categories = {}
    for label in {r.label() for r in all_results}:
        mine = [r for r in all_results if r.label() == label]
        answered = [r for r in mine if not r.infra_error]
        correct = sum(r.valid for r in answered)
        categories[label] = CategoryScore(
            suite=label,
            category=mine[0].category,
            correct=correct,
            total=len(answered),
            infra_errors=len(mine) - len(answered),
            accuracy=correct / len(answered) if answered else 0.0,
        )
    return RunReport(
        tool_version="0.1.0",
        created_at=created_at,
        model=model,
        mode=mode,
        datasets=datasets,
        settings=settings,
        fingerprint=config_fingerprint(
            model=model, mode=mode.value, datasets=datasets, settings=settings
        ),
        case_set=case_set_hash(r.id for r in all_results),
        results=all_results,
        categories=categories,
    )


def distractor_report(model: str = "gpt-test", drop: int = 0) -> RunReport:
    """`own_distractors` results with 1, 4 and 8 tools offered, 10 cases each; `drop` fails
    `drop * n // 4` of the 10 cases offered `n` tools (0: a flat curve)."""
    results = [
        make_result(
            f"d{n}_{i}",
            "own_distractors",
            "1" if i < 10 - drop * n // 4 else "0",
            functions=[f"f{k}" for k in range(n)],
        )
        for n in (1, 4, 8)
        for i in range(10)
    ]
    return make_report({}, model=model, results=results)
