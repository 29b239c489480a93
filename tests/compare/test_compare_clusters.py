"""Question clusters are the unit of evidence: a question's variants count once.

A team repository's own simple case is asked again in every distractor suite (and the k=0
variant is the very same request); one question that regresses everywhere flips many
"cases" but is one piece of evidence. These tests build such runs directly; the console
script proof is in `test_compare_clusters_e2e.py`.
"""

from __future__ import annotations

import base64
import gzip
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.compare.runs import Rule, Thresholds, Verdict, compare_runs
from bfcl_action.core.records import CaseResult, RunReport
from bfcl_action.report import render_comment
from bfcl_action.results.digest import digest_of, encode_digest, make_digest, parse_digest
from tests.support.reports import make_report, make_result
from tests.support.snapshots import SNAPSHOTS, assert_snapshot

KS = (0, 2, 4, 8, 16, 32)
QUESTIONS = 12


def team_run(
    failing: dict[int, set[str]] | None = None, *, questions: int = QUESTIONS, ks=KS
) -> RunReport:  # type: ignore[no-untyped-def]
    """Own simple cases `q0..` plus one distractor variant per k, all passing except
    `failing[question]`: the suites (`own_simple`, `own_distractors_k4`, ...) it fails in.
    The k=0 variant is the own case's identical request (`same_request_as`)."""
    failing = failing or {}
    results: list[CaseResult] = []
    for q in range(questions):
        fails = failing.get(q, set())
        own = f"q{q}"
        results.append(make_result(own, "own_simple", "0" if "own_simple" in fails else "1"))
        for k in ks:
            suite = f"own_distractors_k{k}"
            variant = make_result(f"{suite}__{own}", suite, "0" if suite in fails else "1")
            update: dict[str, object] = {"category": "own_distractors", "cluster": own}
            if k == 0:
                update["same_request_as"] = own
            results.append(variant.model_copy(update=update))
    return make_report({}, results=results)


EVERYWHERE = {"own_simple", *(f"own_distractors_k{k}" for k in KS)}


def test_one_question_regressing_in_every_variant_is_one_cluster_not_a_regression() -> None:
    comparison = compare_runs(team_run(), team_run({3: EVERYWHERE}))
    paired = comparison.overall.paired
    assert paired is not None
    assert paired.newly_failing == 7  # every variant flipped: the score drops by 7 cases
    assert (paired.clusters, paired.clusters_regressed, paired.clusters_improved) == (12, 1, 0)
    assert paired.shared_requests == 12  # every k=0 variant is its own case's answer
    assert paired.p_value == 1.0
    assert comparison.verdict is Verdict.UNCHANGED
    assert comparison.overall.within_noise


def test_the_comment_shows_a_question_once_and_its_variants_as_one_line_each() -> None:
    """A question failing in its own case and every variant, with the same answer: the own
    case in full, first; each variant a line pointing at it. A variant that failed with
    another answer is shown in full."""
    head = team_run({3: EVERYWHERE})
    other = next(r for r in head.results if r.id == "own_distractors_k32__q3")
    other.model_output = [{"get_value": {"x": 5}}]
    other.decoded = None
    comment = render_comment(compare_runs(team_run(), head))
    flips = comment[comment.index("Flipped cases") :]
    assert flips.index("#### `own_simple`") < flips.index("#### `own_distractors_k0`")
    assert "Question: What is the value for case q3?" in flips
    assert flips.count("Question:") == 2  # the own case's and the k32 variant's
    pointer = "· same question and answer as `q3`"
    for k in (0, 2, 4, 8, 16):
        assert f"`own_distractors_k{k}__q3` · `value_error:others` {pointer}" in flips
    assert f"`own_distractors_k32__q3` · `value_error:others` {pointer}" not in flips


def test_one_question_everywhere_beside_two_single_flips_is_three_clusters() -> None:
    head = team_run({3: EVERYWHERE, 5: {"own_distractors_k16"}, 9: {"own_simple"}})
    comparison = compare_runs(team_run(), head)
    paired = comparison.overall.paired
    assert paired is not None and paired.newly_failing == 9
    assert (paired.clusters_regressed, paired.clusters_improved) == (3, 0)
    assert paired.p_value == 0.25  # 2 * (1/2)**3; counting cases (9 flips, k=0 once) said 0.004
    assert comparison.verdict is Verdict.UNCHANGED


