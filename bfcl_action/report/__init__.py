"""Renderers of comparisons and runs: PR comment, job summary, JSON, JUnit XML, SVG charts.

Layout lives in Jinja2 templates under `templates/`; untrusted text is escaped by
`bfcl_action.safety.escape` only.
"""

from bfcl_action.report.charts import render_history_svg, render_tools_svg, tool_count_curve
from bfcl_action.report.junit import render_junit
from bfcl_action.report.markdown import (
    COMMENT_LIMIT,
    SUMMARY_LIMIT,
    render_comment,
    render_json,
    render_summary,
)

__all__ = [
    "COMMENT_LIMIT",
    "SUMMARY_LIMIT",
    "render_comment",
    "render_history_svg",
    "render_json",
    "render_junit",
    "render_summary",
    "render_tools_svg",
    "tool_count_curve",
]
