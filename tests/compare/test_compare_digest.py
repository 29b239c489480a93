"""The run digest: round trip, size for 5,000 cases, and how it keys outcomes to cases."""

import random

import pytest

from bfcl_action.compare.runs import compare_runs
from bfcl_action.core.errors import InputError
from bfcl_action.results.digest import DIGEST_VERSION, digest_of, make_digest, parse_digest
from tests.support.reports import make_report

CHECK_RUN_SUMMARY_LIMIT = 65_535


def _big_report(n: int = 5000, seed: int = 7) -> object:
    rng = random.Random(seed)
    suites = ["simple_python", "multiple", "parallel", "live_simple", "live_multiple"]
    per = n // len(suites)
    return make_report({s: "".join(rng.choice("110e") for _ in range(per)) for s in suites})


def test_digest_round_trips_every_field() -> None:
    report = make_report({"simple_python": "1101e", "live_simple": "01"})
    assert parse_digest(make_digest(report)) == digest_of(report)


def test_digest_of_5000_cases_is_well_under_the_check_run_summary_limit() -> None:
    report = _big_report()
    text = make_digest(report)
    assert parse_digest(text) == digest_of(report)
    # Measured: about 2,400 characters for 5,000 cases (random pass/fail/infra outcomes).
    assert len(text) < CHECK_RUN_SUMMARY_LIMIT // 10


def test_digest_is_found_inside_surrounding_summary_text() -> None:
    report = make_report({"simple_python": "10"})
    summary = f"## Results\n\nSome table | a | b |\n\n{make_digest(report)}\n\nfooter"
    assert parse_digest(summary).suites["simple_python"].outcomes == "10"


def test_digest_keys_outcomes_to_sorted_ids() -> None:
    report = make_report({"simple_python": "1" * 10 + "0"})
    digest = parse_digest(make_digest(report))
    ids = [r.id for r in report.results]
    outcomes = digest.outcomes_for("simple_python", ids)
    assert outcomes is not None
    assert outcomes["simple_python_10"] == "0"
    assert outcomes["simple_python_2"] == "1"


def test_digest_cannot_align_outcomes_to_a_different_case_set() -> None:
    digest = digest_of(make_report({"simple_python": "10"}))
    assert digest.outcomes_for("simple_python", ["simple_python_0", "other"]) is None


def test_digest_with_unknown_version_is_refused_with_advice() -> None:
    text = make_digest(make_report({"simple_python": "1"}))
    future = text.replace(f"v{DIGEST_VERSION} ", f"v{DIGEST_VERSION + 1} ")
    with pytest.raises(InputError, match="re-run the baseline"):
        parse_digest(future, source="summary.md")


def test_missing_digest_names_the_source() -> None:
    with pytest.raises(InputError, match=r"summary\.md: no bfcl-action digest"):
        parse_digest("nothing here", source="summary.md")


def test_corrupt_digest_is_an_input_error() -> None:
    with pytest.raises(InputError, match="corrupt"):
        parse_digest("<!-- bfcl-action:digest v1 AAAA -->")


def test_comparing_against_a_digest_gives_the_same_numbers_as_the_report() -> None:
    base = make_report({"simple_python": "1" * 30 + "0" * 10, "live_simple": "1100"})
    head = make_report({"simple_python": "1" * 20 + "0" * 20, "live_simple": "1010"})
    from_report = compare_runs(base, head)
    from_digest = compare_runs(parse_digest(make_digest(base)), head)
    for a, b in zip(from_report.suites, from_digest.suites, strict=True):
        assert (a.delta_points, a.paired, a.verdict) == (b.delta_points, b.paired, b.verdict)
    assert from_digest.verdict is from_report.verdict


def test_digest_of_a_changed_suite_compares_counts_only_and_says_so() -> None:
    base = make_report({"simple_python": "1" * 10, "live_simple": "11"})
    head = make_report({"simple_python": "1" * 11, "live_simple": "10"})
    comparison = compare_runs(parse_digest(make_digest(base)), head)
    simple = next(s for s in comparison.suites if s.suite == "simple_python")
    live = next(s for s in comparison.suites if s.suite == "live_simple")
    assert simple.paired is None
    assert any("counts are compared" in n for n in simple.notes)
    assert live.paired is not None and live.paired.newly_failing == 1