def test_eight_distinct_questions_regressing_is_a_regression() -> None:
    head = team_run({q: {"own_simple", "own_distractors_k0"} for q in range(8)})
    comparison = compare_runs(team_run(), head)
    assert comparison.verdict is Verdict.REGRESSION
    rule = comparison.rule
    assert rule is not None and rule.rule is Rule.SIGNIFICANT_DROP and rule.suite == "overall"
    assert (rule.clusters, rule.clusters_regressed, rule.clusters_improved) == (12, 8, 0)
    assert rule.p_value == 2 / 2**8


def test_the_k0_variant_counts_once_beside_its_own_case() -> None:
    # own case and its k=0 twin fail, k=2 now passes: net 0 once the twin counts once
    base = team_run({4: {"own_distractors_k2"}})
    head = team_run({4: {"own_simple", "own_distractors_k0"}})
    paired = compare_runs(base, head).overall.paired
    assert paired is not None
    assert (paired.newly_failing, paired.newly_passing) == (2, 1)
    assert (paired.clusters_regressed, paired.clusters_improved) == (0, 0)


def test_the_k0_suite_alone_still_has_its_evidence() -> None:
    head = team_run({q: {"own_simple", "own_distractors_k0"} for q in range(8)})
    k0 = next(s for s in compare_runs(team_run(), head).suites if s.suite == "own_distractors_k0")
    assert k0.paired is not None and k0.paired.clusters_regressed == 8  # its twin is elsewhere


def test_per_suite_scores_still_count_every_case() -> None:
    comparison = compare_runs(team_run(), team_run({3: EVERYWHERE}))
    k4 = next(s for s in comparison.suites if s.suite == "own_distractors_k4")
    assert k4.head is not None and (k4.head.correct, k4.head.total) == (11, 12)
    assert comparison.overall.head is not None and comparison.overall.head.total == 84


def test_official_cases_are_each_their_own_cluster() -> None:
    base, head = (
        make_report({"simple_python": "1" * 10}),
        make_report({"simple_python": "1" * 4 + "0" * 6}),
    )
    paired = compare_runs(base, head).overall.paired
    assert paired is not None and (paired.clusters, paired.clusters_regressed) == (10, 6)
    assert paired.p_value == 2 / 2**6  # McNemar on cases, as before


# --- the digest -----------------------------------------------------------------------------


def test_a_digest_baseline_keeps_the_clusters() -> None:
    base, head = team_run(), team_run({3: EVERYWHERE})
    from_digest = compare_runs(parse_digest(make_digest(base)), head).overall.paired
    from_report = compare_runs(base, head).overall.paired
    assert from_digest is not None and from_report is not None
    assert from_digest.clusters == from_report.clusters == 12
    assert from_digest.p_value == from_report.p_value == 1.0


def _payload(text: str) -> dict[str, object]:
    packed = text.split()[-2]
    data: dict[str, object] = json.loads(gzip.decompress(base64.b64decode(packed)))
    return data


def test_the_digest_holds_a_partition_not_ids() -> None:
    digest = digest_of(team_run(questions=3, ks=(4,)))
    assert digest.suites["own_simple"].clusters == [0, 1, 2]
    assert digest.suites["own_distractors_k4"].clusters == [0, 1, 2]
    payload = json.dumps(_payload(encode_digest(digest)))
    assert "q1" not in payload


def test_a_run_without_derived_cases_keeps_its_digest_bytes() -> None:
    report = make_report({"simple_python": "1101", "own_simple": "11"})
    payload = _payload(make_digest(report))
    assert all("clusters" not in s for s in payload["suites"].values())  # type: ignore[attr-defined]


def test_an_old_digest_without_clusters_reads_as_single_case_clusters() -> None:
    base, head = team_run(), team_run({3: EVERYWHERE})
    old = digest_of(base)
    for suite in old.suites.values():
        suite.clusters = []
    # head still knows its clusters: the union keeps the question one cluster
    paired = compare_runs(parse_digest(encode_digest(old)), head).overall.paired
    assert paired is not None and paired.clusters_regressed == 1


def test_either_side_joining_two_cases_joins_them() -> None:
    base = make_report({"own_simple": "11"})
    head = make_report({"own_simple": "00"})
    joined = base.model_copy(
        update={"results": [r.model_copy(update={"cluster": "own_simple_0"}) for r in base.results]}
    )
    assert compare_runs(base, head).overall.paired.clusters_regressed == 2  # type: ignore[union-attr]
    assert compare_runs(joined, head).overall.paired.clusters_regressed == 1  # type: ignore[union-attr]


