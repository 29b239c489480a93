"""JUnit XML of a run: one `<testcase>` per evaluated case, so any JUnit viewer lists them.

Suites become `<testsuite>`s; a failed case carries a `<failure>` with the BFCL error type
and the checker's messages, an infrastructure error an `<error>` (JUnit's "could not run",
not a failed assertion). Built with ElementTree, which escapes XML; characters XML cannot
hold are dropped by `escape.xml_text`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from bfcl_action.compare.runs import format_expected, format_got
from bfcl_action.core.records import CaseResult, RunReport
from bfcl_action.safety.escape import xml_text

_TEXT_LIMIT = 4000


def _failure_text(result: CaseResult) -> str:
    lines = list(result.error)
    if result.expected is not None:
        lines.append(f"expected: {format_expected(result.expected)}")
    got = format_got(result)
    if got is not None:
        lines.append(f"got: {got}")
    if result.question:
        lines.append(f"question: {result.question}")
    return "\n".join(lines)


def render_junit(report: RunReport, *, name: str = "bfcl-action") -> str:
    """The report as a JUnit XML document (UTF-8 text with an XML declaration)."""
    suites: dict[str, list[CaseResult]] = {}
    for result in report.results:
        suites.setdefault(result.label(), []).append(result)
    root = ET.Element("testsuites", name=xml_text(name))
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for label in sorted(suites):
        results = sorted(suites[label], key=lambda r: r.id)
        failures = sum(not r.valid and not r.infra_error for r in results)
        errors = sum(bool(r.infra_error) for r in results)
        elapsed = sum(r.latency_s or 0.0 for r in results)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=xml_text(label),
            tests=str(len(results)),
            failures=str(failures),
            errors=str(errors),
            skipped="0",
            time=f"{elapsed:.3f}",
        )
        props = ET.SubElement(suite, "properties")
        for key, value in (
            ("model", report.model),
            ("mode", str(report.mode)),
            ("fingerprint", report.fingerprint),
            ("datasets", ", ".join(report.datasets)),
        ):
            ET.SubElement(props, "property", name=key, value=xml_text(value))
        for result in results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=xml_text(label),
                name=xml_text(result.id),
                time=f"{result.latency_s or 0.0:.3f}",
            )
            if result.infra_error:
                node = ET.SubElement(
                    case, "error", message=xml_text(result.infra_error, 500), type="infra_error"
                )
                node.text = xml_text(result.infra_error, _TEXT_LIMIT)
            elif not result.valid:
                kind = result.error_type or "failed"
                first = result.error[0] if result.error else kind
                node = ET.SubElement(
                    case, "failure", message=xml_text(first, 500), type=xml_text(kind)
                )
                node.text = xml_text(_failure_text(result), _TEXT_LIMIT)
        totals["tests"] += len(results)
        totals["failures"] += failures
        totals["errors"] += errors
    for key, count in totals.items():
        root.set(key, str(count))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
