"""Metrics export: numbers from the case results, files a standard parser reads.

The OpenMetrics text is read back with prometheus_client's OpenMetrics parser (strict: it
rejects a missing `# EOF`, bad escapes, wrong suffixes) and with its Prometheus text-format
parser (what a Pushgateway accepts).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_prom

from bfcl_action.compare.metrics import percentile, render_openmetrics, run_metrics
from bfcl_action.core.records import RunReport
from tests.support.openai_server import OpenAIServer
from tests.support.reports import make_report
from tests.support.runner import run_cli


def timed_report(model: str = "gpt-test") -> RunReport:
    """Two suites; latencies 0.1 .. 1.0 s and 10/5 tokens on every answered case."""
    report = make_report({"simple_python": "1111100e", "simple_java": "10"}, model=model)
    results = []
    for i, r in enumerate(report.results):
        if r.infra_error is None:
            r = r.model_copy(
                update={"latency_s": (i + 1) / 10, "input_tokens": 10, "output_tokens": 5}
            )
        results.append(r)
    return report.model_copy(update={"results": results})


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in parse_om(text)
        for s in family.samples
    }


def test_counts_accuracy_and_error_rate_per_suite() -> None:
    m = run_metrics(timed_report())
    py = next(s for s in m.suites if s.suite == "simple_python")
    assert (py.cases, py.passed, py.failed, py.infra_errors) == (8, 5, 2, 1)
    assert py.accuracy == pytest.approx(5 / 7)
    assert py.error_rate == pytest.approx(1 / 8)
    assert (m.overall.cases, m.overall.passed) == (10, 6)


def test_latency_percentiles_and_tokens_come_from_answered_cases() -> None:
    m = run_metrics(timed_report())
    assert m.overall.latency_s.count == 9
    assert m.overall.latency_s.p50 == pytest.approx(
        percentile([0.1 * k for k in range(1, 11) if k != 8], 0.5)
    )
    assert m.overall.input_tokens == 90 and m.overall.output_tokens == 45


def test_percentile_interpolates_between_ranks() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([5.0], 0.99) == 5.0
    assert percentile([], 0.5) is None


def test_openmetrics_text_parses_with_the_standard_parser() -> None:
    got = samples(render_openmetrics(timed_report()))
    labels = frozenset({("model", "gpt-test"), ("mode", "fc"), ("suite", "simple_python")})
    assert got[("bfcl_accuracy_ratio", labels)] == pytest.approx(5 / 7)
    assert got[("bfcl_cases", labels | {("outcome", "infra_error")})] == 1
    assert got[("bfcl_latency_seconds_count", labels)] == 7
    assert got[("bfcl_tokens", labels | {("direction", "input")})] == 70
    overall = frozenset({("model", "gpt-test"), ("mode", "fc"), ("suite", "overall")})
    assert ("bfcl_latency_seconds", overall | {("quantile", "0.9")}) in got


def test_openmetrics_text_is_also_prometheus_text_format() -> None:
    families = {f.name: f.type for f in parse_prom(render_openmetrics(timed_report()))}
    assert families["bfcl_latency_seconds"] == "summary"
    assert families["bfcl_accuracy_ratio"] == "gauge"


def test_hostile_model_names_are_escaped_in_labels() -> None:
    name = 'evil"model\\with\nnewline'
    got = samples(render_openmetrics(timed_report(model=name)))
    models = {dict(labels)["model"] for _, labels in got}
    assert models == {name}


def test_metrics_json_has_every_suite_and_the_overall_row() -> None:
    data = json.loads(run_metrics(timed_report()).model_dump_json())
    assert [s["suite"] for s in data["suites"]] == ["simple_java", "simple_python"]
    assert data["overall"]["latency_s"]["count"] == 9


def test_run_writes_both_metrics_files(env: OpenAIServer, tmp_path: Path) -> None:
    code = run_cli(
        env,
        tmp_path,
        "--metrics-json",
        str(tmp_path / "m.json"),
        "--metrics-openmetrics",
        str(tmp_path / "m.prom"),
    )
    assert code == 0
    data = json.loads((tmp_path / "m.json").read_text())
    assert data["model"] == "test-model" and data["overall"]["cases"] > 0
    assert data["overall"]["latency_s"]["count"] == data["overall"]["cases"]
    families = {f.name for f in parse_om((tmp_path / "m.prom").read_text())}
    assert {"bfcl_accuracy_ratio", "bfcl_cases", "bfcl_latency_seconds"} <= families


def test_the_otlp_recipe_in_the_docs_turns_metrics_json_into_otlp(tmp_path: Path) -> None:
    import re
    import shutil
    import subprocess

    if shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    docs = (Path(__file__).parents[2] / "docs" / "scheduled.md").read_text()
    [program] = re.findall(r"```jq\n(.*?)```", docs, re.S)
    (tmp_path / "otlp.jq").write_text(program)
    (tmp_path / "metrics.json").write_text(run_metrics(timed_report()).model_dump_json())
    out = subprocess.run(
        ["jq", "-f", str(tmp_path / "otlp.jq"), str(tmp_path / "metrics.json")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    [scope] = json.loads(out)["resourceMetrics"][0]["scopeMetrics"]
    by_name = {m["name"]: m["gauge"]["dataPoints"] for m in scope["metrics"]}
    accuracy = {
        next(a["value"]["stringValue"] for a in p["attributes"] if a["key"] == "suite"): p
        for p in by_name["bfcl.accuracy"]
    }
    assert accuracy["simple_python"]["asDouble"] == pytest.approx(5 / 7)
    assert re.fullmatch(r"\d{19}", accuracy["overall"]["timeUnixNano"])
    assert len(by_name["bfcl.tokens.input"]) == 3