# --- many suites, one error rate ---------------------------------------------------------------


def test_per_suite_p_values_are_holm_adjusted() -> None:
    # three suites, each with six of ten cases newly failing: raw p 0.031 each, Holm 0.094
    base = make_report({s: "1" * 10 for s in ("simple_python", "multiple", "parallel")})
    head = make_report({s: "0" * 6 + "1" * 4 for s in ("simple_python", "multiple", "parallel")})
    comparison = compare_runs(base, head)
    for row in comparison.suites:
        assert row.paired is not None
        assert row.paired.p_value == 2 / 2**6
        assert row.paired.p_adjusted == 3 * 2 / 2**6 and row.paired.suites_tested == 3
        assert row.verdict is Verdict.UNCHANGED and row.within_noise
    # the overall test is one test of its own: 18 clusters regressed
    assert comparison.overall.verdict is Verdict.REGRESSION
    assert comparison.rule is not None and comparison.rule.suite == "overall"


def test_holm_leaves_a_single_suite_alone() -> None:
    comparison = compare_runs(
        make_report({"simple_python": "1" * 10}), make_report({"simple_python": "0" * 6 + "1" * 4})
    )
    row = comparison.suites[0]
    assert row.paired is not None and row.paired.p_adjusted == row.paired.p_value
    assert row.verdict is Verdict.REGRESSION


# --- the verdict says why ------------------------------------------------------------------------


def _first_line(comparison) -> str:  # type: ignore[no-untyped-def]
    return render_comment(comparison).splitlines()[0]


FIRST_LINES = {
    "significant_drop": lambda: compare_runs(
        make_report({"simple_python": "1" * 20}), make_report({"simple_python": "0" * 8 + "1" * 12})
    ),
    "significant_rise": lambda: compare_runs(
        make_report({"simple_python": "0" * 8 + "1" * 12}), make_report({"simple_python": "1" * 20})
    ),
    "per_category_drop": lambda: compare_runs(
        make_report({"simple_python": "1" * 40, "multiple": "1" * 40}),
        make_report({"simple_python": "0" * 8 + "1" * 32, "multiple": "1" * 40}),
        Thresholds(
            max_drop=50,
            categories={"simple_python": {"max_drop": 5, "alpha": 0.1}},  # type: ignore[dict-item]
        ),
    ),
    "below_minimum": lambda: compare_runs(
        make_report({"simple_python": "1" * 10}),
        make_report({"simple_python": "1" * 7 + "0" * 3}),
        Thresholds(min_score=80),
    ),
    "per_category_minimum": lambda: compare_runs(
        make_report({"simple_python": "1" * 10, "multiple": "1" * 10}),
        make_report({"simple_python": "1" * 10, "multiple": "1" * 8 + "00"}),
        Thresholds(categories={"multiple": {"min_score": 90}}),  # type: ignore[dict-item]
    ),
    "one_question_everywhere": lambda: compare_runs(team_run(), team_run({3: EVERYWHERE})),
    "first_run": lambda: compare_runs(None, make_report({"simple_python": "1101"})),
    "incomparable": lambda: compare_runs(
        make_report({"simple_python": "11"}), make_report({"simple_python": "11"}, model="other")
    ),
}


def test_every_rule_has_its_first_line_snapshot() -> None:
    lines = [f"{name}: {_first_line(make())}" for name, make in FIRST_LINES.items()]
    assert_snapshot(SNAPSHOTS / "first_lines.txt", "\n".join(lines) + "\n")


def test_the_first_line_is_the_typed_rule_in_words() -> None:
    comparison = FIRST_LINES["per_category_drop"]()
    rule = comparison.rule
    assert rule is not None and rule.rule is Rule.SIGNIFICANT_DROP
    assert (rule.suite, rule.threshold_key, rule.max_drop, rule.alpha) == (
        "simple_python",
        "simple_python",
        5.0,
        0.1,
    )
    assert comparison.headline == f"regression — {rule.text()}"
    data = json.loads(comparison.model_dump_json())
    assert data["rule"]["rule"] == "significant_drop" and data["headline"] == comparison.headline


def test_a_resolved_threshold_knows_which_entry_set_each_field() -> None:
    t = Thresholds.model_validate(
        {"categories": {"own_distractors_k16": {"max_drop": 10}, "own": {"alpha": 0.01}}}
    )
    keys = t.for_category("own_distractors_k16", "own_distractors").keys
    assert keys == {"max_drop": "own_distractors_k16", "alpha": "own"}
    assert t.for_category("simple_python").keys == {}


