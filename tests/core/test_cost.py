"""Tokens and dollars: per answer from the responses, per run from `.bfcl.yml`'s `pricing:`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om

from bfcl_action.compare.metrics import render_cloudwatch_emf, render_openmetrics, run_metrics
from bfcl_action.core.cost import Price, answer_cost, cost_line, price_for, priced, run_cost
from bfcl_action.core.errors import ConfigError
from bfcl_action.core.records import CaseResult, RunReport
from bfcl_action.settings.config import load_config
from tests.support.openai_server import OpenAIServer

PRICE = Price(input=2.0, output=8.0, cached_input=0.5)


def result(**kw: object) -> CaseResult:
    values: dict[str, object] = {"id": "simple_python_0", "category": "simple_python"}
    values.update({"valid": True, "input_tokens": 1000, "output_tokens": 100, **kw})
    return CaseResult.model_validate(values)


def test_an_answer_costs_prompt_cached_and_completion_tokens_at_their_rates() -> None:
    # 600 fresh prompt tokens at $2, 400 prompt-cached at $0.5, 100 completion at $8 per 1M
    dollars = answer_cost(result(cached_tokens=400), PRICE)
    assert dollars == pytest.approx((600 * 2 + 400 * 0.5 + 100 * 8) / 1e6)


def test_a_batch_answer_costs_the_discounted_price() -> None:
    assert answer_cost(result(batch=True), PRICE) == pytest.approx(
        answer_cost(result(), PRICE) * 0.5
    )


def test_reused_answers_count_in_the_full_cost_only() -> None:
    results, name = priced(
        [result(), result(reused=True), result(infra_error="x")], "m", {"m": PRICE}
    )
    cost = run_cost(results, name)
    one = answer_cost(result(), PRICE)
    assert (cost.answers, cost.reused) == (2, 1)
    assert cost.cost_usd == pytest.approx(one)
    assert cost.full_cost_usd == pytest.approx(2 * one)
    assert "1 answers reused from the cache" in cost_line(cost)


def test_a_model_without_a_price_reports_tokens_and_says_how_to_price_it() -> None:
    results, name = priced([result()], "unknown-model", {"m": PRICE})
    cost = run_cost(results, name)
    assert cost.cost_usd is None and cost.input_tokens == 1000
    assert "add it under `pricing:`" in cost_line(cost)


def test_prices_match_a_model_by_name_then_by_the_longest_glob() -> None:
    pricing = {"gpt-4o*": Price(input=5, output=15), "gpt-4o-mini*": PRICE, "o3": PRICE}
    assert price_for("gpt-4o-mini-2024-07-18", pricing) == ("gpt-4o-mini*", PRICE)
    assert price_for("o3", pricing) == ("o3", PRICE)
    assert price_for("claude", pricing) is None


def test_a_bad_price_in_the_config_names_file_line_and_field(tmp_path: Path) -> None:
    config = tmp_path / ".bfcl.yml"
    config.write_text("version: 1\npricing:\n  gpt-4o-mini:\n    input: -1\n    output: 0.6\n")
    with pytest.raises(ConfigError) as err:
        load_config(config)
    text = str(err.value)
    assert ".bfcl.yml" in text and "pricing" in text and ":4" in text


def priced_report() -> RunReport:
    results, name = priced(
        [
            result(id="simple_python_0", latency_s=0.5),
            result(id="simple_python_1", batch=True, valid=False),
            result(id="simple_java_0", category="simple_java", reused=True),
        ],
        "gpt-test",
        {"gpt-test": PRICE},
    )
    return RunReport(
        model="gpt-test", results=results, cost=run_cost(results, name),
        created_at="2026-12-01T06:00:00+00:00",
    )  # fmt: skip


def test_metrics_carry_cached_tokens_and_this_runs_cost() -> None:
    report = priced_report()
    m = run_metrics(report)
    java = next(s for s in m.suites if s.suite == "simple_java")
    assert java.cost_usd == 0.0  # reused: paid by an earlier run
    assert m.overall.cost_usd == pytest.approx(answer_cost(result(), PRICE) * 1.5)
    families = {f.name: f for f in parse_om(render_openmetrics(report))}
    assert "bfcl_cost_dollars" in families


def test_cloudwatch_emf_lines_declare_every_metric_they_carry() -> None:
    lines = render_cloudwatch_emf(priced_report()).splitlines()
    assert len(lines) == 3  # overall + two suites
    for line in lines:
        record = json.loads(line)
        [directive] = record["_aws"]["CloudWatchMetrics"]
        assert record["_aws"]["Timestamp"] == 1796104800000  # 2026-12-01T06:00Z, in milliseconds
        assert directive["Dimensions"] == [["Model", "Suite"]]
        for metric in directive["Metrics"]:
            assert isinstance(record[metric["Name"]], int | float)
        assert {"Model", "Suite"} <= record.keys()
    overall = json.loads(lines[0])
    assert overall["Suite"] == "overall" and "CostUSD" in overall and "Accuracy" in overall


def test_a_run_reports_tokens_and_dollars_from_the_responses(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bfcl_action.cli import main
    from tests.support.runner import LIVE, weather_responder

    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(LIVE))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-printed")
    server.responder = weather_responder
    config = tmp_path / ".bfcl.yml"
    config.write_text(
        "version: 1\nsuites: {own: []}\n"
        "pricing:\n  test-model: {input: 2.0, output: 8.0, cached_input: 0.5}\n"
    )
    out = tmp_path / "run.json"
    emf = tmp_path / "metrics.emf"
    argv = [
        "run", "--config", str(config), "--dataset", "live@2026-W48", "--model", "test-model",
        "--base-url", server.base_url, "--cache", str(tmp_path / "cache"), "--output", str(out),
        "--metrics-emf", str(emf), "--quiet",
    ]  # fmt: skip
    assert main(argv) == 0
    report = RunReport.model_validate_json(out.read_text())
    assert report.cost is not None and report.cost.priced_as == "test-model"
    answered = [r for r in report.results if r.infra_error is None]
    # the local server reports 10 prompt tokens (4 of them prompt-cached) and 5 completion
    assert report.cost.input_tokens == 10 * len(answered)
    assert report.cost.cached_tokens == 4 * len(answered)
    each = (6 * 2.0 + 4 * 0.5 + 5 * 8.0) / 1e6
    assert report.cost.cost_usd == pytest.approx(each * len(answered), abs=1e-6)
    assert json.loads(emf.read_text().splitlines()[0])["CostUSD"] == pytest.approx(
        report.cost.cost_usd, abs=1e-6
    )
    assert main(argv) == 0  # the rerun reuses every answer: this run paid nothing
    again = RunReport.model_validate_json(out.read_text())
    assert again.cost is not None and again.cost.cost_usd == 0.0
    assert again.cost.full_cost_usd == pytest.approx(report.cost.full_cost_usd)


def test_the_pr_comment_states_the_head_runs_cost() -> None:
    from bfcl_action.compare.runs import compare_runs
    from bfcl_action.report import render_comment

    head = priced_report()
    comparison = compare_runs(None, head)
    text = render_comment(comparison)
    assert "Cost: **$" in text and "this run" in text and "prompt-cached" in text
    unpriced = head.model_copy(update={"cost": run_cost(head.results)})
    unpriced.cost.cost_usd = None  # type: ignore[union-attr]
    assert "add it under `pricing:`" in render_comment(compare_runs(None, unpriced))


def test_a_dry_run_counts_what_the_run_would_ask_and_its_cost_without_asking(
    server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bfcl_action.cli import main
    from tests.support.runner import LIVE, weather_responder

    monkeypatch.setenv("BFCL_ACTION_LIVE_DIR", str(LIVE))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-printed")
    server.responder = weather_responder
    config = tmp_path / ".bfcl.yml"
    config.write_text(
        "version: 1\nsuites: {own: []}\npricing:\n  test-model: {input: 2.0, output: 8.0}\n"
    )
    base = [
        "run", "--config", str(config), "--dataset", "live@2026-W48", "--model", "test-model",
        "--base-url", server.base_url, "--cache", str(tmp_path / "cache"), "--quiet",
        "--output", str(tmp_path / "run.json"),
    ]  # fmt: skip

    assert main([*base, "--dry-run"]) == 0
    cold = capsys.readouterr().out
    assert server.count == 0  # a dry run asks nothing
    assert not (tmp_path / "run.json").exists()
    match = re.search(r"(\d+) requests: (\d+) to ask, 0 answered from the cache \(0% hit", cold)
    assert match and match.group(1) == match.group(2) and int(match.group(1)) > 0
    assert "estimated cost $" in cold and "with --batch" in cold

    assert main(base) == 0
    asked = server.count
    assert asked == int(match.group(2))  # the dry run counted exactly what the run asked
    capsys.readouterr()
    assert main([*base, "--dry-run"]) == 0
    warm = capsys.readouterr().out
    assert f"{asked} requests: 0 to ask, {asked} answered from the cache (100% hit" in warm
    assert "estimated cost $0.0000" in warm and "sized from the cache" in warm
    assert server.count == asked
