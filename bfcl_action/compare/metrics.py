"""Metrics of a run for teams that chart elsewhere: JSON, OpenMetrics text, and CloudWatch
Embedded Metric Format lines.

Per model and reported suite (plus `overall`): case counts by outcome, accuracy, the
infrastructure error rate, latency percentiles and token counts, all from the `CaseResult`
fields the runner fills (`latency_s`, `input_tokens`, `output_tokens`).

The OpenMetrics text uses only gauges and a summary and carries no sample timestamps, so the
same file is valid OpenMetrics 1.0 *and* Prometheus text format 0.0.4: it can be pushed as
is to a Prometheus Pushgateway (which reads the latter) or scraped by an OpenMetrics reader.
Accuracy and rates are ratios in [0, 1]; latency is in seconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field

from bfcl_action.compare.stats import percentile as percentile
from bfcl_action.core.cost import run_cost
from bfcl_action.core.records import CaseResult, RunReport

METRICS_SCHEMA_VERSION = 1
QUANTILES = (0.5, 0.9, 0.99)
OVERALL = "overall"


class LatencyStats(BaseModel):
    """Seconds per answered case; percentiles by linear interpolation (numpy's default)."""

    count: int = 0
    sum: float = 0.0
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None


class SuiteMetrics(BaseModel):
    suite: str
    category: str
    cases: int
    passed: int
    failed: int
    infra_errors: int
    accuracy: float | None
    """Passed over answered cases (infrastructure errors excluded), as a ratio."""
    error_rate: float
    """Share of the cases that got no answer (infrastructure errors), as a ratio."""
    latency_s: LatencyStats = Field(default_factory=LatencyStats)
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = None
    """What this run paid for the suite's answers (None: no price for the model)."""


class RunMetrics(BaseModel):
    schema_version: int = METRICS_SCHEMA_VERSION
    model: str
    mode: str
    created_at: str = ""
    fingerprint: str = ""
    datasets: list[str] = Field(default_factory=list)
    overall: SuiteMetrics
    suites: list[SuiteMetrics] = Field(default_factory=list)


def _suite_metrics(suite: str, category: str, results: Iterable[CaseResult]) -> SuiteMetrics:
    items = list(results)
    infra = sum(r.infra_error is not None for r in items)
    passed = sum(r.valid and r.infra_error is None for r in items)
    answered = len(items) - infra
    latencies = [r.latency_s for r in items if r.latency_s is not None and r.infra_error is None]
    return SuiteMetrics(
        suite=suite,
        category=category,
        cases=len(items),
        passed=passed,
        failed=answered - passed,
        infra_errors=infra,
        accuracy=passed / answered if answered else None,
        error_rate=infra / len(items) if items else 0.0,
        latency_s=LatencyStats(
            count=len(latencies),
            sum=round(sum(latencies), 6),
            p50=percentile(latencies, 0.5),
            p90=percentile(latencies, 0.9),
            p99=percentile(latencies, 0.99),
        ),
        input_tokens=sum(r.input_tokens or 0 for r in items),
        output_tokens=sum(r.output_tokens or 0 for r in items),
        cached_tokens=sum(r.cached_tokens or 0 for r in items),
        cost_usd=run_cost(items).cost_usd,
    )


def run_metrics(report: RunReport) -> RunMetrics:
    """Metrics of every suite of `report` and of the whole run (pure); dollars where the
    results are priced (`bfcl_action.core.cost`)."""
    by_suite: dict[str, list[CaseResult]] = {}
    for result in report.results:
        by_suite.setdefault(result.label(), []).append(result)
    suites = [
        _suite_metrics(label, items[0].category, items) for label, items in sorted(by_suite.items())
    ]
    return RunMetrics(
        model=report.model,
        mode=str(report.mode),
        created_at=report.created_at,
        fingerprint=report.fingerprint,
        datasets=list(report.datasets),
        overall=_suite_metrics(OVERALL, OVERALL, report.results),
        suites=suites,
    )


def render_metrics_json(report: RunReport) -> str:
    return run_metrics(report).model_dump_json(indent=1) + "\n"


# ------------------------------------------------------------------------------ OpenMetrics
def _label_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(pairs: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{_label_value(v)}"' for k, v in pairs.items()) + "}"


def _number(value: float | int) -> str:
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


class _Family:
    def __init__(self, name: str, kind: str, help_text: str, unit: str = "") -> None:
        self.name, self.kind, self.help, self.unit = name, kind, help_text, unit
        self.samples: list[str] = []

    def add(self, labels: dict[str, str], value: float | int, suffix: str = "") -> None:
        self.samples.append(f"{self.name}{suffix}{_labels(labels)} {_number(value)}")

    def text(self) -> str:
        head = [f"# TYPE {self.name} {self.kind}"]
        if self.unit:
            head.append(f"# UNIT {self.name} {self.unit}")
        head.append(f"# HELP {self.name} {self.help}")
        return "\n".join(head + self.samples)


def render_openmetrics(report: RunReport) -> str:
    """The run's metrics in OpenMetrics text (also Prometheus 0.0.4 text), ending `# EOF`."""
    metrics = run_metrics(report)
    families = {
        "accuracy": _Family("bfcl_accuracy_ratio", "gauge", "Passed over answered cases.", "ratio"),
        "cases": _Family("bfcl_cases", "gauge", "Cases by outcome (passed, failed, infra_error)."),
        "error_rate": _Family(
            "bfcl_infra_error_ratio", "gauge", "Share of cases that got no answer.", "ratio"
        ),
        "latency": _Family(
            "bfcl_latency_seconds", "summary", "Model latency per answered case.", "seconds"
        ),
        "tokens": _Family(
            "bfcl_tokens", "gauge", "Tokens used, by direction (input, output, cached_input)."
        ),
        "cost": _Family("bfcl_cost_dollars", "gauge", "What this run paid (US dollars)."),
        "timestamp": _Family(
            "bfcl_run_timestamp_seconds",
            "gauge",
            "When the run was made (Unix time); labels name its configuration.",
            "seconds",
        ),
    }
    base = {"model": metrics.model, "mode": metrics.mode}
    for row in [metrics.overall, *metrics.suites]:
        labels = {**base, "suite": row.suite}
        if row.accuracy is not None:
            families["accuracy"].add(labels, row.accuracy)
        for outcome, count in (
            ("passed", row.passed),
            ("failed", row.failed),
            ("infra_error", row.infra_errors),
        ):
            families["cases"].add({**labels, "outcome": outcome}, count)
        families["error_rate"].add(labels, row.error_rate)
        latency = row.latency_s
        for q, value in zip(QUANTILES, (latency.p50, latency.p90, latency.p99), strict=True):
            if value is not None:
                families["latency"].add({**labels, "quantile": str(q)}, value)
        families["latency"].add(labels, latency.count, "_count")
        families["latency"].add(labels, float(latency.sum), "_sum")
        families["tokens"].add({**labels, "direction": "input"}, row.input_tokens)
        families["tokens"].add({**labels, "direction": "output"}, row.output_tokens)
        families["tokens"].add({**labels, "direction": "cached_input"}, row.cached_tokens)
        if row.cost_usd is not None:
            families["cost"].add(labels, row.cost_usd)
    stamp = _epoch(metrics.created_at)
    if stamp is not None:
        families["timestamp"].add(
            {**base, "fingerprint": metrics.fingerprint, "datasets": ",".join(metrics.datasets)},
            stamp,
        )
    body = "\n".join(f.text() for f in families.values() if f.samples)
    return body + "\n# EOF\n"


def _epoch(created_at: str) -> float | None:
    from datetime import datetime

    if not created_at:
        return None
    try:
        return datetime.fromisoformat(created_at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# ------------------------------------------------------------ CloudWatch Embedded Metric Format
EMF_NAMESPACE = "BFCL"


def render_cloudwatch_emf(report: RunReport, *, namespace: str = EMF_NAMESPACE) -> str:
    """One CloudWatch Embedded Metric Format record per suite (and `overall`), one JSON
    object per line: a log line CloudWatch turns into metrics (`Accuracy`, `InfraErrorRate`,
    `LatencyP50`, tokens, `CostUSD`) with the dimensions Model and Suite, so an alarm can
    watch `Accuracy` of `overall` for a model (the recipe in docs/scheduled.md)."""
    import json

    metrics = run_metrics(report)
    stamp = _epoch(metrics.created_at)
    millis = int(stamp * 1000) if stamp is not None else 0
    lines = []
    for row in [metrics.overall, *metrics.suites]:
        values: dict[str, tuple[float | int, str]] = {
            "InfraErrorRate": (row.error_rate, "None"),
            "Cases": (row.cases, "Count"),
            "InputTokens": (row.input_tokens, "Count"),
            "OutputTokens": (row.output_tokens, "Count"),
            "CachedInputTokens": (row.cached_tokens, "Count"),
        }
        if row.accuracy is not None:
            values["Accuracy"] = (row.accuracy, "None")
        if row.latency_s.p50 is not None:
            values["LatencyP50"] = (row.latency_s.p50, "Seconds")
        if row.latency_s.p90 is not None:
            values["LatencyP90"] = (row.latency_s.p90, "Seconds")
        if row.cost_usd is not None:
            values["CostUSD"] = (row.cost_usd, "None")
        record: dict[str, object] = {
            "_aws": {
                "Timestamp": millis,
                "CloudWatchMetrics": [
                    {
                        "Namespace": namespace,
                        "Dimensions": [["Model", "Suite"]],
                        "Metrics": [{"Name": k, "Unit": u} for k, (_, u) in values.items()],
                    }
                ],
            },
            "Model": metrics.model,
            "Suite": row.suite,
            "Mode": metrics.mode,
            "Fingerprint": metrics.fingerprint,
            **{k: v for k, (v, _) in values.items()},
        }
        lines.append(json.dumps(record, sort_keys=True))
    return "\n".join(lines) + "\n"


def write_metrics(
    report: RunReport,
    *,
    json_path: Path | None = None,
    openmetrics_path: Path | None = None,
    emf_path: Path | None = None,
) -> list[Path]:
    """Write the requested metrics files (atomically); returns the paths written."""
    from bfcl_action.compare.history import write_atomic

    written = []
    if json_path is not None:
        write_atomic(json_path, render_metrics_json(report))
        written.append(json_path)
    if openmetrics_path is not None:
        write_atomic(openmetrics_path, render_openmetrics(report))
        written.append(openmetrics_path)
    if emf_path is not None:
        write_atomic(emf_path, render_cloudwatch_emf(report))
        written.append(emf_path)
    return written
