"""The model-choice view: which of several models' runs over the same cases is best, how
sure that is, and what each costs; `bfcl-action compare-models` end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.cli import main
from bfcl_action.compare.model_choice import ModelChoice, choose_models, display_names, mirrored
from bfcl_action.core.records import Mode, RunCost, RunReport
from bfcl_action.report.model_choice import (
    render_model_choice_json,
    render_model_choice_markdown,
    render_model_choice_text,
)
from bfcl_action.results.run_reports import save_report
from bfcl_action.safety import escape
from tests.support.reports import make_report

SUITE = "simple_python"


def run(outcomes: str, model: str = "gpt-test", *, label: str = "", **suites: str) -> RunReport:
    """A report of `model` with one `simple_python` case per character of `outcomes`
    (`1` passed, `0` failed, `e` infrastructure error), plus any other suites."""
    report = make_report({SUITE: outcomes, **suites}, model=model)
    report.label = label
    return report


def timed(report: RunReport, seconds: list[float], *, reused: bool = False) -> RunReport:
    for result, latency in zip(report.results, seconds, strict=False):
        result.latency_s = latency
        result.reused = reused
    return report


# --- scores and the verdict -------------------------------------------------------------------


def test_a_model_much_better_on_the_same_cases_is_the_clear_best() -> None:
    strong = run("1" * 30, "gpt-4.1")
    weak = run("1" * 10 + "0" * 20, "gpt-4.1-mini")
    choice = choose_models([weak, strong])
    assert choice.best is not None
    assert (choice.best.name, choice.best.clear, choice.best.beats) == (
        "gpt-4.1",
        True,
        ["gpt-4.1-mini"],
    )
    test = choice.pair("gpt-4.1", "gpt-4.1-mini")
    assert (test.n, test.a_only, test.b_only) == (30, 20, 0)
    assert test.delta_points == pytest.approx(200 / 3)
    assert test.significant and test.p_value < 1e-5


def test_tables_keep_the_order_given_and_the_ranking_is_separate() -> None:
    choice = choose_models([run("1" * 10 + "0" * 20, "weak"), run("1" * 30, "strong")])
    assert [m.name for m in choice.models] == ["weak", "strong"]
    assert [(r.rank, r.name) for r in choice.ranking] == [(1, "strong"), (2, "weak")]


def test_a_lead_within_noise_is_no_clear_best() -> None:
    a = run("1" * 28 + "00", "a")
    b = run("1" * 26 + "00" + "10", "b")  # two cases worse, one better
    choice = choose_models([a, b])
    assert choice.best is not None
    assert (choice.best.name, choice.best.clear, choice.best.tied_with) == ("a", False, ["b"])
    test = choice.pair("a", "b")
    assert (test.a_only, test.b_only, test.significant) == (2, 1, False)
    assert test.p_value == pytest.approx(1.0)
    text = render_model_choice_markdown(choice)
    assert "**No clear best on your cases**" in text
    assert "not significantly better than `b`" in text


def test_per_suite_scores_and_tests_use_the_case_labels() -> None:
    a = run("1" * 20, "a", own_weather="1" * 10)
    b = run("1" * 20, "b", own_weather="0" * 10)
    choice = choose_models([a, b])
    assert choice.suites == ["own_weather", SUITE]
    assert choice.model("b").suites["own_weather"].accuracy == 0
    by_suite = {t.suite: t for t in choice.pairs[0].suites}
    assert by_suite["own_weather"].a_only == 10 and by_suite["own_weather"].significant
    assert by_suite[SUITE].n == 20 and not by_suite[SUITE].significant


def test_cases_are_paired_by_id_on_the_ones_both_reports_hold() -> None:
    a = run("1" * 20 + "1" * 10, "a")  # ten more cases than b
    b = run("0" * 5 + "1" * 15, "b")
    choice = choose_models([a, b])
    pairing = choice.pairs[0]
    assert (pairing.overall.n, pairing.only_in_a, pairing.only_in_b) == (20, 10, 0)
    assert (pairing.overall.a_only, pairing.overall.b_only) == (5, 0)
    assert choice.case_sets_differ and choice.common_cases == 20
    assert choice.model("a").overall.total == 30 and choice.model("a").common.total == 20
    assert any("different cases" in n for n in choice.notes)
    assert any("only in a" in n for n in pairing.notes)


def test_infrastructure_errors_are_left_out_of_scores_and_pairs() -> None:
    a = run("e" * 3 + "1" * 7, "a")
    b = run("0" * 3 + "1" * 7, "b")
    choice = choose_models([a, b])
    assert choice.model("a").overall.total == 7 and choice.model("a").infra_errors == 3
    assert choice.model("b").overall.total == 10
    test = choice.pairs[0].overall
    assert (test.n, test.a_only, test.b_only, test.delta_points) == (7, 0, 0, 0.0)
    assert choice.pairs[0].unanswered == 3
    assert choice.common_cases == 7


def test_with_no_case_answered_by_all_there_is_no_ranking_basis() -> None:
    choice = choose_models([run("1" * 5, "a"), run("e" * 5, "b")])
    assert choice.best is None and choice.common_cases == 0
    assert "No ranking" in render_model_choice_markdown(choice)


def test_one_model_is_shown_with_nothing_to_compare() -> None:
    choice = choose_models([run("1" * 5, "a")])
    assert choice.pairs == [] and choice.best is not None and not choice.best.clear
    assert "nothing to compare" in render_model_choice_markdown(choice)


def test_the_matrix_entry_name_comes_before_the_model() -> None:
    assert display_names([run("1", "gpt-4.1", label="prod"), run("1", "gpt-4.1")]) == [
        "prod",
        "gpt-4.1",
    ]


def test_a_repeated_name_is_told_apart_by_mode_else_by_number() -> None:
    fc, prompt = run("1", "gpt"), run("1", "gpt")
    prompt.mode = Mode.PROMPT
    assert display_names([prompt, fc]) == ["gpt (prompt)", "gpt"]
    assert display_names([run("1", "gpt"), run("1", "gpt"), run("1", "gpt")]) == [
        "gpt",
        "gpt (2)",
        "gpt (3)",
    ]
    assert display_names([run("1", "gpt"), run("1", "gpt"), run("1", "gpt (2)")]) == [
        "gpt",
        "gpt (2)",
        "gpt (2)'",
    ]


def test_duplicate_names_still_give_one_pair_per_two_models() -> None:
    choice = choose_models([run("1" * 10, "gpt"), run("0" * 10, "gpt")])
    assert [(p.a, p.b) for p in choice.pairs] == [("gpt", "gpt (2)")]
    assert choice.best is not None and choice.best.name == "gpt"


# --- cost, latency, samples -------------------------------------------------------------------


def test_cost_and_latency_are_reported_per_model() -> None:
    a = timed(run("1" * 5, "a"), [0.1, 0.2, 0.3, 0.4, 10.0])
    a.cost = RunCost(
        answers=5, input_tokens=500, output_tokens=50, cost_usd=0.01, full_cost_usd=0.03
    )
    model = choose_models([a, run("1" * 5, "b")]).model("a")
    assert (model.cost_usd, model.full_cost_usd, model.input_tokens) == (0.01, 0.03, 500)
    assert model.latency.p50 == pytest.approx(0.3)
    assert model.latency.p95 == pytest.approx(0.4 + (10.0 - 0.4) * 0.8)
    assert model.latency.basis == "fresh"


def test_latency_leaves_out_cached_answers_when_some_were_asked_afresh() -> None:
    a = timed(run("1" * 4, "a"), [5.0, 5.0, 1.0, 1.0])
    for result in a.results[:2]:
        result.reused = True
    latency = choose_models([a, run("1" * 4, "b")]).model("a").latency
    assert (latency.p50, latency.n, latency.basis) == (1.0, 2, "fresh")


def test_all_cached_answers_still_give_a_latency_and_say_so() -> None:
    a = timed(run("1" * 2, "a"), [2.0, 4.0], reused=True)
    choice = choose_models([a, run("1" * 2, "b")])
    assert choice.model("a").latency.basis == "cached"
    assert choice.model("b").latency.basis == "none" and choice.model("b").latency.p50 is None
    assert "3.00 s / 3.90 s (cached answers)" in render_model_choice_markdown(choice)


def test_without_prices_cost_is_none_but_tokens_are_counted() -> None:
    a = run("1" * 3, "a")
    for result in a.results:
        result.input_tokens, result.output_tokens = 100, 7
    model = choose_models([a, run("1" * 3, "b")]).model("a")
    assert model.cost_usd is None and (model.input_tokens, model.output_tokens) == (300, 21)
    text = render_model_choice_markdown(choose_models([a, run("1" * 3, "b")]))
    assert "no price" in text and "300 / 21" in text


def test_equal_accuracy_ranks_the_cheaper_model_first_then_the_faster() -> None:
    pricey, cheap, fast = run("1" * 5, "pricey"), run("1" * 5, "cheap"), run("1" * 5, "fast")
    pricey.cost = RunCost(cost_usd=0.0, full_cost_usd=0.9)  # all cached: plan cost counts
    cheap.cost = RunCost(cost_usd=0.1, full_cost_usd=0.1)
    fast.cost = RunCost(cost_usd=0.1, full_cost_usd=0.1)
    timed(cheap, [2.0] * 5)
    timed(fast, [1.0] * 5)
    choice = choose_models([pricey, cheap, fast])
    assert [r.name for r in choice.ranking] == ["fast", "cheap", "pricey"]
    assert choice.best is not None and choice.best.tied_with == ["cheap", "pricey"]
    assert choice.best.cheapest_of_tied == "fast"
    assert (choice.best.level_with, choice.best.ahead_by) == (["cheap", "pricey"], "latency")
    assert (
        "**No clear best on your cases**: `fast` leads with 100.0% (as good as `cheap`, "
        "`pricey`; ranked first as the faster), on the 5 cases every model answered."
    ) in render_model_choice_markdown(choice)


def test_a_tie_broken_by_cost_says_so_and_names_the_noisy_rest() -> None:
    cheap, pricey, worse = (
        run("1" * 10, "cheap"),
        run("1" * 10, "pricey"),
        run("1" * 9 + "0", "worse"),
    )
    cheap.cost = RunCost(cost_usd=0.1, full_cost_usd=0.1)
    pricey.cost = RunCost(cost_usd=0.5, full_cost_usd=0.5)
    choice = choose_models([pricey, worse, cheap])
    assert choice.best is not None
    assert (choice.best.name, choice.best.ahead_by, choice.best.level_with) == (
        "cheap",
        "cost",
        ["pricey"],
    )
    assert render_model_choice_text(choice).splitlines()[0] == (
        "bfcl-action compare-models: no clear best: cheap leads with 100.0% (as good as "
        "pricey; ranked first as the cheaper) but is not significantly better than worse "
        "(90.0%, p 1.000) at alpha 0.05, on the 10 cases every model answered"
    )
    assert "cheaper first" in choice.tie_break


def test_repeated_samples_judge_by_the_first_sample_and_show_the_mean() -> None:
    a, b = run("1" * 4, "a"), run("1" * 4, "b")
    for result in a.results:
        result.samples = [True, False]
    choice = choose_models([a, b])
    model = choice.model("a")
    assert model.overall.accuracy == 1.0
    assert model.repeat is not None
    assert (model.repeat.samples, model.repeat.mean_accuracy, model.repeat.pass_all) == (2, 0.5, 0)
    assert model.repeat.unstable == 4
    assert choice.pairs[0].overall.delta_points == 0
    assert any("first sample" in n for n in choice.notes)
    assert "50.0% / 0.0% (k=2)" in render_model_choice_markdown(choice)


# --- rendering --------------------------------------------------------------------------------


HOSTILE = "mini|`x` @team <img src=x> #12 ::warning::"


def _cells(row: str) -> list[str]:
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


def test_markdown_escapes_a_hostile_model_name_everywhere() -> None:
    choice = choose_models([run("1" * 30, "gpt-4.1"), run("0" * 30, HOSTILE)])
    text = render_model_choice_markdown(choice)
    rest = text.replace(escape.md_code(HOSTILE, in_table=True), "")
    rest = rest.replace(escape.md_code(HOSTILE), "")
    assert "<img" not in rest and "@team" not in rest and "#12" not in rest
    assert "::warning" not in text
    assert_tables_are_whole(text)


def assert_tables_are_whole(text: str) -> None:
    """Every table: a header, a separator, rows of the header's width, no stray blank line."""
    tables: list[list[str]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    assert tables
    for table in tables:
        assert len(table) >= 3, table
        assert re.fullmatch(r"\|(:?-+:?\|)+", table[1]), table
        width = len(_cells(table[0]))
        assert all(len(_cells(row)) == width for row in table), table


def test_markdown_verdict_names_the_best_and_every_other_with_p() -> None:
    choice = choose_models([run("1" * 30, "gpt-4.1"), run("1" * 10 + "0" * 20, "mini")])
    text = render_model_choice_markdown(choice, heading_level=2)
    assert text.startswith("## Which model should we ship?")
    assert "**`gpt-4.1` is best on your cases**: 100.0% vs 33.3% (`mini`, p < 0.001)" in text
    assert "| `gpt-4.1` vs `mini` | 30 | 20 | 0 | +66.7 | < 0.001 | **yes** |" in text


def test_a_suite_score_is_bold_only_when_significantly_better_than_every_other() -> None:
    a = run("1" * 20, "a", own_weather="1" * 10, own_parallel="11")
    b = run("1" * 20, "b", own_weather="0" * 10, own_parallel="00")
    c = run("1" * 20, "c", own_weather="0" * 10, own_parallel="00")
    text = render_model_choice_markdown(choose_models([a, b, c]))
    assert "| `own_weather` | **100.0% (72.2–100.0)** | 0.0% (0.0–27.8) |" in text
    assert "| `own_parallel` | 100.0% (34.2–100.0) |" in text  # 2 cases: not significant
    assert "**" not in text.split("| `simple_python` |")[1].splitlines()[0]


def test_empty_latency_and_token_columns_are_left_out() -> None:
    text = render_model_choice_markdown(choose_models([run("1", "a"), run("1", "b")]))
    assert "| # | Model | Score (95% CI) | Cost |\n" in text
    timed_run = timed(run("1", "c"), [1.0])
    text = render_model_choice_markdown(choose_models([run("1", "a"), timed_run]))
    assert "| Cost | Latency p50 / p95 |\n" in text and "| no price | — |" in text
    assert_tables_are_whole(text)


def test_markdown_suite_rows_are_capped_with_a_note() -> None:
    extra = {f"own_s{i}": "1" for i in range(5)}
    choice = choose_models([run("1", "a", **extra), run("1", "b", **extra)])
    text = render_model_choice_markdown(choice, max_suites=2)
    assert "| `own_s0` |" in text and "| `own_s2` |" not in text
    assert "4 more suite(s) not shown" in text


def test_text_view_lists_models_suites_and_pairs() -> None:
    choice = choose_models([run("1" * 30, "gpt-4.1"), run("1" * 10 + "0" * 20, "mini")])
    text = render_model_choice_text(choice)
    assert text.startswith("bfcl-action compare-models: gpt-4.1 is best on your cases")
    assert re.search(r"gpt-4\.1 vs mini\s+30\s+20\s+0\s+\+66\.7\s+< 0\.001\s+yes", text)
    assert "per suite:" in text


def test_json_round_trips_to_the_model() -> None:
    choice = choose_models([run("1" * 3, "a"), run("0" * 3, "b")])
    assert ModelChoice.model_validate_json(render_model_choice_json(choice)) == choice


# --- properties -------------------------------------------------------------------------------


outcome_strings = st.text(alphabet="10e", min_size=1, max_size=40)


@given(st.data())
def test_swapping_two_models_mirrors_the_paired_test(data: st.DataObject) -> None:
    a_outcomes = data.draw(outcome_strings)
    b_outcomes = data.draw(st.text(alphabet="10e", min_size=len(a_outcomes), max_size=40))
    a, b = run(a_outcomes, "a"), run(b_outcomes, "b")
    forward = choose_models([a, b]).pairs[0]
    backward = choose_models([b, a]).pairs[0]
    assert backward.overall == mirrored(forward.overall)
    assert backward.overall.p_value == forward.overall.p_value
    assert (backward.overall.a_only, backward.overall.b_only) == (
        forward.overall.b_only,
        forward.overall.a_only,
    )
    if forward.overall.delta_points is not None:
        assert backward.overall.delta_points == -forward.overall.delta_points
    assert [mirrored(t) for t in forward.suites] == backward.suites
    assert (backward.only_in_a, backward.only_in_b) == (forward.only_in_b, forward.only_in_a)


# --- the command ------------------------------------------------------------------------------


@pytest.fixture
def reports(tmp_path: Path) -> tuple[Path, Path]:
    strong, weak = tmp_path / "strong.json", tmp_path / "weak.json"
    save_report(run("1" * 30, "gpt-4.1", label="prod"), strong)
    save_report(run("1" * 10 + "0" * 20, "gpt-4.1-mini"), weak)
    return strong, weak


def test_compare_models_prints_the_text_view(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare-models", *map(str, reports)]) == 0
    out = capsys.readouterr().out
    assert "prod is best on your cases: 100.0% vs 33.3% (gpt-4.1-mini, p < 0.001)" in out


def test_compare_models_writes_markdown_and_json(
    tmp_path: Path, reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    md, js = tmp_path / "out" / "choice.md", tmp_path / "out" / "choice.json"
    assert (
        main(["compare-models", *map(str, reports), "--format", "markdown", "--output", str(md)])
        == 0
    )
    assert "**`prod` is best on your cases**" in md.read_text(encoding="utf-8")
    assert "wrote" in capsys.readouterr().out
    args = [
        "compare-models",
        *map(str, reports),
        "--format",
        "json",
        "--output",
        str(js),
        "--alpha",
        "0.01",
    ]
    assert main(args) == 0
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data["alpha"] == 0.01 and data["best"]["name"] == "prod"


def test_reports_of_one_model_are_told_apart_by_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    save_report(run("1" * 30, "gpt-4o-mini"), base)
    save_report(run("1" * 10 + "0" * 20, "gpt-4o-mini"), head)
    assert main(["compare-models", str(base), str(head)]) == 0
    out = capsys.readouterr().out
    assert "gpt-4o-mini (base) is best on your cases: 100.0% vs 33.3% (gpt-4o-mini (head)" in out


def test_compare_models_needs_two_reports(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare-models", str(reports[0])]) == 2
    err = capsys.readouterr().err
    assert str(reports[0]) in err and "at least two" in err


def test_compare_models_names_an_unreadable_report(
    tmp_path: Path, reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    missing, bad = tmp_path / "missing.json", tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "results": 3}', encoding="utf-8")
    assert main(["compare-models", str(reports[0]), str(missing)]) == 2
    assert f"{missing}: cannot read the run report" in capsys.readouterr().err
    assert main(["compare-models", str(reports[0]), str(bad)]) == 2
    assert f"{bad}: results: not a bfcl-action run report" in capsys.readouterr().err


def test_compare_models_refuses_reports_with_no_case_in_common(
    tmp_path: Path, reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.json"
    save_report(make_report({"own_weather": "111"}, model="other"), other)
    assert main(["compare-models", str(reports[0]), str(other)]) == 2
    err = capsys.readouterr().err
    assert f"{other}: the reports have no case in common" in err
    assert "(30 cases)" in err and "(3 cases)" in err


def test_compare_models_refuses_reports_no_case_of_which_all_answered(
    tmp_path: Path, reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    down = tmp_path / "down.json"
    save_report(run("e" * 30, "down"), down)
    assert main(["compare-models", str(reports[0]), str(down)]) == 2
    assert f"{down}: no case was answered by every model" in capsys.readouterr().err


def test_compare_models_checks_alpha(
    reports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare-models", *map(str, reports), "--alpha", "1.5"]) == 2
    assert "--alpha" in capsys.readouterr().err


def test_compare_models_draws_each_models_distractor_curve(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from tests.support.reports import distractor_report

    save_report(distractor_report("steady", 0), tmp_path / "a.json")
    save_report(distractor_report("fragile", 4), tmp_path / "b.json")
    chart = tmp_path / "charts" / "tools.svg"
    code = main(["compare-models", str(tmp_path / "a.json"), str(tmp_path / "b.json"),
                 "--svg-tools", str(chart), "--output", str(tmp_path / "view.txt")])  # fmt: skip
    assert code == 0
    svg = "{http://www.w3.org/2000/svg}"
    titles = [t.text or "" for t in ET.fromstring(chart.read_text()).iter(f"{svg}title")]
    assert "steady, 8 tools: 100.0% (10/10)" in titles
    assert "fragile, 8 tools: 20.0% (2/10)" in titles
