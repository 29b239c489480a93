"""Scheduled runs of the Action against the local GitHub server: a weekly series of run
reports (the `report` input, so no model is called), and the alert issues they leave."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bfcl_action.github.alerts import ALERT_LABEL, alert_marker
from bfcl_action.github.context import DEFAULT_CHECK_NAME
from tests.support.action import ActionRun, run_action, write_report
from tests.support.github_server import GitHubServer
from tests.support.reports import make_report

HEALTHY = "1" * 20
DROPPED = "1" * 10 + "0" * 10  # 50 points down, 10 flips: significant
WORSE = "1" * 2 + "0" * 18  # a further 40 points down
SCHEDULE = {"schedule": "0 6 * * 1"}


def scheduled_run(
    server: GitHubServer,
    workdir: Path,
    week: int,
    outcomes: str,
    **inputs: str,
) -> ActionRun:
    """One scheduled run on main's tip; the workdir keeps the history file between runs
    (what the artifact download step does in the starter workflow)."""
    report = make_report(
        {"simple_python": outcomes, "simple_java": HEALTHY[:10]},
        created_at=f"2026-12-{week * 7:02d}T06:00:00Z",
    )
    name = write_report(workdir / f"week{week}.json", report)
    sha = server.repo("octo/app").branches["main"]
    return run_action(
        server, workdir, "schedule", SCHEDULE, sha=sha, in_process=True, report=name, **inputs
    )


def alerts(server: GitHubServer, state: str = "open") -> list[dict[str, Any]]:
    return [
        issue
        for issue in server.repo("octo/app").issues.values()
        if (state == "all" or issue["state"] == state)
        and ALERT_LABEL in {label["name"] for label in issue["labels"]}
        and alert_marker(DEFAULT_CHECK_NAME) in issue["body"]
    ]