def test_a_floor_names_the_score_and_the_minimum() -> None:
    rule = FIRST_LINES["below_minimum"]().rule
    assert rule is not None and rule.rule is Rule.BELOW_MINIMUM
    assert (rule.score, rule.min_score, rule.threshold_key) == (70.0, 80.0, None)


# --- properties ----------------------------------------------------------------------------------


clusters_strategy = st.lists(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=4),
    min_size=1,
    max_size=25,
)


def _runs(clusters: list[list[tuple[bool, bool]]], copies: dict[int, int] | None = None):  # type: ignore[no-untyped-def]
    """Base and head reports: cluster i's cases with their (base, head) outcomes; with
    `copies[i] = m`, cluster i's evidence appears m more times as variants (new derived
    cases of the same question) and as identical-request twins."""
    base: list[CaseResult] = []
    head: list[CaseResult] = []
    for i, cases in enumerate(clusters):
        for j, (b, h) in enumerate(cases):
            own = f"c{i}_{j}" if j else f"c{i}"
            for side, passed in ((base, b), (head, h)):
                side.append(
                    make_result(own, "own_simple", "1" if passed else "0").model_copy(
                        update={"cluster": f"c{i}"}
                    )
                )
            for m in range((copies or {}).get(i, 0)):
                for kind, extra in (("variant", {}), ("twin", {"same_request_as": own})):
                    suite = (
                        f"own_distractors_k{m + 1}" if kind == "variant" else "own_distractors_k0"
                    )
                    if kind == "twin" and m:
                        continue
                    case_id = f"{suite}__{own}"
                    for side, passed in ((base, b), (head, h)):
                        side.append(
                            make_result(case_id, suite, "1" if passed else "0").model_copy(
                                update={"cluster": f"c{i}", "category": "own_distractors", **extra}
                            )
                        )
    return make_report({}, results=base), make_report({}, results=head)


@settings(max_examples=150, deadline=None)
@given(clusters=clusters_strategy, data=st.data())
def test_duplicating_a_questions_evidence_never_makes_a_change_significant(
    clusters: list[list[tuple[bool, bool]]], data: st.DataObject
) -> None:
    copies = data.draw(
        st.dictionaries(st.integers(0, len(clusters) - 1), st.integers(1, 6), max_size=5)
    )
    before = compare_runs(*_runs(clusters)).overall
    after = compare_runs(*_runs(clusters, copies)).overall
    assert before.paired is not None and after.paired is not None
    assert after.paired.p_value == before.paired.p_value  # so never more significant
    assert after.paired.clusters == before.paired.clusters


@settings(max_examples=60, deadline=None)
@given(n=st.integers(7, 40), extra=st.integers(0, 40))
def test_a_change_spread_over_many_independent_clusters_is_found(n: int, extra: int) -> None:
    # n questions regress (one case each), `extra` unchanged questions beside them
    clusters = [[(True, False)] for _ in range(n)] + [[(True, True)] for _ in range(extra)]
    comparison = compare_runs(*_runs(clusters))
    assert comparison.overall.paired is not None
    assert comparison.overall.paired.p_value <= 2 / 2**7 < 0.05
    assert comparison.overall.significant


# --- compare-models ------------------------------------------------------------------------------


def test_compare_models_counts_a_question_once_and_holm_adjusts_its_suites() -> None:
    from bfcl_action.compare.model_choice import choose_models

    good, worse = team_run(), team_run({3: EVERYWHERE})
    pair = choose_models([good.model_copy(update={"label": "a"}), worse]).pairs[0]
    assert (pair.overall.a_only, pair.overall.a_clusters, pair.overall.b_clusters) == (7, 1, 0)
    assert pair.overall.p_value == 1.0 and not pair.overall.significant

    suites = ("simple_python", "multiple", "parallel")
    a = make_report({s: "1" * 10 for s in suites}).model_copy(update={"label": "a"})
    b = make_report({s: "0" * 6 + "1" * 4 for s in suites}).model_copy(update={"label": "b"})
    pair = choose_models([a, b]).pairs[0]
    for test in pair.suites:
        assert test.p_value == 2 / 2**6 and test.p_adjusted == 3 * 2 / 2**6
        assert not test.significant  # raw p 0.031 < 0.05, but three suites were tested
    assert pair.overall.significant
