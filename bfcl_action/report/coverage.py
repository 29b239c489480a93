"""Which tools no own case expects, and the command that would draft cases for them.

A PR that breaks a tool's description is only caught by cases that expect that tool, so the
comment names the tools without one (the derived irrelevance suite offers every tool but
expects none, so it does not count).
"""

from __future__ import annotations

from collections.abc import Iterable

from bfcl_action.core.records import RunReport

COMMAND_TOOLS = 10
"""Tools named in the suggested command; more would make a line nobody copies."""


def tools_without_cases(tools: Iterable[str], report: RunReport) -> list[str]:
    """Tools (in the order given) that no own case of the report expects a call to.

    Empty when the report holds no own case at all: a run of official sets only is not
    asked to cover the repository's tools.
    """
    own = [r for r in report.results if r.category.startswith("own_")]
    if not own:
        return []
    expected = {name for r in own for call in r.expected or [] for name in call}
    return [t for t in dict.fromkeys(tools) if t not in expected]


def generate_command(tools: list[str]) -> str:
    """`bfcl-action generate --tools ...` for the first `COMMAND_TOOLS` tools."""
    return "bfcl-action generate --tools " + ",".join(tools[:COMMAND_TOOLS])
